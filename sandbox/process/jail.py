"""The jail around the zygote, and so around every worker, as one policy read top to bottom.

Every entry says why it is there, and what runs is exactly what is listed: the host turns this
policy into bubblewrap's command line (``sandbox.process.bwrap``) when the pool starts the
zygote, and into the workers' seccomp program (``sandbox.process.seccomp``, BPF built with
libseccomp); every worker forked from the zygote is inside the jail and then applies its own
walls (``sandbox.process.isolation``): the rlimits, no-new-privs and that seccomp program.
Nothing outside the mounts listed here exists in the jail, and no system call outside the list
is made. It fails closed: an entry the machine cannot honour makes bubblewrap refuse to start,
except where the entry says ``optional`` (bubblewrap's ``-try`` forms), the only way to skip one.
"""

from __future__ import annotations

import errno
import os
import resource
import site
import sys
import termios
from dataclasses import dataclass


# -- namespaces: every one the kernel has; the jail dies with the pool ----------------------------
@dataclass(frozen=True)
class Namespace:
    """A namespace the jail has of its own; ``name`` as in ``/proc/self/ns/<name>``."""

    name: str
    label: str  # what ``toolpen doctor`` calls it
    option: str | None  # bubblewrap's option that unshares it (None: bubblewrap always does)
    why: str
    optional: bool = False  # skipped where the kernel lacks it (bubblewrap's "-try" form)


NAMESPACES = (
    Namespace(
        "user", "user", "--unshare-user", "uid 65534 inside maps to no one outside; required, not just tried"
    ),
    Namespace("mnt", "mount", None, "the file system below is all there is (bubblewrap always makes one)"),
    Namespace("pid", "PID", "--unshare-pid", "no process of the host is visible or signalled"),
    Namespace("ipc", "IPC", "--unshare-ipc", "no System V or POSIX IPC object of the host"),
    Namespace("uts", "UTS", "--unshare-uts", "its own hostname"),
    Namespace("net", "network", "--unshare-net", "loopback only: no address of the host or beyond"),
    Namespace("cgroup", "cgroup", "--unshare-cgroup", "its own cgroup root", optional=True),
)

JAIL_UID = 65534  # nobody / nogroup inside the jail; the only uid mapped there
HOSTNAME = "toolpen"
TMPFS_SIZE = 8 * 1024 * 1024  # /tmp, where each worker makes (and removes) its working directory
WORKING_DIRECTORY = "/tmp"


# -- the jail's process: who it runs as and what it keeps --------------------------------------------
@dataclass(frozen=True)
class Setting:
    """One option of the jail's process, with its value (if it takes one)."""

    option: str
    value: str | None
    why: str


SETTINGS = (
    Setting("--disable-userns", None, "no user namespace nested inside"),
    Setting(
        "--as-pid-1", None, "the zygote is init: no bubblewrap process inside, signals from inside ignored"
    ),
    Setting("--die-with-parent", None, "the jail ends with the pool's zygote thread"),
    Setting("--new-session", None, "no terminal to inject input into (TIOCSTI)"),
    Setting("--cap-drop", "ALL", "no capability, even inside its own namespaces"),
    Setting("--uid", str(JAIL_UID), "nobody inside"),
    Setting("--gid", str(JAIL_UID), "nogroup inside"),
    Setting("--hostname", HOSTNAME, "not the host's name"),
)


# -- the file system, in the order bubblewrap builds it -----------------------------------------------
@dataclass(frozen=True)
class Mount:
    """One entry of the jail's file system, in the order bubblewrap builds it."""

    kind: str  # "ro-bind" | "dev-bind" | "symlink" | "proc" | "tmpfs" | "remount-ro"
    dest: str
    source: str = ""  # the host path (ro-bind, dev-bind) or the link's target (symlink)
    size: int = 0  # bytes, for a tmpfs
    why: str = ""
    optional: bool = False  # a bind skipped where the host has no such path (bubblewrap's "-try" form)


# Shared libraries the interpreter and its extension modules link against (libc, libm, libssl,
# libffi, ...): the system's library directories, read-only. No /usr/bin, /etc, /home, /var.
SYSTEM_LIBRARIES = ("/usr/lib", "/usr/lib64", "/lib", "/lib64")
ZONEINFO = "/usr/share/zoneinfo"  # the time zone database that `zoneinfo` reads
DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom")
IMPORT_PACKAGES = ("runtime", "sandbox")  # our own, on PYTHONPATH=<package root>


def mounts(package_root: str) -> tuple[Mount, ...]:
    """The whole file system of the jail for this interpreter and this installation of toolpen."""
    # first, so that binds below /tmp (a checkout or a venv there, as in CI) land on top of it
    entries: list[Mount] = [Mount("tmpfs", "/tmp", size=TMPFS_SIZE, why="the workers' (removed) directories")]
    for path in SYSTEM_LIBRARIES:
        if os.path.islink(path):
            entries.append(Mount("symlink", path, os.readlink(path), why="merged /usr"))
        else:
            entries.append(Mount("ro-bind", path, path, why="shared libraries", optional=True))
    interpreter = os.path.realpath(sys.executable)
    prefix = os.path.realpath(sys.base_prefix)
    entries.append(Mount("ro-bind", prefix, prefix, why="the interpreter and its standard library"))
    if sys.prefix != sys.base_prefix:  # a virtual environment: its marker and its python
        config = os.path.join(sys.prefix, "pyvenv.cfg")
        entries.append(Mount("ro-bind", config, config, why="makes the interpreter use the venv"))
    if os.path.islink(sys.executable) and not sys.executable.startswith(prefix + os.sep):
        entries.append(Mount("symlink", sys.executable, interpreter, why="the command's python"))
    if not interpreter.startswith(prefix + os.sep):
        directory = os.path.dirname(interpreter)
        entries.append(Mount("ro-bind", directory, directory, why="the interpreter's executable"))
    packages = [path for path in site.getsitepackages() if os.path.isdir(path)]
    for path in packages:
        if not path.startswith(prefix + os.sep):
            entries.append(Mount("ro-bind", path, path, why="site-packages (pydantic, ...)"))
    for name in IMPORT_PACKAGES:
        path = os.path.join(package_root, name)
        if not any(path.startswith(parent + os.sep) for parent in (prefix, *packages)):
            entries.append(Mount("ro-bind", path, path, why="toolpen's own code (not the repository)"))
    entries.append(Mount("ro-bind", ZONEINFO, ZONEINFO, why="time zones for `zoneinfo`", optional=True))
    entries.extend(Mount("dev-bind", device, device, why="the only devices") for device in DEVICES)
    entries.append(Mount("proc", "/proc", why="this PID namespace only: statm, net/dev of the worker"))
    # with the host as root, uid 65534 inside is host uid 0 (without capabilities), which procfs
    # alone would let write /proc/sys
    entries.append(Mount("remount-ro", "/", why="nothing in the jail is writable but /tmp"))
    entries.append(Mount("remount-ro", "/proc", why="no write to /proc/sys"))
    return tuple(entries)


# -- what each worker applies to itself after the fork (sandbox.process.isolation) ------------------
@dataclass(frozen=True)
class Rlimit:
    """A base rlimit, before the call lowers CPU time, address space and open files to its Limits."""

    which: int
    limit: int
    why: str


RLIMITS = (
    Rlimit(resource.RLIMIT_CORE, 0, "no core dumps of tool memory"),
    Rlimit(resource.RLIMIT_FSIZE, 0, "no file content written anywhere"),
    Rlimit(resource.RLIMIT_NPROC, 0, "no new processes (seccomp refuses them too)"),
)


# -- the seccomp allowlist each worker loads last, before it reads a job -----------------------------
# Found by running the worker loop under `strace -f` over everyday tools (json, datetime, re,
# pydantic, decimal, zoneinfo, statistics, ces_requests and tools.* calls, prints, exceptions,
# big allocations, a memory bomb, deep recursion); each entry says why the loop needs it.
@dataclass(frozen=True)
class Syscall:
    """An allowed system call; with ``arg``, only when ``args[arg] & mask`` is one of ``values``."""

    name: str
    why: str
    arg: int | None = None
    mask: int = 0xFFFFFFFF
    values: tuple[int, ...] = (0,)


@dataclass(frozen=True)
class Refusal:
    """A system call refused with an answer of its own instead of ``DENIED_ERRNO``."""

    name: str
    errno: int
    why: str


DENIED_ERRNO = errno.EPERM  # what every other system call answers
REFUSALS = (Refusal("clone3", errno.ENOSYS, "glibc then falls back to clone, refused too"),)
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
FCNTL_FLAG_COMMANDS = (1, 2, 3, 4)  # F_GETFD, F_SETFD, F_GETFL, F_SETFL: never F_SETOWN (signals)
SYSCALLS = (
    # frames with the host over the call's socket, the only descriptor left open
    Syscall("recvfrom", "reads the host's frames (socket.recv)"),
    Syscall("sendto", "writes frames to the host (socket.sendall)"),
    Syscall("poll", "waits for the host with a deadline (socket timeouts)"),
    Syscall("write", "an unhandled error's report to /dev/null on fd 2"),
    # memory
    Syscall("brk", "the C heap grows and shrinks"),
    Syscall("mmap", "allocations; the shared object of a module first imported during the call"),
    Syscall("munmap", "frees them"),
    Syscall("mremap", "large lists, bytes and strings grow in place"),
    Syscall("mprotect", "the dynamic loader seals a late import's relocations"),
    Syscall("madvise", "the allocator hands freed pages back"),
    # reading the read-only root: modules first imported during the call, time zones
    Syscall("openat", "opens files for reading only", arg=2, mask=WRITE_FLAGS),
    Syscall("read", "reads them"),
    Syscall("pread64", "reads at an offset (zipimport, zoneinfo)"),
    Syscall("lseek", "open() finds its position"),
    Syscall("close", "closes them"),
    Syscall("newfstatat", "the import system and open() stat paths and descriptors"),
    Syscall("fstat", "stat of a descriptor (older C libraries)"),
    Syscall("getdents64", "the import system lists directories"),
    Syscall("readlink", "os.path.realpath"),
    Syscall("getcwd", "os.getcwd (the removed directory answers ENOENT)"),
    Syscall("ioctl", "open() asks whether a file is a terminal", arg=1, values=(termios.TCGETS,)),
    Syscall("fcntl", "descriptor flags", arg=1, values=FCNTL_FLAG_COMMANDS),
    # time and randomness (the vDSO answers most clock reads without a system call)
    Syscall("clock_gettime", "time.time, time.monotonic"),
    Syscall("clock_getres", "time.get_clock_info"),
    Syscall("gettimeofday", "clock reads of older C libraries"),
    Syscall("clock_nanosleep", "time.sleep"),
    Syscall("nanosleep", "time.sleep (older C libraries)"),
    Syscall("getrandom", "random, uuid4, secrets, hash seeds"),
    # this worker's own limits: pid 0 only, never another worker's
    Syscall("getrusage", "the CPU time used before the call, to set its CPU limit"),
    Syscall("prlimit64", "lowers this worker's limits to the call's", arg=0),
    # signals to itself, identity, locks, the end
    Syscall("rt_sigaction", "SIGXCPU and SIGXFSZ dispositions"),
    Syscall("rt_sigprocmask", "signal masks around critical sections"),
    Syscall("rt_sigreturn", "returns from a signal handler"),
    Syscall("getpid", "os.getpid"),
    Syscall("gettid", "threading.get_native_id"),
    Syscall("getuid", "os.getuid (65534)"),
    Syscall("geteuid", "os.geteuid"),
    Syscall("getgid", "os.getgid"),
    Syscall("getegid", "os.getegid"),
    Syscall("uname", "platform, os.uname"),
    Syscall("futex", "locks in the C library and the interpreter"),
    Syscall("sched_yield", "spin locks in the C library"),
    Syscall("exit_group", "the worker ends"),
    Syscall("exit", "the worker's thread ends"),
)


FORK_FLAGS = 0x01200011  # CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD: the C library's fork()
IMAGE_SYSCALLS = (
    # a tool image (sandbox.process.tool_image) forks its tool's workers, as the zygote does; each
    # worker then loads the workers' program above on top of this one, which it cannot undo
    Syscall(
        "clone",
        "fork() of a worker: a new process, never a thread nor a namespace",
        arg=0,
        values=(FORK_FLAGS,),
    ),
    Syscall("set_robust_list", "the C library's fork() in the new worker"),
    Syscall("socketpair", "the socket between a new worker and the pool"),
    Syscall("sendmsg", "hands the pool a worker's socket and pidfd (SCM_RIGHTS)"),
    Syscall("recvmsg", "reads the zygote's fork requests"),
    Syscall("pidfd_open", "watches each worker"),
    Syscall("pidfd_send_signal", "kills a worker the pool retired"),
    Syscall("waitid", "reaps a worker"),
    Syscall("epoll_create1", "waits for requests and workers' ends"),
    Syscall("epoll_ctl", "adds and removes them"),
    Syscall("epoll_wait", "waits"),
    Syscall("epoll_pwait", "waits (newer C libraries)"),
    # what a new worker does before it loads its own program (sandbox.process.isolation.isolate_worker)
    Syscall("setsid", "the worker's own session"),
    Syscall("dup2", "/dev/null on the worker's 0, 1 and 2"),
    Syscall("close_range", "the worker closes every other descriptor"),
    Syscall("prctl", "the worker loads its own seccomp program", arg=0, values=(22,)),
)
"""What a tool image may do beyond a worker's ``SYSCALLS``."""


@dataclass(frozen=True)
class JailPolicy:
    """The whole jail for one installation: what ``bwrap`` and ``seccomp`` generate their output from."""

    namespaces: tuple[Namespace, ...]
    settings: tuple[Setting, ...]
    mounts: tuple[Mount, ...]
    working_directory: str
    rlimits: tuple[Rlimit, ...]
    syscalls: tuple[Syscall, ...]
    refusals: tuple[Refusal, ...]
    denied_errno: int


def jail_policy(package_root: str) -> JailPolicy:
    """The jail for this interpreter and the toolpen installed at ``package_root``."""
    return JailPolicy(
        NAMESPACES,
        SETTINGS,
        mounts(package_root),
        WORKING_DIRECTORY,
        RLIMITS,
        SYSCALLS,
        REFUSALS,
        DENIED_ERRNO,
    )
