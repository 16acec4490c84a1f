"""The process wall: what the zygote does to itself once, and what each worker does after the fork.

Process-wide setup that every worker inherits unchanged is done once, by the zygote
(``isolate_zygote``): not dumpable, its own network namespace where the jail did not give one,
an empty environment, default signal dispositions (SIGXFSZ ignored), an empty and already
removed working directory, an unprivileged user and no-new-privs; all of these pass through
``fork`` as they are, so every worker has them exactly as if it had set them itself. The walls
that are per process are applied by each worker to itself right after the fork
(``isolate_worker``), in order: a new session, no inherited descriptors, the base rlimits and
the seccomp filter (last). Per-call limits only ever *lower* the rlimits. Walls the machine
lacks are skipped, and ``Walls`` says which are active (``toolpen doctor`` prints it).
"""

from __future__ import annotations

import ctypes
import errno
import math
import os
import resource
import signal
import sys
from dataclasses import dataclass, field, replace

from sandbox.common.limits import Limits
from sandbox.process.jail import DENIED_ERRNO, NAMESPACES, RLIMITS, SYSCALLS

CLONE_NEWNET = 0x40000000
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
UNPRIVILEGED_ID = 65534  # nobody / nogroup
RECURSION_BASE = 50  # frames below the tool's entry function (worker loop, call plumbing)
_LIBC = ctypes.CDLL(None, use_errno=True)


@dataclass
class Walls:
    """Which parts of the process wall are in force in this process."""

    active: dict[str, str] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)
    namespaces: dict[str, str] = field(default_factory=dict)  # name -> "pid:[4026532328]": the host compares

    def note(self, name: str, ok: bool, detail: str) -> None:
        (self.active if ok else self.missing)[name] = detail


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


@dataclass(frozen=True)
class ZygoteWalls:
    """What ``isolate_zygote`` set up for every worker, and the seccomp program ready to load."""

    walls: Walls
    seccomp: _SockFprog | None  # None: no program (allow_weak_isolation without libseccomp)
    seccomp_detail: str
    devnull: int  # /dev/null, opened once: a worker's 0, 1 and 2
    image_seccomp: _SockFprog | None = None  # a tool image's: the workers' and what forking needs


def isolate_zygote(seccomp_filter: bytes) -> ZygoteWalls:
    """Once, in the zygote before it forks: the process-wide walls every worker inherits.

    ``seccomp_filter`` is what the host built (empty: none): the length of the workers' BPF
    program (``jail.SYSCALLS``, 4 bytes, big-endian), that program, then a tool image's
    (``jail.IMAGE_SYSCALLS`` too). Both are only prepared here; each worker and image loads its own.
    """
    walls = Walls()
    _LIBC.unshare(CLONE_NEWNET)  # an empty network namespace where the jail did not give one (needs root)
    os.environ.clear()
    walls.note("environment", True, "empty")
    _set_signal_dispositions()
    _enter_empty_directory()
    walls.note("working directory", True, "empty and already removed")
    walls.namespaces = _namespaces()
    walls.note("network namespace", *_network_state())
    walls.note("read-only root", *_read_only_root())
    walls.note("unprivileged user", *_drop_privileges())
    # after the change of user, which may reset it: no other process may read its memory or its workers'
    ok = _LIBC.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0
    walls.note("not dumpable", ok, "set" if ok else "prctl failed")
    ok = _LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
    walls.note("no-new-privs", ok, "set" if ok else "prctl failed")
    image: _SockFprog | None = None
    if seccomp_filter:
        size = int.from_bytes(seccomp_filter[:4], "big")
        worker, image_program = seccomp_filter[4 : 4 + size], seccomp_filter[4 + size :]
        program: _SockFprog | None = _SockFprog(len(worker) // 8, worker)
        image = _SockFprog(len(image_program) // 8, image_program)
        detail = (
            f"allowlist of {len(SYSCALLS)} system calls, any other fails with {errno.errorcode[DENIED_ERRNO]}"
        )
    else:
        program, detail = None, "no program (libseccomp missing on the host, weak isolation allowed)"
    return ZygoteWalls(walls, program, detail, os.open(os.devnull, os.O_RDWR), image)


def isolate_image(keep_fd: int, zygote: ZygoteWalls) -> None:
    """A tool image's walls, applied to itself before its tool's code runs: a worker's
    (``isolate_worker``) but for the process limit, and the seccomp program that lets it fork
    its workers (each of which then loads the workers' own on top)."""
    os.setsid()
    _close_descriptors(zygote.devnull, keep_fd)
    for rlimit in RLIMITS:
        if rlimit.which != resource.RLIMIT_NPROC:
            _set_limit(rlimit.which, rlimit.limit)
    if zygote.image_seccomp is not None:
        loaded, detail = _load_seccomp(replace(zygote, seccomp=zygote.image_seccomp))
        if not loaded:  # no tool code runs in an image without it
            raise OSError(detail)


def isolate_worker(keep_fd: int, zygote: ZygoteWalls) -> tuple[tuple[bool, str], int]:
    """Apply the per-process walls to this (freshly forked) process; the zygote's it already has.

    Returns how loading the seccomp filter went (``worker_walls`` reports it on request) and the
    address-space size before the tool runs (the base that the per-call memory limit is added to).
    """
    os.setsid()
    _close_descriptors(zygote.devnull, keep_fd)
    base_vm = address_space_size()
    for rlimit in RLIMITS:
        _set_limit(rlimit.which, rlimit.limit)
    return _load_seccomp(zygote), base_vm


def worker_walls(zygote: ZygoteWalls, keep_fd: int, seccomp: tuple[bool, str]) -> Walls:
    """The walls in force in a worker that ``isolate_worker`` isolated (built when asked, not per worker)."""
    walls = Walls(dict(zygote.walls.active), dict(zygote.walls.missing), zygote.walls.namespaces)
    walls.note("descriptors", True, f"only the call socket (fd {keep_fd}) and /dev/null on 0-2")
    walls.note("rlimits", True, "core 0, file size 0, processes 0; per call: cpu, address space, open files")
    walls.note("seccomp", *seccomp)
    return walls


def apply_call_limits(limits: Limits, base_vm: int, *, reuse: bool) -> None:
    """Lower the rlimits to one call's limits (soft only when the worker is reused)."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu = math.ceil(used.ru_utime + used.ru_stime + limits.cpu_time)
    for which, soft in (
        (resource.RLIMIT_CPU, cpu),
        (resource.RLIMIT_AS, base_vm + limits.memory),
        (resource.RLIMIT_NOFILE, max(limits.open_files, 4)),
    ):
        hard = resource.getrlimit(which)[1] if reuse else soft + (1 if which == resource.RLIMIT_CPU else 0)
        _set_limit(which, soft, hard)
    sys.setrecursionlimit(limits.recursion + RECURSION_BASE)


def address_space_size() -> int:
    """This process's virtual memory size in bytes."""
    statm = os.open("/proc/self/statm", os.O_RDONLY)  # os, not io: fewer of the zygote's pages written
    try:
        return int(os.read(statm, 256).split()[0]) * resource.getpagesize()
    finally:
        os.close(statm)


def _set_limit(which: int, soft: int, hard: int | None = None) -> None:
    """Set a limit, clamped to the hard limit the process has (read only when the limit is above it:
    a system call less per limit on a call's path)."""
    hard = soft if hard is None else hard
    try:
        resource.setrlimit(which, (soft, hard))
    except ValueError:  # above the hard limit, which an unprivileged process cannot raise
        current_hard = resource.getrlimit(which)[1]
        hard = min(hard, current_hard)
        resource.setrlimit(which, (min(soft, hard), hard))


def _set_signal_dispositions() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # Writing past RLIMIT_FSIZE then fails with EFBIG instead of killing the worker.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def _close_descriptors(null: int, keep_fd: int) -> None:
    for fd in (0, 1, 2):
        if fd != null:
            os.dup2(null, fd)
    top = os.sysconf("SC_OPEN_MAX")
    os.closerange(3, keep_fd)
    os.closerange(keep_fd + 1, top)


def _enter_empty_directory() -> None:
    # what tempfile.mkdtemp does in the /tmp of the zygote's fixed environment (the jail's own
    # tmpfs), without tempfile's imports (shutil, bz2, lzma: 0.55 MiB of the zygote's memory)
    path = f"/tmp/toolpen-{os.urandom(8).hex()}"
    os.mkdir(path, 0o700)
    os.chdir(path)
    os.rmdir(path)


def _drop_privileges() -> tuple[bool, str]:
    if os.geteuid() != 0:
        return True, f"already unprivileged (uid {os.geteuid()})"
    try:
        os.setgroups([])
        os.setgid(UNPRIVILEGED_ID)
        os.setuid(UNPRIVILEGED_ID)
    except OSError as exc:
        return False, f"setuid failed: {exc.strerror}"
    return True, f"uid/gid {UNPRIVILEGED_ID}"


def _load_seccomp(zygote: ZygoteWalls) -> tuple[bool, str]:
    if zygote.seccomp is None:
        return False, zygote.seccomp_detail
    if _LIBC.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(zygote.seccomp), 0, 0) != 0:
        return False, f"prctl(PR_SET_SECCOMP) failed: {os.strerror(ctypes.get_errno())}"
    return True, zygote.seccomp_detail


def _network_state() -> tuple[bool, str]:
    try:
        with open("/proc/self/net/dev", "rb") as dev:
            interfaces = [line.split(b":")[0].strip() for line in dev.read().splitlines()[2:]]
    except OSError:
        return False, "unknown (/proc/self/net/dev unreadable)"
    if interfaces == [b"lo"]:
        return True, "own namespace, loopback only"
    return False, f"host network ({len(interfaces)} interfaces)"


def _namespaces() -> dict[str, str]:
    found = {}
    for namespace in NAMESPACES:
        try:
            found[namespace.name] = os.readlink(f"/proc/self/ns/{namespace.name}")
        except OSError:
            continue
    return found


def _read_only_root() -> tuple[bool, str]:
    if os.statvfs("/").f_flag & os.ST_RDONLY:
        return True, "/ is mounted read-only"
    return False, "/ is writable"
