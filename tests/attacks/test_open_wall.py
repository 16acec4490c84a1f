"""What stays closed now that private names, special methods, ``match`` and more are open.

The rule: ``_names`` are the tool's on the tool's own classes and instances (the class that
defines a name decides), never on toolpen's or a library's objects; special attributes are the
listed ones; the guards' own names are never names of tool code. Each case must end in a
refusal (``PolicyViolation`` unless noted) and leave the host as it was.
"""

from __future__ import annotations

import pytest

from attacks import run_tool
from sandbox.bridges.proxies import Context, Tools
from sandbox.common.errors import PolicyViolation

ATTACKS: dict[str, str] = {
    # private names of host objects, read, written, probed
    "state-private-read": "def tool():\n    return context.state._original\n",
    "state-private-getattr": "def tool():\n    return getattr(context.state, '_assig' + 'ned')\n",
    "tools-private-read": "def tool():\n    return tools._rpc\n",
    "tools-private-hasattr": "def tool():\n    return hasattr(tools, '_rpc')\n",
    "host-private-write": "import json\ndef tool():\n    d = json.JSONDecoder()\n    d._scan = 1\n",
    "host-private-setattr": "import json\ndef tool():\n    setattr(json.JSONDecoder(), '_x', 1)\n",
    "subclass-inherits-host-private": (
        "from pydantic import BaseModel\nclass M(BaseModel):\n    x: int = 0\n"
        "def tool():\n    return M()._copy_and_set_values\n"
    ),
    "subclass-of-proxy-private": "class T(type(tools)):\n    pass\ndef tool():\n    return T._call\n",
    "enum-metaclass-private": "import enum\nclass E(enum.Enum):\n    A = 1\ndef tool():\n    return E._convert_\n",
    "enum-new-member": "import enum\nclass E(enum.Enum):\n    A = 1\ndef tool():\n    return E._new_member_\n",
    "super-host-private": (
        "import json\nclass D(json.JSONDecoder):\n    def f(self):\n        return super()._scan_once\n"
        "def tool():\n    return D().f()\n"
    ),
    # special attributes beyond the listed ones
    "function-globals": "def tool():\n    return tool.__globals__\n",
    "function-globals-getattr": "def tool():\n    return getattr(tool, '__glob' + 'als__')\n",
    "class-dict": "class A:\n    pass\ndef tool():\n    return A.__dict__\n",
    "host-instance-dict": "import json\ndef tool():\n    return json.JSONDecoder().__dict__\n",
    "host-instance-vars": "import json\ndef tool():\n    return vars(json.JSONDecoder())\n",
    "host-dunder-method": "def tool():\n    return context.state.__init__\n",
    "host-class-dunder-on-host": "def tool():\n    return dict.__init__(context.state, x=1)\n",
    "proxy-class-init-on-proxy": "def tool():\n    return type(context).__init__(context, {})\n",
    "subclass-init-on-proxy": (
        "class C(type(context)):\n    pass\ndef tool():\n    return C.__init__(context, {'state': {}})\n"
    ),
    "bases": "class A:\n    pass\ndef tool():\n    return A.__bases__\n",
    "dunder-write": "def tool():\n    tool.__module__ = 'json'\n",
    "class-write-dict": "class A:\n    pass\ndef tool():\n    A.__class__ = int\n",
    # the names tool_code_on_stack and the guards rely on
    "module-name-rebind": "__name__ = 'json'\ndef tool():\n    return 1\n",
    "module-name-global": "def tool():\n    global __name__\n    __name__ = 'json'\n",
    "class-module-claim": "class A:\n    __module__ = 'json'\ndef tool():\n    return A\n",
    "guard-name-def": "def _getattr_(o, n):\n    return 1\ndef tool():\n    return 1\n",
    "guard-name-import": "import json as _write_\ndef tool():\n    return 1\n",
    "guard-name-class-attr": "class A:\n    _apply_ = 1\ndef tool():\n    return A\n",
    "guard-name-except": "def tool():\n    try:\n        pass\n    except Exception as _print:\n        pass\n",
    "guard-name-match": "def tool():\n    match 1:\n        case _getiter_:\n            return 1\n",
    # match patterns read attributes without the guards
    "match-private-keyword": "def tool():\n    match tools:\n        case object(_rpc=r):\n            return r\n",
    "match-dunder-keyword": "def tool():\n    match tool:\n        case object(__globals__=g):\n            return g\n",
    "match-dunder-value": "def tool():\n    match 1:\n        case tool.__globals__:\n            return 1\n",
    "match-blocked-keyword": (
        "def tool():\n    g = (x for x in [1])\n    match g:\n        case object(gi_frame=f):\n            return f\n"
    ),
    # dataclasses.asdict reads getattr(obj, field.name): a Field subclass is a field definition too
    "dataclass-field-subclass-renamed": (
        "import dataclasses\nclass F(dataclasses.Field):\n    pass\ndef tool():\n"
        "    f = F(0, dataclasses.MISSING, True, True, None, True, None, False)\n"
        "    @dataclasses.dataclass\n    class D:\n        x: int = f\n"
        "    f.name = '__new__'\n    return dataclasses.asdict(D())\n"
    ),
    # functools.wraps writes and copies attributes named by its arguments
    "wraps-updated-globals": (
        "import functools, json\ndef tool():\n    def f():\n        pass\n"
        "    return functools.wraps(json.dumps, updated=('__globals__',))(f)\n"
    ),
    "wraps-assigned": (
        "import functools, json\ndef tool():\n    def f():\n        pass\n"
        "    return functools.update_wrapper(f, json.dumps, assigned=('__kwdefaults__',))\n"
    ),
    "wraps-onto-host": "import functools, json\ndef tool():\n    return functools.update_wrapper(json.dumps, tool)\n",
    # the type builtin answers isinstance, but builds nothing
    "type-subclass-builds-class": "class T(type):\n    pass\ndef tool():\n    return T('X', (), {})\n",
    "type-of-type": "def tool():\n    return type(type)\n",
}


@pytest.mark.parametrize("source", ATTACKS.values(), ids=ATTACKS.keys())
def test_what_the_opening_left_closed(source: str) -> None:
    context = Context({"state": {"k": 1}})
    with pytest.raises(PolicyViolation):
        run_tool(source, injected={"context": context, "tools": Tools(lambda *a: None, context.state)})
    assert context.state == {"k": 1}


def test_the_tool_own_private_names_and_specials_work() -> None:
    source = (
        "import functools\n"
        "class Account:\n    def __init__(self):\n        self._balance = 0\n        self.__pin = 1\n"
        "    def pin(self):\n        return self.__pin\n"
        "    def __add__(self, other):\n        return self._balance + other\n"
        "def _helper():\n    return 'h'\n"
        "def deco(f):\n    @functools.wraps(f)\n    def inner():\n        return f()\n    return inner\n"
        "@deco\ndef named():\n    'doc'\n    return 1\n"
        "def tool():\n    a = Account()\n    a._balance += 5\n"
        "    return (a._balance, a.pin(), a._Account__pin, a.__add__(1), vars(a), a.__class__.__name__,\n"
        "            _helper(), named.__name__, named.__doc__, __name__ == '__main__',\n"
        "            isinstance(Account, type), hasattr(a, '__add__'), hasattr([], '__iter__'),\n"
        "            getattr(a, '_missing', 'd'), type(ValueError()).__name__)\n"
    )
    result, _ = run_tool(source)
    assert result == (
        5, 1, 1, 6, {"_balance": 5, "_Account__pin": 1}, "Account", "h", "named", "doc", False,
        True, True, True, "d", "ValueError",
    )  # fmt: skip


def test_wraps_gives_no_class_of_the_tool_a_library_module() -> None:
    """``__module__`` says whether a class is the tool's or a library's (whose attribute rules and
    trust then apply): functools.wraps copies it onto nothing here (a red team forged error kinds
    with a class disguised as toolpen's own)."""
    source = (
        "import functools, typing\n"
        "class Disguised:\n    pass\n"
        "def tool():\n"
        "    functools.wraps(typing.Any)(Disguised)\n"
        "    functools.wraps(functools.partial)(Disguised)\n"
        "    return Disguised.__module__, Disguised.__name__\n"
    )
    assert run_tool(source)[0] == ("toolpen_tool", "partial")


def test_a_host_class_special_method_works_on_the_tool_own_instances() -> None:
    source = (
        "class Oops(Exception):\n    def __init__(self, message):\n        Exception.__init__(self, message)\n"
        "        self._code = 7\n"
        "def tool():\n    return str(Oops('bad')), Oops('x')._code\n"
    )
    assert run_tool(source)[0] == ("bad", 7)


def test_no_library_class_a_tool_can_name_matches_private_attributes_by_position() -> None:
    # class patterns read __match_args__ unguarded; a class body may not define it, so only the
    # library's own classes could name a private attribute there
    from sandbox.language.module_allowlist import ALLOWED_MODULES
    from sandbox.language.modules import module_view
    from sandbox.language.namespace import SAFE_BUILTINS
    from sandbox.language.rules import is_allowed_attribute

    members = [
        getattr(module_view(name), member) for name in ALLOWED_MODULES for member in dir(module_view(name))
    ]
    classes = [value for value in [*members, *SAFE_BUILTINS.values()] if isinstance(value, type)]
    assert classes
    for cls in classes:
        assert all(is_allowed_attribute(name) for name in getattr(cls, "__match_args__", ())), cls
    with pytest.raises(PolicyViolation):
        run_tool("class P:\n    __match_args__ = ('__globals__',)\ndef tool():\n    return P\n")


SETATTR_ATTACKS = {
    "object-setattr-class": (
        "class A:\n    pass\ndef tool():\n    a = A()\n    object.__setattr__(a, '__class__', int)\n"
    ),
    "super-setattr-class": (
        "class A:\n    def f(self):\n        super().__setattr__('__dict__', {})\ndef tool():\n    A().f()\n"
    ),
    "bound-setattr-dunder": "class A:\n    pass\ndef tool():\n    A().__setattr__('__class__', int)\n",
    "super-of-a-proxy": "def tool():\n    super(type(context), context).__setattr__('state', {})\n",
    "object-setattr-on-a-proxy": "def tool():\n    object.__setattr__(context, 'state', {})\n",
    "object-delattr-private-of-proxy": "def tool():\n    object.__delattr__(tools, '_rpc')\n",
}


@pytest.mark.parametrize("source", SETATTR_ATTACKS.values(), ids=SETATTR_ATTACKS.keys())
def test_setattr_as_a_special_method_checks_the_name_and_the_object(source: str) -> None:
    context = Context({"state": {"k": 1}})
    with pytest.raises(PolicyViolation):
        run_tool(source, injected={"context": context, "tools": Tools(lambda *a: None, context.state)})
    assert type(context.state).__name__ == "dict" and context.state == {"k": 1}


def test_frozen_dataclasses_set_fields_with_object_setattr() -> None:
    source = (
        "from dataclasses import dataclass, field\n"
        "@dataclass(frozen=True)\nclass Price:\n    net: float\n    gross: float = field(init=False)\n"
        "    def __post_init__(self):\n        object.__setattr__(self, 'gross', round(self.net * 1.2, 2))\n"
        "class Audited:\n    def __setattr__(self, name, value):\n        super().__setattr__(name, value)\n"
        "        super().__setattr__('_last', name)\n"
        "def tool():\n    a = Audited()\n    a.x = 1\n    return Price(10).gross, a._last\n"
    )
    assert run_tool(source)[0] == (12.0, "x")


SUPER_SUBCLASS_ATTACKS = {
    "private-read": "class S(super):\n    pass\ndef tool():\n    return S(type(tools), tools)._rpc\n",
    "private-getattr": "class S(super):\n    pass\ndef tool():\n    return getattr(S(type(tools), tools), '_rpc')\n",
    "host-setattr": "class S(super):\n    pass\ndef tool():\n    S(type(tools), tools).__setattr__('_rpc', print)\n",
    "host-init": "class S(super):\n    pass\ndef tool():\n    S(type(context), context).__init__({'state': {}})\n",
}


@pytest.mark.parametrize("source", SUPER_SUBCLASS_ATTACKS.values(), ids=SUPER_SUBCLASS_ATTACKS.keys())
def test_a_subclass_of_super_is_held_to_super_rules(source: str) -> None:
    # the guards special-cased super by exact type; an outside review read tools._rpc through a
    # subclass of super, whose lookups are super's but which passed as the tool's own object
    from sandbox.bridges.ces_context import CesTools

    context = Context({"state": {"k": 1}})
    with pytest.raises(PolicyViolation):
        run_tool(source, injected={"context": context, "tools": CesTools(lambda *a: None, context.state)})
    assert context.state == {"k": 1}
