"""Forking a worker from the zygote without Python's at-fork handlers.

``os.fork`` runs, in the child, every handler registered with ``os.register_at_fork``
(threading's, logging's, random's): they repair what other Python threads may have left
half-changed at the fork. In the zygote they cost each worker about 190 page faults and
0.5 ms of CPU (``bench/bench_worker.py --floor``), and there is nothing for them to repair: the
zygote runs one Python thread (checked before each fork; with another, ``os.fork`` is used).
What a worker does need from them, random state of its own, ``reseed`` gives it. The C
library's own fork handlers run either way.
"""

from __future__ import annotations

import ctypes
import os
import random
import sys

_LIBC = ctypes.PyDLL(None, use_errno=True)  # PyDLL: the GIL stays held across fork(), as os.fork holds it


def fork() -> int:
    """``os.fork()`` minus the Python-level at-fork handlers (when this is the process's only Python thread)."""
    if len(sys._current_frames()) != 1:
        return os.fork()
    pid: int = _LIBC.fork()
    if pid < 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))
    return pid


def reseed() -> None:
    """In a new worker: a fresh seed for ``random``'s generator, which it would otherwise share with
    every sibling, as a new process would have. (numpy's global generator, reachable only under
    ``walls="process"``, is reseeded when such a call begins: ``plain.plain_globals``.)"""
    random.seed()
