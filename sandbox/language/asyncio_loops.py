"""What the ``asyncio`` view hands out in place of the classes and functions that take a loop.

CPython's ``Future``, ``Task``, ``Handle`` and ``TimerHandle`` ask the loop they are given for
``get_debug()``, and when it says yes they keep the stack that made them (the worker's files and
functions) and hand it to that loop's ``call_exception_handler``. A loop of the tool's making would
be given the worker's stack, so these accept toolpen's loop only (or none, for the running one),
refuse a subclass that overrides ``get_loop`` (``gather`` builds its future on that loop), and
stay CPython's classes for ``isinstance``.
"""

from __future__ import annotations

import asyncio
import types
from typing import Any

from sandbox.common.event_loop import toolpens_loop
from sandbox.language.library_rules import TYPE_STAND_INS

_GET_LOOP = (
    "a Future's get_loop() gives the loop asyncio builds on (gather, shield...): it is toolpen's, and may not be"
    " overridden; keep the future's own loop"
)


class _PinnedGetLoop:
    """``get_loop`` of the view's futures and their subclasses: CPython's, and neither an instance's nor a base's."""

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        return (
            asyncio.Future.get_loop
            if instance is None
            else types.MethodType(asyncio.Future.get_loop, instance)
        )

    def __set__(self, instance: Any, value: Any) -> None:
        raise TypeError(_GET_LOOP)


class _ViewClass(type):
    """The view's classes: CPython's for ``isinstance``; a subclass may not override ``get_loop``."""

    cpython: type

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, cls.cpython)

    def __subclasscheck__(cls, subclass: type) -> bool:
        return issubclass(subclass, cls.cpython)

    def __init__(cls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> None:
        super().__init__(name, bases, namespace)
        if "cpython" not in namespace and getattr(cls, "get_loop", None) is not getattr(
            cls.cpython, "get_loop", None
        ):
            raise TypeError(_GET_LOOP)
        if hasattr(cls.cpython, "get_loop"):
            type.__setattr__(
                cls, "get_loop", _PinnedGetLoop()
            )  # first in the MRO, and above the instance's dict

    def __setattr__(cls, name: str, value: Any) -> None:
        if name == "get_loop":
            raise TypeError(_GET_LOOP)
        super().__setattr__(name, value)


class Future(asyncio.Future, metaclass=_ViewClass):  # type: ignore[misc]
    """``asyncio.Future`` on toolpen's loop only."""

    cpython = asyncio.Future

    def __init__(self, *, loop: Any = None) -> None:
        super().__init__(loop=toolpens_loop(loop, "asyncio.Future"))


class Task(asyncio.Task, metaclass=_ViewClass):  # type: ignore[misc]
    """``asyncio.Task`` on toolpen's loop only."""

    cpython = asyncio.Task

    def __init__(self, coro: Any, *, loop: Any = None, **options: Any) -> None:
        super().__init__(coro, loop=toolpens_loop(loop, "asyncio.Task"), **options)


class Handle(asyncio.Handle, metaclass=_ViewClass):
    """``asyncio.Handle`` on toolpen's loop only."""

    cpython = asyncio.Handle

    def __init__(self, callback: Any, args: Any, loop: Any, context: Any = None) -> None:
        super().__init__(callback, args, toolpens_loop(loop, "asyncio.Handle"), context)


class TimerHandle(asyncio.TimerHandle, metaclass=_ViewClass):
    """``asyncio.TimerHandle`` on toolpen's loop only."""

    cpython = asyncio.TimerHandle

    def __init__(self, when: float, callback: Any, args: Any, loop: Any, context: Any = None) -> None:
        super().__init__(when, callback, args, toolpens_loop(loop, "asyncio.TimerHandle"), context)


def ensure_future(coro_or_future: Any, *, loop: Any = None) -> Any:
    """``asyncio.ensure_future`` on toolpen's loop only."""
    return asyncio.ensure_future(coro_or_future, loop=toolpens_loop(loop, "asyncio.ensure_future"))


CHECKED: dict[str, Any] = {
    "Future": Future,
    "Task": Task,
    "Handle": Handle,
    "TimerHandle": TimerHandle,
    "ensure_future": ensure_future,
}
"""The view's members that take a loop, checked."""

for _member in CHECKED.values():
    _member.__module__ = "asyncio"

TYPE_STAND_INS.update(
    {
        asyncio.Future: Future,
        asyncio.Task: Task,
        asyncio.Handle: Handle,
        asyncio.TimerHandle: TimerHandle,
        asyncio.tasks._GatheringFuture: Future,  # type: ignore[attr-defined]  # gather's, built on a given loop
    }
)
"""``type(x)`` and ``x.__class__`` of CPython's futures, tasks and handles answer the checked classes."""
