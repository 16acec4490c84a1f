"""The pool's ready workers: last in, first out, and cheap to take from when one is ready.

``queue.LifoQueue`` takes a lock and runs six Python-level calls per ``get``, on the caller's
path of every call. Here taking a ready item is one ``list.pop`` (atomic under the GIL); the
condition is used only by a caller that has to wait, and ``put`` notifies only when one does.
"""

from __future__ import annotations

import threading
import time
from typing import Generic, TypeVar

Item = TypeVar("Item")


class ReadyStack(Generic[Item]):
    """A thread-safe stack whose ``take_nowait`` is lock-free and whose ``take`` can wait."""

    def __init__(self) -> None:
        self._items: list[Item] = []
        self._arrived = threading.Condition(threading.Lock())
        self._waiting = 0  # callers in take(), so that put() notifies only when someone waits

    def put(self, item: Item) -> None:
        with self._arrived:
            self._items.append(item)
            if self._waiting:
                self._arrived.notify()

    def take_nowait(self) -> Item | None:
        """The item put last, or None when there is none."""
        try:
            return self._items.pop()
        except IndexError:
            return None

    def take(self, timeout: float) -> Item | None:
        """The item put last, waiting up to ``timeout`` seconds for one; None if none came."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            self._waiting += 1
            try:
                while (item := self.take_nowait()) is None:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return None
                    self._arrived.wait(left)
                return item
            finally:
                self._waiting -= 1

    def drain(self) -> list[Item]:
        """Take every item at once."""
        taken = []
        while (item := self.take_nowait()) is not None:
            taken.append(item)
        return taken

    def qsize(self) -> int:
        return len(self._items)
