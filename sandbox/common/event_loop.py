"""The event loop tool code runs on: CPython's own asyncio loop, with no I/O, no threads and no processes.

A worker may not make the socket pair CPython's selector loop opens when it starts (the jail's
seccomp program refuses it), and a tool has no sockets, pipes or child processes to wait on
anyway. ``QuietEventLoop`` is ``asyncio.BaseEventLoop`` (CPython's scheduling of callbacks,
timers, tasks, futures and async generators, unchanged) whose wait for I/O is a sleep until the
next timer: ``asyncio.sleep``, ``gather``, ``wait_for``, ``timeout``, queues, locks and task groups
behave as CPython's. When nothing is ready and no timer is set, CPython would wait forever for
I/O that cannot come; here the run fails at once, saying so. What would reach outside the loop
(executors and their threads, name resolution, sockets, pipes, subprocesses, signal handlers,
debug mode's process-wide coroutine tracking) fails with ``PermissionError`` (EPERM), as a jailed
process's system calls do.

Only the loop itself runs asyncio's futures and callbacks: it is not subclassed, and its methods
that build on ``self`` refuse, called unbound, an object of the tool's making (a loop whose
``get_debug()`` says yes would be handed the worker's stack; ``toolpens_loop`` checks a ``loop=``).

``install`` makes it what ``asyncio`` creates (``new_event_loop``, ``get_event_loop``, ``run``) in
the worker; ``run`` is ``asyncio.run`` on it.
"""

from __future__ import annotations

import asyncio
import errno
import functools
import sys
import time
from collections.abc import Callable, Coroutine
from typing import Any, NoReturn

NO_IO = "Operation not permitted: a tool's event loop has no I/O, threads or processes"


class NothingToWaitFor(RuntimeError):
    """Every task waits and nothing can wake one: CPython would wait for I/O forever."""


class _NoSelector:
    """What the loop waits on: no file descriptors, only the time until its next timer."""

    def select(self, timeout: float | None) -> list[Any]:
        if timeout is None:
            raise NothingToWaitFor(
                "the tool awaits something nothing will finish: no task is ready and no timer is set"
                " (a tool's event loop has no I/O to wait for)"
            )
        if timeout > 0:
            time.sleep(timeout)
        return []

    def close(self) -> None:
        """Nothing to close."""


def _refused(name: str) -> Any:
    def refuse(self: QuietEventLoop, *args: Any, **kwargs: Any) -> NoReturn:
        raise PermissionError(errno.EPERM, f"{NO_IO} (loop.{name})")

    refuse.__name__ = refuse.__qualname__ = name
    return refuse


REFUSED = (
    # threads
    "run_in_executor",
    "set_default_executor",
    # the network and name resolution
    "getaddrinfo",
    "getnameinfo",
    "create_connection",
    "create_server",
    "create_datagram_endpoint",
    "create_unix_connection",
    "create_unix_server",
    "connect_accepted_socket",
    "start_tls",
    "sendfile",
    "sock_recv",
    "sock_recv_into",
    "sock_recvfrom",
    "sock_recvfrom_into",
    "sock_sendall",
    "sock_sendto",
    "sock_connect",
    "sock_accept",
    "sock_sendfile",
    # file descriptors, pipes, processes, signals
    "add_reader",
    "remove_reader",
    "add_writer",
    "remove_writer",
    "connect_read_pipe",
    "connect_write_pipe",
    "subprocess_exec",
    "subprocess_shell",
    "add_signal_handler",
    "remove_signal_handler",
)
"""What the loop refuses: every way out of it to the operating system."""


class QuietEventLoop(asyncio.BaseEventLoop):
    """CPython's base event loop, waiting on timers only (the module docstring)."""

    def __init__(self) -> None:
        if type(self) is not QuietEventLoop:
            raise TypeError(NOT_A_SUBCLASS)
        self._selector = None  # BaseEventLoop's __init__ asks for debug mode (PYTHONASYNCIODEBUG): off here
        super().__init__()
        self._selector = _NoSelector()

    def _process_events(self, event_list: list[Any]) -> None:
        """No I/O events ever arrive."""

    def _write_to_self(self) -> None:
        """Nothing to wake: no other thread schedules callbacks on this loop."""

    def set_debug(self, enabled: bool) -> None:
        # debug mode tracks every coroutine's origin process-wide (sys.set_coroutine_origin_tracking_depth)
        if enabled and self._selector is not None:
            raise PermissionError(errno.EPERM, f"{NO_IO} (debug mode)")
        super().set_debug(False)


BUILDING_ON_SELF = ("create_future", "create_task", "call_at", "run_until_complete")
"""The loop's public methods that build a future, task or handle on ``self`` (the others not refused go through
``self``'s own methods): called unbound on an object of the tool's making, they refuse it."""


def _own_only(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def on_toolpens_loop(self: Any, *args: Any, **kwargs: Any) -> Any:
        if type(self) is not QuietEventLoop:
            raise TypeError(NOT_A_SUBCLASS)
        return method(self, *args, **kwargs)

    return on_toolpens_loop


for _name in REFUSED:
    setattr(QuietEventLoop, _name, _refused(_name))
for _name in BUILDING_ON_SELF:
    setattr(QuietEventLoop, _name, _own_only(getattr(QuietEventLoop, _name)))


class QuietEventLoopPolicy(asyncio.DefaultEventLoopPolicy):
    """asyncio's default policy, creating ``QuietEventLoop``."""

    _loop_factory = QuietEventLoop


NOT_A_SUBCLASS = (
    "toolpen's event loop is not subclassed nor stood in for: a loop of the tool's making would be handed"
    " asyncio's futures and callbacks,"
    " and in debug mode the worker's stack; use asyncio.new_event_loop() as it is"
)
NOT_TOOLPENS = (
    "loop must be toolpen's event loop (asyncio.get_running_loop() or new_event_loop() give it) or left out"
)


def toolpens_loop(loop: Any, where: str) -> Any:
    """``loop`` if it is toolpen's (or None, for the running one), else a ``TypeError`` saying what to pass."""
    if loop is None or type(loop) is QuietEventLoop:
        return loop
    raise TypeError(f"{where}: {NOT_TOOLPENS}; it was a {type(loop).__name__}")


def install() -> None:
    """Make ``QuietEventLoop`` what asyncio creates in this process (a worker). Idempotent."""
    if not isinstance(asyncio.get_event_loop_policy(), QuietEventLoopPolicy):
        asyncio.set_event_loop_policy(QuietEventLoopPolicy())


NOT_TOOLPENS_LOOP = (
    "loop_factory must return toolpen's event loop (asyncio.new_event_loop gives it, and is the default):"
    " a loop of another class would run the tool's tasks outside it"
)


def checked_factory(loop_factory: Callable[[], Any] | None) -> Callable[[], QuietEventLoop]:
    """``loop_factory`` for ``asyncio.Runner``, refusing at the first run any loop but a ``QuietEventLoop``.

    A loop of the tool's own making (a subclass, or any object with the loop's methods) would be
    handed the runner's tasks and CPython's own callbacks, and in debug mode the worker's stack.
    """
    if loop_factory is None or loop_factory is QuietEventLoop:
        return QuietEventLoop

    def factory() -> QuietEventLoop:
        loop = loop_factory()
        if type(loop) is not QuietEventLoop:
            raise TypeError(f"{NOT_TOOLPENS_LOOP}; it returned a {type(loop).__name__}")
        return loop

    return factory


class Runner(asyncio.Runner):  # type: ignore[misc]  # final in typeshed only: a subclass keeps isinstance true
    """``asyncio.Runner`` on toolpen's event loop; a ``loop_factory`` must return one (``checked_factory``)."""

    def __init__(self, *, debug: bool | None = None, loop_factory: Callable[[], Any] | None = None) -> None:
        super().__init__(debug=debug, loop_factory=checked_factory(loop_factory))


Runner.__module__ = asyncio.Runner.__module__


def run(
    coroutine: Coroutine[Any, Any, Any],
    *,
    debug: bool | None = None,
    loop_factory: Callable[[], Any] | None = None,
) -> Any:
    """``asyncio.run`` on a ``QuietEventLoop``: run to the end, cancel what is left, close.

    ``loop_factory`` as 3.12's ``asyncio.run`` takes it (3.11's has none, and refuses it as CPython does).
    """
    if loop_factory is not None and sys.version_info < (3, 12):
        raise TypeError("run() got an unexpected keyword argument 'loop_factory'")
    with Runner(debug=debug, loop_factory=loop_factory) as runner:
        return runner.run(coroutine)
