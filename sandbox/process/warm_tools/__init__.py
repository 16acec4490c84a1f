"""The tools the zygote runs once before it forks (``warmup``), so that each module's lazy state is loaded there.

One for what every tool may use without an import (``core.py``), and one for each module the
zygote loads when a registered tool imports it (``standard_library/``, ``libraries/``). Each
runs what tools commonly do with its module, so that the module's lazy imports (``heapq`` under
``Counter.most_common``, ``_strptime`` under ``datetime.strptime``) happen in the zygote, and the
code on those paths is compiled, cached and specialized there, not in every worker. They are
written as tools are, to the letter (``Optional``, ``%`` formatting: each ``noqa`` says so), and
run as tools run: compiled under the language wall and called by the worker's code
(``worker.run_warm_up``), entry ``warm_up``.

They are ``.py`` files so that ruff and mypy read them; this module reads them as text, all at
import (an unjailed zygote started as root drops to a user who may not read them later). A
tool's ``if TYPE_CHECKING:`` block is left out of its text: it names for the type checker what
the worker gives every tool as globals (``context``, the CES classes), and an import of toolpen
would not compile under the wall.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Any

_HERE = Path(__file__).parent

STANDARD_LIBRARY_MODULES = (
    "abc",
    "base64",
    "bisect",
    "calendar",
    "collections",
    "contextlib",
    "copy",
    "csv",
    "dataclasses",
    "datetime",
    "decimal",
    "difflib",
    "enum",
    "fractions",
    "functools",
    "hashlib",
    "heapq",
    "hmac",
    "html",
    "io",
    "itertools",
    "json",
    "math",
    "operator",
    "random",
    "re",
    "secrets",
    "statistics",
    "string",
    "textwrap",
    "time",
    "typing",
    "unicodedata",
    "urllib.parse",
    "uuid",
    "zoneinfo",
)
"""The modules of the standard library that have a warm-up tool (the others are C code, or rarely
used: loaded, not run)."""
LIBRARY_NAMES = ("pydantic", "numpy", "google.protobuf")
"""The libraries of ``warmup.LIBRARY_PACKAGES``, each with its warm-up tool."""


def tool_text(path: Path) -> str:
    """The source of the warm-up tool in ``path``: the file's text without its ``if TYPE_CHECKING:`` blocks."""
    text = path.read_text(encoding="utf-8")
    if "\nif TYPE_CHECKING:" not in text:
        return text
    lines = text.splitlines(keepends=True)
    for node in reversed(ast.parse(text).body):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            del lines[node.lineno - 1 : node.end_lineno]
    return "".join(lines)


def _tools(folder: str, names: tuple[str, ...]) -> dict[str, str]:
    return {name: tool_text(_HERE / folder / f"{name.replace('.', '_')}.py") for name in names}


CORE = tool_text(_HERE / "core.py")
"""What every tool may use without an import: classes, ``match``, coroutines, formatting, exceptions, codecs."""
STANDARD_LIBRARY: dict[str, str] = _tools("standard_library", STANDARD_LIBRARY_MODULES)
"""The warm-up tool of each module of ``STANDARD_LIBRARY_MODULES``."""
LIBRARIES: dict[str, str] = _tools("libraries", LIBRARY_NAMES)
"""The warm-up tool of each library of ``LIBRARY_NAMES``: its lazy imports happen there."""


def undo_what_tools_could_see() -> None:
    """Set back what the warm-up tools changed that a tool's call could read, as a fresh process has it.

    Every worker inherits the zygote's state: a call must not see that a warm-up tool ran (a
    result differing from CPython's), nor so learn which modules the pool's other tools, another
    tenant's, import. Found by a red team: ``decimal``'s flags (``Inexact``, ``Rounded``,
    ``InvalidOperation`` from pydantic's warm-up tool), ``difflib.HtmlDiff``'s id counter, and
    ``urllib.parse.urlsplit``'s cache (its ``cache_info()``).
    """
    if decimal := sys.modules.get("decimal"):
        decimal.setcontext(decimal.Context())
    if difflib := sys.modules.get("difflib"):
        difflib.HtmlDiff._default_prefix = 0
    if parse := sys.modules.get("urllib.parse"):
        parse.urlsplit.cache_clear()


def job(source: str) -> dict[str, Any]:
    """The job running a warm-up tool once."""
    return {"source": source, "entry": "warm_up", "args": {}}
