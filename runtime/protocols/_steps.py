"""Host loops written once for a sync and an async client: a loop is a generator of I/O steps.

A loop yields each step and is sent back its result:

- a call of the client it was given (``client.chat.completions.create(...)``): with an
  ``openai.OpenAI`` client the yielded value is already the answer, with ``openai.AsyncOpenAI``
  it is an awaitable, awaited by ``arun_steps``;
- ``Blocking(function, ...)``: work that blocks, such as running tools (at once with a sync
  client, in a worker thread with an async one);
- ``NextItem(stream)``: the stream's next item, None at its end;
- ``Pause(seconds)``.

An exception a step raises is thrown into the loop at its ``yield``, so a loop handles errors
and cleans up (``try``/``finally``) in one place for both clients.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")

Loop = Generator[Any, Any, T]
"""A host loop: yields steps, is sent their results, returns its own result."""


class Blocking:
    """A step that blocks: ``function(*args, **kwargs)``."""

    def __init__(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self.function = function
        self.args = args
        self.kwargs = kwargs


@dataclass(frozen=True)
class NextItem:
    """A step: the next item of a client's stream (an iterator, or an async iterator), or None."""

    stream: Any


@dataclass(frozen=True)
class Pause:
    """A step: wait ``seconds``."""

    seconds: float


def run_steps(loop: Loop[T]) -> T:
    """Run ``loop`` with a sync client: ``arun_steps``'s driver, whose steps then never wait, so
    the driver finishes within its first ``send``."""
    driver = _drive(loop, _run)
    try:
        driver.send(None)
    except StopIteration as done:
        return done.value
    raise RuntimeError("a step of a sync host loop waited")


async def arun_steps(loop: Loop[T]) -> T:
    """Run ``loop`` with an async client."""
    return await _drive(loop, _arun)


async def _drive(loop: Loop[T], perform: Callable[[Any], Awaitable[Any]]) -> T:
    """Send each step's result back into ``loop``, or throw in its error (cancellation too: the
    loop's ``finally`` clauses run), until the loop returns."""
    result: Any = None
    failure: BaseException | None = None
    while True:
        try:
            step = loop.send(result) if failure is None else loop.throw(failure)
        except StopIteration as done:
            return done.value
        try:
            result, failure = await perform(step), None
        except BaseException as error:
            result, failure = None, error


async def _run(step: Any) -> Any:
    """A step with a sync client (awaits nothing)."""
    if isinstance(step, Blocking):
        return step.function(*step.args, **step.kwargs)
    if isinstance(step, NextItem):
        return next(step.stream, None)
    if isinstance(step, Pause):
        return time.sleep(step.seconds)
    return step


async def _arun(step: Any) -> Any:
    """A step with an async client."""
    if isinstance(step, Blocking):
        return await asyncio.to_thread(step.function, *step.args, **step.kwargs)
    if isinstance(step, NextItem):
        return await anext(step.stream, None)
    if isinstance(step, Pause):
        return await asyncio.sleep(step.seconds)
    return await step
