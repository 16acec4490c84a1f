"""The house's rules, read off the code's imports (docs/architecture.md, "Layout rules").

Every module of ``runtime`` and ``sandbox`` is parsed; an import anywhere in it counts (a lazy one
inside a function too), except under ``if TYPE_CHECKING:``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

SURFACES = ("runtime._cli", "runtime._server", "runtime._web", "runtime.protocols.mcp")
LAUNCHERS = {
    "runtime._cli.serve": "runtime._server",
    "runtime._cli.web": "runtime._web",
    "runtime._cli.mcp": "runtime.protocols.mcp",
}
"""The launch commands, each with the one surface it may import: the one it starts."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, package: str, *, lazy: bool = True) -> set[str]:
    """What ``tree`` imports of toolpen; with ``lazy`` False, only what it imports when it loads."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if not lazy and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.update(f"{base}.{alias.name}" for alias in node.names)  # a module, or a name in one
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return {name for name in found if name.split(".")[0] in ("runtime", "sandbox")}


def _graph(*, lazy: bool = True) -> dict[str, set[str]]:
    graph = {}
    for top in ("runtime", "sandbox"):
        for path in sorted((ROOT / top).rglob("*.py")):
            name = _module_name(path)
            package = name if path.name == "__init__.py" else name.rpartition(".")[0]
            graph[name] = _imports(ast.parse(path.read_text(encoding="utf-8")), package, lazy=lazy)
    return graph


GRAPH = _graph()


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def _importers_of(package: str, *, among: str) -> list[str]:
    return sorted(
        f"{module} imports {target}"
        for module, targets in GRAPH.items()
        if _within(module, among) and not _within(module, package)
        for target in targets
        if _within(target, package)
    )


def test_the_layout_reads_every_module():
    assert len(GRAPH) > 150
    assert "sandbox.process.pool.WorkerPool" in GRAPH["runtime._executor"]
    assert "runtime._server.create_app" in GRAPH["runtime._cli.serve"]  # a lazy import, in the command


def test_the_sandbox_never_imports_the_host():
    assert _importers_of("runtime", among="sandbox") == []


def test_the_shared_leaves_import_nothing_else_of_toolpen():
    leaves = [module for module in GRAPH if _within(module, "sandbox.common")]
    assert leaves
    reaching = [f"{m} imports {t}" for m in leaves for t in GRAPH[m] if not _within(t, "sandbox.common")]
    assert reaching == []


@pytest.mark.parametrize("surface", SURFACES)
def test_no_surface_imports_another(surface: str):
    offending = []
    for other in SURFACES:
        if other == surface:
            continue
        for line in _importers_of(surface, among=other):
            module = line.split(" imports ")[0]
            if LAUNCHERS.get(module) != surface:
                offending.append(line)
    assert offending == []


def test_the_engine_imports_no_surface():
    engine = [m for m in GRAPH if _within(m, "runtime") and not any(_within(m, s) for s in SURFACES)]
    reaching = [f"{m} imports {t}" for m in engine for t in GRAPH[m] if any(_within(t, s) for s in SURFACES)]
    assert reaching == []


KINDS = re.compile(r"""["'](rpc_result|rpc_error|warmed|forked)["']|["']op["']\s*:""")


def test_a_message_kind_is_spelled_in_one_module():
    spelled = sorted(
        str(path.relative_to(ROOT))
        for top in ("runtime", "sandbox")
        for path in (ROOT / top).rglob("*.py")
        if KINDS.search(path.read_text(encoding="utf-8"))
    )
    assert spelled == ["sandbox/messages.py"]


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One circle of imports between modules (each imported name resolved to its module), or []."""
    edges = {
        m: {t if t in graph else t.rpartition(".")[0] for t in ts} & graph.keys() - {m}
        for m, ts in graph.items()
    }
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(module: str) -> list[str]:
        state[module] = 1
        path.append(module)
        for target in sorted(edges[module]):
            if state.get(target) == 1:
                return path[path.index(target) :] + [target]
            if target not in state and (found := visit(target)):
                return found
        path.pop()
        state[module] = 2
        return []

    for module in sorted(edges):
        if module not in state and (found := visit(module)):
            return found
    return []


def test_no_module_imports_itself_through_others():
    """No circle among the imports that run when a module loads (a lazy one runs later)."""
    assert _cycle(_graph(lazy=False)) == []
