"""Which shared state scopes (``app:``, ``user:``) a call may touch, read statically from source.

A call that may touch a shared scope holds that scope's lock from its read to its commit
(``runtime/_unit_of_work.py``); a call that touches only its session's keys takes no such lock,
so sessions never wait for each other on its account. The answer must never be "no" for code
that can reach a shared key, so every doubt counts as "may touch":

- the state is ``context.state`` (tools) and ``callback_context.state`` (callbacks, fakes); a key
  written as a string literal starting with ``app:`` or ``user:`` (``state["app:total"]``,
  ``state.get("user:plan")``, ``pop``, ``setdefault``) touches that scope;
- a key that is not a literal (``state[key]``, ``state.get(f"app:{name}")``), or any use of the
  state other than a literal key, a membership test, ``keys()`` or ``len()`` (``update``,
  ``items``, iteration, passing it along, an alias) may touch both;
- ``context`` or ``callback_context`` used other than as ``context.<attribute>`` (passed along,
  aliased, given to ``getattr``) may touch both;
- ``tools.<name>(...)`` adds what tool ``name`` may touch; ``tools`` used any other way may
  call any tool. A call also runs the tool callbacks and fakes, and what they call.

Reading a key is touching it: a value read can be changed in place (``state["app:cart"].append``)
and the change is stored. The commit re-checks what was missed here (a tool registered or
replaced during the call): see ``UnitOfWork``.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from runtime._callbacks import Hook
from runtime._registry import PythonTool, Registry, Tool
from runtime._state import SHARED_SCOPES as SHARED
from runtime._state import Scope, scope_of

CONTEXT_NAMES = frozenset({"context", "callback_context"})
"""The names under which tool and callback code receives the context."""

TOOL_HOOKS = ("before_tool", "fake", "after_tool")
"""The hooks that run around every tool call (nested calls included)."""

_LITERAL_KEY_METHODS = frozenset({"get", "pop", "setdefault"})
_HARMLESS_METHODS = frozenset({"keys"})


@dataclass(frozen=True)
class Reach:
    """What one source may touch: shared scopes, and the tools it calls."""

    scopes: frozenset[Scope] = frozenset()
    tools: frozenset[str] = frozenset()
    any_tool: bool = False
    """``tools`` is used other than as ``tools.<name>``: it may call any tool."""


def _literal(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _key_scopes(key: ast.AST | None) -> frozenset[Scope]:
    """The shared scope a key expression names; both when it is not a literal."""
    text = _literal(key)
    if text is None:
        return SHARED
    return frozenset({scope_of(text)}) & SHARED


class _Reader(ast.NodeVisitor):
    """Walks a module once, knowing each node's parent."""

    def __init__(self, module: ast.Module) -> None:
        self.parents: dict[ast.AST, ast.AST] = {
            child: node for node in ast.walk(module) for child in ast.iter_child_nodes(node)
        }
        self.nodes = list(ast.walk(module))

    def context_escapes(self) -> bool:
        """``context`` / ``callback_context`` used other than as ``context.<attribute>``."""
        return any(
            isinstance(node, ast.Name)
            and node.id in CONTEXT_NAMES
            and not isinstance(self.parents.get(node), ast.Attribute)
            for node in self.nodes
        )

    def state_use(self, state: ast.Attribute) -> frozenset[Scope]:
        """The shared scopes one use of the state may touch."""
        parent = self.parents.get(state)
        if isinstance(parent, ast.Subscript) and parent.value is state:
            return _key_scopes(parent.slice)
        if isinstance(parent, ast.Compare) and state in parent.comparators:
            return frozenset()  # a membership test reads no value
        if isinstance(parent, ast.Call) and _literal_name(parent.func) == "len":
            return frozenset()
        if isinstance(parent, ast.Attribute):
            call = self.parents.get(parent)
            if isinstance(call, ast.Call) and call.func is parent:
                if parent.attr in _HARMLESS_METHODS:
                    return frozenset()
                if parent.attr in _LITERAL_KEY_METHODS:
                    return _key_scopes(call.args[0] if call.args else None)
        return SHARED

    def reach(self) -> Reach:
        scopes: set[Scope] = set(SHARED) if self.context_escapes() else set()
        tools: set[str] = set()
        any_tool = False
        for node in self.nodes:
            if (
                isinstance(node, ast.Attribute)
                and node.attr == "state"
                and _literal_name(node.value) in CONTEXT_NAMES
            ):
                scopes |= self.state_use(node)
            if isinstance(node, ast.Name) and node.id == "tools":
                parent = self.parents.get(node)
                if isinstance(parent, ast.Attribute) and isinstance(node.ctx, ast.Load):
                    tools.add(parent.attr)
                else:
                    any_tool = True
        return Reach(frozenset(scopes), frozenset(tools), any_tool)


def _literal_name(node: ast.AST) -> str | None:
    return node.id if isinstance(node, ast.Name) else None


@functools.lru_cache(maxsize=4096)
def reach_of(source: str) -> Reach:
    """What code may touch, from its text (cached by text); unparsable code may touch anything."""
    try:
        module = ast.parse(source)
    except (SyntaxError, ValueError):
        return Reach(SHARED, any_tool=True)
    return _Reader(module).reach()


def _tool_reach(tool: Tool) -> Reach:
    return reach_of(tool.source) if isinstance(tool, PythonTool) else Reach()


def call_scopes(
    registry: Registry, hooks: Mapping[str, list[Hook]], *, tool: Tool | None = None, kind: str | None = None
) -> frozenset[Scope]:
    """The shared scopes a call may touch: of ``tool`` (with the tool hooks), or of the agent
    callbacks of ``kind``; and of every tool they may call, transitively."""
    sources = [hook.source for hook in hooks.get(kind or "", [])]
    pending = [tool] if tool is not None else []
    seen: set[str] = set()
    scopes: set[Scope] = set()

    def reach(found: Reach) -> None:
        scopes.update(found.scopes)
        names: Iterable[str] = (t.name for t in registry) if found.any_tool else found.tools
        pending.extend(t for t in map(registry.find, names) if t is not None and t.name not in seen)

    for source in sources:
        reach(reach_of(source))
    hooks_added = False
    while pending and scopes != SHARED:
        current = pending.pop()
        if current.name in seen:
            continue
        seen.add(current.name)
        reach(_tool_reach(current))
        if not hooks_added:
            hooks_added = True
            for hook_kind in TOOL_HOOKS:
                for hook in hooks.get(hook_kind, []):
                    reach(reach_of(hook.source))
    return frozenset(scopes)
