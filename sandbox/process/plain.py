"""Plain CPython for ``walls="process"``: tool code without the language wall.

The tool is compiled with ``compile()`` and runs with the real builtins and the normal
``__import__``; the process wall (the jail and the worker's own walls) is the only boundary.
Only ``print`` and ``sys.stdout``/``sys.stderr`` differ from CPython: they write to the call's
log, as under the language wall.
The code cache here is separate from the restricted compiler's, so a source warmed in one
mode is never run in the other.
"""

from __future__ import annotations

import builtins
import functools
import os
import sys
import types
from typing import Any, TextIO

from sandbox.common.errors import InvalidSource, PolicyViolation
from sandbox.common.parsing import parse_source
from sandbox.language import streams
from sandbox.language.compiler import TOOL_FILENAME, compile_tree
from sandbox.language.namespace import OutputCapture, tool_file
from sandbox.language.rules import PLAIN_MODULE_NAME


@functools.lru_cache(maxsize=128)
def compile_plain(source: str) -> types.CodeType:
    """The code object of ``source`` as CPython compiles it; ``InvalidSource`` on a syntax error
    (the parser's or the compiler's) or a source too long or too deeply nested (``sandbox.common.parsing``)."""
    try:
        tree = parse_source(source, TOOL_FILENAME)
    except InvalidSource as error:
        where = f"line {error.line}: " if error.line else ""
        raise InvalidSource(where + error.message, line=error.line, col=error.col) from None
    return compile_tree(tree, TOOL_FILENAME)


ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
"""A worker cannot start threads (seccomp, RLIMIT_NPROC 0): numerical libraries such as numpy's
BLAS, which start a thread pool when imported, are told to use the calling thread only."""


def plain_globals(
    *,
    injected: dict[str, object],
    output: OutputCapture,
    entry: str = "tool",
    environment: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Fresh module globals: the real builtins, ``print`` into ``output``, ``__file__`` named like
    the tool (``namespace.tool_file``), and the injected names; ``environment`` joins ``os.environ``
    (the host's configured values)."""
    os.environ.update(environment or {})
    for key, value in ONE_THREAD.items():
        os.environ.setdefault(key, value)
    _reseed_numpy()
    for name in injected:
        if name.startswith("_"):
            raise PolicyViolation(f"injected name {name!r} may not start with '_'")
    module = types.ModuleType(PLAIN_MODULE_NAME)
    namespace = vars(module)
    streams.route(output)  # sys.stdout and sys.stderr write to the call's log, as print does
    sys.stdout, sys.stderr = streams.STDOUT, streams.STDERR
    namespace["__builtins__"] = builtins
    namespace["print"] = _printer(output)
    namespace["__file__"] = tool_file(entry)
    namespace.update(injected)
    sys.modules[PLAIN_MODULE_NAME] = module  # pydantic resolves the tool's annotations here
    return namespace


def _reseed_numpy() -> None:
    """A fresh seed for numpy's global generator (``np.random.random()``, ``np.random.seed``), which a
    worker would otherwise share with every sibling forked from the same zygote; a new process
    would have its own. Under the language wall that generator is out of reach."""
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed()


def _printer(output: OutputCapture) -> Any:
    def print(  # noqa: A001 - the tool's own print
        *objects: object, sep: str | None = " ", end: str | None = "\n", file: TextIO | None = None,
        flush: bool = False,
    ) -> None:  # fmt: skip
        if file is not None:
            builtins.print(*objects, sep=sep, end=end, file=file, flush=flush)
            return
        sep = " " if sep is None else sep
        end = "\n" if end is None else end
        if type(sep) is not str or type(end) is not str:
            raise TypeError("sep and end must be strings")
        output.write(sep.join(map(str, objects)) + end)

    return print
