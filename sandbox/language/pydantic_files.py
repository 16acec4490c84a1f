"""pydantic's deprecated loaders under the language wall: files from the scratch directory, no pickle.

``Model.parse_file(path)`` reads ``path`` with the real ``pathlib`` (so a tool's own model read the
host's files: ``/proc/self/status``, the worker's code), and ``parse_raw``/``parse_file`` with
``allow_pickle=True`` hand the tool's bytes to ``pickle.loads``, which calls any function they name
(``builtins.eval`` with the real builtins). Both go through ``pydantic.deprecated.parse``:
``install_pydantic_file_hook`` replaces its two functions there. While the checks apply, ``load_file``
is pydantic's own code reading through the scratch directory's ``pathlib`` view, and
``allow_pickle=True`` is refused; elsewhere (``walls="process"``, the host) they are pydantic's.
"""

from __future__ import annotations

import types
from typing import Any

from pydantic.deprecated import parse

from sandbox.language.arming import checks_apply
from sandbox.language.pathlib_view import Path
from sandbox.language.rules import refuse

_installed = False


def install_pydantic_file_hook() -> None:
    """Replace ``pydantic.deprecated.parse.load_file`` and ``load_str_bytes`` (the module docstring). Idempotent."""
    global _installed
    if _installed:
        return
    original_load_file, original_load_str_bytes = parse.load_file, parse.load_str_bytes

    def load_str_bytes(b: Any, **options: Any) -> Any:
        if checks_apply() and options.get("allow_pickle"):
            refuse("allow_pickle=True: pickle.loads calls any function its data names; use JSON")
        return original_load_str_bytes(b, **options)

    scratch = dict(vars(parse), Path=Path, load_str_bytes=load_str_bytes)
    code = original_load_file
    scratch_load_file = types.FunctionType(
        code.__code__, scratch, code.__name__, code.__defaults__, code.__closure__
    )
    scratch_load_file.__kwdefaults__ = code.__kwdefaults__

    def load_file(path: Any, **options: Any) -> Any:
        return (scratch_load_file if checks_apply() else original_load_file)(path, **options)

    parse.load_file = load_file  # type: ignore[assignment]
    parse.load_str_bytes = load_str_bytes  # type: ignore[assignment]
    _installed = True
