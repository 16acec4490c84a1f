"""The workers' seccomp program, generated from the jail policy's system calls (``sandbox.process.jail``).

The host compiles it once to BPF with libseccomp and hands it to the zygote, which prepares it;
each worker loads it into itself last (``sandbox.process.isolation``). The program allows exactly
the calls the policy lists (with their argument checks), answers the policy's refusals with their
own errno, and every other call with ``DENIED_ERRNO``.
"""

from __future__ import annotations

import functools
import tempfile

from sandbox.common.errors import IsolationUnavailable
from sandbox.process.jail import DENIED_ERRNO, IMAGE_SYSCALLS, REFUSALS, SYSCALLS, Syscall

GET_LIBSECCOMP = "apt-get install libseccomp2 (or your system's libseccomp package)"
GET_SECCOMP = "a Linux kernel built with seccomp filters (CONFIG_SECCOMP_FILTER)"


def seccomp_program(*, image: bool = False) -> bytes:
    """The workers' seccomp allowlist as BPF (``image``: a tool image's, which forks workers);
    ``IsolationUnavailable`` says what is missing and how to get it."""
    with open("/proc/self/status", encoding="ascii", errors="replace") as status:
        if "Seccomp:" not in status.read():
            raise IsolationUnavailable(f"this kernel has no seccomp; {GET_SECCOMP}")
    try:
        return _compiled_allowlist(SYSCALLS + IMAGE_SYSCALLS if image else SYSCALLS)
    except (ImportError, RuntimeError, OSError) as exc:  # pyseccomp raises RuntimeError without libseccomp
        raise IsolationUnavailable(f"{exc}; {GET_LIBSECCOMP}") from None


def pack_programs(worker: bytes, image: bytes) -> bytes:
    """The workers' and a tool image's programs as the zygote reads them (``isolation.isolate_zygote``)."""
    return len(worker).to_bytes(4, "big") + worker + image


@functools.cache
def _compiled_allowlist(syscalls: tuple[Syscall, ...]) -> bytes:
    import pyseccomp

    rules = pyseccomp.SyscallFilter(pyseccomp.ERRNO(DENIED_ERRNO))
    for refusal in REFUSALS:
        rules.add_rule(pyseccomp.ERRNO(refusal.errno), refusal.name)
    for call in syscalls:
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
