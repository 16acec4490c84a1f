"""Which tools run from a tool image (``sandbox.process.tool_image``): read from the source, never run.

A tool gets an image when its module-level code cannot tell one call from another: it names none
of the names bound to a call (``ces_names.CALL_NAMES``), makes no scratch file (each call's
directory starts empty) and reads no globals without naming them; and it is a tool under the
language wall, not a callback or fake. The pool asks before it starts an image; a leaf, so that
the host loads nothing of the worker's side for it.
"""

from __future__ import annotations

import ast
import functools

from sandbox.bridges.ces_names import CALL_NAMES
from sandbox.common.errors import InvalidSource
from sandbox.common.parsing import parse_source
from sandbox.messages import Call

CALL_DEPENDENT_NAMES = CALL_NAMES | {
    # a module-level file of the scratch directory would be gone by the call (each call's is empty)
    "open",
    "tempfile",
    "pathlib",
    "Path",
    "mkdir",
    "makedirs",
    "write_text",
    "write_bytes",
    # the module's globals read without naming them
    "globals",
    "vars",
    "locals",
}
"""Names whose use in a module's top-level code keeps the tool out of an image."""


def imageable(job: Call) -> bool:
    """Whether the tool of ``job`` may run from an image: a tool (not a callback or fake) under the
    language wall whose top-level code names nothing bound to a call."""
    return (
        job.hook is None and job.walls != "process" and not top_level_names(job.source) & CALL_DEPENDENT_NAMES
    )


@functools.cache
def top_level_names(source: str) -> frozenset[str]:
    """The names the code run at import uses (everything but function bodies: decorators, defaults
    and class bodies included); every name for a source that does not parse (never imaged)."""
    try:
        tree = parse_source(source)
    except InvalidSource:
        return CALL_DEPENDENT_NAMES
    names: set[str] = set()
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            pending.extend((*node.decorator_list, node.args))
            if node.returns is not None:
                pending.append(node.returns)
            continue
        if isinstance(node, ast.Lambda):
            pending.append(node.args)
            continue
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
            names.add(node.value)
        pending.extend(ast.iter_child_nodes(node))
    return frozenset(names)
