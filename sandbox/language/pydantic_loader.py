"""pydantic where tool code runs: loaded on first need, its wall (``pydantic_wall``) in place first.

pydantic and the CES classes built on it are about a third of a zygote's memory, which every
fork copies the page tables of and every idle worker shares a part of. So a zygote loads them
only once a registered tool needs them (``warmup.preload_for``), and a worker whose zygote
did not refuses a tool that reaches them under the language wall, and loads them from disk under
``walls="process"``.
"""

from __future__ import annotations

import sys
from types import ModuleType

from sandbox.language.arming import imports_checked
from sandbox.language.array_interface import close_array_interface
from sandbox.language.rules import refuse

_tool_process = False  # a zygote or worker: pydantic gets its wall when it loads


def enable() -> None:
    """In a process where tool code runs (``namespace.install_process_hooks``): wall pydantic as it loads."""
    global _tool_process
    _tool_process = True
    if "pydantic" in sys.modules:  # imported before this process armed its hooks
        load_pydantic()


def load_pydantic() -> ModuleType:
    """pydantic, imported, with its hooks installed in a tool process (before tool code can reach it). Idempotent.

    A worker under the language wall does not import it: an import there runs under the checks
    (``arming.end_import_exemption``), which pydantic's own code fails. Its zygote loads it when
    the tool's source shows the need (``warmup.modules_needed``); otherwise the call is refused.
    """
    if "pydantic" not in sys.modules and imports_checked():
        refuse(
            "this tool reaches pydantic (the CES classes, context.user_content, events) in a way its "
            "source does not show, and a worker cannot load it under the language wall: name what it "
            "uses in the source (import pydantic, the class, context.user_content)"
        )
    import pydantic  # noqa: PLC0415 - the point of this module

    if _tool_process:
        from sandbox.language import pydantic_classes  # noqa: F401, PLC0415 (its rule, registered on import)
        from sandbox.language.pydantic_files import install_pydantic_file_hook  # noqa: PLC0415
        from sandbox.language.pydantic_wall import install_pydantic_hook  # noqa: PLC0415

        close_array_interface(pydantic.BaseModel)  # extra fields hold tool values
        install_pydantic_hook()
        install_pydantic_file_hook()
    return pydantic
