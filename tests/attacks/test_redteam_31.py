"""An outside red team's attacks on the escape-class fixes of issue 31, each asserted refused.

Goals: the real ``type`` out of ``typing``, raw memory through numpy, a copy memo through an
instance dict, unchecked underscore keywords through ``contextlib.contextmanager``'s ``kwds``, and
a crashed worker through hostile ``str`` subclasses in the error and result paths.
"""

from __future__ import annotations

import pytest

from runtime import Runtime
from tests.attacks import assert_refused, assert_refused_when_added_or_called, attack

TYPING_ORIGINS = {
    "origin-of-Type-int": "typing.get_origin(typing.Type[int])",
    "origin-of-bare-Type": "typing.get_origin(typing.Type)",
    "origin-inside-Callable-args": "typing.get_origin(typing.get_args(typing.Callable[[typing.Type[int]], int])[0][0])",
}

TYPING_ATTACK = """
import typing


def tool() -> str:
    t = ORIGIN
    return repr(t("X", (), {}))
"""


@pytest.mark.parametrize("origin", TYPING_ORIGINS.values(), ids=TYPING_ORIGINS.keys())
def test_typing_introspection_hands_out_no_metaclass(rt: Runtime, origin: str) -> None:
    assert_refused(rt, attack(rt, TYPING_ATTACK.replace("ORIGIN", origin)))


NUMPY_REINTERPRETS = {
    "getfield-object": "a.getfield(np.dtype(object))",
    "view-object": "a.view(object)",
    "overlapping-object-field": 'np.zeros(1, np.dtype({"names": ["a", "b"], "formats": ["u8", "O"], "offsets": [0, 0]}))',
    "ndarray-over-buffer": "np.ndarray((1,), dtype=object, buffer=bytearray(8))",
}

NUMPY_ATTACK = """
import numpy as np


def tool() -> str:
    x = [1]
    a = np.zeros(2, np.uint64)
    a[0] = id(x)
    return repr(REINTERPRET)
"""


@pytest.mark.parametrize("spelling", NUMPY_REINTERPRETS.values(), ids=NUMPY_REINTERPRETS.keys())
def test_numpy_reinterprets_no_integer_as_an_object(rt: Runtime, spelling: str) -> None:
    pytest.importorskip("numpy")
    result = attack(rt, NUMPY_ATTACK.replace("REINTERPRET", spelling))
    assert_refused(rt, result, ("policy", "tool_error"))


def test_an_own_instance_dict_names_no_array_interface(rt: Runtime) -> None:
    pytest.importorskip("numpy")
    source = """
    import numpy as np


    class A:
        pass


    def tool() -> list:
        data = b"0123456789abcdef"
        a = A()
        a.__dict__["__array_interface__"] = {"data": (id(data), False), "shape": (16,), "typestr": "|u1", "version": 3}
        return np.asarray(a).tolist()
    """
    assert_refused(rt, attack(rt, source), ("policy", "tool_error"))


def test_an_own_instance_dict_supplies_no_deepcopy(rt: Runtime) -> None:
    source = """
    import copy


    class A:
        pass


    def tool() -> int:
        got = []
        a = A()
        a.__dict__["__deepcopy__"] = lambda memo: got.append(memo) or 1
        copy.deepcopy([a])
        return len(got)
    """
    result = attack(rt, source)
    assert result.success and result.output == 0, result


def test_contextmanager_kwds_reach_a_namespace_checked(rt: Runtime) -> None:
    pytest.importorskip("numpy")
    source = """
    import contextlib, types
    import numpy as np


    def tool() -> list:
        data = b"0123456789abcdef"
        c = contextlib.contextmanager(types.SimpleNamespace)()
        c.kwds["__array_interface__"] = {"data": (id(data), False), "shape": (16,), "typestr": "|u1", "version": 3}

        @c
        def g():
            pass

        g()
        return []
    """
    assert_refused(rt, attack(rt, source), ("policy", "tool_error"))


HOSTILE_STR = """
class S(str):
    def __getitem__(self, k):
        raise RuntimeError("getitem")

    def encode(self, *a, **k):
        raise RuntimeError("encode")

    def __len__(self):
        raise RuntimeError("len")

    def __hash__(self):
        raise RuntimeError("hash")

    def __format__(self, spec):
        raise RuntimeError("format")

    def __str__(self):
        return self
"""

HOSTILE_PATHS = {
    "message": "class E(Exception):\n    def __str__(self):\n        return S('m')\n\n\ndef tool() -> int:\n    raise E()\n",
    "class-name": "class E(Exception):\n    pass\n\n\nE.__name__ = S('Evil')\nE.__qualname__ = S('Evil')\n\n\ndef tool() -> int:\n    raise E('x')\n",
    "result": "def tool() -> dict:\n    return {S('k'): S('v')}\n",
    "print": "def tool() -> int:\n    print(S('hi'))\n    return 1\n",
    "huge-surrogates": "def tool() -> int:\n    raise ValueError('\\ud800' * 10_000_000)\n",
    "deep-cause-chain": (
        "def tool() -> int:\n    e = None\n    for i in range(3000):\n        try:\n"
        "            if e is None:\n                raise ValueError('0')\n"
        "            raise ValueError(str(i)) from e\n        except ValueError as x:\n            e = x\n    raise e\n"
    ),
}


@pytest.mark.parametrize("path", HOSTILE_PATHS.values(), ids=HOSTILE_PATHS.keys())
def test_hostile_str_subclasses_do_not_crash_the_worker(rt: Runtime, path: str) -> None:
    result = attack(rt, HOSTILE_STR + "\n\n" + path)
    if not result.success:
        assert_refused(rt, result, ("tool_error", "recursion", "output_too_large"))


C_CALLERS = {
    "context-run": "contextvars.copy_context().run(p)",
    "simple-queue": "(q.put(p), q.get())[1]()",
}
"""C code calling a partial tool code wrote keywords into (``contextvars``, ``queue``: i31-stdlib)."""

C_CALLER_ATTACK = """
import contextvars, functools, queue, types
import numpy as np


def tool() -> list:
    data = b"0123456789abcdef"
    q = queue.SimpleQueue()
    p = functools.partial(types.SimpleNamespace)
    p.keywords["__array_interface__"] = {"data": (id(data), False), "shape": (16,), "typestr": "|u1", "version": 3}
    return np.asarray(CALL).tolist()
"""


@pytest.mark.parametrize("call", C_CALLERS.values(), ids=C_CALLERS.keys())
def test_a_partial_called_by_a_new_modules_c_code_checks_its_keywords(rt: Runtime, call: str) -> None:
    pytest.importorskip("numpy")
    assert_refused_when_added_or_called(rt, C_CALLER_ATTACK.replace("CALL", call))


SHADOWED_KEYWORDS = {
    "property": "@property\n    def keywords(self):\n        return {}",
    "class-attribute": "keywords = {}",
}
"""A tool subclass shadowing ``keywords``: the check reads the shadow, C calls with the real dict."""

SHADOW_ATTACK = """
import functools


class Sub(functools.partial):
    SHADOW

    def real(self):
        return super().keywords


def tool() -> str:
    p = Sub(dict)
    p.real()["__x"] = 1
    return repr(p())
"""


@pytest.mark.parametrize("shadow", SHADOWED_KEYWORDS.values(), ids=SHADOWED_KEYWORDS.keys())
def test_a_subclass_shadowing_keywords_does_not_hide_them_from_the_check(rt: Runtime, shadow: str) -> None:
    assert_refused_when_added_or_called(rt, SHADOW_ATTACK.replace("SHADOW", shadow))


def test_shadowed_keywords_reach_no_private_parameter_of_pydantic(rt: Runtime) -> None:
    source = SHADOW_ATTACK.replace("SHADOW", "keywords = {}").replace(
        'def tool() -> str:\n    p = Sub(dict)\n    p.real()["__x"] = 1\n    return repr(p())',
        "class Mo(pydantic.BaseModel):\n    a: int = 1\n\n\n"
        'def tool() -> str:\n    p = Sub(Mo.model_construct)\n    p.real()["_fields_set"] = {"x"}\n'
        "    return repr(p().model_fields_set)",
    )
    assert_refused_when_added_or_called(rt, "import pydantic\n" + source)


GETATTRIBUTE_GOALS = {
    "array-interface": (
        "import numpy as np\n\n\nclass A:\n    def __getattribute__(self, name):\n"
        '        return {"data": (id(b"0123456789abcdef"), False), "shape": (16,), "typestr": "|u1", "version": 3}\n\n\n'
        "def tool() -> list:\n    return np.asarray(A()).tolist()\n"
    ),
    "namespace-subclass": (
        "import numpy as np, types\n\n\nclass A(types.SimpleNamespace):\n    def __getattribute__(self, name):\n"
        '        return {"data": (id(b"0123456789abcdef"), False), "shape": (16,), "typestr": "|u1", "version": 3}\n\n\n'
        "def tool() -> list:\n    return np.asarray(A()).tolist()\n"
    ),
    "deepcopy-memo": (
        "import copy\n\ngot = []\n\n\nclass A:\n    def __getattribute__(self, name):\n"
        "        return lambda memo: got.append(memo) or 1\n\n\n"
        "def tool() -> int:\n    copy.deepcopy([A()])\n    return len(got)\n"
    ),
}
"""A ``__getattribute__`` of the tool's answering the names numpy and ``copy`` read."""


@pytest.mark.parametrize("source", GETATTRIBUTE_GOALS.values(), ids=GETATTRIBUTE_GOALS.keys())
def test_getattribute_answers_no_special_name_to_c_code(rt: Runtime, source: str) -> None:
    if "numpy" in source:
        pytest.importorskip("numpy")
    assert_refused_when_added_or_called(rt, source)
