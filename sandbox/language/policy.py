"""The compile-time language policy: one ``RestrictingNodeTransformer`` subclass.

RestrictedPython's transformer already refuses unknown node kinds, names and attributes
starting with ``_``, frame attributes, ``exec``/``eval`` calls, ``try/except*``, ``async``,
star-imports and ``metaclass=``; it rewrites attribute, item, iteration and unpacking access
into guard calls (``sandbox/language/guards.py``). This subclass changes what RestrictedPython gets
wrong for ordinary tool code and adds our rules; each method says why in one line.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from contextlib import contextmanager

from RestrictedPython.transformer import IOPERATOR_TO_STR, RestrictingNodeTransformer

from sandbox.language.annotations import annotation_problems
from sandbox.language.guards import ALLOWED_DUNDER_METHODS, FORMAT_METHODS, is_allowed_attribute
from sandbox.language.modules import is_allowed_module

Located = tuple[int, int, str]


class ToolPolicy(RestrictingNodeTransformer):
    """RestrictedPython's policy, opened for ordinary tool code and closed where it leaks."""

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[Located] = []
        self._in_class_body = False

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

    def _check_annotation(self, annotation: ast.expr | None) -> None:
        if annotation is not None:
            for node, message in annotation_problems(annotation):
                self.error(node, message)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        """Allowed; ``__dunder__`` names only as listed methods of a class; plain-type annotations."""
        if not (self._in_class_body and node.name in ALLOWED_DUNDER_METHODS):
            self.check_name(node, node.name)
        self.check_function_argument_names(node)
        arguments = node.args
        for argument in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
            self._check_annotation(argument.annotation)
        for argument in (arguments.vararg, arguments.kwarg):
            self._check_annotation(argument.annotation if argument else None)
        self._check_annotation(node.returns)
        returns, node.returns = node.returns, None
        with self.print_info.new_print_scope(), self._class_body(False):
            node = self.node_contents_visit(node)
            self.inject_print_collector(node)
        node.returns = returns
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        """Annotations stay unrewritten (checked as plain types by the enclosing def)."""
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        """Allowed; parameter names (defaults included) follow the name rule."""
        with self._class_body(False):
            return super().visit_Lambda(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        """Allowed with bases, decorators and keywords such as ``frozen=True``; no ``metaclass=``."""
        self.check_name(node, node.name)
        for keyword in node.keywords:
            if keyword.arg == "metaclass" or keyword.arg is None:
                self.error(node, "metaclass= and **keywords are not allowed in class definitions")
        with self._class_body(True):
            return self.node_contents_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        """Allowed (pydantic and dataclass fields); the annotation must be a plain type."""
        self._check_annotation(node.annotation)
        if self._in_class_body and isinstance(node.target, ast.Name) and node.target.id in FORMAT_METHODS:
            # dataclasses.asdict / pydantic from_attributes read fields with a real getattr: on a
            # str subclass a "format" field is the real str.format, and its "{0.__x__}" walks
            self.error(node, f'a class field may not be named "{node.target.id}"')
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
            self._check_attribute(target)
            helper, args = "_augattr_", [self.visit(target.value), ast.Constant(target.attr)]
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

    def _check_attribute(self, node: ast.Attribute) -> None:
        if node.attr.startswith("_"):
            self.error(node, f'"{node.attr}" is an invalid attribute name because it starts with "_".')
        elif not is_allowed_attribute(node.attr) and node.attr not in FORMAT_METHODS:
            self.error(node, f'"{node.attr}" is a restricted attribute.')

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        """Reads become ``_getattr_(obj, name)``, writes ``_write_(obj).name``; ``super().__init__`` passes."""
        is_super_dunder = node.attr in ALLOWED_DUNDER_METHODS and _is_super_call(node.value)
        if not (is_super_dunder and isinstance(node.ctx, ast.Load)):
            self._check_attribute(node)
        node = self.node_contents_visit(node)
        if isinstance(node.ctx, ast.Load):
            return _located(
                ast.Call(ast.Name("_getattr_", ast.Load()), [node.value, ast.Constant(node.attr)], []), node
            )
        node.value = _located(ast.Call(ast.Name("_write_", ast.Load()), [node.value], []), node.value)
        return node

    def visit_keyword(self, node: ast.keyword) -> ast.AST:
        """Keyword argument names may not start with ``_`` (``model_rebuild(_types_namespace=...)``)."""
        if node.arg is not None and node.arg.startswith("_"):
            self.error(node, f'keyword argument "{node.arg}" is not allowed')
        return self.node_contents_visit(node)

    def visit_Import(self, node: ast.Import) -> ast.AST:
        """Only vetted module views (``sandbox/language/modules.py``)."""
        for alias in node.names:
            self._check_module(node, alias.name)
        return super().visit_Import(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST:
        """Only vetted module views; no relative imports; ``from __future__`` is fine."""
        if node.level:
            self.error(node, "relative imports are not allowed")
        elif node.module != "__future__":
            self._check_module(node, node.module or "")
        return super().visit_ImportFrom(node)

    def _check_module(self, node: ast.AST, name: str) -> None:
        if not is_allowed_module(name):
            self.error(node, f'import of module "{name}" is not allowed')

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


def _is_super_call(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def _located(new: ast.AST, old: ast.AST) -> ast.AST:
    return ast.fix_missing_locations(ast.copy_location(new, old))


def _or_none(node: ast.expr | None) -> ast.expr:
    return node if node is not None else ast.Constant(None)
