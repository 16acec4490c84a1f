"""``linecache`` under the language wall: the lines of the tool's own source, and of no file.

Libraries format stacks whose file names tool code chose, and read each line from disk to do so:
asyncio's ``default_exception_handler`` formats a context's ``source_traceback`` or
``handle_traceback`` (``loop.call_exception_handler({"source_traceback": [("/proc/self/environ",
1, "f", None)]})``) with ``traceback.format_list``, which reads every named line through
``linecache``, from any path of the jail (``sys.path`` is searched for a relative name), and logs
it where the tool reads it. ``linecache.updatecache`` is where a line not yet held is read from a
file or a module's loader; while the language wall applies it reads nothing and answers no lines,
as for a file that does not exist. The tool's own source is held already (``worker.show_source``),
so its lines still show in the tracebacks it formats; under ``walls="process"`` and in the host
``linecache`` is CPython's.
"""

from __future__ import annotations

import linecache
from typing import Any

from sandbox.language.arming import restricted_code_running

_installed = False


def install_source_lines_hook() -> None:
    """Replace ``linecache.updatecache`` (the module docstring). Idempotent."""
    global _installed
    if _installed:
        return
    original = linecache.updatecache

    def updatecache(filename: str, module_globals: Any = None) -> list[str]:
        if restricted_code_running():
            return []
        return original(filename, module_globals)

    linecache.updatecache = updatecache
    _installed = True
