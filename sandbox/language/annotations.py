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
from collections.abc import Iterator, Mapping
from typing import Any

from sandbox.common.errors import InvalidSource
from sandbox.common.parsing import parse_expression
from sandbox.language.arming import checks_apply
from sandbox.language.framework_views import TYPE_MODULES
from sandbox.language.rules import TOOL_MODULE_NAME, exact_str, is_allowed_attribute, refuse

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


_CES_TYPE_MODULES = frozenset({"sandbox.bridges.ces_types", "sandbox.bridges.ces_context"}) | TYPE_MODULES
"""The CES classes every tool gets as globals (``Part``, ``Content``, ``ToolContext``, ...), and the
framework views' (``RunContextWrapper``, MCP's ``Context`` and ``TextContent``, ...)."""


def annotation_problems(node: ast.expr) -> list[Problem]:
    """Why ``node`` is not a plain type expression (an empty list when it is)."""
    problems: list[Problem] = []
    _check(node, problems)
    return problems


def string_annotation_problem(text: str) -> str | None:
    """Why the annotation string ``text`` is not a plain type expression, or None."""
    try:
        tree = parse_expression(text.strip())
    except InvalidSource:
        return f"annotation {text!r} is not a valid type expression"
    problems = annotation_problems(tree)
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


def _is_pydantic_field(value: object) -> bool:
    """Whether ``value`` is pydantic's ``Field`` (never, where pydantic is not loaded)."""
    pydantic = sys.modules.get("pydantic")
    return pydantic is not None and value is pydantic.Field


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
        module = str(getattr(value, "__module__", ""))
        trusted = module.partition(".")[0] in _TRUSTED_TYPE_MODULES or module in _CES_TYPE_MODULES
        return not issubclass(value, type) and trusted
    return type(value).__module__ in ("typing", "typing_extensions", "types")


def _is_namespace_value(value: Any) -> bool:
    from sandbox.language.modules import ModuleView

    return isinstance(value, ModuleView) or _is_type_value(value)


class CheckedNamespace(Mapping[str, Any]):
    """The only namespace an annotation is ``eval``-ed in: names resolved once, through the rules.

    A name (or a dotted name, which the evaluated code asks for as one key) is looked up once in
    the namespaces the caller gave (``localns``, ``globalns``, then its builtins), walked through
    module views and types only, and must name a type, a typing construct, a module view or
    pydantic's ``Field``. The ``eval`` itself gets fresh globals whose builtins hold only
    ``_typing_import`` (``eval_globals``): no namespace from tool code reaches ``eval``, so ``eval``
    never fills one with the real builtins.
    """

    def __init__(self, namespaces: list[Any]) -> None:
        self._namespaces = namespaces
        self._found: dict[str, Any] = {}

    def raw(self, key: str) -> Any:
        """What ``key`` names (``_MISSING`` if nothing), looked up once and remembered."""
        if key not in self._found:
            self._found[key] = self._resolve(key)
        return self._found[key]

    def _resolve(self, key: str) -> Any:
        first, *attributes = key.split(".")
        value = _MISSING
        for namespace in self._namespaces:
            if namespace is not None and first in namespace:
                value = namespace[first]
                break
        path = first
        for attribute in attributes:
            if value is _MISSING:
                break
            if not _is_namespace_value(value) or not is_allowed_attribute(attribute):
                refuse(f"annotation name {path!r} is not a type or module")
            value = getattr(value, attribute, _MISSING)
            path += "." + attribute
        return value

    def __getitem__(self, key: str) -> Any:
        value = self.raw(exact_str(key))
        if value is _MISSING:
            raise KeyError(key)
        if not (_is_namespace_value(value) or _is_pydantic_field(value)):
            refuse(f"annotation name {key!r} does not name a type")
        return value

    def __iter__(self) -> Iterator[str]:
        return iter([key for key, value in self._found.items() if value is not _MISSING])

    def __len__(self) -> int:
        return len(list(iter(self)))


_MISSING = object()


def _dotted(node: ast.expr) -> str | None:
    """``"a.b.c"`` for a name or a chain of attributes on a name, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


class _DottedNames(ast.NodeTransformer):
    """Turns ``a.b.c`` into one name ``"a.b.c"`` (resolved by ``CheckedNamespace``), except inside ``Literal[...]``."""

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        dotted = _dotted(node)
        return ast.copy_location(ast.Name(dotted, ast.Load()), node) if dotted else self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        if _is_literal(node.value):
            node.value = self.visit(node.value)
            return node
        return self.generic_visit(node)


def _typing_import(name: str, *args: Any, **kwargs: Any) -> types.ModuleType:
    """``__import__`` for C code run from an annotation's ``eval``: ``typing``, loaded, and nothing else.

    On 3.12 ``Generic.__class_getitem__`` (C) imports ``typing`` through the current frame's
    builtins each time (``RunContextWrapper[T]``); no annotation can name this function (its text
    may hold no underscore name), and C code hands tool code no module it imports."""
    level = args[3] if len(args) > 3 else kwargs.get("level", 0)
    if name != "typing" or level != 0:
        raise ImportError(f"an annotation imports nothing (C code asked for {name!r})")
    return typing


def eval_globals() -> dict[str, Any]:
    """Fresh globals for an annotation's ``eval``: builtins holding only ``_typing_import``."""
    return {"__builtins__": {"__import__": _typing_import}}


def _evaluation_code(text: str) -> types.CodeType:
    tree = ast.parse(text.strip(), mode="eval")
    return compile(ast.fix_missing_locations(_DottedNames().visit(tree)), "<annotation>", "eval")


def _check_resolved(node: ast.expr, names: CheckedNamespace) -> None:
    """Resolve the names of ``node`` as the evaluation will, refusing non-types and fake ``Field``s."""
    if isinstance(node, ast.Name | ast.Attribute):
        key = _dotted(node)
        if key is not None and names.raw(key) is not _MISSING:
            names[key]
    elif isinstance(node, ast.Subscript) and _is_annotated(node.value) and isinstance(node.slice, ast.Tuple):
        _check_resolved(node.value, names)
        _check_resolved(node.slice.elts[0], names)
        for metadata in node.slice.elts[1:]:
            if isinstance(metadata, ast.Call):
                key = _dotted(metadata.func)
                if key is None or not _is_pydantic_field(names.raw(key)):
                    refuse(f"{ast.unparse(metadata.func)!r} in Annotated metadata is not pydantic's Field")
    elif isinstance(node, ast.Subscript):
        _check_resolved(node.value, names)
        if not _is_literal(node.value):
            _check_resolved(node.slice, names)
    elif isinstance(node, ast.BinOp):
        _check_resolved(node.left, names)
        _check_resolved(node.right, names)
    elif isinstance(node, ast.Tuple | ast.List):
        for element in node.elts:
            _check_resolved(element, names)
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        _check_resolved(ast.parse(node.value.strip(), mode="eval").body, names)


def _checked_namespace(globalns: Any, localns: Any, module: str | None) -> CheckedNamespace:
    """The ``CheckedNamespace`` over what the caller passed (an inner evaluation reuses the outer one)."""
    if isinstance(localns, CheckedNamespace):
        return localns
    if module is not None:
        if module != TOOL_MODULE_NAME or module not in sys.modules:
            refuse(f"annotations of tool code cannot be evaluated in module {module!r}")
        globalns = vars(sys.modules[module])
    for namespace in (globalns, localns):
        found = _module_of_namespace(namespace)
        if found is not None and found.__name__ != TOOL_MODULE_NAME:
            refuse(f"annotations of tool code cannot be evaluated in module {found.__name__!r}")
    if globalns is None:
        globalns, localns = localns, None
    scope = (
        globalns.get("__builtins__", builtins.__dict__) if isinstance(globalns, dict) else builtins.__dict__
    )
    scope = vars(scope) if isinstance(scope, types.ModuleType) else scope
    return CheckedNamespace([localns, globalns, scope])


def _module_of_namespace(namespace: Any) -> types.ModuleType | None:
    """The module whose ``__dict__`` is ``namespace``, if it is one."""
    if not isinstance(namespace, dict) or not isinstance(namespace.get("__name__"), str):
        return None
    module = sys.modules.get(namespace["__name__"])
    return module if module is not None and vars(module) is namespace else None


_hook_installed = False


def install_forward_ref_hook() -> None:
    """Make ``typing.ForwardRef`` hold every annotation string to the plain-type rule, and evaluate it itself.

    Construction copies the string to an exact ``str`` and checks it. Evaluation (what
    ``get_type_hints``, ``typing._eval_type`` and pydantic all end in) runs code compiled here from
    the checked string, with fresh ``eval_globals()`` and a ``CheckedNamespace``
    over the caller's namespaces as locals. In a worker this holds always (``arming.arm_checks``),
    elsewhere while tool code is on the stack. Idempotent.
    """
    global _hook_installed
    if _hook_installed:
        return
    forward_ref = typing.ForwardRef
    original_init = forward_ref.__init__
    original_evaluate = forward_ref._evaluate  # type: ignore[attr-defined]

    def checked_init(self: typing.ForwardRef, arg: Any, *args: Any, **kwargs: Any) -> None:
        if checks_apply():
            arg = exact_str(arg, "an annotation")
            problem = string_annotation_problem(arg)
            if problem:
                refuse(problem)
            module = kwargs.get("module", args[1] if len(args) >= 2 else None)
            if module not in (None, TOOL_MODULE_NAME):
                refuse(f"annotations of tool code cannot be evaluated in module {module!r}")
        original_init(self, arg, *args, **kwargs)

    def checked_evaluate(
        self: typing.ForwardRef, globalns: Any, localns: Any, *args: Any, **kwargs: Any
    ) -> Any:
        if not checks_apply():
            return original_evaluate(self, globalns, localns, *args, **kwargs)
        text = exact_str(self.__forward_arg__, "an annotation")
        problem = string_annotation_problem(text)
        if problem:
            refuse(problem)
        names = _checked_namespace(globalns, localns, self.__forward_module__)
        _check_resolved(ast.parse(text.strip(), mode="eval").body, names)
        code, module = self.__forward_code__, self.__forward_module__
        self.__forward_code__, self.__forward_module__ = _evaluation_code(text), None
        try:
            return original_evaluate(self, eval_globals(), names, *args, **kwargs)
        finally:
            self.__forward_code__, self.__forward_module__ = code, module

    forward_ref.__init__ = checked_init  # type: ignore[method-assign]
    forward_ref._evaluate = checked_evaluate  # type: ignore[method-assign]
    _hook_installed = True
