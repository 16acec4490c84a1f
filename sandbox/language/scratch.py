"""One call's files and environment: ``start_call`` gives it an empty scratch directory.

Before tool code runs, each call gets an empty scratch tree with its limits
(``Limits.scratch_size``, ``Limits.scratch_files``), no descriptors and the ``os.environ`` the host configured (none by default),
whatever an earlier run in this process (the module-level code, a reused worker's last call) left.
"""

from __future__ import annotations

from sandbox.common.limits import Limits
from sandbox.language.os_view import ENVIRON
from sandbox.language.scratch_files import DESCRIPTORS
from sandbox.language.scratch_fs import TREE


def start_call(limits: Limits, environment: dict[str, str] | None = None) -> None:
    """Empty the scratch tree and the descriptor table for a call under ``limits``; its environment
    is ``environment`` (what the host configured, ``Runtime(tool_environment=...)``), else empty."""
    TREE.reset(limits.scratch_size, limits.scratch_files)
    DESCRIPTORS.reset(limits.open_files)
    ENVIRON.reset(environment or {})
