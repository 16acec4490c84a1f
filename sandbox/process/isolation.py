"""The process wall: what a worker does to itself after the zygote forks it.

Everything here is applied by the worker to itself, in order: a new session, no inherited
descriptors, an empty environment, an empty (already removed) working directory, base rlimits,
an unprivileged user, no-new-privs and a seccomp filter. Per-call limits only ever *lower*
the rlimits. The network namespace is entered once by the zygote (``isolate_zygote``)
so that every worker shares an empty one. Walls the machine lacks are skipped, and ``walls``
says which are active (``toolpen doctor`` prints it).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import math
import os
import resource
import signal
import sys
import tempfile
from dataclasses import dataclass, field

from sandbox.limits import Limits

CLONE_NEWNET = 0x40000000
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
UNPRIVILEGED_ID = 65534  # nobody / nogroup
RECURSION_BASE = 50  # frames below the tool's entry function (worker loop, call plumbing)

SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_CMP_MASKED_EQ = 7

# Syscalls a worker never needs: new processes, signals to others, new sockets, changes to
# the file system, namespaces, kernel interfaces with a history of escapes.
DENIED_SYSCALLS = (
    "fork",
    "vfork",
    "clone",
    "clone3",
    "execve",
    "execveat",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kill",
    "tkill",
    "tgkill",
    "rt_sigqueueinfo",
    "rt_tgsigqueueinfo",
    "pidfd_open",
    "pidfd_send_signal",
    "pidfd_getfd",
    "socket",
    "socketpair",
    "connect",
    "bind",
    "listen",
    "accept",
    "accept4",
    "mkdir",
    "mkdirat",
    "rmdir",
    "unlink",
    "unlinkat",
    "rename",
    "renameat",
    "renameat2",
    "link",
    "linkat",
    "symlink",
    "symlinkat",
    "chmod",
    "fchmod",
    "fchmodat",
    "chown",
    "fchown",
    "lchown",
    "fchownat",
    "truncate",
    "ftruncate",
    "mknod",
    "mknodat",
    "openat2",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "reboot",
    "swapon",
    "swapoff",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "bpf",
    "perf_event_open",
    "keyctl",
    "add_key",
    "request_key",
    "userfaultfd",
    "io_uring_setup",
    "personality",
)
# open(2) flags refused: the flags argument is 1 for open, 2 for openat.
DENIED_OPEN_FLAGS = (os.O_WRONLY, os.O_RDWR, os.O_CREAT, os.O_TRUNC)


@dataclass
class Walls:
    """Which parts of the process wall are in force in this process."""

    active: dict[str, str] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)

    def note(self, name: str, ok: bool, detail: str) -> None:
        (self.active if ok else self.missing)[name] = detail


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def isolate_zygote() -> None:
    """Once, in the zygote before it forks: nothing else may read its memory (nor its workers',
    who inherit this), and an empty network namespace where the jail did not give one (needs root)."""
    _libc().prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    _libc().unshare(CLONE_NEWNET)


def isolate_worker(keep_fd: int, seccomp_filter: bytes | None) -> tuple[Walls, int]:
    """Apply the whole process wall to this (freshly forked) process.

    ``seccomp_filter`` comes from ``build_seccomp_filter`` (None: no seccomp). Returns the walls in force and the address-space size before the tool runs (the base
    that the per-call memory limit is added to).
    """
    walls = Walls()
    os.setsid()
    _reset_signals()
    _close_descriptors(keep_fd)
    walls.note("descriptors", True, f"only the call socket (fd {keep_fd}) and /dev/null on 0-2")
    os.environ.clear()
    walls.note("environment", True, "empty")
    _enter_empty_directory()
    walls.note("working directory", True, "empty and already removed")
    _set_limit(resource.RLIMIT_CORE, 0)
    _set_limit(resource.RLIMIT_FSIZE, 0)
    walls.note("rlimits", True, "core 0, file size 0; per call: cpu, address space, open files")
    base_vm = address_space_size()
    walls.note("network namespace", *_network_state())
    walls.note("unprivileged user", *_drop_privileges())
    walls.note("no new processes (rlimit)", *_limit_processes())
    ok = _libc().prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
    walls.note("no-new-privs", ok, "set" if ok else "prctl failed")
    ok = _libc().prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0  # no other worker may read its memory
    walls.note("not dumpable", ok, "set" if ok else "prctl failed")
    walls.note("seccomp", *_load_seccomp(seccomp_filter))
    return walls, base_vm


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
    with open("/proc/self/statm", "rb") as statm:
        return int(statm.read().split()[0]) * resource.getpagesize()


def _set_limit(which: int, soft: int, hard: int | None = None) -> None:
    current_hard = resource.getrlimit(which)[1]
    hard = soft if hard is None else hard
    if current_hard != resource.RLIM_INFINITY:
        hard = min(hard, current_hard)
        soft = min(soft, hard)
    resource.setrlimit(which, (soft, hard))


def _reset_signals() -> None:
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # Writing past RLIMIT_FSIZE then fails with EFBIG instead of killing the worker.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def _close_descriptors(keep_fd: int) -> None:
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        if fd != null:
            os.dup2(null, fd)
    top = os.sysconf("SC_OPEN_MAX")
    os.closerange(3, keep_fd)
    os.closerange(keep_fd + 1, top)


def _enter_empty_directory() -> None:
    path = tempfile.mkdtemp(prefix="toolpen-")
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


def _limit_processes() -> tuple[bool, str]:
    if os.geteuid() == 0:
        return False, "ignored for root"
    _set_limit(resource.RLIMIT_NPROC, 0)
    return True, "RLIMIT_NPROC 0"


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


def build_seccomp_filter() -> bytes | None:
    """The worker's seccomp program as raw BPF, built once (by the zygote) with libseccomp."""
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("seccomp") or "libseccomp.so.2")
    except OSError:
        return None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint, ctypes.POINTER(_ArgCmp)
    ]  # fmt: skip
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    deny = 0x00050000 | errno.EPERM  # SCMP_ACT_ERRNO(EPERM)
    ctx = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not ctx:
        return None
    read_end, write_end = os.pipe()
    try:
        for syscall in DENIED_SYSCALLS:
            number = lib.seccomp_syscall_resolve_name(syscall.encode())
            if number >= 0:
                lib.seccomp_rule_add_array(ctx, deny, number, 0, None)
        for syscall, arg in (("open", 1), ("openat", 2)):
            number = lib.seccomp_syscall_resolve_name(syscall.encode())
            for flag in DENIED_OPEN_FLAGS:
                cmp = _ArgCmp(arg, SCMP_CMP_MASKED_EQ, flag, flag)
                lib.seccomp_rule_add_array(ctx, deny, number, 1, ctypes.byref(cmp))
        if lib.seccomp_export_bpf(ctx, write_end) != 0:
            return None
        os.close(write_end)
        write_end = -1
        with os.fdopen(read_end, "rb") as program:
            read_end = -1
            return program.read()
    finally:
        lib.seccomp_release(ctx)
        for fd in (read_end, write_end):
            if fd >= 0:
                os.close(fd)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


def _load_seccomp(program: bytes | None) -> tuple[bool, str]:
    if not program:
        return False, "libseccomp not found"
    fprog = _SockFprog(len(program) // 8, program)
    if _libc().prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        return False, f"prctl(PR_SET_SECCOMP) failed: {os.strerror(ctypes.get_errno())}"
    return True, f"{len(DENIED_SYSCALLS)} syscalls and writable open() refused"


def _network_state() -> tuple[bool, str]:
    try:
        with open("/proc/self/net/dev", "rb") as dev:
            interfaces = [line.split(b":")[0].strip() for line in dev.read().splitlines()[2:]]
    except OSError:
        return False, "unknown (/proc/self/net/dev unreadable)"
    if interfaces == [b"lo"]:
        return True, "own namespace, loopback only"
    return False, f"host network ({len(interfaces)} interfaces)"
