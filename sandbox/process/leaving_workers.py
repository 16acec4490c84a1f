"""Single-use workers the pool let go after their call, watched until they have exited.

A single-use worker that answered a call under the language wall exits by itself right after
its ``done`` (``worker.serve``), and its zygote replaces it when it does; the pool counts on that
replacement (``WorkerPool._let_go``). Were one not to exit, callers would wait for a replacement
that never comes, so each is watched through its pidfd and killed if it is still there
``LEAVE_GRACE`` seconds after its call (checked every ``LEAVE_GRACE`` seconds by a thread of its
own, so also while no call comes). The pidfds of the workers that have exited are closed in
batches, not once per call.
"""

from __future__ import annotations

import os
import select
import threading
import time
from typing import Protocol

LEAVE_GRACE = 1.0  # seconds a let-go worker may take to exit before it is killed
SWEEP_AT = 8  # let-go workers watched before their pidfds are polled


class Killable(Protocol):
    pidfd: int

    def kill(self) -> None: ...


class LeavingWorkers:
    """The let-go workers not yet seen to exit; thread-safe."""

    def __init__(self, grace: float = LEAVE_GRACE, sweep_at: int = SWEEP_AT) -> None:
        self._grace = grace
        self._sweep_at = sweep_at
        self._lock = threading.Lock()
        self._poller = select.poll()  # a pidfd polls readable once its process has exited
        self._watched: dict[int, tuple[float, Killable]] = {}
        self._closed = threading.Event()
        threading.Thread(target=self._watch, name="toolpen-leaving", daemon=True).start()

    def add(self, worker: Killable) -> None:
        """Watch ``worker`` (its pidfd is closed here once it has exited); once closed, kill it."""
        with self._lock:
            if self._closed.is_set():
                worker.kill()
                os.close(worker.pidfd)
                return
            self._poller.register(worker.pidfd, select.POLLIN)
            self._watched[worker.pidfd] = (time.monotonic() + self._grace, worker)
            full = len(self._watched) >= self._sweep_at
        if full:
            self.sweep()

    def sweep(self) -> None:
        """Forget the workers that have exited; kill those still there past their grace."""
        with self._lock:
            for pidfd, _ in self._poller.poll(0):
                self._forget(pidfd)
            now = time.monotonic()
            for deadline, worker in self._watched.values():
                if now > deadline:
                    worker.kill()

    def close(self) -> None:
        """Kill and forget every worker still watched, and any added from now on."""
        with self._lock:
            self._closed.set()
            for pidfd, (_, worker) in list(self._watched.items()):
                worker.kill()
                self._forget(pidfd)

    def __len__(self) -> int:
        return len(self._watched)

    def _watch(self) -> None:
        while not self._closed.wait(self._grace):
            self.sweep()

    def _forget(self, pidfd: int) -> None:
        self._poller.unregister(pidfd)
        del self._watched[pidfd]
        os.close(pidfd)
