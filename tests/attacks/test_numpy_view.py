"""Attacks on the numpy view under both walls: files, ctypes, numpy.lib, object arrays and their
buffers, the array interface of the tool's own objects, attribute paths to numpy's internals,
process-wide settings, and the names that code outside the guards reads (match, pydantic).

Each must end in a structured refusal (kind ``policy``, or ``tool_error`` where numpy itself
refuses, e.g. an ``__array_interface__`` answered None) and leave the runtime serving. Why
each is closed: ``sandbox/language/numpy_view.py`` and docs/security.md.
"""

from __future__ import annotations

import pytest

from runtime import Runtime
from sandbox.language import guards, rules
from tests.attacks import assert_refused_when_added_or_called

np = pytest.importorskip("numpy")

FAKE_BYTEARRAY_ESCAPE = """
import numpy as np, decimal, io
class S(super):
    pass
def tool():
    def write(obj, pointers):
        S(io.BytesIO, io.BytesIO(b"".join(p.to_bytes(8, "little") for p in pointers))).readinto(obj)
    holder = np.arange(2, dtype=np.int64) + decimal.Decimal(1)
    fields = (1 << 40, id(bytearray), 1 << 62, 1 << 62, 0, 0, 0)
    fake = b"".join(field.to_bytes(8, "little") for field in fields)
    write(holder, [id(fake) + 32, id(holder[1])])
    memory = holder[0]
    write(holder, [id(fake) + 32, int.from_bytes(bytes(memory[id(len) + 24 : id(len) + 32]), "little")])
    real = holder[1]
    return real.eval("__import__('os').getuid()", {"__builtins__": real})
"""

NUMPY_ATTACKS = {
    "load": "import numpy as np\ndef tool():\n    return np.load('/etc/passwd')\n",
    "from-load": "from numpy import load\ndef tool():\n    return 1\n",
    "tofile": "import numpy as np\ndef tool():\n    np.arange(3).tofile('/tmp/x')\n",
    "tofile-getattr": "import numpy as np\ndef tool():\n    getattr(np.arange(3), 'tofile')('/tmp/x')\n",
    "dump": "import numpy as np\ndef tool():\n    np.arange(3).dump('/tmp/x')\n",
    "dumps": "import numpy as np\ndef tool():\n    return np.arange(3).dumps()\n",
    "ctypes": "import numpy as np\ndef tool():\n    return np.arange(3).ctypes.data\n",
    "data": "import numpy as np\ndef tool():\n    return np.arange(3).data\n",
    "base": "import numpy as np\ndef tool():\n    return np.arange(3)[1:].base\n",
    "class-tofile": "import numpy as np\ndef tool():\n    type(np.float64(1)).tofile(np.float64(1), '/tmp/x')\n",
    "ndarray-call": "import numpy as np\ndef tool():\n    return type(np.arange(2))((2,), np.intp, np.arange(2))\n",
    "super-tofile": "import numpy as np\ndef tool():\n    return super(np.float64, np.float64(1)).tofile\n",
    "lib": "import numpy as np\ndef tool():\n    return np.lib.stride_tricks.as_strided\n",
    "import-lib": "import numpy.lib\ndef tool():\n    return 1\n",
    "ctypeslib": "import numpy as np\ndef tool():\n    return np.ctypeslib\n",
    "core": "import numpy as np\ndef tool():\n    return np.core\n",
    "testing": "from numpy import testing\ndef tool():\n    return 1\n",
    "show_config": "import numpy as np\ndef tool():\n    np.show_config()\n",
    "printoptions": "import numpy as np\ndef tool():\n    np.set_printoptions(formatter={'all': print})\n",
    "seterrcall": "import numpy as np\ndef tool():\n    np.seterrcall(print)\n",
    "frompyfunc": "import numpy as np\ndef tool():\n    return np.frompyfunc(str, 1, 1)\n",
    "object-dtype": "import numpy as np\ndef tool():\n    return np.array([1, None])\n",
    "object-dtype2": "import numpy as np\ndef tool():\n    return np.empty(2, dtype='O')\n",
    "astype-object": "import numpy as np\ndef tool():\n    return np.arange(2).astype(object)\n",
    "stringdtype": "import numpy as np\ndef tool():\n    return np.array(['a'], dtype='T')\n",
    "rng-choice": "import numpy as np\ndef tool():\n    return np.random.default_rng(1).choice([None, 1], 2)\n",
    "ufunc-outer": "import numpy as np, decimal\ndef tool():\n    return np.add.outer([decimal.Decimal(1)], [1])\n",
    "vectorize-object": "import numpy as np, decimal\ndef tool():\n    return np.vectorize(lambda x: decimal.Decimal(x), otypes=[object])([1, 2])\n",
    "bit_generator": "import numpy as np\ndef tool():\n    return np.random.default_rng().bit_generator\n",
    "legacy-random": "import numpy as np\ndef tool():\n    return np.random.rand()\n",
    "op-object-memoryview": "import numpy as np, decimal\ndef tool():\n    o = np.arange(2) + decimal.Decimal(1)\n    return memoryview(o).cast('B')\n",
    "op-object-frombuffer": "import numpy as np, decimal\ndef tool():\n    o = np.arange(2) + decimal.Decimal(1)\n    return np.frombuffer(o, dtype=np.intp)\n",
    "op-object-readinto": "import numpy as np, decimal, io\ndef tool():\n    o = np.arange(2) + decimal.Decimal(1)\n    return io.BytesIO(bytes(16)).readinto(o)\n",
    # a subclass of super looked up attributes as the tool's own object, past the library rules: an
    # outside review wrote pointers into an object array and read the real builtins through a fake bytearray
    "op-object-readinto-super-subclass": (
        "import numpy as np, decimal, io\nclass S(super):\n    pass\ndef tool():\n"
        "    o = np.arange(2) + decimal.Decimal(1)\n    return S(io.BytesIO, io.BytesIO(bytes(16))).readinto(o)\n"
    ),
    "super-subclass-tofile": (
        "import numpy as np\nclass S(super):\n    pass\ndef tool():\n    return str(S(np.float64, np.float64(1)).tofile)\n"
    ),
    "fake-bytearray-escape": FAKE_BYTEARRAY_ESCAPE,
    "op-object-astype": "import numpy as np, decimal\ndef tool():\n    o = np.arange(2) + decimal.Decimal(1)\n    return o.view(np.intp)\n",
    "op-object-mean": "import numpy as np, decimal\ndef tool():\n    o = np.arange(2) + decimal.Decimal(1)\n    return np.mean(o)\n",
    "iface-getattr": "import numpy as np\nclass E:\n    def __getattr__(self, name):\n        return {'data': (8, False), 'shape': (8,), 'typestr': '|u1', 'version': 3}\ndef tool():\n    return np.asarray(E())\n",
    "iface-vars": "import numpy as np\nclass E:\n    pass\ndef tool():\n    e = E()\n    vars(e)['__array_interface__'] = {'data': (8, False), 'shape': (8,), 'typestr': '|u1', 'version': 3}\n    return np.arange(8) + e\n",
    "iface-pydantic-extra": "import numpy as np\nfrom pydantic import BaseModel, ConfigDict\nclass M(BaseModel):\n    model_config = ConfigDict(extra='allow')\ndef tool():\n    m = M.model_validate({'__array_interface__': {'data': (8, False), 'shape': (8,), 'typestr': '|u1', 'version': 3}})\n    return np.asarray(m)\n",
    "iface-model-copy": "import numpy as np\nfrom pydantic import BaseModel\nclass M(BaseModel):\n    a: int = 1\ndef tool():\n    m = M().model_copy(update={'__array_interface__': {'data': (8, False), 'shape': (8,), 'typestr': '|u1', 'version': 3}})\n    return np.asarray(m)\n",
    "iface-lru": "import numpy as np, functools\nclass C:\n    def __call__(self):\n        return 1\ndef tool():\n    c = C()\n    vars(c)['__array_interface__'] = {'data': (8, False), 'shape': (8,), 'typestr': '|u1', 'version': 3}\n    return np.asarray(functools.lru_cache(c))\n",
    "iface-wraps": "import numpy as np, functools\nclass C:\n    def __call__(self):\n        return 1\ndef tool():\n    c = C()\n    vars(c)['__array_interface__'] = {'data': (8, False), 'shape': (8,), 'typestr': '|u1', 'version': 3}\n    @functools.wraps(c)\n    def f():\n        return 1\n    return np.asarray(f)\n",
    "iface-contextmanager": "import numpy as np, contextlib\nclass C:\n    def __call__(self):\n        yield 1\ndef tool():\n    c = C()\n    vars(c)['__array_interface__'] = {'data': (8, False), 'shape': (8,), 'typestr': '|u1', 'version': 3}\n    return np.asarray(contextlib.contextmanager(c))\n",
    "iface-enum": "import numpy as np, enum\nclass K(enum.Enum):\n    A = 1\ndef tool():\n    vars(K.A)['__array_interface__'] = {'data': (8, False), 'shape': (8,), 'typestr': '|u1', 'version': 3}\n    return np.asarray(K.A)\n",
    "match-ctypes": "import numpy as np\ndef tool():\n    match np.arange(2):\n        case object(ctypes=c):\n            return c\n",
    "match-tofile": "import numpy as np\ndef tool():\n    match np.arange(2):\n        case np.ndarray(tofile=f):\n            f('/tmp/x')\n",
    "pydantic-from-attributes": "import numpy as np\nfrom pydantic import BaseModel, ConfigDict\nclass M(BaseModel):\n    model_config = ConfigDict(from_attributes=True, arbitrary_types_allowed=True)\n    tofile: object\ndef tool():\n    return M.model_validate(np.arange(2)).tofile\n",
    "subclass-generator": "import numpy as np\nclass G(np.random.Generator):\n    pass\ndef tool():\n    return 1\n",
    "subclass-ndarray": "import numpy as np\nclass A(np.ndarray):\n    pass\ndef tool():\n    return A((2,))\n",
    "typing-origin": "import numpy as np, typing\ndef tool():\n    return typing.get_origin(np.ndarray[int])((2,), np.intp, np.arange(2))\n",
    "flat-base": "import numpy as np\ndef tool():\n    return np.arange(2).flat.base\n",
    "linalg-lapack": "import numpy as np\ndef tool():\n    return np.linalg.lapack_lite\n",
}

OBJECT_ARRAY = "import numpy as np, decimal, io\nfrom pydantic import BaseModel, ConfigDict\n"
# an operator still makes an object array (as in CPython); match and pydantic read its ``data``
# natively, but its buffer gate refuses the memoryview (a class pattern then does not match)
NO_MATCH = "        case _:\n            raise ValueError('the array gave no memoryview')\n"
NUMPY_ATTACKS.update(
    {
        "match-data-cast": OBJECT_ARRAY
        + "def tool():\n    match np.arange(2) + decimal.Decimal(1):\n        case object(data=m):\n            return m.cast('B')\n"
        + NO_MATCH,
        "match-data-frombuffer": OBJECT_ARRAY
        + "def tool():\n    match np.arange(2) + decimal.Decimal(1):\n        case object(data=m):\n            return np.frombuffer(m, dtype=np.intp)\n"
        + NO_MATCH,
        "match-data-asarray": OBJECT_ARRAY
        + "def tool():\n    match np.arange(2) + decimal.Decimal(1):\n        case object(data=m):\n            return np.asarray(m).view(np.intp)\n"
        + NO_MATCH,
        "match-data-readinto": OBJECT_ARRAY
        + "def tool():\n    match np.arange(2) + decimal.Decimal(1):\n        case object(data=m):\n            return io.BytesIO(bytes(16)).readinto(m)\n"
        + NO_MATCH,
        "match-data-memoryview": OBJECT_ARRAY
        + "def tool():\n    match np.arange(2) + decimal.Decimal(1):\n        case object(data=m):\n            return type(m)(m)\n"
        + NO_MATCH,
        "pydantic-data-cast": OBJECT_ARRAY
        + "class M(BaseModel):\n    model_config = ConfigDict(from_attributes=True, arbitrary_types_allowed=True)\n    data: object\n"
        + "def tool():\n    return M.model_validate(np.arange(2) + decimal.Decimal(1)).data.cast('B')\n",
        "match-positional-ctypes": OBJECT_ARRAY
        + "import abc, dataclasses\n@dataclasses.dataclass\nclass P(abc.ABC):\n    ctypes: object\n"
        + "def tool():\n    P.register(type(np.arange(2)))\n    match np.arange(2):\n        case P(c):\n            return c\n",
        "match-positional-ctypes-real-class": OBJECT_ARRAY
        + "import abc, dataclasses\n@dataclasses.dataclass\nclass P(abc.ABC):\n    ctypes: object\n"
        + "def tool():\n    P.register(np.float64)\n    match np.float64(1):\n        case P(c):\n            return c.data\n",
        # attribute writes: numpy checks each where it would reach memory the array does not own
        "dtype-setter-object": OBJECT_ARRAY
        + "def tool():\n    a = np.zeros(2, np.intp)\n    a.dtype = np.dtype('O')\n    return a\n",
        "strides-setter": OBJECT_ARRAY
        + "def tool():\n    a = np.zeros(2, np.uint8)\n    a.strides = (1 << 40,)\n    return a[1]\n",
        "writeable-bytes": OBJECT_ARRAY
        + "def tool():\n    a = np.frombuffer(b'immutable', np.uint8)\n    a.flags.writeable = True\n    a[0] = 0\n",
        "view-larger-dtype": OBJECT_ARRAY + "def tool():\n    return np.zeros(3, np.uint8).view(np.int64)\n",
        # more objects whose attributes tool code fills: SimpleNamespace, a class deriving from a Protocol
        "iface-namespace-keyword": OBJECT_ARRAY
        + "import types\ndef tool():\n    return np.asarray(types.SimpleNamespace(**{'__array_interface__': {'data': (8, False),"
        + " 'shape': (8,), 'typestr': '|u1', 'version': 3}}))\n",
        "iface-namespace-subclass": OBJECT_ARRAY
        + "import types\nclass N(types.SimpleNamespace):\n    pass\ndef tool():\n    n = N()\n"
        + "    vars(n)['__array_interface__'] = {'data': (8, False), 'shape': (8,), 'typestr': '|u1', 'version': 3}\n"
        + "    return np.asarray(n)\n",
        "iface-protocol-subclass": OBJECT_ARRAY
        + "from typing import Protocol\nclass P(Protocol):\n    def f(self) -> int: ...\nclass C(P):\n"
        + "    def __getattr__(self, name):\n        return {'data': (8, False), 'shape': (8,), 'typestr': '|u1', 'version': 3}\n"
        + "def tool():\n    return np.asarray(C())\n",
        "ufunc-call-object": OBJECT_ARRAY + "def tool():\n    return np.add([decimal.Decimal(1)], 1)\n",
        "ufunc-private": OBJECT_ARRAY + "def tool():\n    return np.add._ufunc\n",
        "ufunc-wraps-other": OBJECT_ARRAY + "def tool():\n    return type(np.add)(len)\n",
        "ufunc-reinit": OBJECT_ARRAY + "def tool():\n    type(np.add).__init__(np.add, np.subtract)\n",
        "ufunc-write": OBJECT_ARRAY + "def tool():\n    np.add.reduce = len\n",
        "object-scalar-type": OBJECT_ARRAY + "def tool():\n    return np.dtype('O').type([1, None])\n",
        "object-scalar-type-t": OBJECT_ARRAY + "def tool():\n    return np.dtype('T').type\n",
        # in-place reallocation without the reference check: the view keeps the freed memory
        "resize-refcheck": OBJECT_ARRAY
        + "def tool():\n    a = np.zeros(4)\n    v = a[:]\n    a.resize((1 << 16,), refcheck=False)\n    return v.sum()\n",
        "resize-match": OBJECT_ARRAY
        + "def tool():\n    a = np.zeros(4)\n    v = a[:]\n    match a:\n        case object(resize=r):\n"
        + "            r((1 << 16,), refcheck=False)\n    return v.sum()\n",
        "resize-pydantic": OBJECT_ARRAY
        + "class M(BaseModel):\n    model_config = ConfigDict(from_attributes=True, arbitrary_types_allowed=True)\n    resize: object\n"
        + "def tool():\n    return M.model_validate(np.zeros(4)).resize\n",
        "match-value-pattern": OBJECT_ARRAY
        + "A = np.arange(2)\ndef tool():\n    match 1:\n        case A.ctypes:\n            return 1\n",
        "pydantic-alias-ctypes": OBJECT_ARRAY
        + "from pydantic import Field\nclass M(BaseModel):\n    model_config = ConfigDict(from_attributes=True, arbitrary_types_allowed=True)\n"
        + "    c: object = Field(validation_alias='ctypes')\ndef tool():\n    return M.model_validate(np.arange(2)).c\n",
    }
)


@pytest.mark.parametrize("source", NUMPY_ATTACKS.values(), ids=NUMPY_ATTACKS.keys())
def test_numpy_escape_hatches_are_closed(rt: Runtime, source: str) -> None:
    assert_refused_when_added_or_called(rt, source)


REVIEWED_OPEN_TO_NATIVE_READS = {
    "base": "the array (or bytes) the array views: data the tool already has",
    "data": "a memoryview; an object array's buffer gate refuses it (sandbox/language/bufferless.py)",
    "device": "the string 'cpu'",
    "to_device": "a copy of the array",
    "getfield": "numpy checks the offset and refuses object arrays",
    "setfield": "numpy checks the offset and refuses object arrays",
    "setflags": "numpy refuses WRITEABLE where the memory is read-only",
    "fill": "in place, on the tool's own array (scalars raise)",
    "put": "in place, on the tool's own array (scalars raise)",
    "sort": "in place (scalars raise)",
    "resolve_dtypes": "dtype resolution",
    "key": "iinfo's string key",
    "ClearExtension": "extensions need a descriptor, which stays closed",
    "HasExtension": "extensions need a descriptor, which stays closed",
    "Extensions": "extensions need a descriptor, which stays closed",
    "UnknownFields": "the message's own unknown fields",
    "GetEntryClass": "a map entry message class, whose DESCRIPTOR stays closed",
    "ValueType": "an int type of an enum wrapper",
}


def test_names_closed_to_the_guards_are_reviewed_or_closed_to_code_outside_them() -> None:
    """Every public name of numpy's and protobuf's reachable objects that the guards refuse is
    either closed by name to match patterns and pydantic (``LIBRARY_CLOSED_NAMES``) or reviewed
    here as harmless to read (a new numpy or protobuf version adding a name fails this test).
    An object array's methods are those of any array (the guards' shorter list for one is a
    second line, not the first)."""
    from google.protobuf import struct_pb2, timestamp_pb2

    import sandbox.language.numpy_view  # noqa: F401 - registers the rules
    import sandbox.language.protobuf_view  # noqa: F401

    reachable = [
        np.arange(3), np.float64(1), np.int64(1), np.str_("a"),
        np.bool_(True), np.datetime64("2024-01-01"), np.arange(2).dtype, np.add, np.random.default_rng(),
        np.arange(2).flags, np.arange(2).flat, np.finfo(float), np.iinfo(int), np.linalg.eig(np.eye(2)),
        np.linalg.svd(np.eye(2)), struct_pb2.Struct(), struct_pb2.Value(), struct_pb2.Struct().fields,
        struct_pb2.ListValue().values, timestamp_pb2.Timestamp(), struct_pb2.NullValue, memoryview(b""),
    ]  # fmt: skip
    unreviewed = {}
    for obj in reachable:
        for name in dir(obj):
            if (
                name.startswith("_")
                or name in rules.LIBRARY_CLOSED_NAMES
                or name in REVIEWED_OPEN_TO_NATIVE_READS
            ):
                continue
            try:
                guards.guarded_getattr(obj, name)
            except Exception as error:  # noqa: BLE001 - any refusal counts
                if "not available" in str(error):
                    unreviewed.setdefault(name, type(obj).__name__)
    assert unreviewed == {}
