"""Plain type expressions: the only annotations tool code may write.

pydantic, dataclasses and ``typing.get_type_hints`` evaluate annotation strings with ``eval``,
outside the guards. So every annotation must be a *plain type expression*: names and dotted
names (public, not blocked), subscripts of those, ``|``, tuples and lists of those, and
``None`` / ``...`` / str / int / bool constants; a string is parsed and held to the same rule,
except inside ``Literal[...]`` where strings are values. ``Annotated[T, ...]`` metadata may be
literals or ``Field(...)`` with literal arguments (and must resolve to pydantic's ``Field``). The compile-time policy checks the
source; ``install_forward_ref_hook`` checks every ``typing.ForwardRef`` tool code creates, and
every value such a reference resolves to, at run time.
"""

from __future__ import annotations

import ast
import builtins
import sys
import types
import typing
from typing import Any

import pydantic

from sandbox.language.guards import TOOL_MODULE_NAME, is_allowed_attribute, refuse, tool_code_on_stack

Problem = tuple[ast.AST, str]

_CONSTANT_TYPES = (str, int, bool, type(None), type(Ellipsis))
_TRUSTED_TYPE_MODULES = frozenset(
    {
        TOOL_MODULE_NAME,
        "builtins",
        "typing",
        "typing_extensions",
        "types",
        "collections",
        "datetime",
        "decimal",
        "fractions",
        "uuid",
        "enum",
        "re",
        "zoneinfo",
        "pydantic",
        "pydantic_core",
        "annotated_types",
        "dataclasses",
    }
)


def annotation_problems(node: ast.expr) -> list[Problem]:
    """Why ``node`` is not a plain type expression (an empty list when it is)."""
    problems: list[Problem] = []
    _check(node, problems)
    return problems


def string_annotation_problem(text: str) -> str | None:
    """Why the annotation string ``text`` is not a plain type expression, or None."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        return f"annotation {text!r} is not a valid type expression"
    problems = annotation_problems(tree.body)
    return problems[0][1] if problems else None


def _check(node: ast.expr, problems: list[Problem]) -> None:
    if isinstance(node, ast.Name):
        if node.id.startswith("_"):
            problems.append((node, f'name "{node.id}" in an annotation is not allowed'))
    elif isinstance(node, ast.Attribute):
        if not is_allowed_attribute(node.attr):
            problems.append((node, f'attribute "{node.attr}" in an annotation is not allowed'))
        _check_dotted(node.value, problems)
    elif isinstance(node, ast.Subscript):
        _check_dotted(node.value, problems)
        if _is_literal(node.value):
            _check_literal_values(node.slice, problems)
        elif _is_annotated(node.value):
            _check_annotated(node.slice, problems)
        else:
            _check(node.slice, problems)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        _check(node.left, problems)
        _check(node.right, problems)
    elif isinstance(node, ast.Tuple | ast.List):
        for element in node.elts:
            _check(element, problems)
    elif isinstance(node, ast.Constant) and isinstance(node.value, _CONSTANT_TYPES):
        if isinstance(node.value, str):
            problem = string_annotation_problem(node.value)
            if problem:
                problems.append((node, problem))
    else:
        problems.append((node, f"annotation {ast.unparse(node)!r} is not a plain type expression"))


def _check_dotted(node: ast.expr, problems: list[Problem]) -> None:
    if isinstance(node, ast.Name | ast.Attribute):
        _check(node, problems)
    else:
        problems.append((node, f"annotation {ast.unparse(node)!r} is not a plain type expression"))


def _is_literal(node: ast.expr) -> bool:
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")
    return name == "Literal"


def _is_annotated(node: ast.expr) -> bool:
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")
    return name == "Annotated"


def _is_constant_value(node: ast.expr) -> bool:
    """A literal: constants, and tuples, lists, sets and dicts of them (what ``ast.literal_eval`` takes)."""
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _is_field_call(node: ast.expr) -> bool:
    """``Field(...)`` or ``pydantic.Field(...)`` with literal arguments only."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    named = (isinstance(func, ast.Name) and func.id == "Field") or (
        isinstance(func, ast.Attribute) and func.attr == "Field" and isinstance(func.value, ast.Name)
    )
    literal_arguments = all(_is_constant_value(arg) for arg in node.args) and all(
        keyword.arg is not None and _is_constant_value(keyword.value) for keyword in node.keywords
    )
    return named and literal_arguments


def _check_annotated(node: ast.expr, problems: list[Problem]) -> None:
    """``Annotated[T, metadata...]``: T a plain type; metadata literals or ``Field(...)`` of literals."""
    if not (isinstance(node, ast.Tuple) and len(node.elts) >= 2):
        problems.append((node, "Annotated takes a type and at least one piece of metadata"))
        return
    _check(node.elts[0], problems)
    for metadata in node.elts[1:]:
        if not (_is_constant_value(metadata) or _is_field_call(metadata)):
            message = (
                f"Annotated metadata {ast.unparse(metadata)!r} must be a literal or Field(...) of literals"
            )
            problems.append((metadata, message))


def _check_literal_values(node: ast.expr, problems: list[Problem]) -> None:
    values = node.elts if isinstance(node, ast.Tuple) else [node]
    for value in values:
        if not (isinstance(value, ast.Constant) and isinstance(value.value, _CONSTANT_TYPES)):
            _check(value, problems)


def _is_type_value(value: Any) -> bool:
    """True for what a name in an annotation may resolve to: types and typing constructs."""
    if isinstance(value, _CONSTANT_TYPES):
        return True
    if isinstance(value, type):
        module = str(getattr(value, "__module__", "")).partition(".")[0]
        return not issubclass(value, type) and module in _TRUSTED_TYPE_MODULES
    return type(value).__module__ in ("typing", "typing_extensions", "types")


def _is_namespace_value(value: Any) -> bool:
    from sandbox.language.modules import ModuleView

    return isinstance(value, ModuleView) or _is_type_value(value)


def _resolve_checked(node: ast.expr, namespaces: list[Any]) -> None:
    """Resolve the names and dotted names of ``node`` as ``eval`` would, refusing non-types."""
    if isinstance(node, ast.Name | ast.Attribute):
        value = _lookup(node, namespaces)
        if value is not _MISSING and not _is_type_value(value):
            refuse(f"annotation name {ast.unparse(node)!r} does not name a type")
    elif isinstance(node, ast.Subscript) and _is_annotated(node.value) and isinstance(node.slice, ast.Tuple):
        _resolve_checked(node.value, namespaces)
        _resolve_checked(node.slice.elts[0], namespaces)
        for metadata in node.slice.elts[1:]:
            if isinstance(metadata, ast.Call) and _lookup(metadata.func, namespaces) is not pydantic.Field:
                refuse(f"{ast.unparse(metadata.func)!r} in Annotated metadata is not pydantic's Field")
    elif isinstance(node, ast.Subscript):
        _resolve_checked(node.value, namespaces)
        if not _is_literal(node.value):
            _resolve_checked(node.slice, namespaces)
    elif isinstance(node, ast.BinOp):
        _resolve_checked(node.left, namespaces)
        _resolve_checked(node.right, namespaces)
    elif isinstance(node, ast.Tuple | ast.List):
        for element in node.elts:
            _resolve_checked(element, namespaces)
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        _resolve_checked(ast.parse(node.value.strip(), mode="eval").body, namespaces)


_MISSING = object()


def _lookup(node: ast.expr, namespaces: list[Any]) -> Any:
    if isinstance(node, ast.Name):
        for namespace in namespaces:
            if namespace is not None and node.id in namespace:
                return namespace[node.id]
        return _MISSING
    assert isinstance(node, ast.Attribute)
    base = _lookup(node.value, namespaces)
    if base is _MISSING:
        return _MISSING
    if not _is_namespace_value(base):
        refuse(f"annotation name {ast.unparse(node.value)!r} is not a type or module")
    return getattr(base, node.attr, _MISSING)


def _evaluation_namespaces(globalns: Any, localns: Any) -> list[Any]:
    for namespace in (globalns, localns):
        module = _module_of_namespace(namespace)
        if module is not None and module.__name__ != TOOL_MODULE_NAME:
            refuse(f"annotations of tool code cannot be evaluated in module {module.__name__!r}")
    globalns = {} if globalns is None else globalns
    scope = globalns.get("__builtins__", builtins.__dict__) if isinstance(globalns, dict) else None
    scope = vars(scope) if isinstance(scope, types.ModuleType) else scope
    return [localns, globalns, scope]


def _module_of_namespace(namespace: Any) -> types.ModuleType | None:
    """The module whose ``__dict__`` is ``namespace``, if it is one."""
    if not isinstance(namespace, dict) or not isinstance(namespace.get("__name__"), str):
        return None
    module = sys.modules.get(namespace["__name__"])
    return module if module is not None and vars(module) is namespace else None


_hook_installed = False


def install_forward_ref_hook() -> None:
    """Make ``typing.ForwardRef`` refuse, for tool code, anything but a plain type expression.

    Construction checks the string; evaluation refuses real module namespaces (a class whose
    ``__module__`` names a host module) and names that resolve to anything but types.
    Idempotent.
    """
    global _hook_installed
    if _hook_installed:
        return
    forward_ref = typing.ForwardRef
    original_init = forward_ref.__init__
    original_evaluate = forward_ref._evaluate  # type: ignore[attr-defined]

    def checked_init(self: typing.ForwardRef, arg: str, *args: Any, **kwargs: Any) -> None:
        if tool_code_on_stack():
            problem = string_annotation_problem(arg) if isinstance(arg, str) else None
            if problem:
                refuse(problem)
            module = kwargs.get("module", args[1] if len(args) >= 2 else None)
            if module not in (None, TOOL_MODULE_NAME):
                refuse(f"annotations of tool code cannot be evaluated in module {module!r}")
        original_init(self, arg, *args, **kwargs)

    def checked_evaluate(
        self: typing.ForwardRef, globalns: Any, localns: Any, *args: Any, **kwargs: Any
    ) -> Any:
        if tool_code_on_stack():
            text = self.__forward_arg__
            problem = string_annotation_problem(text)
            if problem:
                refuse(problem)
            tree = ast.parse(text.strip(), mode="eval").body
            _resolve_checked(tree, _evaluation_namespaces(globalns, localns))
        return original_evaluate(self, globalns, localns, *args, **kwargs)

    forward_ref.__init__ = checked_init  # type: ignore[method-assign]
    forward_ref._evaluate = checked_evaluate  # type: ignore[attr-defined]
    _hook_installed = True
