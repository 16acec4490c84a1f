"""The escape classes of issue 31, each closed where it starts, with several spellings each.

- keywords a partial keeps in a live dict (``functools.partial(f).keywords``, ``partialmethod``'s):
  checked when it is called, whatever was written there and however (``[...] =``, ``update``,
  ``setdefault``, ``|=``, a partial of a partial, a copy, ``type(p)``, a subclass, a call from C);
- a host class's instance dict filled with special names (``types.SimpleNamespace``): numpy read
  raw memory through ``__array_interface__`` there, and ``copy.deepcopy`` handed a ``__deepcopy__``
  there its private memo; the namespace tool code gets refuses those names however its keywords
  arrive, and answers numpy's and ``copy``'s names from its class;
- ``typing`` handing out the real ``type`` (a class factory): the tool's ``type`` comes back;
- the worker's error, log and result paths: any value the tool raises, prints or returns answers
  with a readable ``tool_error`` (or the result), never ``worker_crashed``.

Goal of each attack, were it to work: raw memory (then the real builtins, as
``tests/attacks/test_numpy_view.py`` shows), the private memo of a deep copy, a class built by the
real ``type``, a crashed worker.
"""

from __future__ import annotations

import pytest

from runtime import Runtime
from tests.attacks import assert_refused, assert_refused_when_added_or_called, attack

WRITES = {
    "item": 'p.keywords["NAME"] = VALUE',
    "update": 'p.keywords.update({"NAME": VALUE})',
    "setdefault": 'p.keywords.setdefault("NAME", VALUE)',
    "inplace-or": 'kw = p.keywords; kw |= {"NAME": VALUE}',
    "update-pairs": 'p.keywords.update([("NAME", VALUE)])',
    "inner-of-nested": 'p = functools.partial(p); p.func.keywords["NAME"] = VALUE',
    "outer-of-nested": 'p = functools.partial(functools.partial(p)); p.keywords["NAME"] = VALUE',
    "copy": 'p = copy.copy(p); p.keywords["NAME"] = VALUE',
    "type-of": 'p = type(p)(p.func); p.keywords["NAME"] = VALUE',
    "subclass": 'p = Sub(p.func); p.keywords["NAME"] = VALUE',
}
"""Ways to write ``NAME`` into the keywords a partial ``p`` of ``TARGET`` holds."""

CALLS = {
    "direct": "p()",
    "from-c-iter": "next(iter(p, None))",
    "from-c-defaultdict": 'collections.defaultdict(p)["key"]',
    "nested-then-called": "functools.partial(p)()",
}

PARTIAL_ATTACK = """
import collections, copy, functools, types
import numpy as np


class Sub(functools.partial):
    pass


def tool():
    data = b"0123456789abcdef"
    VALUE = {"data": (id(data), False), "shape": (16,), "typestr": "|u1", "version": 3}
    p = functools.partial(types.SimpleNamespace)
    WRITE
    namespace = CALL
    return np.asarray(namespace).tolist()
"""
"""Succeeding, the tool returns 16 bytes of the object header of ``data``: raw memory."""


@pytest.mark.parametrize("write", WRITES.values(), ids=WRITES.keys())
def test_a_partials_keywords_are_checked_when_it_is_called(rt: Runtime, write: str) -> None:
    pytest.importorskip("numpy")
    source = PARTIAL_ATTACK.replace("WRITE", write.replace("NAME", "__array_interface__")).replace(
        "CALL", "p()"
    )
    assert_refused(rt, attack(rt, source))


@pytest.mark.parametrize("call", CALLS.values(), ids=CALLS.keys())
def test_a_partial_called_from_c_checks_its_keywords(rt: Runtime, call: str) -> None:
    pytest.importorskip("numpy")
    write = WRITES["item"].replace("NAME", "__array_interface__")
    assert_refused(rt, attack(rt, PARTIAL_ATTACK.replace("WRITE", write).replace("CALL", call)))


def test_a_private_keyword_written_into_a_partial_is_refused(rt: Runtime) -> None:
    source = """
import functools


def tool():
    p = functools.partial(dict)
    p.keywords["_private"] = 1
    return p()
"""
    result = attack(rt, source)
    assert_refused(rt, result)
    assert "'_private'" in result.error.message


BINDINGS = {"bound": "Box().make()", "unbound": "Box().make_plain()", "class": "Box.make_plain(Box())"}


@pytest.mark.parametrize("binding", BINDINGS.values(), ids=BINDINGS.keys())
def test_a_partialmethods_keywords_are_checked_when_it_is_called(rt: Runtime, binding: str) -> None:
    """Written after the class was made, a private name reaches no function through the method."""
    source = f"""
import functools


def tool():
    def build(self, **keywords):
        return sorted(keywords)

    bound = functools.partialmethod(build)
    plain = functools.partialmethod(functools.partial(build))

    class Box:
        make = bound
        make_plain = plain

    bound.keywords["_private"] = 1
    plain.keywords["_private"] = 1
    return {binding}
"""
    result = attack(rt, source)
    assert_refused(rt, result)
    assert "'_private'" in result.error.message


def test_partials_work_as_in_cpython(rt: Runtime) -> None:
    source = """
import copy, functools


def tool():
    p = functools.partial(_add, 1, scale=3)
    p.keywords["scale"] = 10
    q = functools.partial(p, 2)
    return [p(2), q(), copy.copy(q)(), repr(functools.partial(_add, 1))[:22], Box().double(4),
            isinstance(p, functools.partial), type(p) is functools.partial, sorted(p.keywords)]


def _add(a, b, *, scale=1):
    return (a + b) * scale


class Box:
    def scaled(self, value, *, by):
        return value * by

    double = functools.partialmethod(scaled, by=2)
"""
    result = attack(rt, source)
    assert result.success, result.error
    assert result.output == [30, 30, 30, "functools.partial(<fun", 8, True, True, ["scale"]]


NAMESPACE_FILLS = {
    "keywords-spread": 'types.SimpleNamespace(**{"NAME": VALUE})',
    "partial": 'functools.partial(types.SimpleNamespace, **{"NAME": VALUE})()',
    "type-of-sys-implementation": 'type(sys.implementation)(**{"NAME": VALUE})',
    "init-on-existing": 'types.SimpleNamespace.__init__(types.SimpleNamespace(), **{"NAME": VALUE})',
    "setattr": '(ns := types.SimpleNamespace(), setattr(ns, "NAME", VALUE))[0]',
    "setattr-computed": '(ns := types.SimpleNamespace(), setattr(ns, "__" + "NAME"[2:], VALUE))[0]',
    "vars": 'vars(types.SimpleNamespace()).update({"NAME": VALUE})',
    "dunder-dict": 'types.SimpleNamespace().__dict__.update({"NAME": VALUE})',
    "contextmanager-kwds": 'contextlib.contextmanager(types.SimpleNamespace)(**{"NAME": VALUE})',
}
"""Ways to put ``NAME`` into the instance dict of a ``SimpleNamespace``."""

NAMESPACE_ARRAY = """
import contextlib, functools, sys, types
import numpy as np


def tool():
    data = b"0123456789abcdef"
    VALUE = {"data": (id(data), False), "shape": (16,), "typestr": "|u1", "version": 3}
    namespace = FILL
    return np.asarray(namespace).tolist()
"""

NAMESPACE_DEEPCOPY = """
import contextlib, copy, functools, sys, types


def tool():
    seen = []

    def VALUE(memo):
        seen.append(memo)
        return 1

    namespace = FILL
    copy.deepcopy([context.state, namespace])
    return [type(value).__name__ for memo in seen for value in memo.values()]
"""
"""Succeeding, the ``__deepcopy__`` put in the namespace's dict receives the copy's memo."""


@pytest.mark.parametrize("fill", NAMESPACE_FILLS.values(), ids=NAMESPACE_FILLS.keys())
def test_no_array_interface_in_a_namespaces_dict(rt: Runtime, fill: str) -> None:
    pytest.importorskip("numpy")
    assert_refused_when_added_or_called(
        rt, NAMESPACE_ARRAY.replace("FILL", fill.replace("NAME", "__array_interface__"))
    )


@pytest.mark.parametrize("fill", NAMESPACE_FILLS.values(), ids=NAMESPACE_FILLS.keys())
def test_no_deepcopy_in_a_namespaces_dict(rt: Runtime, fill: str) -> None:
    assert_refused_when_added_or_called(
        rt, NAMESPACE_DEEPCOPY.replace("FILL", fill.replace("NAME", "__deepcopy__"))
    )


def test_the_tools_subclass_of_a_namespace_answers_from_its_class(rt: Runtime) -> None:
    pytest.importorskip("numpy")
    source = """
import copy, types
import numpy as np


class Mine(types.SimpleNamespace):
    pass


def tool():
    data = b"0123456789abcdef"
    box = Mine(a=1)
    vars(box)["__array_interface__"] = {"data": (id(data), False), "shape": (16,), "typestr": "|u1", "version": 3}
    vars(box)["__deepcopy__"] = lambda memo: memo
    assert copy.deepcopy(box) is not box
    return np.asarray(box).tolist()
"""
    assert_refused(rt, attack(rt, source), ("policy", "tool_error"))


def test_namespaces_work_as_in_cpython(rt: Runtime) -> None:
    source = """
import copy, types


def tool():
    ns = types.SimpleNamespace(a=1, b="x")
    ns.c = [1]
    inner = types.SimpleNamespace(ns=ns)
    return [repr(ns), repr(inner), ns == copy.deepcopy(ns), isinstance(ns, types.SimpleNamespace),
            type(ns).__name__, copy.copy(ns).a]
"""
    result = attack(rt, source)
    assert result.success, result.error
    assert result.output == [
        "namespace(a=1, b='x', c=[1])",
        "namespace(ns=namespace(a=1, b='x', c=[1]))",
        True,
        True,
        "SimpleNamespace",
        1,
    ]


TYPE_FROM_TYPING = {
    "function-hint": 'def _f(x: "type"): pass\nHINT = lambda: typing.get_type_hints(_f)["x"]',
    "function-hint-namespaces": 'def _f(x: "type"): pass\nHINT = lambda: typing.get_type_hints(_f, {}, {})["x"]',
    "class-hint": 'class _C:\n    x: "type"\nHINT = lambda: typing.get_type_hints(_C)["x"]',
    "typeddict": 'class _T(typing.TypedDict):\n    x: "type"\nHINT = lambda: typing.get_type_hints(_T)["x"]',
    "namedtuple": '_N = typing.NamedTuple("_N", [("x", "type")])\nHINT = lambda: typing.get_type_hints(_N)["x"]',
    "list-args": 'def _f(x: "list[type]"): pass\nHINT = lambda: typing.get_args(typing.get_type_hints(_f)["x"])[0]',
    "annotated-extras": (
        'def _f(x: "typing.Annotated[type, 1]"): pass\n'
        'HINT = lambda: typing.get_args(typing.get_type_hints(_f, include_extras=True)["x"])[0]'
    ),
    "type-origin": 'def _f(x: "type[int]"): pass\nHINT = lambda: typing.get_origin(typing.get_type_hints(_f)["x"])',
    "Type-origin": 'def _f(x: "typing.Type[int]"): pass\nHINT = lambda: typing.get_origin(typing.get_type_hints(_f)["x"])',
    "annotated-args": "HINT = lambda: typing.get_args(typing.Annotated[type, 1])[0]",
}


@pytest.mark.parametrize("spelling", TYPE_FROM_TYPING.values(), ids=TYPE_FROM_TYPING.keys())
def test_typing_hands_out_no_real_type(rt: Runtime, spelling: str) -> None:
    source = f"""
import typing


def tool():
    return HINT()("Made", (), {{}}).__name__


{spelling}
"""
    try:
        result = attack(rt, source)
    except Exception as refused:  # refused when added: an annotation checked at compile time
        assert "type" in str(refused)
        return
    assert_refused(rt, result, ("policy", "tool_error"))


ODD_VALUES = {
    "surrogate-message": (
        'def tool():\n    raise ValueError("bad \\ud800 x")\n',
        "ValueError: bad \\ud800 x",
    ),
    "str-returns-int": (
        "class E(Exception):\n    def __str__(self):\n        return 1\ndef tool():\n    raise E()\n",
        "E: (its message could not be read: TypeError)",
    ),
    "str-raises": (
        'class E(Exception):\n    def __str__(self):\n        raise RuntimeError("no")\ndef tool():\n    raise E()\n',
        "E: (its message could not be read: RuntimeError)",
    ),
    "str-subclass-message": (
        'class S(str):\n    def __str__(self):\n        return 5\ndef tool():\n    raise ValueError(S("x"))\n',
        "ValueError: (its message could not be read: TypeError)",
    ),
    "surrogate-class-name": (
        'class E(Exception):\n    pass\ndef tool():\n    E.__name__ = "E\\udc80"\n    raise E("m")\n',
        "surrogates not allowed",  # CPython refuses the name
    ),
    "huge-message": (
        'def tool():\n    raise ValueError("x" * 20_000_000)\n',
        "[message truncated at 8192 characters]",
    ),
    "recursive-message": (
        "def tool():\n    a = []\n    a.append(a)\n    raise ValueError(a)\n",
        "ValueError: [[...]]",
    ),
    "surrogate-result": ('def tool():\n    return "\\ud800"\n', "surrogates not allowed"),
    "surrogate-key": ('def tool():\n    return {"\\udc80": 1}\n', "surrogates not allowed"),
    "surrogate-state": (
        'def tool():\n    context.state["\\ud800"] = 1\n    return 1\n',
        "surrogates not allowed",
    ),
    "recursive-result": ("def tool():\n    a = []\n    a.append(a)\n    return a\n", "Circular reference"),
}


@pytest.mark.parametrize(("source", "says"), ODD_VALUES.values(), ids=ODD_VALUES.keys())
def test_the_error_path_survives_any_value(rt: Runtime, source: str, says: str) -> None:
    result = attack(rt, source)
    assert_refused(rt, result, "tool_error")
    assert says in result.error.message


@pytest.mark.parametrize(
    "printed", ['"bad \\ud800 x"', '"\\udfff" * 3', "b'\\xff'.decode('utf-8', 'surrogateescape')"]
)
def test_a_surrogate_printed_reaches_the_log(rt: Runtime, printed: str) -> None:
    result = attack(rt, f"def tool():\n    print({printed})\n    return 1\n")
    assert result.success and result.output == 1, result.error
    assert "\\ud" in result.logs or "\\udc" in result.logs


def test_a_surrogate_printed_before_an_error_reaches_the_log(rt: Runtime) -> None:
    result = attack(rt, 'def tool():\n    print("a \\ud800")\n    raise ValueError("b")\n')
    assert_refused(rt, result, "tool_error")
    assert "a \\ud800" in result.logs


def test_a_copy_memo_holds_only_what_the_copies_returned(rt: Runtime) -> None:
    """The tool's ``deepcopy`` memo learns each copy's result and keeps its original, nothing else:
    no copy of a host object's internals (``_rpc``), whatever the tool copies into it."""
    source = """
import copy, functools, types


def tool():
    memo = {}
    results, originals = [], []
    for value in (context.state, tools, ces_requests, types.SimpleNamespace(a=[1]), functools.partial(print, sep="")):
        try:
            results.append(copy.deepcopy(value, memo))
            originals.append(value)
        except Exception:
            pass
    kept = memo.pop(id(memo))
    extra = [key for key, value in memo.items() if not any(value is result for result in results)]
    return [len(results), extra, len(kept) == len(originals) and all(a is b for a, b in zip(kept, originals))]
"""
    result = attack(rt, source)
    assert result.success, result.error
    count, extra, kept_originals = result.output
    assert count >= 3 and extra == [] and kept_originals
