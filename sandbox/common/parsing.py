"""Python source -> ``ast``, bounded in size and depth: every parse of tool text goes through here.

CPython's parser and compiler recurse per level of nesting, and so do the policy's and the
schema reader's visitors. A long attribute chain, ``+1+1...`` of many terms or a long chain of
unary minus made them raise ``RecursionError`` or ``MemoryError`` (a 500 in the service, a
traceback from ``toolpen check``). Here the text is bounded before parsing, the parser's own
overflows become ``InvalidSource``, and the tree's depth is measured without recursion, so a
tree that reaches a visitor or ``compile()`` is shallow enough for both on any thread.
"""

from __future__ import annotations

import ast
from typing import Literal

from sandbox.common.errors import InvalidSource

MAX_SOURCE_CHARS = 1024 * 1024
"""Longest tool source (characters) accepted."""

MAX_AST_DEPTH = 100
"""Deepest syntax tree accepted (module, function, statement, nested expressions, ...).
``compile()`` of the restricted tree failed from about 300 levels on; real tools stay
under 30."""


def parse_source(source: str, filename: str = "<tool>") -> ast.Module:
    """The module ``source``; see ``_parse``."""
    tree = _parse(source, filename, "exec")
    assert isinstance(tree, ast.Module)
    return tree


def parse_expression(text: str) -> ast.expr:
    """The expression ``text`` (a string annotation); see ``_parse``."""
    tree = _parse(text, "<annotation>", "eval")
    assert isinstance(tree, ast.Expression)
    return tree.body


def _parse(source: str, filename: str, mode: Literal["exec", "eval"]) -> ast.AST:
    """The tree of ``source``; ``InvalidSource`` (located where known, the line not repeated in
    the message) for a syntax error, a NUL byte, or text too long or nested too deeply."""
    if len(source) > MAX_SOURCE_CHARS:
        raise InvalidSource(
            f"the source is {len(source)} characters long (at most {MAX_SOURCE_CHARS})", line=1, col=1
        )
    try:
        tree = ast.parse(source, filename, mode)
    except SyntaxError as error:
        line, col = error.lineno or 1, error.offset or 1
        raise InvalidSource(f"syntax error: {error.msg}", line=line, col=col) from None
    except ValueError as error:  # a NUL byte
        raise InvalidSource(f"unusable source: {error}", line=1, col=1) from None
    except (RecursionError, MemoryError):  # the parser's own stack, on very long chains
        raise _too_deep(None) from None
    _check_depth(tree)
    return tree


def _check_depth(tree: ast.AST) -> None:
    stack: list[tuple[ast.AST, int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_AST_DEPTH:
            raise _too_deep(getattr(node, "lineno", 1))
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def _too_deep(line: int | None) -> InvalidSource:
    return InvalidSource(
        f"the source is nested too deeply (at most {MAX_AST_DEPTH} levels of syntax): "
        "split long chains of operators, attributes, calls or unary signs",
        line=line,
        col=1,
    )
