"""Attacks on numpy object arrays: every way tool code can make one, every way to its memory.

An object array's memory is raw pointers to Python objects; pointers written there forge
references (the real builtins). Operators make object arrays past any check of the view, so
the view gates the buffer protocol of numpy's arrays and void scalars themselves
(``sandbox/language/bufferless.py``): whatever C function asks, one holding object pointers
exports no buffer. Each attack must end in a structured error (``policy`` where the gate's
refusal reaches the worker, ``tool_error`` where CPython words it as a ``TypeError``), and the
runtime must keep serving.
"""

from __future__ import annotations

import base64
import ctypes
import decimal
import hashlib
import io
import sys

import pytest

from runtime import Runtime
from sandbox.common.limits import Limits
from sandbox.messages import Call
from sandbox.process.pool import WorkerPool
from tests.attacks import assert_refused, assert_refused_when_added_or_called, attack

np = pytest.importorskip("numpy")

from sandbox.language import bufferless  # noqa: E402 - needs numpy's extra (cffi)
from sandbox.language.numpy_view import OBJECT_ARRAYS, _pointers_in  # noqa: E402

IMPORTS = (
    "import numpy as np, decimal, fractions, operator, functools, itertools, math, io\n"
    "import hashlib, hmac, secrets, zlib, gzip, base64, binascii, re\n"
)
CLASSES = (
    "class Box:\n    def __radd__(self, other):\n        return self\n"
    "class S(super):\n    pass\n"
    "class Lt:\n    def __lt__(self, other):\n        return True\n"
)

MAKERS = {
    "operator-decimal": "np.arange(2) + decimal.Decimal(1)",
    "reflected-decimal": "decimal.Decimal(1) + np.arange(2)",
    "fraction": "np.arange(2) * fractions.Fraction(1, 2)",
    "big-int-list": "np.arange(2) + [2**70, 1]",
    "sum": "sum([np.arange(2), decimal.Decimal(1)])",
    "operator-module": "operator.add(np.arange(2), decimal.Decimal(1))",
    "reduce": "functools.reduce(operator.mul, [np.arange(2), decimal.Decimal(2)])",
    "accumulate": "list(itertools.accumulate([np.arange(2), decimal.Decimal(1)]))[-1]",
    "prod": "math.prod([np.arange(2), decimal.Decimal(2)])",
    "pow": "pow(np.arange(2), decimal.Decimal(1))",
    "slice": "(np.arange(3) + decimal.Decimal(1))[1:]",
    "void-object-field": "np.void(b'x', dtype=[('a', 'O')])",
}
"""Expressions tool code can evaluate to an object array (or a void scalar with an object field)."""

CONSUMERS = {
    "bytes": "return bytes(o)",
    "bytearray": "return bytearray(o)",
    "memoryview": "return memoryview(o)",
    "join": "return b''.join([o])",
    "percent-b": "return b'%b' % o",
    "contains": "return o in b'abc'",
    "int-from-bytes": "return int.from_bytes(o, 'little')",
    "str-decode": "return str(o, 'latin-1')",
    "bytearray-extend": "b = bytearray()\n    b.extend(o)\n    return b",
    "bytearray-slice": "b = bytearray(16)\n    b[0:16] = o\n    return b",
    "memoryview-slice": "m = memoryview(bytearray(16))\n    m[0:16] = o\n    return m.tobytes()",
    "hashlib": "return hashlib.sha256(o).hexdigest()",
    "hmac": "return hmac.new(b'k', o, 'sha256').hexdigest()",
    "compare-digest": "return secrets.compare_digest(o, o)",
    "zlib": "return zlib.compress(o)",
    "crc32": "return zlib.crc32(o)",
    "gzip": "return gzip.compress(o)",
    "base64": "return base64.b64encode(o)",
    "binascii": "return binascii.hexlify(o)",
    "re": "return re.match(b'.', o)",
    "bytesio": "return io.BytesIO(o).read()",
    "bytesio-write": "return io.BytesIO().write(o)",
    "readinto": "return io.BytesIO(bytes(64)).readinto(o)",
    "readinto-super-subclass": "return S(io.BytesIO, io.BytesIO(bytes(64))).readinto(o)",
    "frombuffer": "return np.frombuffer(o, dtype=np.intp)",
    "data": "return o.data",
    "tobytes": "return o.tobytes()",
    "view": "return o.view(np.intp)",
}
"""Ways to an object's memory as bytes: the buffer protocol's consumers, and numpy's own."""


def _source(make: str, use: str) -> str:
    """A tool making ``o`` by ``make`` and returning the repr of what ``use`` (one final ``return``) got."""
    body, _, returned = use.rpartition("return ")
    return f"{IMPORTS}{CLASSES}def tool():\n    o = {make}\n    {body}return repr({returned})\n"


def test_each_maker_makes_an_object_array(rt: Runtime) -> None:
    """The makers below do give tool code an object array (so the consumer attacks are meaningful)."""
    for name, make in MAKERS.items():
        result = attack(rt, _source(make, "return o.dtype"))
        assert result.success, (name, result.error)
        assert result.output in ("dtype('O')", "dtype([('a', 'O')])"), (name, result.output)


@pytest.mark.parametrize("use", CONSUMERS.values(), ids=CONSUMERS.keys())
def test_no_consumer_reads_or_writes_an_object_arrays_memory(rt: Runtime, use: str) -> None:
    assert_refused_when_added_or_called(rt, _source(MAKERS["operator-decimal"], use))


@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
@pytest.mark.parametrize("use", [CONSUMERS["bytes"], CONSUMERS["memoryview"], CONSUMERS["readinto"]])
def test_every_object_array_is_bufferless(rt: Runtime, make: str, use: str) -> None:
    assert_refused_when_added_or_called(rt, _source(make, use))


def test_the_gates_refusal_is_a_policy_error(rt: Runtime) -> None:
    """Where CPython reports the gate's refusal as a ``SystemError``, the call says why, at the tool's line."""
    result = attack(rt, _source(MAKERS["operator-decimal"], CONSUMERS["bytes"]))
    assert_refused(rt, result, "policy")
    assert result.error is not None and OBJECT_ARRAYS in result.error.message
    assert result.error.line == IMPORTS.count("\n") + CLASSES.count("\n") + 3


ESCAPE = """
import numpy as np, decimal, io
class S(super):
    pass
def tool():
    holder = np.arange(2, dtype=np.int64) + decimal.Decimal(1)
    fields = (1 << 40, id(bytearray), 1 << 62, 1 << 62, 0, 0, 0)
    fake = b"".join(field.to_bytes(8, "little") for field in fields)
    write(holder, b"".join(p.to_bytes(8, "little") for p in [id(fake) + 32, id(holder[1])]))
    memory = holder[0]
    address = int.from_bytes(bytes(memory[id(len) + 24 : id(len) + 32]), "little")
    write(holder, b"".join(p.to_bytes(8, "little") for p in [id(fake) + 32, address]))
    real = holder[1]
    return real.eval("__import__('os').getuid()", {"__builtins__": real})
def write(holder, pointers):
    WRITE
"""
"""An outside review's escape: pointers written into an object array make ``holder[0]`` a fake
bytearray over all memory, which reads the real builtins module out of ``len``; ``WRITE`` is the writer."""
WRITERS = {
    "readinto": "io.BytesIO(pointers).readinto(holder)",
    "readinto-super-subclass": "S(io.BytesIO, io.BytesIO(pointers)).readinto(holder)",
    "memoryview-slice": "memoryview(holder)[0:16] = pointers",
    "memoryview-cast": "memoryview(holder).cast('B')[0:16] = pointers",
    "frombuffer-view": "np.frombuffer(holder, dtype=np.uint8)[:] = np.frombuffer(pointers, dtype=np.uint8)",
    "copyto-frombuffer": "np.copyto(np.frombuffer(holder, dtype=np.uint8), np.frombuffer(pointers, dtype=np.uint8))",
}


@pytest.mark.parametrize("write", WRITERS.values(), ids=WRITERS.keys())
def test_no_pointer_is_forged_into_an_object_array(rt: Runtime, write: str) -> None:
    """Succeeding, the tool would return the worker's uid (an int, JSON): it must be refused instead."""
    assert_refused_when_added_or_called(rt, ESCAPE.replace("WRITE", write))


VIEW_ROUTES = {
    "array-mixed": "np.array([1, 'a', None])",
    "array-dtype-object": "np.array([1, 2], dtype=object)",
    "asarray-decimals": "np.asarray([decimal.Decimal(1)])",
    "astype-object": "np.arange(2).astype(object)",
    "astype-structured-object": "np.zeros(2, np.int64).astype([('a', 'O')])",
    "fromiter-object": "np.fromiter([None, 1], dtype=object)",
    "zeros-structured-object": "np.zeros(2, dtype=[('a', 'i8'), ('b', 'O')])",
    "array-structured-object": "np.array([(1, None)], dtype=[('a', 'i8'), ('b', 'O')])",
    "empty-object": "np.empty(2, dtype='O')",
    "full-object": "np.full(2, None)",
    "vectorize-otypes-object": "np.vectorize(lambda x: decimal.Decimal(int(x)), otypes=[object])([1, 2])",
    "frompyfunc": "np.frompyfunc(str, 1, 1)",
    "view-int-as-object": "np.arange(2).view(object)",
    "view-object-as-int": "(np.arange(2) + decimal.Decimal(1)).view(np.int64)",
    "view-structured": "np.zeros(2, np.int64).view([('a', 'O')])",
    "setfield": "np.zeros(2, [('a', 'i8')]).setfield(None, 'O')",
    "getfield": "np.zeros(2, np.int64).getfield(np.dtype('O'))",
    "stride-tricks": "np.lib.stride_tricks.as_strided(np.arange(2), strides=(0,))",
    "ctypes": "np.arange(2).ctypes.data",
    "data-of-object": "(np.arange(2) + decimal.Decimal(1)).data",
    "ndarray-buffer": "np.ndarray((1,), dtype=object, buffer=bytearray(8))",
    "type-buffer": "type(np.arange(2))((1,), object, bytearray(8))",
    "class-buffer": "np.arange(2).__class__((1,), object, bytearray(8))",
    "ndarray-new": "np.ndarray.__new__(np.ndarray, (1,), object, bytearray(8))",
    "frombuffer-object": "np.frombuffer(bytes(8), dtype=object)",
    "frombuffer-structured-object": "np.frombuffer(bytes(8), dtype=[('a', 'O')])",
    "void-bytes-object": "np.void(bytes(8)).astype([('a', 'O')])",
    "copyto-into-object": "np.copyto(np.arange(2) + decimal.Decimal(1), np.arange(2))",
    "copyto-from-object": "np.copyto(np.arange(2), np.arange(2) + decimal.Decimal(1))",
    "put-into-object": "(np.arange(2) + decimal.Decimal(1)).put(0, 7)",
    "place-into-object": "np.place(np.arange(2) + decimal.Decimal(1), [True, False], [7])",
    "putmask-into-object": "np.putmask(np.arange(2) + decimal.Decimal(1), [True, False], 7)",
    "sort-object": "np.sort(np.arange(2) + decimal.Decimal(1))",
    "method-sort-object": "(np.arange(2) + decimal.Decimal(1)).sort()",
    "sort-crafted-lt": "np.sort(np.array([Lt(), Lt()]))",
    "reduce": "(np.arange(2) + decimal.Decimal(1)).__reduce__()",
    "reduce-ex-object": "(np.arange(2) + decimal.Decimal(1)).__reduce_ex__(5)",
    "reduce-ex": "np.arange(2).__reduce_ex__(5)",
    "dumps": "(np.arange(2) + decimal.Decimal(1)).dumps()",
    "ufunc-object": "np.add(np.arange(2), decimal.Decimal(1))",
    "ufunc-outer-object": "np.multiply.outer(np.arange(2), [decimal.Decimal(1)])",
    "dtype-type-object": "np.dtype('O').type([1, None])",
    "setflags-object": "(np.arange(2) + decimal.Decimal(1)).setflags(write=False)",
    "array-interface": "np.asarray(Fake())",
}
"""Every other route to an object array's memory, or to making one through the view: each refused."""

FAKE = "class Fake:\n    __array_interface__ = {'shape': (1,), 'typestr': '|O', 'data': (8, False), 'version': 3}\n"


@pytest.mark.parametrize("expression", VIEW_ROUTES.values(), ids=VIEW_ROUTES.keys())
def test_every_other_route_is_refused(rt: Runtime, expression: str) -> None:
    assert_refused_when_added_or_called(rt, f"{IMPORTS}{CLASSES}{FAKE}def tool():\n    return {expression}\n")


def test_pickling_is_refused(rt: Runtime) -> None:
    source = "import numpy as np, decimal, pickle\ndef tool():\n    return pickle.dumps(np.arange(2) + decimal.Decimal(1))\n"
    assert_refused_when_added_or_called(rt, source)


def test_a_copy_of_an_object_array_is_bufferless_too(rt: Runtime) -> None:
    source = (
        f"{IMPORTS}import copy\ndef tool():\n    return bytes(copy.copy(np.arange(2) + decimal.Decimal(1)))\n"
    )
    assert_refused_when_added_or_called(rt, source)


def test_numeric_arrays_keep_their_buffers(rt: Runtime) -> None:
    """The gate lets numeric arrays through: bytes, memoryview, hashlib, numpy.random's own memoryviews."""
    source = (
        "import numpy as np, hashlib, base64\ndef tool():\n    a = np.arange(3, dtype=np.int16)\n"
        "    rng = np.random.default_rng(7)\n"
        "    return [bytes(a).hex(), memoryview(a).tolist(), hashlib.sha256(a).hexdigest(), base64.b64encode(a).decode(),"
        " rng.choice(10, 3, replace=False).tolist(), len(rng.spawn(2))]\n"
    )
    result = attack(rt, source)
    assert result.success, result.error
    a = np.arange(3, dtype=np.int16)
    reference = np.random.default_rng(7).choice(10, 3, replace=False).tolist()
    expected = [
        bytes(a).hex(),
        [0, 1, 2],
        hashlib.sha256(a).hexdigest(),
        base64.b64encode(a).decode(),
        reference,
        2,
    ]
    assert result.output == expected


def test_a_worker_that_imports_numpy_itself_gates_it() -> None:
    """A tool the zygote did not warm makes its worker import numpy (and the gate) after seccomp."""
    source = "import numpy as np, decimal\ndef tool():\n    return repr(bytes(np.arange(2) + decimal.Decimal(1)))\n"
    with WorkerPool(size=1) as pool:
        reply = pool.run(
            Call.from_dict({"source": source, "entry": "tool", "args": {}, "walls": "all"}), Limits(), _no_rpc
        )
    assert reply.error is not None and reply.error.kind == "policy", reply
    assert OBJECT_ARRAYS in reply.error.message


def _no_rpc(target: str, method: str, params: dict) -> None:
    raise AssertionError("no call to the host expected")


def test_plain_cpython_keeps_every_buffer() -> None:
    """``walls="process"`` reopens the gate: an object array exports its buffer as in CPython."""
    with Runtime(store="memory://", walls="process") as runtime:
        source = "import numpy as np, decimal\ndef tool():\n    return len(bytes(np.arange(2) + decimal.Decimal(1)))\n"
        result = attack(runtime, source)
    assert result.success and result.output == 16, result.error


# --- the gate itself, in this process ---


@pytest.fixture
def gated() -> object:
    bufferless.close((np.ndarray, np.void), _pointers_in)
    yield
    bufferless.reopen()


def test_the_gate_refuses_object_pointers_and_passes_the_rest(gated: object) -> None:
    objects = np.arange(2) + decimal.Decimal(1)
    with pytest.raises((SystemError, TypeError)):
        bytes(objects)
    assert str(OBJECT_ARRAYS) in str(bufferless.refusal())
    with pytest.raises((SystemError, TypeError)):
        io.BytesIO(bytes(16)).readinto(objects)
    assert bytes(np.arange(2, dtype=np.uint8)) == b"\x00\x01"
    with pytest.raises(SystemError):  # StringDType: numpy would hand a plain request its arena pointers
        hashlib.sha256(np.array(["a" * 40], dtype="T"))
    with pytest.raises(SystemError):
        hashlib.sha256(np.arange(6)[::2])  # numpy's own refusal (not contiguous) stays a refusal
    assert "not C-contiguous" in str(bufferless.refusal())


def test_a_subclass_made_while_gated_is_gated(gated: object) -> None:
    subclass = type("Sub", (np.ndarray,), {})
    with pytest.raises((SystemError, TypeError)):
        bytes((np.arange(2) + decimal.Decimal(1)).view(subclass))
    assert bytes(np.arange(1, dtype=np.uint8).view(subclass)) == b"\x00"


def test_the_gate_refuses_even_when_it_cannot_run(gated: object) -> None:
    """At the recursion limit the gate's Python code cannot start: cffi answers -1, never an unset value."""
    objects = np.arange(2) + decimal.Decimal(1)

    def deep(n: int) -> bytes:
        return bytes(objects) if n == 0 else deep(n - 1)

    frame, stack = sys._getframe(), 0
    while frame is not None:
        frame, stack = frame.f_back, stack + 1
    room = sys.getrecursionlimit() - stack
    for depth in range(room - 20, room + 2):
        try:
            leaked = deep(depth)
        except (RecursionError, SystemError, TypeError):
            continue
        pytest.fail(f"{len(leaked)} bytes of pointers at depth {depth}")


def test_reopen_restores_cpythons_buffers() -> None:
    objects = np.arange(2) + decimal.Decimal(1)
    bufferless.close((np.ndarray,), _pointers_in)
    bufferless.reopen()
    assert len(bytes(objects)) == 2 * ctypes.sizeof(ctypes.c_void_p)
