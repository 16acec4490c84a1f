"""The compile-time language policy: one ``RestrictingNodeTransformer`` subclass.

RestrictedPython's transformer already refuses unknown node kinds, frame attributes,
``exec``/``eval`` calls, ``try/except*``, star-imports and ``metaclass=``; it rewrites attribute,
item, iteration and unpacking access into guard calls (``sandbox/language/guards.py``). This subclass
changes what RestrictedPython gets wrong for ordinary tool code and adds our rules; each method
says why in one line. Names: ``_private`` names are ordinary (the run-time rule decides on
whose objects); ``__special__`` names only where listed; the guards' own names never.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TypeVar, cast

from RestrictedPython.transformer import IOPERATOR_TO_STR, RestrictingNodeTransformer

from sandbox.language.annotations import annotation_problems
from sandbox.language.modules import import_refusal, is_allowed_module, left_out_reason
from sandbox.language.rules import (
    ALLOWED_DUNDER_METHODS,
    BLOCKED_ATTRIBUTES,
    FORMAT_METHODS,
    IMPLICIT_METHODS,
    LIBRARY_CLOSED_NAMES,
    MATCH_CLASS_PREFIX,
    READABLE_DUNDERS,
    RESERVED_NAMES,
    WRITABLE_DUNDERS,
    is_allowed_attribute,
    is_dunder,
)

Located = tuple[int, int, str]
RefusedImport = tuple[int, int, str, bool]
"""An import the wall refuses when it runs: line, column, message, and whether an ``except`` around it catches ImportError."""
_CATCHES_IMPORT_ERROR = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})

_NAMED_ACCESS = frozenset({"getattr", "setattr", "delattr"})
READABLE_NAMES = frozenset({"__name__", "__doc__", "__file__"})
"""Special global names tool code may read (``if __name__ == "__main__":`` is False, as on import;
``__file__`` is a string naming the tool's file, ``namespace.tool_file``)."""
CLASS_BODY_NAMES = frozenset({"__slots__"})
"""Special names a class body may assign."""


class ToolPolicy(RestrictingNodeTransformer):
    """RestrictedPython's policy, opened for ordinary tool code and closed where it leaks."""

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[Located] = []
        self.refused_imports: list[RefusedImport] = []
        self._import_guards = 0
        self._in_class_body = False
        self._class_names: list[str] = []
        self._match_classes = 0

    def error(self, node: ast.AST, info: str) -> None:
        """Record a problem with its 1-based line and column."""
        line = getattr(node, "lineno", 0) or 0
        col = (getattr(node, "col_offset", 0) or 0) + 1
        self.problems.append((line, col, info))
        super().error(node, info)

    @contextmanager
    def _class_body(self, inside: bool) -> Iterator[None]:
        outer, self._in_class_body = self._in_class_body, inside
        try:
            yield
        finally:
            self._in_class_body = outer

    def check_name(self, node: Any, name: str | None, allow_magic_methods: bool = False) -> None:
        """Private names are ordinary; the guards' names and ``__special__`` names are refused."""
        if name is None:
            return
        if name in RESERVED_NAMES or name.startswith(MATCH_CLASS_PREFIX):
            self.error(node, f'"{name}" is a name reserved for the sandbox\'s guards; choose another name')
        elif is_dunder(name):
            self.error(
                node,
                f'"{name}" is a special name of the interpreter and cannot be defined here (a class body may'
                " define the usual special methods: __init__, __repr__, __eq__, __lt__, __iter__, __enter__,"
                " __get__, ...); under --walls process (plain CPython behind the process wall) any name is",
            )
        elif not name.startswith("_"):
            super().check_name(node, name)

    def _mangle(self, name: str) -> str:
        """``__name`` inside a class body is ``_Class__name``, as CPython compiles it."""
        if not self._class_names or not name.startswith("__") or name.endswith("__"):
            return name
        owner = self._class_names[-1].lstrip("_")
        return f"_{owner}{name}" if owner else name

    def _check_annotation(self, annotation: ast.expr | None) -> None:
        if annotation is not None:
            for node, message in annotation_problems(annotation):
                self.error(node, message)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        """Allowed; ``__dunder__`` names only as listed methods of a class; plain-type annotations."""
        return self._visit_function(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        """Allowed like ``def`` (coroutine frames stay blocked attributes); the worker runs the coroutine."""
        return self._visit_function(node)

    def _visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:
        if not (self._in_class_body and node.name in ALLOWED_DUNDER_METHODS | IMPLICIT_METHODS):
            self.check_name(node, node.name)
        self.check_function_argument_names(node)
        arguments = node.args
        for argument in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
            self._check_annotation(argument.annotation)
        for starred in (arguments.vararg, arguments.kwarg):
            self._check_annotation(starred.annotation if starred else None)
        self._check_annotation(node.returns)
        returns, node.returns = node.returns, None
        with self.print_info.new_print_scope(), self._class_body(False):
            node = self.node_contents_visit(node)
            self.inject_print_collector(node)  # type: ignore[arg-type]  # async def bodies alike
        node.returns = returns
        return node

    def visit_Await(self, node: ast.Await) -> ast.AST:
        """Allowed: a coroutine awaits another (tool code cannot reach an event loop)."""
        return self.node_contents_visit(node)

    def visit_AsyncFor(self, node: ast.AsyncFor) -> ast.AST:
        """Allowed: ``__aiter__``/``__anext__`` are the tool's own methods or a host's async iterator."""
        return self.node_contents_visit(node)

    def visit_AsyncWith(self, node: ast.AsyncWith) -> ast.AST:
        """Allowed, as ``with``."""
        return self.node_contents_visit(node)

    def visit_comprehension(self, node: ast.comprehension) -> ast.AST:
        """Guarded iteration, except ``async for`` clauses, which ``iter()`` cannot take."""
        if node.is_async:
            return self.node_contents_visit(node)
        return cast(ast.AST, super().visit_comprehension(node))

    def visit_Name(self, node: ast.Name) -> ast.AST:
        """Reads of ``__name__``/``__doc__``; ``__slots__`` and listed special methods assigned in a class body."""
        if isinstance(node.ctx, ast.Load) and node.id in READABLE_NAMES:
            return node
        in_class_body = self._in_class_body and isinstance(node.ctx, ast.Store | ast.Load)
        if in_class_body and (node.id in CLASS_BODY_NAMES or node.id in ALLOWED_DUNDER_METHODS):
            return node  # __slots__ = ..., __radd__ = __add__
        return cast(ast.AST, super().visit_Name(node))

    def visit_arg(self, node: ast.arg) -> ast.AST:
        """Annotations stay unrewritten (checked as plain types by the enclosing def)."""
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        """Allowed; parameter names (defaults included) follow the name rule."""
        with self._class_body(False):
            return cast(ast.AST, super().visit_Lambda(node))

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        """Allowed with bases, decorators and keywords such as ``frozen=True``; no ``metaclass=``."""
        self.check_name(node, node.name)
        for keyword in node.keywords:
            if keyword.arg == "metaclass" or keyword.arg is None:
                self.error(
                    node,
                    "metaclass= and **keywords are not allowed in class definitions: a metaclass is a class"
                    " factory past the sandbox's rules; derive from abc.ABC instead (class Base(ABC): ...),"
                    " or run with --walls process",
                )
        self._class_names.append(node.name)
        try:
            with self._class_body(True):
                return self.node_contents_visit(node)
        finally:
            self._class_names.pop()

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        """Allowed (pydantic and dataclass fields); the annotation must be a plain type."""
        self._check_annotation(node.annotation)
        if self._in_class_body and isinstance(node.target, ast.Name) and node.target.id in FORMAT_METHODS:
            # dataclasses.asdict / pydantic from_attributes read fields with a real getattr: on a
            # str subclass a "format" field is the real str.format, and its "{0.__x__}" walks
            self.error(
                node,
                f'a class field may not be named "{node.target.id}": pydantic and dataclasses read fields'
                f" with the real getattr, and on a str that name is str.{node.target.id}, whose"
                ' "{0.__x__}" fields walk attributes past the guards; name the field otherwise (file_format:'
                f' ... = Field(serialization_alias="{node.target.id}")), or run with --walls process',
            )
        node.target = self.visit(node.target)
        if node.value is not None:
            node.value = self.visit(node.value)
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        """Names stay native; ``a.b op= x`` and ``a[k] op= x`` become guarded helper calls."""
        target = node.target
        operator = ast.Constant(IOPERATOR_TO_STR[type(node.op)])
        if isinstance(target, ast.Name):
            return self.node_contents_visit(node)
        if isinstance(target, ast.Attribute):
            self._check_attribute(target, store=True)
            name = self._mangle(target.attr)
            helper, args = "_augattr_", [self.visit(target.value), ast.Constant(name)]
        elif isinstance(target, ast.Subscript):
            key = self.visit(target.slice)
            if isinstance(key, ast.Slice):
                key = ast.Call(
                    ast.Name("slice", ast.Load()),
                    [_or_none(key.lower), _or_none(key.upper), _or_none(key.step)],
                    [],
                )
            helper, args = "_augitem_", [self.visit(target.value), key]
        else:
            self.error(node, "unsupported augmented assignment target")
            return node
        call = ast.Call(ast.Name(helper, ast.Load()), [*args, operator, self.visit(node.value)], [])
        return _located(ast.Expr(call), node)

    def _check_attribute(self, node: ast.Attribute, *, store: bool = False) -> None:
        self._check_named_access(node, node.attr, store=store)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        """Reads become ``_getattr_(obj, name)``, writes ``_write_(obj).name`` (``_write_(obj, name)`` for ``_names``)."""
        self._check_attribute(node, store=not isinstance(node.ctx, ast.Load))
        node = self.node_contents_visit(node)
        name = self._mangle(node.attr)
        if isinstance(node.ctx, ast.Load):
            return _located(
                ast.Call(ast.Name("_getattr_", ast.Load()), [node.value, ast.Constant(name)], []), node
            )
        checked = [ast.Constant(name)] if name.startswith("_") else []
        node.value = _located(
            ast.Call(ast.Name("_write_", ast.Load()), [node.value, *checked], []), node.value
        )
        return node

    def visit_Match(self, node: ast.Match) -> ast.AST | list[ast.stmt]:
        """Allowed; patterns read attributes natively, so their names are checked here (see ``visit_MatchClass``).

        A class pattern with positional sub-patterns reads the attributes its class's
        ``__match_args__`` names: its class is evaluated just before the statement, through
        ``guards.match_class``, into a temporary the pattern then names.
        """
        node = self.node_contents_visit(node)
        hoisted: list[ast.stmt] = []
        for case in node.cases:
            for pattern in ast.walk(case.pattern):
                if isinstance(pattern, ast.MatchClass) and pattern.patterns:
                    temporary = f"{MATCH_CLASS_PREFIX}{self._match_classes}_"
                    self._match_classes += 1
                    checked = ast.Call(
                        ast.Name(MATCH_CLASS_PREFIX, ast.Load()),
                        [self.visit(pattern.cls), ast.Constant(len(pattern.patterns))],
                        [],
                    )
                    hoisted.append(_located(ast.Assign([ast.Name(temporary, ast.Store())], checked), pattern))
                    pattern.cls = _located(ast.Name(temporary, ast.Load()), pattern.cls)
        return [*hoisted, node] if hoisted else node

    def visit_match_case(self, node: ast.match_case) -> ast.AST:
        """Allowed: a pattern, an optional guard expression, a body."""
        return self.node_contents_visit(node)

    def visit_MatchValue(self, node: ast.MatchValue) -> ast.AST:
        """A literal or a dotted name (``Color.RED``), read natively: public names only."""
        self._check_pattern_reference(node.value)
        return node

    def visit_MatchSingleton(self, node: ast.MatchSingleton) -> ast.AST:
        """``None``, ``True``, ``False``."""
        return node

    def visit_MatchSequence(self, node: ast.MatchSequence) -> ast.AST:
        """Allowed: items are matched by the interpreter, no attribute is read."""
        return self.node_contents_visit(node)

    def visit_MatchStar(self, node: ast.MatchStar) -> ast.AST:
        """``*rest`` binds a name under the name rule."""
        self.check_name(node, node.name)
        return node

    def visit_MatchMapping(self, node: ast.MatchMapping) -> ast.AST:
        """Keys are literals or public dotted names; ``**rest`` binds a name under the name rule."""
        for key in node.keys:
            self._check_pattern_reference(key)
        node.patterns = [self.visit(pattern) for pattern in node.patterns]
        self.check_name(node, node.rest)
        return node

    def visit_MatchClass(self, node: ast.MatchClass) -> ast.AST:
        """``Cls(a, k=p)``: keyword sub-patterns read ``subject.k`` unguarded, so ``k`` must be public.

        Positional sub-patterns read the names in ``Cls.__match_args__``, which a class body may not
        define: the tool's dataclasses and namedtuples (their field names) and the library's own.
        """
        self._check_pattern_reference(node.cls)
        for name in node.kwd_attrs:
            if not is_allowed_attribute(name) or name in LIBRARY_CLOSED_NAMES:
                self.error(
                    node, f'class patterns read attributes without the guards: "{name}" is not allowed'
                )
        node.patterns = [self.visit(pattern) for pattern in node.patterns]
        node.kwd_patterns = [self.visit(pattern) for pattern in node.kwd_patterns]
        return node

    def visit_MatchAs(self, node: ast.MatchAs) -> ast.AST:
        """``p as name`` / ``name`` / ``_``: the name under the name rule."""
        if node.pattern is not None:
            node.pattern = self.visit(node.pattern)
        self.check_name(node, node.name)
        return node

    def visit_MatchOr(self, node: ast.MatchOr) -> ast.AST:
        """Allowed: alternatives."""
        return self.node_contents_visit(node)

    def _check_pattern_reference(self, node: ast.expr) -> None:
        """A literal, or a dotted name whose parts the guards would let tool code read."""
        if isinstance(node, ast.Name):
            self.check_name(node, node.id)
        elif isinstance(node, ast.Attribute):
            if not is_allowed_attribute(node.attr) or node.attr in LIBRARY_CLOSED_NAMES:
                self.error(node, f'patterns read attributes without the guards: "{node.attr}" is not allowed')
            self._check_pattern_reference(node.value)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        """As RestrictedPython; ``getattr``/``setattr``/``delattr`` of a constant refused name are refused here
        already; ``eval``/``exec`` refused (as RestrictedPython does) with what to do instead."""
        if isinstance(node.func, ast.Name) and node.func.id in ("eval", "exec"):
            self.error(
                node,
                f"{node.func.id}() is not allowed: code made from text at run time is beyond what the language"
                " wall can check; compute the value in code (a dict of functions for a choice), or run with"
                " --walls process (plain CPython behind the process wall, as CES runs it)",
            )
            return node
        if isinstance(node.func, ast.Name) and node.func.id in _NAMED_ACCESS and len(node.args) >= 2:
            name = node.args[1]
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                self._check_named_access(node, name.value, store=node.func.id != "getattr")
        return cast(ast.AST, super().visit_Call(node))

    def _check_named_access(self, node: ast.AST, name: str, *, store: bool) -> None:
        if is_dunder(name) and name not in (WRITABLE_DUNDERS if store else READABLE_DUNDERS):
            self.error(node, _special_attribute_message(name))
        elif name in BLOCKED_ATTRIBUTES and name not in FORMAT_METHODS:
            self.error(node, f'"{name}" is a restricted attribute: it leads to frames or code.')

    def visit_keyword(self, node: ast.keyword) -> ast.AST:
        """Keyword argument names may not start with ``_`` (``model_rebuild(_types_namespace=...)``)."""
        if node.arg is not None and node.arg.startswith("_"):
            self.error(
                node,
                f'keyword argument "{node.arg}" is not allowed: names starting with _ reach internal parameters;'
                " use public ones",
            )
        return self.node_contents_visit(node)

    def visit_Try(self, node: ast.Try) -> ast.AST:
        """Allowed; an import in a body whose handlers catch ImportError is a guarded one (``_refuse_import``)."""
        guarded = any(_catches_import_error(handler.type) for handler in node.handlers)
        self._import_guards += guarded
        try:
            node.body = _flat(self.visit(statement) for statement in node.body)
        finally:
            self._import_guards -= guarded
        node.handlers = [cast(ast.ExceptHandler, self.visit(handler)) for handler in node.handlers]
        node.orelse = _flat(self.visit(statement) for statement in node.orelse)
        node.finalbody = _flat(self.visit(statement) for statement in node.finalbody)
        return node

    def _refuse_import(self, node: ast.AST, message: str) -> None:
        """Not a compile error: the import raises ``ImportRefused`` (an ImportError) when it runs, as
        CES raises ImportError; ``policy_diagnostics`` reports it (a warning where it is caught)."""
        line, col = getattr(node, "lineno", 0) or 0, (getattr(node, "col_offset", 0) or 0) + 1
        self.refused_imports.append((line, col, message, self._import_guards > 0))

    def visit_Import(self, node: ast.Import) -> ast.AST:
        """Only vetted module views (``sandbox/language/modules.py``)."""
        for alias in node.names:
            self._check_module(node, alias.name)
        return cast(ast.AST, super().visit_Import(node))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST:
        """Only vetted module views; no relative imports; ``from __future__`` is fine."""
        if node.level:
            self.error(
                node,
                "relative imports are not allowed: a tool is one file; import the allowed modules by name",
            )
        elif node.module != "__future__":
            self._check_module(node, node.module or "")
            for alias in node.names:
                reason = left_out_reason(node.module or "", alias.name)
                if reason:
                    self._refuse_import(
                        node, f'cannot import name "{alias.name}" from "{node.module}": {reason}'
                    )
        return cast(ast.AST, super().visit_ImportFrom(node))

    def _check_module(self, node: ast.AST, name: str) -> None:
        if not is_allowed_module(name):
            self._refuse_import(node, import_refusal(name))

    def visit_Global(self, node: ast.Global) -> ast.AST:
        """Allowed for public names only (no rebinding of guards)."""
        for name in node.names:
            self.check_name(node, name)
        return node

    def visit_Nonlocal(self, node: ast.Nonlocal) -> ast.AST:
        """Allowed for public names only: closures over counters are ordinary code."""
        for name in node.names:
            self.check_name(node, name)
        return node


def _catches_import_error(caught: ast.expr | None) -> bool:
    """Whether an ``except`` clause's type catches an ImportError (bare, a name, a tuple of names)."""
    if caught is None:
        return True
    names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
    return any(isinstance(name, ast.Name) and name.id in _CATCHES_IMPORT_ERROR for name in names)


def _flat(visited: Iterator[Any]) -> list[Any]:
    """Visited statements, where a visit may give a list (a ``match`` with hoisted classes)."""
    return [item for node in visited for item in (node if isinstance(node, list) else [node])]


_INSTEAD = {
    "__dataclass_fields__": "dataclasses.fields(cls)",
    "__annotations__": "typing.get_type_hints(cls)",
    "__mro__": "isinstance() and issubclass()",
    "__bases__": "isinstance() and issubclass()",
}


def _special_attribute_message(name: str) -> str:
    instead = f"; use {_INSTEAD[name]}" if name in _INSTEAD else ""
    return (
        f'"{name}" is not available: special attributes lead to the interpreter\'s internals'
        " (type(x), __name__, __doc__, __dict__ of the tool's own objects and the special methods it"
        f" defines are available){instead}; under --walls process (plain CPython behind the process"
        " wall) every attribute is"
    )


_Node = TypeVar("_Node", bound=ast.AST)


def _located(new: _Node, old: ast.AST) -> _Node:
    return ast.fix_missing_locations(ast.copy_location(new, old))


def _or_none(node: ast.expr | None) -> ast.expr:
    return node if node is not None else ast.Constant(None)
