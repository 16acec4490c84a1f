"""Escapes through the language wall: each must be refused and leave the host intact.

Every attack runs in-process through ``compile_tool`` + ``build_globals`` and must end in a
``PolicyViolation`` (at compile or run time) or another refusal (the name or module member does
not exist). The fixture then checks the host: no sentinel file, ``os.environ`` unchanged, the
module views unchanged for the next run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from attacks import run_tool
from sandbox.common.errors import PolicyViolation
from sandbox.language.compiler import compile_tool
from sandbox.language.modules import module_view

SENTINEL = "/tmp/toolpen-attack-sentinel"

# (id, tool source defining ``tool()``, the refusal expected)
ATTACKS: list[tuple[str, str, type[BaseException]]] = [
    # CVE-2023-37271: generator frames lead to the globals of the caller
    (
        "cve-2023-37271-gi-frame",
        "def tool():\n    q = (q.gi_frame.f_back.f_back.f_globals for _ in [1])\n    return [x for x in q][0]\n",
        PolicyViolation,
    ),
    (
        "gi-frame-by-getattr",
        "def tool():\n    g = (x for x in [1])\n    return getattr(g, 'gi_' + 'frame')\n",
        PolicyViolation,
    ),
    ("gi-code", "def tool():\n    g = (x for x in [1])\n    return g.gi_code\n", PolicyViolation),
    (
        "coroutine-frame",
        "async def other():\n    pass\nasync def tool():\n    return other().cr_frame\n",
        PolicyViolation,
    ),
    (
        "coroutine-frame-by-getattr",
        "async def other():\n    pass\nasync def tool():\n    return getattr(other(), 'cr_' + 'frame')\n",
        PolicyViolation,
    ),
    (
        "traceback-frame",
        "def tool():\n    try:\n        1 / 0\n    except Exception as e:\n        return e.__traceback__.tb_frame\n",
        PolicyViolation,
    ),
    (
        "traceback-by-getattr",
        "def tool():\n    try:\n        1 / 0\n    except Exception as e:\n        return getattr(e, '__trace' + 'back__')\n",
        PolicyViolation,
    ),
    ("exc-info", "import sys\ndef tool():\n    return sys.exc_info()\n", AttributeError),  # not in the view
    # CVE-2023-41039 and friends: format strings walk attributes inside CPython
    ("format-dunder", "def tool():\n    return '{0.__class__.__mro__}'.format(1)\n", PolicyViolation),
    (
        "format-map-dunder",
        "def tool():\n    return '{x.__class__.__base__}'.format_map({'x': 1})\n",
        PolicyViolation,
    ),
    (
        "format-nested-spec",
        "def tool():\n    return '{0:{1.__class__.__bases__}}'.format(1, 2)\n",
        PolicyViolation,
    ),
    ("format-unbound", "def tool():\n    return str.format('{0.__class__.__base__}', 1)\n", PolicyViolation),
    # CVE-2024-47532: getattr on the str class gives the unbound format
    (
        "cve-2024-47532-getattr-str-format",
        "def tool():\n    return getattr(str, 'format')('{0.__class__.__base__}', 1)\n",
        PolicyViolation,
    ),
    (
        "string-formatter-import",
        "from string import Formatter\ndef tool():\n    return Formatter()\n",
        PolicyViolation,
    ),
    (
        "string-formatter-get-field",
        "import string\ndef tool():\n    return string.Formatter().get_field('0.__class__', [1], {})\n",
        AttributeError,
    ),
    # Formatter through operator getters
    (
        "attrgetter-dunder",
        "import operator\ndef tool():\n    return operator.attrgetter('__class__')(1)\n",
        PolicyViolation,
    ),
    (
        "attrgetter-dotted",
        "import operator\ndef tool():\n    return operator.attrgetter('real.__class__')(1)\n",
        PolicyViolation,
    ),
    (
        "methodcaller-dunder",
        "import operator\ndef tool():\n    return operator.methodcaller('__reduce_ex__', 2)(1)\n",
        PolicyViolation,
    ),
    (
        "methodcaller-format",
        "import operator\ndef tool():\n    return operator.methodcaller('format', 1)('{0.__class__}')\n",
        PolicyViolation,
    ),
    # annotation strings evaluated by pydantic / dataclasses / typing
    (
        "pydantic-string-annotation",
        f"from pydantic import BaseModel\nclass M(BaseModel):\n    x: \"__import__('os').system('touch {SENTINEL}')\"\ndef tool():\n    return M(x=1)\n",
        PolicyViolation,
    ),
    (
        "dataclass-string-annotation",
        "from dataclasses import dataclass\n@dataclass\nclass D:\n    x: \"open('/etc/passwd').read()\"\ndef tool():\n    return D(1)\n",
        PolicyViolation,
    ),
    (
        "future-annotation-call",
        "from __future__ import annotations\nfrom pydantic import BaseModel\nclass M(BaseModel):\n    x: eval('1')\ndef tool():\n    return M(x=1)\n",
        PolicyViolation,
    ),
    (
        "future-annotation-names-a-function",
        "from __future__ import annotations\nfrom pydantic import BaseModel\nclass M(BaseModel):\n    x: getattr\ndef tool():\n    return M(x=1)\n",
        PolicyViolation,
    ),
    (
        "get-type-hints-hostile-namespace",
        "import typing\nclass A:\n    x: 'int'\ndef tool():\n    return typing.get_type_hints(A, globalns={'int': getattr})\n",
        PolicyViolation,
    ),
    (
        "typing-list-forward-ref-smuggling",
        f"import typing\ndef tool():\n    return typing.List[\"__import__('os').system('touch {SENTINEL}')\"]\n",
        PolicyViolation,
    ),
    (
        "forward-ref-in-foreign-module",
        "import typing\ndef tool():\n    t = typing.get_origin(typing.Type[int])\n"
        "    cls = t('X', (), {'__module__': 'os', '__annotations__': {'a': 'system'}})\n"
        "    return typing.get_type_hints(cls)\n",
        PolicyViolation,
    ),
    (
        "typing-forward-ref-missing",
        "import typing\ndef tool():\n    return typing.ForwardRef('x')\n",
        AttributeError,
    ),
    # module attributes that lead to other modules
    ("typing-sys", "import typing\ndef tool():\n    return typing.sys\n", AttributeError),
    ("pydantic-main-import", "import pydantic.main\ndef tool():\n    return 1\n", PolicyViolation),
    ("pydantic-main-from", "from pydantic import main\ndef tool():\n    return main\n", PolicyViolation),
    ("json-decoder", "import json\ndef tool():\n    return json.decoder\n", AttributeError),
    ("re-compiler", "import re\ndef tool():\n    return getattr(re, '_compiler')\n", PolicyViolation),
    # the obvious builtins
    ("dunder-import", "def tool():\n    return __import__('os')\n", PolicyViolation),
    ("dynamic-dunder", "def tool():\n    return getattr(int, '__bas' + 'es__')\n", PolicyViolation),
    ("vars", "def tool():\n    return vars()\n", PolicyViolation),
    (
        "vars-of-host-object",
        "import json\ndef tool():\n    return vars(json.JSONDecoder())\n",
        PolicyViolation,
    ),
    ("io-open", "import io\ndef tool():\n    return io.open\n", AttributeError),
    # types offers SimpleNamespace and MappingProxyType only: no function, code or class factories
    ("types-function", "import types\ndef tool():\n    return types.FunctionType\n", AttributeError),
    ("types-code", "from types import CodeType\ndef tool():\n    return CodeType\n", PolicyViolation),
    ("types-new-class", "import types\ndef tool():\n    return types.new_class\n", AttributeError),
    ("io-fileio", "from io import FileIO\ndef tool():\n    return FileIO\n", PolicyViolation),
    ("strptime-module", "import _strptime\ndef tool():\n    return 1\n", PolicyViolation),
    ("globals", "def tool():\n    return globals()\n", NameError),
    ("locals", "def tool():\n    return locals()\n", NameError),
    ("eval", "def tool():\n    return eval('1')\n", PolicyViolation),
    ("exec", "def tool():\n    exec('x = 1')\n", PolicyViolation),
    ("compile", "def tool():\n    return compile('1', 'x', 'eval')\n", NameError),
    # open is the scratch directory's: nothing outside it can be written
    ("open-outside-scratch", "def tool():\n    open('/etc/toolpen-attack-sentinel', 'w')\n", PermissionError),
    ("type-three-args", "def tool():\n    return type('X', (), {'__getattr__': 1})\n", PolicyViolation),
    ("type-of-class", "def tool():\n    return type(int)('X', (), {})\n", PolicyViolation),
    (
        "metaclass",
        "class M:\n    pass\nclass A(metaclass=M):\n    pass\ndef tool():\n    return A\n",
        PolicyViolation,
    ),
    (
        "try-except-star",
        "def tool():\n    try:\n        pass\n    except* Exception:\n        pass\n",
        PolicyViolation,
    ),
    # print(file=x) is x.write(...) through the guards: an object without a public write has none
    ("print-file", "def tool():\n    print('x', file=context)\n", AttributeError),
    ("star-import", "from json import *\ndef tool():\n    return 1\n", PolicyViolation),
    (
        "subclasses-walk",
        "def tool():\n    return ().__class__.__bases__[0].__subclasses__()\n",
        PolicyViolation,
    ),
    (
        "subclasses-walk-getattr",
        "def tool():\n    return getattr(getattr(object, '__subcla' + 'sses__'), 'x')\n",
        PolicyViolation,
    ),
    ("mro-walk", "def tool():\n    return int.mro()\n", PolicyViolation),
    # an exception chain holds what a library caught inside (json's own StopIteration here)
    (
        "context-caught-in-a-library",
        "import json\ndef tool():\n    try:\n        json.loads('')\n    except ValueError as error:\n"
        "        return error.__context__\n",
        PolicyViolation,
    ),
    (
        "context-by-getattr",
        "import json\ndef tool():\n    try:\n        json.loads('')\n    except ValueError as error:\n"
        "        return getattr(error, '__con' + 'text__')\n",
        PolicyViolation,
    ),
    # __wrapped__ of a library's cached function is the library's raw function
    (
        "wrapped-of-a-library",
        "from urllib.parse import urlsplit\ndef tool():\n    return urlsplit.__wrapped__\n",
        PolicyViolation,
    ),
    # descriptor methods may be defined, not read: cached_property.__get__ writes into any __dict__
    (
        "cached-property-get",
        "import functools\ndef tool():\n    return functools.cached_property.__get__\n",
        PolicyViolation,
    ),
    (
        "cached-property-get-by-getattr",
        "import functools, types\nclass P(functools.cached_property):\n    pass\ndef tool():\n"
        "    p = P(lambda self: 1)\n    p.attrname = '_rpc'\n"
        "    return getattr(functools.cached_property, '__g' + 'et__')(p, types.SimpleNamespace())\n",
        PolicyViolation,
    ),
    (
        "own-get-read",
        "class D:\n    def __get__(self, obj, owner=None):\n        return 1\ndef tool():\n    return D().__get__\n",
        PolicyViolation,
    ),
    # a value type's special methods work on values, not on host objects, and never re-initialise
    (
        "value-dunder-on-host",
        "import json\ndef tool():\n    return dict.__getitem__(json.JSONDecoder(), 'x')\n",
        PolicyViolation,
    ),
    ("value-init", "def tool():\n    return list.__init__([1], [])\n", PolicyViolation),
    ("value-setattr", "def tool():\n    return int.__setattr__(1, 'real', 2)\n", PolicyViolation),
    (
        "deepcopy-method",
        "class A:\n    def __deepcopy__(self, memo):\n        return memo\ndef tool():\n    return A\n",
        PolicyViolation,
    ),
    ("reduce-ex", "def tool():\n    return object.__reduce_ex__(1, 2)\n", PolicyViolation),
    ("reduce-ex-getattr", "def tool():\n    return getattr(1, '__reduce_' + 'ex__')(2)\n", PolicyViolation),
    # guard shadowing
    (
        "posonly-getattr",
        "def tool():\n    def f(_getattr_, /):\n        return x.y\n    return f(1)\n",
        PolicyViolation,
    ),
    (
        "posonly-print",
        "def tool():\n    def f(_print, /):\n        print(1)\n    return f(1)\n",
        PolicyViolation,
    ),
    ("lambda-default", "def tool():\n    return (lambda _getattr_=getattr: 1)()\n", PolicyViolation),
    ("class-attribute-guard", "class A:\n    _getattr_ = 1\ndef tool():\n    return A\n", PolicyViolation),
    ("global-guard", "def tool():\n    global _write_\n    _write_ = 1\n", PolicyViolation),
    ("walrus-guard", "def tool():\n    return (_getitem_ := 1)\n", PolicyViolation),
    (
        "decorator-dunder",
        "def tool():\n    @(lambda f: f.__globals__)\n    def g():\n        pass\n    return g\n",
        PolicyViolation,
    ),
    (
        "dunder-method-outside-class",
        "def __getattr__(name):\n    return 1\ndef tool():\n    return 1\n",
        PolicyViolation,
    ),
    (
        "getattribute-method",
        "class A:\n    def __getattribute__(self, name):\n        return 1\ndef tool():\n    return A\n",
        PolicyViolation,
    ),
    ("underscore-keyword", "def tool():\n    return dict(_x=1)\n", PolicyViolation),
    (
        "underscore-keyword-unpacked",
        "def tool():\n    return dict(**{'__module__': 'os'})\n",
        PolicyViolation,
    ),
    # shared objects may not be changed
    ("module-view-write", "import json\ndef tool():\n    json.loads = None\n", PolicyViolation),
    ("module-view-setattr", "import json\ndef tool():\n    setattr(json, 'loads', None)\n", PolicyViolation),
    ("module-view-augmented", "import math\ndef tool():\n    math.pi += 1\n", PolicyViolation),
    (
        "host-class-write",
        "from pydantic import BaseModel\ndef tool():\n    BaseModel.model_dump = None\n",
        PolicyViolation,
    ),
    ("host-function-write", "import json\ndef tool():\n    json.dumps.cache = {}\n", PolicyViolation),
    ("builtin-class-write", "def tool():\n    int.bit_length = None\n", PolicyViolation),
    ("relative-import", "from . import x\ndef tool():\n    return x\n", PolicyViolation),
    (
        "super-dunder-getattr",
        "class A:\n    def f(self):\n        return super().__getattribute__('x')\ndef tool():\n    return A().f()\n",
        PolicyViolation,
    ),
    # a library's __new__ makes instances of the tool's own classes only
    (
        "object-new-host",
        "import json\ndef tool():\n    return object.__new__(json.JSONDecoder)\n",
        PolicyViolation,
    ),
    (
        "super-new-host",
        "import json\nclass A:\n    def __new__(cls):\n        return super().__new__(json.JSONDecoder)\n"
        "def tool():\n    return A()\n",
        PolicyViolation,
    ),
    ("new-held", "def tool():\n    make = object.__new__\n    return make(type)\n", PolicyViolation),
    # pydantic's dataclass decorator changes the class it is given: the tool's own only
    (
        "pydantic-dataclass-host-class",
        "import json\nfrom pydantic.dataclasses import dataclass\ndef tool():\n    return dataclass(json.JSONDecoder)\n",
        PolicyViolation,
    ),
    # sys is a view of constants and the call's output streams: nothing that reaches modules or frames
    ("sys-modules", "import sys\ndef tool():\n    return sys.modules\n", AttributeError),
    ("sys-modules-from", "from sys import modules\ndef tool():\n    return modules\n", PolicyViolation),
    ("sys-getframe", "import sys\ndef tool():\n    return getattr(sys, '_getframe')\n", PolicyViolation),
    ("sys-settrace", "import sys\ndef tool():\n    return sys.settrace\n", AttributeError),
    ("sys-recursion", "import sys\ndef tool():\n    sys.setrecursionlimit(10**6)\n", AttributeError),
    ("sys-exit", "import sys\ndef tool():\n    sys.exit(0)\n", AttributeError),
    ("sys-stdout-replace", "import sys\ndef tool():\n    sys.stdout = None\n", PolicyViolation),
    ("sys-stdout-attribute", "import sys\ndef tool():\n    sys.stdout.write = print\n", AttributeError),
] + [
    (f"import-{name}", f"import {name}\ndef tool():\n    return {name}\n", PolicyViolation)
    for name in (
        "shutil",
        "importlib",
        "builtins",
        "ctypes",
        "socket",
        "posix",
        "_io",
        "pickle",
    )
]


def _environment() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if key != "PYTEST_CURRENT_TEST"}


@pytest.fixture
def host_intact() -> Iterator[None]:
    """Check after the attack that nothing outside the tool changed."""
    Path(SENTINEL).unlink(missing_ok=True)
    environment = _environment()
    yield
    assert not Path(SENTINEL).exists()
    assert _environment() == environment
    assert module_view("json").loads is json.loads
    assert module_view("typing").get_type_hints is not None
    assert run_tool("import json\ndef tool():\n    return json.loads('[1]')\n")[0] == [1]


@pytest.mark.usefixtures("host_intact")
@pytest.mark.parametrize(
    ("source", "refusal"), [(s, r) for _, s, r in ATTACKS], ids=[i for i, _, _ in ATTACKS]
)
def test_attack_is_refused(source: str, refusal: type[BaseException]) -> None:
    with pytest.raises(refusal):
        run_tool(source, injected={"context": object()})


def test_compile_time_refusals_name_the_line() -> None:
    with pytest.raises(PolicyViolation) as caught:
        compile_tool("x = 1\n\ndef tool():\n    return x.__globals__\n")
    assert caught.value.line == 4
    assert "line 4" in caught.value.message


def test_run_time_refusals_name_the_tool_line() -> None:
    with pytest.raises(PolicyViolation) as caught:
        run_tool("def tool():\n    name = '__globals__'\n    return getattr(tool, name)\n")
    assert caught.value.line == 3
    assert "/" not in caught.value.message


def test_dir_of_a_module_view_shows_public_members_only() -> None:
    names, _ = run_tool("import typing, json\ndef tool():\n    return dir(typing) + dir(json)\n")
    assert "get_type_hints" in names and "loads" in names
    assert not [name for name in names if name.startswith("_")]
    assert not {"sys", "decoder", "ForwardRef", "re", "collections"} & set(names)


def test_a_tool_cannot_change_the_views_of_the_next_run() -> None:
    with pytest.raises(PolicyViolation):
        run_tool("import json\ndef tool():\n    json.loads = None\n")
    result, _ = run_tool("import json\ndef tool():\n    return json.loads('{\"a\": 1}')\n")
    assert result == {"a": 1}
