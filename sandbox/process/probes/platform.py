"""System call numbers the machine's kernel answers before any seccomp filter sees them.

Some virtual machines' kernels take a few numbers for themselves ahead of the system call entry
(a hypervisor's fast path): under any filter, even one refusing everything, such a number answers
as the platform decides (on the Firecracker/PVM kernel of toolpen's CI, 335 kills the caller with
SIGILL and 336 answers ENXIO). No filter can refuse them, so the sweep of the allowlist
(``attacks.py``) leaves them out. They are found here in throwaway processes, each under a filter
that refuses every call but the few its loop makes.
"""

from __future__ import annotations

import functools
import subprocess
import sys

SWEEP = """
import ctypes, errno, os, sys
import pyseccomp

NEEDED = ("write", "exit_group", "exit", "rt_sigreturn", "brk", "mmap", "munmap", "futex", "madvise", "mremap")
rules = pyseccomp.SyscallFilter(pyseccomp.ERRNO(errno.EPERM))
for name in NEEDED:
    rules.add_rule(pyseccomp.ALLOW, name)
needed = {pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, name) for name in NEEDED}
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
start, top = int(sys.argv[1]), int(sys.argv[2])
rules.load()
for number in range(start, top):
    if number in needed:
        continue
    os.write(1, b"%d " % number)
    ctypes.set_errno(0)
    value = libc.syscall(ctypes.c_long(number), *[ctypes.c_long(-1)] * 6)
    if value >= 0 or ctypes.get_errno() not in (errno.EPERM, errno.ENOSYS):
        os.write(1, b"claimed ")
os.write(1, b"end")
"""


@functools.cache
def platform_numbers(top: int) -> tuple[int, ...]:
    """The numbers below ``top`` that this kernel answers past a filter refusing them (empty
    without libseccomp's Python binding, where no filter is built anyway)."""
    claimed: list[int] = []
    start = 0
    while start < top:
        done = subprocess.run(
            [sys.executable, "-c", SWEEP, str(start), str(top)], capture_output=True, text=True, timeout=60
        )
        words = done.stdout.split()
        if not words:  # no binding, or no filter: nothing to tell
            return ()
        numbers = [word for word in words if word.isdigit()]
        claimed += [
            int(number) for number, after in zip(words, [*words[1:], ""], strict=True) if after == "claimed"
        ]
        if words[-1] == "end" or not numbers:
            break
        if words[-1].isdigit():
            claimed.append(int(words[-1]))  # the number that ended the process
        start = int(numbers[-1]) + 1
    return tuple(sorted(set(claimed)))
