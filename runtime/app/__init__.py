"""Exported CX Agent Studio (CES) applications: load, check, run and repack them.

``load_app(path) -> App`` reads an export (its zip or its folder) with every resource validated
(``models``); ``check_app`` adds the whole app's cross-references to ``toolpen check``
(``crosscheck``); ``app_runtime`` registers it in a ``Runtime`` (``register``); ``unpack`` /
``pack`` turn the archive into editable files and back, byte for byte where nothing changed
(``packing``, ``zipraw``); ``archive`` refuses unsafe zips; ``AppChat`` runs its agents on a model,
one user turn at a time (``chat``).
"""

from runtime.app._archive import ArchiveLimits
from runtime.app._chat import AppChat, ChatEvent, ChatTurn
from runtime.app._crosscheck import Finding, check_app
from runtime.app._loader import (
    App,
    AppAgent,
    AppCallback,
    AppEvaluation,
    AppGuardrail,
    AppTool,
    AppToolset,
    load_app,
)
from runtime.app._packing import pack, unpack
from runtime.app._register import app_runtime, register_app

__all__ = [
    "App",
    "AppAgent",
    "AppChat",
    "AppCallback",
    "AppEvaluation",
    "AppGuardrail",
    "AppTool",
    "AppToolset",
    "ArchiveLimits",
    "ChatEvent",
    "ChatTurn",
    "Finding",
    "app_runtime",
    "check_app",
    "load_app",
    "pack",
    "register_app",
    "unpack",
]
