"""The jail around the zygote, and so around every worker, as one configuration read top to bottom.

The host enters it once, when the pool starts the zygote, with bubblewrap (``runtime.jail``
turns this configuration into ``bwrap`` arguments); every worker forked from the zygote is
inside it and then applies its own walls (``sandbox.process.isolation``): the rlimits, no-new-privs
and the seccomp allowlist below. Nothing outside the mounts listed here exists in the jail.
"""

from __future__ import annotations

import os
import resource
import site
import sys
from dataclasses import dataclass

# -- namespaces: every one the kernel has; the jail dies with the pool ----------------------------
NAMESPACES = ("user", "mount", "pid", "ipc", "uts", "network", "cgroup")
JAIL_UID = 65534  # nobody / nogroup inside the jail; the only uid mapped there
HOSTNAME = "toolpen"
TMPFS_SIZE = 8 * 1024 * 1024  # /tmp, where each worker makes (and removes) its working directory


@dataclass(frozen=True)
class Mount:
    """One entry of the jail's file system, in the order bubblewrap builds it."""

    kind: str  # "ro-bind" | "dev-bind" | "symlink" | "proc" | "tmpfs"
    dest: str
    source: str = ""  # the host path (ro-bind, dev-bind) or the link's target (symlink)
    size: int = 0  # bytes, for a tmpfs
    why: str = ""


# Shared libraries the interpreter and its extension modules link against (libc, libm, libssl,
# libffi, ...): the system's library directories, read-only. No /usr/bin, /etc, /home, /var.
SYSTEM_LIBRARIES = ("/usr/lib", "/usr/lib64", "/lib", "/lib64")
ZONEINFO = "/usr/share/zoneinfo"  # the time zone database that `zoneinfo` reads
DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom")
IMPORT_PACKAGES = ("runtime", "sandbox")  # our own, on PYTHONPATH=<package root>


def mounts(package_root: str) -> tuple[Mount, ...]:
    """The whole file system of the jail for this interpreter and this installation of toolpen."""
    entries: list[Mount] = []
    for path in SYSTEM_LIBRARIES:
        if os.path.islink(path):
            entries.append(Mount("symlink", path, os.readlink(path), why="merged /usr"))
        elif os.path.isdir(path):
            entries.append(Mount("ro-bind", path, path, why="shared libraries"))
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
    if os.path.isdir(ZONEINFO):
        entries.append(Mount("ro-bind", ZONEINFO, ZONEINFO, why="time zones for `zoneinfo`"))
    entries.extend(Mount("dev-bind", device, device, why="the only devices") for device in DEVICES)
    entries.append(Mount("proc", "/proc", why="this PID namespace only: statm, net/dev of the worker"))
    entries.append(Mount("tmpfs", "/tmp", size=TMPFS_SIZE, why="the workers' (removed) directories"))
    return tuple(entries)


# -- what each worker applies to itself after the fork (sandbox.process.isolation) ------------------
# Base rlimits, before the call lowers CPU time, address space and open files to its Limits.
RLIMITS = {
    resource.RLIMIT_CORE: 0,  # no core dumps of tool memory
    resource.RLIMIT_FSIZE: 0,  # no file content written anywhere
    resource.RLIMIT_NPROC: 0,  # no new processes (seccomp refuses them too)
}
