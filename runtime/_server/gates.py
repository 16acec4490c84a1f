"""Per-session admission on the event loop: a hot session cannot take every thread.

Calls of one session run one at a time (the store's lock). Run straight in threads, every call
queued behind a hot session held a thread while it waited, and the threads ran out for every
other tenant. Here the calls of one session queue on an ``asyncio.Lock`` (first come, first
served; no thread while waiting), so a replica sends at most one call per session to the store's
lock and to a thread. The queue is bounded and the wait limited: past either the call is
refused as ``busy``, before anything was stored, so a retry with the same call id can run.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from sandbox.common.errors import Busy


@dataclass
class _Gate:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0
    """Calls holding or waiting for ``lock``."""


class SessionGates:
    """One FIFO queue per session key, at most ``max_queued`` calls deep."""

    def __init__(self, max_queued: int) -> None:
        self.max_queued = max_queued
        self._gates: dict[str, _Gate] = {}

    @property
    def waiting(self) -> int:
        """Calls waiting in any queue (not the ones holding their gate)."""
        return sum(gate.users - gate.lock.locked() for gate in self._gates.values())

    @asynccontextmanager
    async def enter(self, key: str, timeout: float) -> AsyncIterator[float]:
        """Hold ``key``'s gate for the block; yields the seconds waited. ``Busy`` when
        ``max_queued`` calls already wait, or after ``timeout`` seconds of waiting."""
        gate = self._gates.setdefault(key, _Gate())
        if gate.users > self.max_queued:
            raise Busy(f"session is busy: {self.max_queued} calls already wait for it; retry later")
        gate.users += 1
        started = time.monotonic()
        try:
            try:
                await asyncio.wait_for(gate.lock.acquire(), timeout)
            except TimeoutError:
                raise Busy(
                    f"session is busy: other calls held it for {timeout:g}s; nothing ran, retry later"
                ) from None
            try:
                yield time.monotonic() - started
            finally:
                gate.lock.release()
        finally:
            gate.users -= 1
            if gate.users == 0:
                del self._gates[key]
