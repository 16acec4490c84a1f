"""An outside red team's attacks on issue 31's standard-library views, each asserted refused.

Goals, from tool code under the default walls: the worker's real builtins, a frame or code object,
a real module the wall refuses, the host's raw RPC sender, a host path in text, or a crash of the
worker's error path (``worker_crashed`` instead of ``tool_error``), through the ``logging`` view
(records, handlers, formatters, the tool's own subclasses of them), the ``subprocess`` view
and ``__file__``.
"""

from __future__ import annotations

import pytest

from runtime import Runtime
from tests.attacks import PACKAGE_DIR, assert_refused, assert_refused_when_added_or_called, attack

LEAKS = ("<frame", "<code", "<module", "__builtins__", "_rpc", PACKAGE_DIR)
"""Text that would show a frame, a code object, a module, the builtins or a host path reached tool code."""

UNREADABLE_OUT = """
import logging


class Out(BaseException):
    def __str__(self):
        raise Out()

    def __repr__(self):
        raise Out()


class Bad:
    def __str__(self):
        raise ValueError("no str")

    def __repr__(self):
        raise Out()


def tool() -> str:
    SPELLING
    return "survived"
"""
UNREADABLE_SPELLINGS = {
    "raised": "raise Out()",
    "handle-error-repr": "logging.warning(Bad())",
    "get-message-str": "logging.warning('x %s', Out.__new__(Out))",
    "format-exception": "raise ValueError(logging.Formatter().formatException((Out, Out(), None)))",
    "raised-from-handler": "logging.getLogger('h').addHandler(logging.StreamHandler(Bad())); logging.getLogger('h').warning('x')",
}


@pytest.mark.parametrize("spelling", UNREADABLE_SPELLINGS.values(), ids=UNREADABLE_SPELLINGS.keys())
def test_a_base_exception_whose_str_raises_is_a_tool_error(rt: Runtime, spelling: str) -> None:
    """A ``BaseException`` subclass of the tool's whose ``__str__`` raises itself: the worker's error
    path caught only ``Exception`` there, and the worker died (``worker_crashed``; under
    ``walls="process"`` too: the error path is the worker's, not the language wall's)."""
    result = attack(rt, UNREADABLE_OUT.replace("SPELLING", spelling))
    if result.success:  # logging reported it as CPython does, on the call's log
        assert "--- Logging error ---" in result.logs or "Out" in result.output
        return
    assert_refused(rt, result, "tool_error")
    assert "Out" in result.error.message


SCRATCH_SIZE_BYPASS = """
import os

MiB = 1024 * 1024


def tool() -> str:
    SPELLING
    try:
        with open("big", "wb") as file:
            file.write(b"x" * (20 * MiB))  # past the default Limits.scratch_size (8 MiB)
    except OSError as error:
        return str(error)
    return "wrote past the limit"
"""
SCRATCH_SIZE_SPELLINGS = {
    "os-truncate-negative": "open('a', 'wb').close()\n    try:\n        os.truncate('a', -100 * MiB)\n"
    "    except (OSError, ValueError):\n        pass",
    "file-truncate-negative": "f = open('a', 'w+b', buffering=0)\n    try:\n        f.truncate(-100 * MiB)\n"
    "    except (OSError, ValueError):\n        pass",
    "removed-open-file-truncated": "for _ in range(5):\n        f = open('a', 'wb')\n        f.write(b'x' * (6 * MiB))\n"
    "        f.flush()\n        os.remove('a')\n        f.truncate(0)\n        f.close()",
    "replaced-open-file-truncated": "for _ in range(5):\n        f = open('a', 'wb')\n        f.write(b'x' * (6 * MiB))\n"
    "        f.flush()\n        open('b', 'wb').close()\n        os.replace('b', 'a')\n        f.truncate(0)\n        f.close()",
}


@pytest.mark.parametrize("spelling", SCRATCH_SIZE_SPELLINGS.values(), ids=SCRATCH_SIZE_SPELLINGS.keys())
def test_the_scratch_size_holds_whatever_truncate_is_given(rt: Runtime, spelling: str) -> None:
    """``Limits.scratch_size`` is kept by accounting: a negative size, or a file truncated after it
    left the tree (removed or replaced while open), took bytes off the count that were never on it
    (the memory limit still held: the bytes are in the worker's memory)."""
    result = attack(rt, SCRATCH_SIZE_BYPASS.replace("SPELLING", spelling))
    assert result.success, result.error
    assert "Limits.scratch_size" in result.output
