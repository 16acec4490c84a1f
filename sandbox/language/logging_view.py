"""The logging view: the real ``logging`` into the call's log, with nothing of the interpreter in reach.

Tool code gets ``logging``'s own loggers, handlers, formatters, filters and records, so levels,
``%``-style arguments, ``extra=``, child loggers, ``basicConfig`` and custom ``Handler``/
``Formatter``/``Filter`` subclasses behave as in CPython; what is written goes where ``print``
output goes (``streams.STDERR``): the stream ``basicConfig()`` and ``StreamHandler()`` default to,
and the last-resort handler (WARNING and above, the message alone) when no handler is configured.

What logging would hand out, and how the view closes it (``_REPLACEMENTS``, in a process armed
for tool code: a worker under the language wall; under ``walls="process"`` logging is CPython's):
- frames: ``findCaller`` is replaced by one that only reports the tool's own frames (a library's
  or toolpen's frame is ``(unknown file)``), ``stack_info`` lists the tool's frames only, and
  ``currentframe`` is not offered; an exception's traceback in a record is formatted with the
  tool's frames only (``formatException``, ``handleError``), and ``record.exc_info`` shows tool
  code ``(type, value, None)``, never a traceback object;
- attribute walks in ``{``-style formats: ``StrFormatStyle`` reads its fields through the guards
  (``%`` and ``$`` styles only look names up in the record's dict);
- special names in a record's dict: ``extra=`` and ``makeLogRecord`` keys must be public names;
- host objects: attributes of logging's objects are read through an allowlist per class
  (``LibraryRule``): no ``manager``, ``root``, ``findCaller``, ``makeRecord``, ``handle`` of a
  logger; a record made by code other than the tool's has its message rendered to text;
- process-wide hooks and files: ``getLoggerClass``/``setLoggerClass``, the record factory,
  ``captureWarnings``, ``FileHandler`` and the ``logging.config``/``logging.handlers`` modules are
  left out, each with its reason.
"""

from __future__ import annotations

import importlib
import io
import logging
import sys
import traceback
import types
from collections.abc import Iterator
from typing import Any

from sandbox.language import guards, streams
from sandbox.language.arming import on_arming
from sandbox.language.compiler import TOOL_FILENAME
from sandbox.language.formatting import GuardedFormat
from sandbox.language.library_rules import SAFE_FORMAT_METHODS, LibraryRule, register_library_types, words
from sandbox.language.rules import (
    GUARD_MODULES,
    TOOL_MODULE_NAME,
    class_name,
    exact_str,
    is_tool_class,
    refuse,
)

UNKNOWN_CALLER = ("(unknown file)", 0, "(unknown function)", None)
"""What CPython's ``findCaller`` answers when it finds no frame; here for every frame not the tool's."""
_FILES = "it writes files by name; instead: the call's log (StreamHandler, basicConfig without filename)"
_PROCESS = "it changes how the whole process logs, past the call's log"
_LEFT_OUT = {
    "currentframe": "it hands out the interpreter's frames",
    "getLoggerClass": _PROCESS,
    "setLoggerClass": _PROCESS,
    "getLogRecordFactory": _PROCESS,
    "setLogRecordFactory": _PROCESS,
    "captureWarnings": "the warnings module is not offered; log the message yourself",
    "lastResort": "it is the process's own handler; the call's log gets WARNING and above without one",
    "raiseExceptions": "a process-wide switch; a failing handler reports on the call's log",
    "FileHandler": _FILES,
    "PercentStyle": "an internal class of Formatter; pass style= to Formatter",
    "StrFormatStyle": "an internal class of Formatter; pass style= to Formatter",
    "StringTemplateStyle": "an internal class of Formatter; pass style= to Formatter",
    "Manager": "it holds every logger of the process; use getLogger",
    "PlaceHolder": "an internal class of the logger tree; use getLogger",
    "RootLogger": "the root logger is logging.root or getLogger()",
    "logMultiprocessing": _PROCESS,
    "logProcesses": _PROCESS,
    "logThreads": _PROCESS,
    "logAsyncioTasks": _PROCESS,
}
_NAMES = words(
    "CRITICAL FATAL ERROR WARNING WARN INFO DEBUG NOTSET BASIC_FORMAT"
    " critical fatal error exception warning warn info debug log disable shutdown"
    " getLogger getLevelName addLevelName getLevelNamesMapping getHandlerByName getHandlerNames"
    " Logger LoggerAdapter Handler StreamHandler NullHandler Formatter BufferingFormatter Filter Filterer LogRecord root"
)

_LOGGER = frozenset(
    words(
        "name level parent propagate handlers disabled filters setLevel debug info warning warn error exception"
        " critical fatal log isEnabledFor getEffectiveLevel getChild getChildren addHandler removeHandler"
        " hasHandlers addFilter removeFilter filter"
    )
)
_ADAPTER = frozenset(
    words(
        "logger extra merge_extra name process debug info warning warn error exception critical log"
        " isEnabledFor setLevel getEffectiveLevel hasHandlers"
    )
)
_HANDLER = frozenset(
    words(
        "name level formatter filters lock stream terminator get_name set_name setLevel setFormatter addFilter"
        " removeFilter filter format handle emit flush close acquire release createLock handleError"
    )
)
_FORMATTER = frozenset(
    words(
        "format formatTime formatException formatStack formatMessage usesTime converter datefmt"
        " default_time_format default_msec_format formatHeader formatFooter linefmt"
    )
)
_RECORD = frozenset({"getMessage"})
_FILTER = frozenset({"name", "nlen", "filter", "addFilter", "removeFilter", "filters"})
_FAMILIES: tuple[tuple[type, frozenset[str]], ...] = (
    (logging.LogRecord, _RECORD),
    (logging.Logger, _LOGGER),
    (logging.LoggerAdapter, _ADAPTER),
    (logging.Handler, _HANDLER),
    (logging.Formatter, _FORMATTER),
    (logging.BufferingFormatter, _FORMATTER),
    (logging.Filter, _FILTER),
    (logging.Filterer, _FILTER),
)
"""Each logging class family and the names of it tool code may read (besides an instance's own data)."""


def basicConfig(**kwargs: Any) -> None:  # noqa: N802 - logging's own name
    """``logging.basicConfig``: its default stream is the call's log; ``filename=`` is refused (no files)."""
    if "filename" in kwargs:
        refuse(f"logging.basicConfig(filename=...) is not available: {_FILES}")
    _configure_into_call_log(**kwargs)


def _configure_into_call_log(**kwargs: Any) -> None:
    """The real ``basicConfig`` with the call's log as its default stream."""
    if "handlers" not in kwargs and "filename" not in kwargs and kwargs.get("stream") is None:
        kwargs["stream"] = streams.STDERR
    _ORIGINALS[logging, "basicConfig"](**kwargs)


def makeLogRecord(attributes: dict[str, Any]) -> logging.LogRecord:  # noqa: N802 - logging's own name
    """``logging.makeLogRecord`` with public keys only (a record's dict is read by name)."""
    return logging.makeLogRecord(_public_keys(attributes, "makeLogRecord"))


def _public_keys(attributes: Any, what: str) -> dict[str, Any]:
    """A plain copy of the mapping ``attributes`` whose keys are exact strings naming public attributes."""
    checked: dict[str, Any] = {}
    for key, value in dict(attributes).items():
        name = exact_str(key, f"a key of {what}")
        if not name.isidentifier() or name.startswith("_"):
            refuse(f"{what}: key {name!r} is not allowed: a record's attributes are public names")
        checked[name] = value
    return checked


def members(name: str) -> dict[str, Any]:
    """The members of the view of ``logging``."""
    found = {member: getattr(logging, member) for member in _NAMES if hasattr(logging, member)}
    return found | {"basicConfig": basicConfig, "makeLogRecord": makeLogRecord}


def left_out(module: str, member: str) -> str | None:
    """Why the view of ``logging`` leaves out ``member``."""
    return _LEFT_OUT.get(member)


# --- closing logging while the checks are armed ------------------------------------------------

_INTERNAL_FILES = frozenset(
    {logging.addLevelName.__code__.co_filename, __file__}
    | {str(importlib.import_module(name).__file__) for name in GUARD_MODULES}
)
"""Frames ``findCaller`` steps over: logging's, this module's and the guards' (``_apply_`` calls for the tool)."""
_STRING_FORMAT = GuardedFormat(guards.guarded_getattr)


def _close_logging(armed: bool) -> None:
    """In a process armed for tool code, logging as the module docstring says; else logging as it was."""
    for owner, name, replacement in _REPLACEMENTS:
        setattr(owner, name, replacement if armed else _ORIGINALS[owner, name])


def _no_frame() -> None:
    """``logging.currentframe`` for every caller: no frame (CPython's answer where frames are unavailable)."""
    return None


def _internal(frame: types.FrameType) -> bool:
    return frame.f_code.co_filename in _INTERNAL_FILES


def _find_tool_caller(
    self: logging.Logger, stack_info: bool = False, stacklevel: int = 1
) -> tuple[str, int, str, str | None]:
    """``Logger.findCaller`` as CPython answers it for the tool's frames; ``UNKNOWN_CALLER`` for any other."""
    frame: types.FrameType | None = sys._getframe(1)
    found = None
    while frame is not None:
        if not _internal(frame):
            stacklevel -= 1
            found = frame
            if stacklevel <= 0:
                break
        frame = frame.f_back
    if found is None or not _is_tool_frame(found):
        return UNKNOWN_CALLER
    name = _tool_file()
    stack = None
    if stack_info:
        frames = [(frame, line) for frame, line in traceback.walk_stack(found) if _is_tool_frame(frame)]
        summary = traceback.StackSummary.extract(reversed(frames), lookup_lines=False)
        stack = "Stack (most recent call last):\n" + "".join(traceback.format_list(_renamed(summary))).rstrip(
            "\n"
        )
    return name, found.f_lineno, found.f_code.co_name, stack


def _tool_file() -> str:
    module = sys.modules.get(TOOL_MODULE_NAME)
    name = vars(module).get("__file__") if module is not None else None
    return name if type(name) is str else TOOL_FILENAME


def _renamed(summary: list[traceback.FrameSummary]) -> list[traceback.FrameSummary]:
    """The tool's frames of ``summary``, their source lines read, named by the tool's file name."""
    kept = [entry for entry in summary if entry.filename == TOOL_FILENAME]
    for entry in kept:
        _ = entry.line  # from the tool's source (worker.show_source), before the name changes
        entry.filename = _tool_file()
    return kept


def _is_tool_frame(frame: types.FrameType) -> bool:
    return frame.f_code.co_filename == TOOL_FILENAME


def _make_record(self: logging.Logger, name: str, level: int, fn: str, *args: Any, **kwargs: Any) -> Any:
    """``Logger.makeRecord``: ``extra=`` keys public; a record not made by the tool has its message as text."""
    if len(args) > 5 and args[5] is not None:
        args = (*args[:5], _public_keys(args[5], "extra"), *args[6:])
    if kwargs.get("extra") is not None:
        kwargs["extra"] = _public_keys(kwargs["extra"], "extra")
    record = _ORIGINALS[logging.Logger, "makeRecord"](self, name, level, fn, *args, **kwargs)
    if fn == UNKNOWN_CALLER[0]:
        record.msg, record.args = _message_text(record), ()
    return record


def _message_text(record: logging.LogRecord) -> str:
    try:
        return record.getMessage()
    except Exception as error:  # noqa: BLE001 - CPython reports it when the record is emitted
        return f"{record.msg!r} (its arguments could not be formatted: {type(error).__name__})"


def _format_exception(self: logging.Formatter, ei: Any) -> str:
    """``Formatter.formatException``: CPython's text with the tool's frames only.

    Only real exceptions and tracebacks are walked (``exc_info`` is whatever tool code passed): a
    stand-in traceback names the code and file whose lines ``linecache`` would read from disk.
    """
    _, value, tb = ei
    if not isinstance(value, BaseException):
        value = None
    if type(tb) is not types.TracebackType:
        tb = value.__traceback__ if value is not None else None
    if not _interpreters_own_chain(value):
        return f"{type(value).__name__}: {_plain_str(value)}"
    exception = traceback.TracebackException(type(value), value, tb, compact=True, lookup_lines=False)
    for link in _chain(exception):
        link.stack = traceback.StackSummary.from_list(_renamed(link.stack))
    return "".join(exception.format()).rstrip("\n")


_GROUP_MEMBERS = BaseExceptionGroup.__dict__["exceptions"]
_CAUSE, _CONTEXT = BaseException.__dict__["__cause__"], BaseException.__dict__["__context__"]


def _interpreters_own_chain(value: BaseException | None) -> bool:
    """Whether every exception ``traceback`` would walk from ``value`` (causes, contexts, a group's
    members) is reached through the interpreter's own slots: a group class of the tool's could
    answer ``exceptions`` with stand-ins holding a ``__traceback__`` of their own."""
    seen: set[int] = set()
    pending = [value]
    while pending:
        link = pending.pop()
        if link is None or id(link) in seen:
            continue
        seen.add(id(link))
        if isinstance(link, BaseExceptionGroup):
            owner = next(cls for cls in type(link).__mro__ if "exceptions" in vars(cls))
            if vars(owner)["exceptions"] is not _GROUP_MEMBERS:
                return False
            pending.extend(_GROUP_MEMBERS.__get__(link))
        pending.extend((_CAUSE.__get__(link), _CONTEXT.__get__(link)))
    return True


def _plain_str(value: object) -> str:
    try:
        return str(value)
    except Exception:  # noqa: BLE001 - the tool's __str__
        return "<exception str() failed>"


def _chain(exception: traceback.TracebackException) -> Iterator[traceback.TracebackException]:
    seen: set[int] = set()
    pending = [exception]
    while pending:
        link = pending.pop()
        if id(link) in seen:
            continue
        seen.add(id(link))
        yield link
        pending.extend(
            item for item in (link.__cause__, link.__context__, *(link.exceptions or ())) if item is not None
        )


def _handle_error(self: logging.Handler, record: logging.LogRecord) -> None:
    """``Handler.handleError``: CPython's report, with the tool's frames only, on the call's log."""
    if not logging.raiseExceptions:
        return
    error = sys.exc_info()
    try:
        text = _format_exception(logging.Formatter(), error) if error[0] is not None else ""
        streams.STDERR.write(
            f"--- Logging error ---\n{text}\nMessage: {_plain_repr(record.msg)}\n"
            f"Arguments: {_plain_repr(record.args)}\n"
        )
    except Exception:  # noqa: BLE001 - CPython's handleError swallows a failure to report, too
        return


def _plain_repr(value: object) -> str:
    try:
        return repr(value)
    except Exception:  # noqa: BLE001 - the tool's __repr__
        return "(unprintable)"


def _guarded_str_format(self: Any, record: logging.LogRecord) -> str:
    """``StrFormatStyle._format`` with the fields' attribute and item lookups through the guards."""
    values = record.__dict__
    if defaults := self._defaults:
        values = defaults | values
    return _STRING_FORMAT.format(self._fmt, **values)


# --- the attribute rule of logging's objects --------------------------------------------------


def _logging_rule(cls: type) -> LibraryRule | None:
    """The rule of logging's classes, and of the tool's subclasses of them."""
    if not any(str(type.__dict__["__module__"].__get__(base)) == "logging" for base in cls.__mro__):
        return None
    names = frozenset().union(*(allowed for base, allowed in _FAMILIES if issubclass(cls, base)))
    return LibraryRule(_reader(names), subclassable=True)


def _reader(names: frozenset[str]) -> Any:
    def attribute(obj: Any, name: str, default: tuple[Any, ...]) -> Any:
        classes = obj.__mro__ if isinstance(obj, type) else type(obj).__mro__
        owner = next((cls for cls in classes if name in type.__dict__["__dict__"].__get__(cls)), None)
        own_data = owner is None and not isinstance(obj, type) and name in _instance_dict(obj)
        if not (name in names or own_data or (owner is not None and is_tool_class(owner))):
            refuse(f"logging: attribute {name!r} of {class_name(obj)} is not available in toolpen")
        value = getattr(obj, name, *default)
        if type(value) in _PROCESS_FILES:  # a handler a library made over the process's stderr
            refuse(f"logging: attribute {name!r} of {class_name(obj)} is one of the process's own files")
        if name == "exc_info" and isinstance(obj, logging.LogRecord) and isinstance(value, tuple):
            return (*value[:2], None)  # the traceback's frames lead to every caller's globals
        return value

    return attribute


_PROCESS_FILES = frozenset(
    {io.TextIOWrapper, io.BufferedWriter, io.BufferedReader, io.BufferedRandom, io.FileIO}
)
"""Real files (``sys.__stderr__``, what a library's ``StreamHandler()`` holds): never handed to tool code."""


def _instance_dict(obj: Any) -> dict[str, Any]:
    try:
        found = object.__getattribute__(obj, "__dict__")
    except AttributeError:
        return {}
    return found if type(found) is dict else {}


def _stream_handler_init(self: logging.StreamHandler, stream: Any = None) -> None:  # type: ignore[type-arg]
    """``StreamHandler.__init__``: without a stream it writes to the call's log (what stderr is for tools)."""
    _ORIGINALS[logging.StreamHandler, "__init__"](self, streams.STDERR if stream is None else stream)


def _last_resort() -> logging.Handler:
    """CPython's last-resort handler (WARNING and above, the message alone) into the call's log."""
    handler = logging.StreamHandler(streams.STDERR)
    handler.setLevel(logging.WARNING)
    return handler


_REPLACEMENTS: tuple[tuple[Any, str, Any], ...] = (
    (logging.StreamHandler, "__init__", _stream_handler_init),
    (logging.Logger, "findCaller", _find_tool_caller),
    (logging.Logger, "makeRecord", _make_record),
    (logging.Formatter, "formatException", _format_exception),
    (logging.Handler, "handleError", _handle_error),
    (logging.StrFormatStyle, "_format", _guarded_str_format),
    (logging, "currentframe", _no_frame),
    (logging, "basicConfig", _configure_into_call_log),  # what logging.info(...) calls without a handler
    (logging, "lastResort", _last_resort()),
)
_ORIGINALS: dict[tuple[Any, str], Any] = {
    (owner, name): getattr(owner, name) for owner, name, _ in _REPLACEMENTS
}
SAFE_FORMAT_METHODS.update(
    {logging.Handler.format, logging.Formatter.format, logging.BufferingFormatter.format}
)
register_library_types(_logging_rule)
on_arming(_close_logging)
