"""Enum's functional API names class attributes from strings: hold them to the attribute rule.

``enum.Enum("E", [("__reduce_ex__", f)])`` sets an attribute that a class statement in tool
code may not define, and ``module=`` makes the class claim another module (whose namespace
``typing.get_type_hints`` would then evaluate annotations in). ``install_enum_hook`` makes the
functional API refuse both while tool code is on the stack; host code keeps the API as it is.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from typing import Any

from sandbox.language.guards import is_allowed_attribute, refuse, tool_code_on_stack

_hook_installed = False


def _member_names(names: Any) -> Iterable[object]:
    """The names in every form the functional API takes: "A B", "A,B", names, pairs, a mapping."""
    if isinstance(names, str):
        return names.replace(",", " ").split()
    if isinstance(names, Mapping):
        return list(names)
    return [item if isinstance(item, str) else item[0] for item in names]


def install_enum_hook() -> None:
    """Make ``Enum(name, names, ...)`` refuse private names and ``module=``/``qualname=`` for tool code. Idempotent."""
    global _hook_installed
    if _hook_installed:
        return
    original = enum.EnumType._create_

    def checked_create(
        cls: Any, class_name: str, names: Any, *, module: Any = None, qualname: Any = None, **kwargs: Any
    ) -> Any:
        if tool_code_on_stack():
            if module is not None or qualname is not None:
                refuse("Enum(..., module=, qualname=) is not allowed: an enum belongs to the tool")
            for name in _member_names(names):
                if not isinstance(name, str) or not is_allowed_attribute(name):
                    refuse(f"enum member name {name!r} is not allowed")
        return original(cls, class_name, names, module=module, qualname=qualname, **kwargs)

    enum.EnumType._create_ = checked_create  # type: ignore[method-assign]
    _hook_installed = True
