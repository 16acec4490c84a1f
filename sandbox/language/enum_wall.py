"""Enum's functional API names class attributes from strings: hold them to the attribute rule.

``enum.Enum("E", [("__reduce_ex__", f)])`` sets an attribute that a class statement in tool
code may not define, and ``module=`` makes the class claim another module (whose namespace
``typing.get_type_hints`` would then evaluate annotations in). ``install_enum_hook`` makes the
functional API refuse both (always in a worker, elsewhere while tool code is on the stack), on
one copy of the names it reads once; host code outside a worker keeps the API as it is. The class
it makes is checked as a class statement's (``classes.check_tool_class``): ``type=np.float64``
would derive it from a library class past that library's attribute allowlist.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

from sandbox.language.arming import checks_apply
from sandbox.language.classes import check_tool_class
from sandbox.language.rules import exact_str, is_allowed_attribute, refuse

_hook_installed = False


def _materialized(names: Any) -> str | list[Any]:
    """The members in every form the functional API takes ("A B", "A,B", names, pairs, a mapping), read once.

    The API reads ``names`` again after any check; a tool's iterable, mapping or pair could answer
    differently the second time. So the check and ``Enum`` both use this one copy, whose names
    are exact ``str``s.
    """
    if isinstance(names, str):
        return exact_str(names)
    if isinstance(names, Mapping):
        return [(_member_name(key), names[key]) for key in list(names)]
    members: list[Any] = []
    for item in list(names):
        if isinstance(item, str):
            members.append(_member_name(item))
        else:
            name, value = item
            members.append((_member_name(name), value))
    return members


def _member_name(name: object) -> str:
    if not isinstance(name, str):
        refuse(f"enum member name {name!r} is not allowed")
    name = exact_str(name)
    if not is_allowed_attribute(name):
        refuse(f"enum member name {name!r} is not allowed")
    return name


def _checked_string(names: str) -> None:
    for name in names.replace(",", " ").split():
        _member_name(name)


def install_enum_hook() -> None:
    """Make ``Enum(name, names, ...)`` refuse private names and ``module=``/``qualname=`` for tool code. Idempotent."""
    global _hook_installed
    if _hook_installed:
        return
    original = enum.EnumType._create_  # type: ignore[attr-defined]  # typeshed does not declare it

    def checked_create(
        cls: Any, class_name: str, names: Any, *, module: Any = None, qualname: Any = None, **kwargs: Any
    ) -> Any:
        checking = checks_apply()
        if checking:
            if module is not None or qualname is not None:
                refuse("Enum(..., module=, qualname=) is not allowed: an enum belongs to the tool")
            class_name = exact_str(class_name, "an enum name")
            names = _materialized(names)
            if isinstance(names, str):
                _checked_string(names)
        created = original(cls, class_name, names, module=module, qualname=qualname, **kwargs)
        if checking:  # as a class statement's: type= may not be a library class
            check_tool_class(created, class_name)
        return created

    enum.EnumType._create_ = checked_create  # type: ignore[attr-defined]
    _hook_installed = True
