"""The ``asyncio`` view: CPython's coroutines, tasks, timers, queues and locks on toolpen's event loop.

An ``async def`` tool runs as ``asyncio.run`` runs it, on ``QuietEventLoop``
(``sandbox.common.event_loop``: CPython's base loop without I/O), and so do ``asyncio.run``,
``Runner`` (``asyncio.Runner``'s subclass; a ``loop_factory`` must give toolpen's loop) and
``new_event_loop`` called by the tool: ``sleep``, ``gather``, ``wait_for``,
``timeout``, ``TaskGroup``, ``Queue``, ``Lock``, ``Event`` and the rest are CPython's own. Left out:
what starts processes or threads, opens connections, or replaces the loop process-wide
(``LEFT_OUT``); the loop itself refuses its I/O methods. Tasks and coroutines are CPython's, and
their frames give nothing the attribute rule lets through (``f_back``, ``f_globals``, ``cr_frame``...).
"""

from __future__ import annotations

import asyncio
import types
from typing import Any

from sandbox.common.event_loop import QuietEventLoop, Runner, run
from sandbox.language.asyncio_loops import CHECKED

_PROCESSES = "it starts processes, which a tool may not; call another tool with tools.<name>(...)"
_NETWORK = "it opens network connections or servers; use ces_requests or tools.<name>(...)"
_THREADS = "it runs code in other threads, which a tool may not start; await the function, or call it"
_LOOP = "the event loop is toolpen's (CPython's, without I/O): asyncio.run, Runner and new_event_loop give it"

LEFT_OUT: dict[str, str] = {
    **dict.fromkeys(
        (
            "create_subprocess_exec",
            "create_subprocess_shell",
            "SubprocessProtocol",
            "SubprocessTransport",
            "AbstractChildWatcher",
            "FastChildWatcher",
            "MultiLoopChildWatcher",
            "PidfdChildWatcher",
            "SafeChildWatcher",
            "ThreadedChildWatcher",
            "get_child_watcher",
            "set_child_watcher",
        ),
        _PROCESSES,
    ),
    **dict.fromkeys(
        (
            "open_connection",
            "open_unix_connection",
            "start_server",
            "start_unix_server",
            "StreamReader",
            "StreamReaderProtocol",
            "StreamWriter",
            "Server",
            "AbstractServer",
        ),
        _NETWORK,
    ),
    **dict.fromkeys(("to_thread", "run_coroutine_threadsafe", "wrap_future"), _THREADS),
    **dict.fromkeys(
        (
            "BaseEventLoop",
            "SelectorEventLoop",
            "AbstractEventLoopPolicy",
            "DefaultEventLoopPolicy",
            "get_event_loop_policy",
            "set_event_loop_policy",
            "EventLoop",
        ),
        _LOOP,
    ),
}
"""Public members of ``asyncio`` the view leaves out, and why (said in the refusal)."""


def new_event_loop() -> QuietEventLoop:
    """``asyncio.new_event_loop``: a new toolpen event loop."""
    return QuietEventLoop()


REPLACED: dict[str, Any] = {"run": run, "Runner": Runner, "new_event_loop": new_event_loop, **CHECKED}
"""What the view gives in place of asyncio's own: the same, on toolpen's event loop only (``Runner``, ``Future``,
``Task`` and the handles are subclasses, ``asyncio_loops``)."""


def members(name: str) -> dict[str, Any]:
    """The members of the view of ``asyncio``: its public functions, classes and constants, as CPython's."""
    public = {
        member: value
        for member in dir(asyncio)
        if not member.startswith("_")
        and member not in LEFT_OUT
        and not isinstance(value := getattr(asyncio, member), types.ModuleType)
    }
    return public | REPLACED


def left_out(module: str, member: str) -> str | None:
    """Why the view leaves ``member`` out, if it says."""
    return LEFT_OUT.get(member)
