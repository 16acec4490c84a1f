"""The top level of a tool module as the schema reader needs it: imports, classes, aliases."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from runtime._schema.fields import FIELD_CALLS

_TYPING_NAMES = frozenset(
    {
        "Any",
        "List",
        "Sequence",
        "MutableSequence",
        "Iterable",
        "Set",
        "FrozenSet",
        "AbstractSet",
        "MutableSet",
    }
    | {"Tuple", "Dict", "Mapping", "MutableMapping", "Optional", "Union", "Literal", "Annotated"}
    | {"Required", "NotRequired", "ReadOnly"}
)
_MODULE_ALIASES = {"typing_extensions": "typing", "collections.abc": "typing", "pydantic.fields": "pydantic"}


@dataclass
class Scope:
    """The top level of a tool module: imported names, classes and type aliases, read in one pass."""

    imports: dict[str, str] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    aliases: dict[str, ast.expr] = field(default_factory=dict)
    functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=list)

    @classmethod
    def of(cls, module: ast.Module) -> Scope:
        scope = cls()
        for node in module.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                scope.functions.append(node)
            elif isinstance(node, ast.ClassDef):
                scope.classes[node.name] = node
                scope._add_nested(node, node.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        scope.imports[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        scope.imports[top] = top
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    scope.imports[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name) and isinstance(node.value, ast.Subscript | ast.BinOp):
                    scope.aliases[target.id] = node.value
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
                if ast.unparse(node.annotation).endswith("TypeAlias"):
                    scope.aliases[node.target.id] = node.value
            elif type(node).__name__ == "TypeAlias":  # ``type X = ...``: ast.TypeAlias exists from 3.12
                statement: Any = node
                scope.aliases[statement.name.id] = statement.value
        return scope

    def _add_nested(self, outer: ast.ClassDef, prefix: str) -> None:
        """Classes defined in a class body, by dotted name and (as the body itself names them) bare."""
        for inner in outer.body:
            if isinstance(inner, ast.ClassDef):
                self.classes[f"{prefix}.{inner.name}"] = inner
                self.classes.setdefault(inner.name, inner)
                self._add_nested(inner, f"{prefix}.{inner.name}")

    def qualname(self, node: ast.expr) -> str | None:
        """``typing.List`` for ``List``, ``t.List`` or ``typing.List``; None for other expressions."""
        if isinstance(node, ast.Name):
            name = self.imports.get(node.id)
            if name is None:
                if node.id in self.classes or node.id in self.aliases:
                    return node.id
                return f"typing.{node.id}" if node.id in _TYPING_NAMES else node.id
            for module, canonical in _MODULE_ALIASES.items():
                if name.startswith(module + "."):
                    return canonical + name[len(module) :]
            return name
        if isinstance(node, ast.Attribute):
            base = self.qualname(node.value)
            if base is None:
                return None
            name = f"{base}.{node.attr}"
            for module, canonical in _MODULE_ALIASES.items():
                if name.startswith(module + "."):
                    return canonical + name[len(module) :]
            return name
        return None

    def is_field_call(self, node: ast.expr) -> bool:
        return isinstance(node, ast.Call) and self.qualname(node.func) in FIELD_CALLS
