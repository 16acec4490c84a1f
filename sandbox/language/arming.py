"""When the checks apply: arming a process, the import exemption, the audit hook (code objects, unpickling).

The guards themselves run only where the rewritten tool code calls them. The hooks that hold
typing, pydantic, Enum and ``copy`` to the same rules run inside host code, where no tool frame
need be on the stack (pydantic builds a deferred validator while the worker serializes a result;
a forward reference is evaluated after the tool returned). So a worker *arms* its process once
(``arm_checks``): from then on the hooks check everything it does, whatever is on the stack. The
zygote imports libraries with the checks off (``end_import_exemption`` ends that in each worker,
before its first job), and the audit hook refuses building code objects (however tool code reached
the ``code`` class) and unpickling a class or function under the language wall. The state here
(armed, exempt, installed) exists once per process: every module of the wall asks these
functions, none keeps a copy.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from typing import Any

from sandbox.language.rules import PLAIN_MODULE_NAME, TOOL_MODULE_NAME, check_listed, refuse

check_listed(__name__)

_armed = False
_arming_hooks: list[Callable[[bool], None]] = []


def on_arming(hook: Callable[[bool], None]) -> None:
    """Call ``hook(armed)`` now and each time ``arm_checks`` arms or disarms this process."""
    _arming_hooks.append(hook)
    hook(_armed)


def arm_checks(armed: bool = True) -> None:
    """Apply the run-time checks to everything this process does from now on (the worker, once).

    The hooks that hold typing, pydantic and Enum to the attribute rule run inside host code
    (pydantic builds a deferred validator while the worker serializes a result; a forward reference
    is evaluated after the tool returned). In a worker everything after its first tool code is
    tool-driven, so the checks must not depend on a tool frame being on the stack. A call under
    ``walls="process"`` disarms them (``armed=False``): its code has the real builtins, the process
    wall is its boundary, and it runs as plain CPython, pydantic and Enum included.
    """
    global _armed
    _armed = armed
    for hook in _arming_hooks:
        hook(armed)


def checks_apply() -> bool:
    """True while tool code is on the stack, and in an armed process unless the zygote is importing a module."""
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_globals.get("__name__") == TOOL_MODULE_NAME:
            return True
        if _imports_exempt and frame.f_code.co_filename.startswith("<frozen importlib"):
            return False
        frame = frame.f_back
    return _armed


def end_import_exemption() -> None:
    """In a worker, before its first job: the checks apply inside imports too, from now on.

    The zygote imports libraries (``warmup``) with the checks off: no tool code has run in it. In
    a worker an import may run while objects of the tool's are alive, and a finalizer (or a cache
    evicting a key of the tool's) can call a host function with the tool's arguments in the
    middle of it: exempt, ``typing.get_type_hints`` evaluated a tool's string with the real builtins.
    """
    global _imports_exempt
    _imports_exempt = False


_imports_exempt = True


def imports_checked() -> bool:
    """Whether a module imported now would run under the checks (in a worker, under the language
    wall), where library code fails them: such a library must be loaded by the zygote."""
    return not _imports_exempt and checks_apply()


def restricted_code_running() -> bool:
    """True where the language wall applies (``checks_apply``), unless a ``walls="process"`` tool is what runs."""
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None:
        name = frame.f_globals.get("__name__")
        if name == TOOL_MODULE_NAME:
            return True
        if name == PLAIN_MODULE_NAME:
            return False
        if _imports_exempt and frame.f_code.co_filename.startswith("<frozen importlib"):
            return False
        frame = frame.f_back
    return _armed


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "code.__new__" and restricted_code_running():
        refuse("building code objects is not allowed: tool code runs only the source it was given")
    if event == "pickle.find_class" and restricted_code_running():
        refuse(
            "unpickling a class or function is not allowed: pickle calls whatever its data names"
            " (pydantic's parse_raw(..., allow_pickle=True) included); use JSON"
        )


_audit_hook_installed = False


def install_code_hook() -> None:
    """Refuse ``CodeType(...)``, ``code.replace(...)`` and unpickling a class or function under the
    language wall (an audit hook: it stays). Idempotent.

    Whatever way tool code finds the ``code`` class, bytecode it builds would run past every
    guard; CPython itself never builds code objects that way while a tool runs (``compile`` and
    imports raise other events). ``pickle`` is no module of tool code's, but libraries unpickle
    bytes they are handed (pydantic's deprecated ``parse_raw(b, content_type="pickle",
    allow_pickle=True)``): every class or function a pickle names is looked up through
    ``find_class`` (``pickle.find_class``, C and Python unpicklers alike), and a pickle of
    ``sys.modules`` handed tool code the real builtins.
    """
    global _audit_hook_installed
    if not _audit_hook_installed:
        sys.addaudithook(_audit)
        _audit_hook_installed = True
