"""The pool: workers forked from a warm zygote kept ready, and one call at a time handed to one of them.

The pool keeps ``size`` workers ready; a worker that is done with is replaced after its call
(not during it, so that the fork does not compete with the call for CPU): its zygote forks the
replacement when the worker ends, and is asked for it only when the pool kills a worker. The
call itself (the job sent, the RPCs answered, the reply read under the deadline, SIGKILL) is
``sandbox.process.conversation``; the zygote is reached through ``sandbox.process.zygote_link``;
the ready workers are a stack (``ready_stack``), the let-go ones are watched (``leaving_workers``).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Any, cast

from sandbox.common.errors import IsolationUnavailable, WorkerCrashed
from sandbox.common.limits import Limits
from sandbox.common.walls import WallsMode
from sandbox.messages import Call, Done, Imaged, Rpc, WallsQuery
from sandbox.process.bwrap import GET_BWRAP, find_bwrap
from sandbox.process.conversation import converse, has_more
from sandbox.process.imageable import imageable
from sandbox.process.leaving_workers import LeavingWorkers
from sandbox.process.missing_walls import missing_wall, namespace_walls
from sandbox.process.ready_stack import ReadyStack
from sandbox.process.seccomp import pack_programs, seccomp_program
from sandbox.process.zygote_link import WorkerLink, ZygoteLink

log = logging.getLogger(__name__)

EXIT_REPORT_WAIT = 1.0  # seconds to wait for the zygote's word on how a silent worker ended
TAKE_WAIT = 0.5  # seconds between checks that the zygote is alive while waiting for a worker
HEAL_ROUNDS = 10  # TAKE_WAIT rounds a caller waits for a counted fork before it asks for one more
REMEMBERED_EXITS = 4096
HAND_ATTEMPTS = 3  # workers tried beyond the pool's size before a call gives up
IMAGE_BUILD_WAIT = 60.0  # seconds a tool image's module may take to run before its tool runs without one


DEFAULT_TOOL_IMAGES = 32
"""Tool images a pool keeps at most (``WorkerPool(tool_images=...)``): the least recently called goes first."""


@dataclass
class _Lane:
    """Ready workers of one kind: the zygote's own (``image`` 0), or those of one tool image."""

    image: int
    ready: ReadyStack[WorkerLink] = field(default_factory=ReadyStack)
    pending: int = 0  # forks asked for and not yet delivered
    waiting: int = 0  # callers waiting for one of its workers: each has a fork of its own on its way


@dataclass
class _ImageSlot:
    """A tool image of the pool: its lane, and whether its module has run (until then its calls
    go to the zygote's workers)."""

    key: tuple[str, str]
    lane: _Lane
    started: float
    built: bool = False


def _bound_to_other_walls(worker: WorkerLink, walls: str | None) -> bool:
    """Whether a kept worker ran calls of another walls mode than this call's (None: not a call)."""
    return walls is not None and worker.walls is not None and worker.walls != walls


class WorkerPool:
    """Workers forked from a warm zygote; ``run`` one call in one of them. Thread-safe."""

    def __init__(
        self,
        size: int = 2,
        reuse: bool = False,
        *,
        allow_weak_isolation: bool = False,
        bwrap: str | None = None,
        tool_images: int = DEFAULT_TOOL_IMAGES,
    ) -> None:
        """``bwrap``: the bubblewrap to use (default: the bundled one, else the one on PATH);
        ``tool_images``: how many tool images to keep at most (0: none; single-use workers only)."""
        self.size = size
        self.tool_images = 0 if reuse else tool_images
        self.reuse = reuse
        self.allow_weak_isolation = allow_weak_isolation
        self.weakened: dict[str, str] = {}  # the walls it runs without (allow_weak_isolation), and why
        self._bwrap = bwrap or find_bwrap()
        if self._bwrap is None:
            self._weaken("the jail", f"bubblewrap not found; {GET_BWRAP}")
        try:
            self._seccomp = pack_programs(seccomp_program(), seccomp_program(image=True))
        except IsolationUnavailable as exc:
            self._weaken("seccomp", exc.message)
            self._seccomp = b""
        # last in, first out: the worker prepared last is the one whose pages are likeliest still cached
        self._main = _Lane(0)
        self._images: OrderedDict[tuple[str, str], _ImageSlot] = OrderedDict()  # least recently used first
        self._image_lanes: dict[int, _ImageSlot] = {}
        self._no_image: set[tuple[str, str]] = set()  # tools whose module failed in an image
        self._image_numbers = itertools.count(1)
        self._leaving = LeavingWorkers()
        self._exits: dict[int, int] = {}
        self._exit_seen = threading.Condition()
        self._lock = threading.Lock()
        self._warm_sources: dict[tuple[str, WallsMode], None] = {}
        self._closed = False
        self._in_use = 0
        self._zygote = self._start_zygote()

    def run(self, call: Call, limits: Limits, rpc: Rpc) -> Done:
        """Run ``call`` in a worker under ``limits`` (they replace the call's own); never raises for its faults.

        A source not warmed yet is warmed first (``warm``): a worker under the language wall
        imports nothing, so what the source needs must be in the zygote.
        """
        call = replace(call, limits=limits.to_dict())
        walls = cast(WallsMode, call.walls or "all")
        if (call.source, walls) not in self._warm_sources:
            self.warm(call.source, walls, recycle=False)
        lane = self._lane_for(call, walls) if self.tool_images else self._main
        with self._lock:
            self._in_use += 1
        try:
            return self._exchange(call, limits, rpc, lane)
        finally:
            with self._lock:
                self._in_use -= 1

    def start_image(self, call: Call) -> None:
        """Start the tool image of ``call``'s tool now, if it may have one, has none, and the pool
        holds fewer than ``tool_images`` (its calls use it once its module has run): a
        registration's, so that its first call finds it; only a call drops another tool's image."""
        if self.tool_images:
            self._lane_for(call, cast(WallsMode, call.walls or "all"), evict=False)

    @property
    def in_use(self) -> int:
        """Calls running in (or waiting for) a worker of this pool now."""
        return self._in_use

    @property
    def alive(self) -> bool:
        """The pool can fork workers: open, and its zygote running."""
        return not self._closed and self._zygote.alive and self._zygote.process.poll() is None

    # Seams for tests and diagnostics: read what the pool holds, or put it in a state a test
    # needs, without reaching into its private attributes. Nothing in the pool calls them.

    @property
    def zygote_pid(self) -> int:
        """For tests and diagnostics: the pid of the current zygote (its workers are its children)."""
        return self._zygote.process.pid

    @property
    def ready_count(self) -> int:
        """For tests and diagnostics: how many workers are ready now."""
        return self._main.ready.qsize()

    @property
    def pending_forks(self) -> int:
        """For tests and diagnostics: how many forks the pool counts as on their way."""
        return self._main.pending

    @property
    def leaving_count(self) -> int:
        """For tests and diagnostics: how many let-go workers are watched until they exit."""
        return len(self._leaving)

    @property
    def tool_images_built(self) -> list[str]:
        """For tests and diagnostics: the sources of the tool images whose module has run, least recently called first."""
        with self._lock:
            return [slot.key[0] for slot in self._images.values() if slot.built]

    @property
    def tool_images_settled(self) -> bool:
        """For tests and diagnostics: every tool image's module has run and no fork of its is on its way."""
        with self._lock:
            return all(slot.built and slot.lane.pending <= 0 for slot in self._images.values())

    def recorded_exits(self) -> dict[int, int]:
        """For tests and diagnostics: a copy of the exit codes the zygote reported, by worker pid."""
        with self._exit_seen:
            return dict(self._exits)

    def sweep_leaving_for_test(self) -> None:
        """For tests: check the let-go workers now (as the watcher does), instead of waiting for it."""
        self._leaving.sweep()

    def kill_zygote_for_test(self, *, wait: bool = False) -> None:
        """For tests: SIGKILL the current zygote (and, ``wait``, reap it); the pool is not told."""
        self._zygote.process.kill()
        if wait:
            self._zygote.process.wait()

    def take_ready_for_test(self) -> WorkerLink | None:
        """For tests: take a ready worker (None if none is), as a caller holding one would."""
        return self._main.ready.take_nowait()

    def set_pending_forks_for_test(self, count: int) -> None:
        """For tests: overwrite the count of forks on their way (to test that a wrong one heals)."""
        with self._lock:
            self._main.pending = count

    def warm(self, source: str, walls: WallsMode = "all", *, recycle: bool = True) -> None:
        """Compile a tool (for ``walls``) in the zygote, and load the libraries it needs, so that
        workers forked from now on have them; returns once the zygote has, the workers forked
        before replaced (``recycle=False``: only if the zygote loaded a library, which they lack)."""
        with self._lock:
            self._warm_sources[source, walls] = None
            zygote = self._zygote
            try:
                number = zygote.warm(source, walls)
            except OSError:  # it has died: the zygote replacing it warms every source recorded
                zygote.alive = False
                number = 0
        if not number:
            self._restart_dead_zygote()
        elif zygote.wait_warmed(number) or recycle:
            self._recycle_ready()

    def probe_walls(self) -> dict[str, dict[str, str]]:
        """Which walls a worker has in force: ``{"active": {...}, "missing": {...}}``."""
        reply = self._exchange(WallsQuery(), Limits(), _no_rpc)
        if not reply.success or not isinstance(reply.output, dict):
            raise WorkerCrashed("the worker ended before reporting its walls")
        active, missing = namespace_walls(reply.output.get("namespaces") or {})
        if self._bwrap is not None:
            active["jail"] = f"bubblewrap ({self._bwrap})"
        missing |= {wall: f"{why} (allow_weak_isolation)" for wall, why in self.weakened.items()}
        return {"active": active | reply.output["active"], "missing": missing | reply.output["missing"]}

    def close(self) -> None:
        """Stop the zygote and every ready worker."""
        with self._lock:
            self._closed = True
            self._zygote.close()
        self._leaving.close()
        self._recycle_ready()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _start_zygote(self) -> ZygoteLink:
        try:
            zygote = ZygoteLink(self._deliver, self._record_exit, self._bwrap, self._seccomp, self._on_image)
        except IsolationUnavailable as exc:
            self._weaken("the jail", exc.message)
            self._bwrap = None
            zygote = ZygoteLink(self._deliver, self._record_exit, None, self._seccomp, self._on_image)
        for source, walls in self._warm_sources:
            zygote.warm(source, walls)
        self._drop_images()
        self._main.pending = self.size
        for _ in range(self.size):
            zygote.request_fork(reuse=self.reuse)
        return zygote

    def _weaken(self, wall: str, reason: str) -> None:
        missing_wall(wall, reason, allow_weak=self.allow_weak_isolation)
        self.weakened[wall] = reason

    def _lane_of(self, worker: WorkerLink) -> _Lane | None:
        """The lane a worker belongs to (None: its tool image was dropped)."""
        if not worker.image:
            return self._main
        slot = self._image_lanes.get(worker.image)
        return None if slot is None else slot.lane

    def _deliver(self, worker: WorkerLink) -> None:
        with self._lock:
            lane = self._lane_of(worker)
            if lane is not None:
                # exact, never clamped: a worker that ended by itself is replaced at once, and the
                # pool may count that replacement (retiring the worker) only after it has arrived
                lane.pending -= 1
        if lane is None:
            worker.close()  # its image was dropped: it exits
            return
        lane.ready.put(worker)

    def _lane_for(self, call: Call, walls: str, *, evict: bool = True) -> _Lane:
        """The lane of a call: its tool image's once the image's module has run; the zygote's before,
        and for a tool that runs no image (``tool_image.imageable``) or whose module failed in one."""
        key = (call.source, walls)
        with self._lock:
            slot = self._images.get(key)
            if slot is not None and slot.built:
                self._images.move_to_end(key)
                return slot.lane
            full = len(self._images) >= self.tool_images
            if slot is None and key not in self._no_image and (evict or not full) and imageable(call):
                self._start_image(key, call)
            elif slot is not None and time.monotonic() - slot.started > IMAGE_BUILD_WAIT:
                self._drop_image(slot)  # its module ran past any call's time: its calls run it each
                self._no_image.add(key)
        return self._main

    def _start_image(self, key: tuple[str, str], call: Call) -> None:
        """Start a tool image for ``call``'s tool (the lock held), dropping the least recently used
        one beyond the pool's ``tool_images``."""
        while len(self._images) >= self.tool_images:
            self._drop_image(next(iter(self._images.values())))
        number = next(self._image_numbers)
        slot = _ImageSlot(key, _Lane(number), time.monotonic())
        try:
            self._zygote.start_image(number, replace(call, args=None, context=None))
        except OSError:
            return
        self._images[key] = slot
        self._image_lanes[number] = slot

    def _drop_image(self, slot: _ImageSlot) -> None:
        """End a tool image (the lock held): its ready workers are closed (they exit)."""
        self._images.pop(slot.key, None)
        self._image_lanes.pop(slot.lane.image, None)
        with contextlib.suppress(OSError):
            self._zygote.drop_image(slot.lane.image)
        for worker in slot.lane.ready.drain():
            worker.close()

    def _drop_images(self) -> None:
        """Forget every tool image, as a new zygote starts (the lock held, or in the constructor)."""
        for slot in list(self._images.values()):
            self._drop_image(slot)

    def _on_image(self, news: Imaged) -> None:
        """A tool image's module ran (its first worker is asked for), failed, or its process ended."""
        with self._lock:
            slot = self._image_lanes.get(news.number)
            if slot is None:
                return
            if news.ended or news.error is not None:
                if news.error is not None or not slot.built:
                    self._no_image.add(slot.key)
                self._drop_image(slot)
                return
            slot.built = True
            try:
                self._zygote.request_fork(reuse=False, image=news.number)
            except OSError:
                return
            slot.lane.pending += 1

    def _let_go(self, worker: WorkerLink) -> None:
        """Close a single-use worker that answered a call under the language wall: it exits right
        after its ``done`` (``worker.serve``: no tool code runs after it), and its zygote replaces
        it when it does, unasked. Nothing is sent: the caller's path ends here. Until it is seen
        to exit it is watched, and killed if it stays (``leaving_workers``)."""
        with self._lock:
            lane = self._lane_of(worker)
            current = not self._closed and worker.zygote is self._zygote and lane is not None
            if current and lane is not None:
                lane.pending += 1
        if not current:
            self._retire(worker)
            return
        worker.sock.close()
        self._leaving.add(worker)

    def _retire(self, worker: WorkerLink) -> None:
        """Close a worker and have it killed and replaced.

        Killed, not only hung up on: a worker under ``walls="process"`` can send its own ``done``
        early and sleep on (no CPU time spent), holding memory after its call ended. Its zygote
        kills it when asked for the replacement (one message, instead of a signal from here and
        the zygote's report of it), unless that zygote has been replaced since.
        """
        # the replacement is forked after the call, not during it: on a small machine the
        # fork and the new worker's warm-up would otherwise compete with the call for CPU
        if not self._replace(worker):
            worker.kill()
            self._request_forks(1)
        worker.close()

    def _replace(self, worker: WorkerLink) -> bool:
        """Ask the zygote that forked ``worker`` to kill it and fork another (or none, if it has
        ended and been replaced already); False if it can't."""
        with self._lock:
            lane = self._lane_of(worker)
            if self._closed or worker.zygote is not self._zygote or lane is None:
                return False
            try:
                self._zygote.request_fork(reuse=self.reuse, retired=worker.pid, image=lane.image)
            except OSError:
                return False
            lane.pending += 1
            return True

    def _request_forks(self, count: int, lane: _Lane | None = None) -> None:
        lane = lane or self._main
        with self._lock:
            if self._closed or (lane.image and lane.image not in self._image_lanes):
                return
            with contextlib.suppress(OSError):
                for _ in range(count):
                    self._zygote.request_fork(reuse=self.reuse, image=lane.image)
                    lane.pending += 1

    def _take(self, lane: _Lane) -> WorkerLink:
        worker = lane.ready.take_nowait()
        if worker is not None:
            return worker
        # none ready and fewer on their way than callers waiting (a burst, or a nested
        # tools.<name>() call while the caller holds one): fork one now rather than wait for a
        # finished call's refill, or for a fork another waiting caller will take
        short = self._wait_on(lane, 1)
        try:
            if short:
                self._request_forks(1, lane)
                if lane.image and (worker := self._main.ready.take_nowait()) is not None:
                    return worker  # a burst on one tool: a zygote's worker runs its whole source meanwhile
            rounds = 0
            while (worker := lane.ready.take(TAKE_WAIT)) is None:
                self._restart_dead_zygote()
                if lane.image and lane.image not in self._image_lanes:  # its image was dropped
                    self._wait_on(lane, -1)
                    lane = self._main
                    self._wait_on(lane, 1)
                    continue
                rounds += 1
                # every fork counted is delivered (with its pidfd) unless the zygote died; should the
                # count still be wrong, a caller waiting this long asks for one more rather than forever
                if self._wait_on(lane, 0) or rounds % HEAL_ROUNDS == 0:
                    self._request_forks(1, lane)
        finally:
            self._wait_on(lane, -1)
        return worker

    def _wait_on(self, lane: _Lane, change: int) -> bool:
        """Count a caller starting (1) or ending (-1) its wait on ``lane``; whether fewer of its forks
        are on their way than callers wait."""
        with self._lock:
            lane.waiting += change
            return lane.pending < lane.waiting

    def _restart_dead_zygote(self) -> None:
        with self._lock:
            if self._closed:
                raise WorkerCrashed("the worker pool is closed")
            if not self._zygote.alive:
                last_words = self._zygote.last_words()
                self._zygote.close()
                if not self._zygote.delivered:
                    raise WorkerCrashed(
                        f"the zygote failed to start (exit code {self._zygote.process.returncode}): {last_words}"
                    )
                log.warning(
                    "toolpen zygote ended (exit %s); starting a new one. Its last words: %s",
                    self._zygote.process.returncode,
                    last_words,
                )
                self._zygote = self._start_zygote()

    def _recycle_ready(self) -> None:
        """Close the ready workers: each exits, and its zygote (unless closed) replaces it."""
        for worker in self._main.ready.drain():
            if worker.zygote is self._zygote:
                with self._lock:
                    self._main.pending += 1
            worker.close()

    def _record_exit(self, pid: int, code: int) -> None:
        with self._exit_seen:
            self._exits[pid] = code
            if len(self._exits) > REMEMBERED_EXITS:
                del self._exits[next(iter(self._exits))]
            self._exit_seen.notify_all()

    def _exit_code(self, pid: int) -> int | None:
        with self._exit_seen:
            self._exit_seen.wait_for(lambda: pid in self._exits, timeout=EXIT_REPORT_WAIT)
            return self._exits.pop(pid, None)

    def _exchange(self, job: Call | WallsQuery, limits: Limits, rpc: Rpc, lane: _Lane | None = None) -> Done:
        """Send ``job`` to a worker of ``lane`` (default: the zygote's) and converse until its
        ``done``; the worker is then retired or kept."""
        walls = (job.walls or "all") if isinstance(job, Call) else None
        lane = lane or self._main
        for _ in range(self.size + HAND_ATTEMPTS):
            worker = self._take(lane)
            # a kept worker that spoke after its done, or that ran calls of the other walls mode:
            # objects of a walled tool must not outlive its call into one whose checks are off
            while self.reuse and (has_more(worker.sock) or _bound_to_other_walls(worker, walls)):
                worker.kill()
                self._retire(worker)
                worker = self._take(lane)
            outcome = converse(worker, job, limits, rpc, self._exit_code)
            if outcome is not None:
                reply, answered = outcome
                if answered and self.reuse:
                    worker.walls = walls or worker.walls
                    lane.ready.put(worker)
                elif answered and walls == "all":
                    self._let_go(worker)
                else:
                    self._retire(worker)
                return reply
            self._retire(worker)
        return Done(error=WorkerCrashed("no worker could be reached"))


def _no_rpc(target: str, method: str, params: dict[str, Any]) -> Any:
    raise WorkerCrashed("a walls probe makes no calls")
