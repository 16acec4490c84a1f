"""pydantic's deprecated ``parse_file`` under the language wall: files from the scratch directory.

``Model.parse_file(path)`` reads ``path`` with the real ``pathlib`` (so a tool's own model read the
host's files: ``/proc/self/status``, the worker's code). It goes through
``pydantic.deprecated.parse.load_file``, which ``install_pydantic_file_hook`` replaces: while the
checks apply, it is pydantic's own code reading through the scratch directory's ``pathlib`` view;
elsewhere (``walls="process"``, the host) it is pydantic's. A pickle loaded with
``allow_pickle=True`` (``parse_raw`` or ``parse_file``) is data only: the audit hook refuses every
class or function it names (``arming.py``).
"""

from __future__ import annotations

from typing import Any

from pydantic.deprecated import parse

from sandbox.language.arming import checks_apply
from sandbox.language.pathlib_view import Path
from sandbox.language.rebound import rebound

_installed = False


def install_pydantic_file_hook() -> None:
    """Replace ``pydantic.deprecated.parse.load_file`` (the module docstring). Idempotent."""
    global _installed
    if _installed:
        return
    original_load_file = parse.load_file
    scratch_load_file = rebound(original_load_file, dict(vars(parse), Path=Path))

    def load_file(path: Any, **options: Any) -> Any:
        return (scratch_load_file if checks_apply() else original_load_file)(path, **options)

    parse.load_file = load_file  # type: ignore[assignment]
    _installed = True
