"""Attacks on the logging and subprocess views (issue 31), in real workers under the default walls.

Goals: a frame, a traceback, the real builtins or a host object out of logging (records,
formatters, handlers, the logger tree, ``exc_info``, ``stack_info``, ``findCaller``), a special
name into a record's dict, a file or module through logging's configuration, and a process
through subprocess. Each spelling is refused, or gets only text naming the tool's own frames.
"""

from __future__ import annotations

import pytest

from runtime import Runtime
from tests.attacks import PACKAGE_DIR, assert_refused, assert_refused_when_added_or_called, attack

REFUSED_READS = {
    "currentframe": "logging.currentframe()",
    "root-manager": "logging.root.manager",
    "logger-manager": "logging.getLogger('x').manager",
    "class-manager": "logging.Logger.manager",
    "getattr-manager": "getattr(logging.getLogger('x'), 'manager')",
    "findCaller": "logging.getLogger('x').findCaller()",
    "makeRecord": "logging.getLogger('x').makeRecord",
    "handle": "logging.getLogger('x').handle",
    "logger-class": "logging.getLoggerClass()",
    "set-logger-class": "logging.setLoggerClass(dict)",
    "record-factory": "logging.getLogRecordFactory()",
    "last-resort": "logging.lastResort",
    "file-handler": "logging.FileHandler('x.log')",
    "style-class": "logging.StrFormatStyle",
    "basic-config-file": "logging.basicConfig(filename='x.log')",
    "handler-globals": "logging.Handler.__init__.__globals__",
    "function-globals": "logging.info.__globals__",
    "record-dict": "vars(logging.makeLogRecord({'msg': 'x'}))",
    "record-init-globals": "type(logging.makeLogRecord({})).__init__.__globals__",
    "logger-private-cache": "logging.getLogger('x')._cache",
    "subclass-super-manager": "Sub('x').up()",
}
READ_TOOL = """
import logging


class Sub(logging.Logger):
    def up(self):
        return super().manager


def tool() -> str:
    return repr(SPELLING)
"""


@pytest.mark.parametrize("spelling", REFUSED_READS.values(), ids=REFUSED_READS.keys())
def test_logging_hands_out_no_frame_module_or_host_internals(rt: Runtime, spelling: str) -> None:
    assert_refused_when_added_or_called(rt, READ_TOOL.replace("SPELLING", spelling))


REFUSED_IMPORTS = {
    "config": "import logging.config",
    "config-from": "from logging import config",
    "handlers": "import logging.handlers",
    "handlers-from": "from logging.handlers import SocketHandler",
    "file-handler-from": "from logging import FileHandler",
}


@pytest.mark.parametrize("spelling", REFUSED_IMPORTS.values(), ids=REFUSED_IMPORTS.keys())
def test_logging_configuration_and_handler_modules_are_refused_with_a_reason(
    rt: Runtime, spelling: str
) -> None:
    result = attack(rt, f"def tool() -> int:\n    {spelling}\n    return 1\n")
    assert_refused(rt, result)
    assert "instead" in result.error.message


SPECIAL_KEYS = {
    "extra-deepcopy": "log.warning('x', extra={'__deepcopy__': print})",
    "extra-array-interface": "log.warning('x', extra={'__array_interface__': {'data': (0, False)}})",
    "extra-private": "log.warning('x', extra={'_rpc': 1})",
    "extra-str-subclass": "log.warning('x', extra={Sly('__reduce_ex__'): print})",
    "extra-changing-mapping": "log.warning('x', extra=Changing())",
    "adapter-extra": "logging.LoggerAdapter(log, {'__deepcopy__': print}).warning('x')",
    "make-log-record": "logging.makeLogRecord({'__deepcopy__': print})",
    "make-log-record-dict-key": "logging.makeLogRecord({'__dict__': {}})",
}
SPECIAL_KEY_TOOL = """
import logging

log = logging.getLogger("attack")


class Sly(str):
    def startswith(self, prefix):
        return False


class Changing:
    def __init__(self):
        self.calls = 0

    def keys(self):
        self.calls += 1
        return ["fine"] if self.calls == 1 else ["__deepcopy__"]

    def __getitem__(self, key):
        return print

    def __iter__(self):
        return iter(self.keys())


def tool() -> str:
    SPELLING
    return "written"
"""


@pytest.mark.parametrize("spelling", SPECIAL_KEYS.values(), ids=SPECIAL_KEYS.keys())
def test_no_special_name_reaches_a_records_dict(rt: Runtime, spelling: str) -> None:
    result = attack(rt, SPECIAL_KEY_TOOL.replace("SPELLING", spelling))
    if result.success:  # the changing mapping was read once: its first answer, a public key
        assert spelling.endswith("Changing())")
        return
    assert_refused(rt, result)


FORMAT_WALKS = {
    "traceback-frame": "{exc_info[2].tb_frame.f_globals}",
    "message-class-mro": "{msg.__class__.__mro__}",
    "args-init-globals": "{args[0].__init__.__globals__}",
    "nested-spec": "{msg:{msg.__class__}}",
    "levelname-private": "{levelname._x}",
}
FORMAT_TOOL = """
import logging


class Own(logging.Formatter):
    def retarget(self, fmt):
        self._style = type(self._style)(fmt)


def tool() -> str:
    handler = logging.StreamHandler()
    formatter = MAKE
    handler.setFormatter(formatter)
    log = logging.getLogger("walk")
    log.addHandler(handler)
    try:
        raise KeyError("k")
    except KeyError:
        log.error("x %s", handler, exc_info=True)
    return "done"
"""
FORMATTERS = {
    "formatter": "logging.Formatter(FMT, style='{')",
    "formatter-unvalidated": "logging.Formatter(FMT, style='{', validate=False)",
    "own-style-swapped": "Own('{message}', style='{'); formatter.retarget(FMT)",
}


@pytest.mark.parametrize("make", FORMATTERS.values(), ids=FORMATTERS.keys())
@pytest.mark.parametrize("fmt", FORMAT_WALKS.values(), ids=FORMAT_WALKS.keys())
def test_brace_style_formats_walk_no_attribute_past_the_guards(rt: Runtime, make: str, fmt: str) -> None:
    source = FORMAT_TOOL.replace("MAKE", make.replace("FMT", repr(fmt)))
    result = attack(rt, source)
    if not result.success:  # refused where the format was built (CPython's own validation, or the guards)
        assert_refused(rt, result, ("policy", "tool_error"))
        return
    assert "--- Logging error ---" in result.logs  # the guards refused the field while emitting
    for leak in ("<frame", "__builtins__", "<module", "<class 'object'>", "function", PACKAGE_DIR):
        assert leak not in result.logs


def test_basic_config_brace_format_walks_nothing(rt: Runtime) -> None:
    source = """
import logging
logging.basicConfig(format="{msg.__class__.__mro__}", style="{")


def tool() -> str:
    logging.warning("x")
    return "done"
"""
    result = attack(rt, source)
    assert result.success
    assert "--- Logging error ---" in result.logs and "<class 'object'>" not in result.logs


RECORD_TOOL = """
import logging
import heapq


class Keep(logging.Handler):
    def emit(self, record):
        self.kept.append(record)


keep = Keep()
keep.kept = []
log = logging.getLogger("records")
log.addHandler(keep)
log.propagate = False


def tool() -> dict:
    def inner():
        log.warning("stack", stack_info=True)

    inner()
    try:
        {}["missing"]
    except KeyError:
        log.exception("caught")
    log.warning("far", stacklevel=50)
    for _ in heapq.merge([object()], key=log.warning):
        pass
    first, second, third, fourth = keep.kept
    return {
        "stack": first.stack_info,
        "exc_info_traceback": repr(second.exc_info[2]),
        "exc_info_value": repr(second.exc_info[1]),
        "formatted": keep.format(second),
        "far": [third.pathname, third.funcName, third.lineno],
        "library_made": [fourth.pathname, fourth.msg, fourth.args],
        "caller": [first.pathname, first.filename, first.module, first.funcName, first.lineno],
    }
"""


def _line(source: str, text: str) -> int:
    """The line number of the first line of ``source`` holding ``text``."""
    return next(number for number, line in enumerate(source.splitlines(), 1) if text in line)


def test_records_hold_no_traceback_and_name_only_the_tools_frames(rt: Runtime) -> None:
    result = attack(rt, RECORD_TOOL)
    assert result.success, result.error
    out = result.output
    assert out["exc_info_traceback"] == "None"
    assert out["exc_info_value"] == "KeyError('missing')"
    assert out["formatted"].startswith("caught\nTraceback (most recent call last):\n")
    assert f'File "tool.py", line {_line(RECORD_TOOL, "{}[")}, in tool' in out["formatted"]
    assert out["formatted"].endswith("KeyError: 'missing'")
    assert out["stack"].startswith("Stack (most recent call last):\n")
    assert f'File "tool.py", line {_line(RECORD_TOOL, "    inner()")}, in tool' in out["stack"]
    assert f'File "tool.py", line {_line(RECORD_TOOL, "stack_info=True")}, in inner' in out["stack"]
    assert out["far"] == ["(unknown file)", "(unknown function)", 0]
    # made by heapq's code, not the tool's: its message is text, its arguments gone
    assert out["library_made"][0] == "(unknown file)" and out["library_made"][2] == []
    assert out["caller"] == ["tool.py", "tool.py", "tool", "inner", _line(RECORD_TOOL, "stack_info=True")]
    for text in (out["stack"], out["formatted"], result.logs):
        assert PACKAGE_DIR not in text and "sandbox" not in text and "<tool>" not in text


def test_handler_streams_are_the_calls_log_not_the_processes(rt: Runtime) -> None:
    source = """
import logging, sys
logging.basicConfig()


def tool() -> list:
    handler = logging.StreamHandler()
    again = type(logging.root.handlers[0])()
    again.handle(logging.makeLogRecord({"msg": "into the log", "levelno": 40}))
    return [repr(logging.root.handlers[0].stream), repr(handler.stream), handler.stream is sys.stderr, repr(again.stream)]
"""
    result = attack(rt, source)
    assert result.success, result.error
    stderr = "<toolpen stream <stderr>>"
    assert result.output == [stderr, stderr, True, stderr]
    assert result.logs == "into the log\n"


SUBPROCESS_CALLS = {
    "run-list": "subprocess.run(['ls', '-l'], check=True)",
    "run-shell": "subprocess.run('ls -l', shell=True)",
    "popen": "subprocess.Popen(['sh', '-c', 'id'])",
    "popen-keyword": "subprocess.Popen(args=['sh'])",
    "check-output": "subprocess.check_output(['id'])",
    "check-call": "subprocess.check_call(['id'])",
    "call": "subprocess.call('id', shell=True)",
    "getoutput": "subprocess.getoutput('id')",
    "getstatusoutput": "subprocess.getstatusoutput('id')",
}
SUBPROCESS_TOOL = """
import subprocess


def tool() -> list:
    try:
        CALL
    except (subprocess.SubprocessError, OSError) as error:
        return [type(error).__name__, error.errno, isinstance(error, PermissionError), str(error)]
    return ["started"]
"""


@pytest.mark.parametrize("call", SUBPROCESS_CALLS.values(), ids=SUBPROCESS_CALLS.keys())
def test_every_subprocess_call_fails_as_a_jailed_fork(rt: Runtime, call: str) -> None:
    result = attack(rt, SUBPROCESS_TOOL.replace("CALL", call))
    assert result.success, result.error
    name, number, permission, text = result.output
    assert (name, number, permission) == ("PermissionError", 1, True)
    assert text.startswith("[Errno 1] Operation not permitted: the sandbox forbids starting processes")


def test_an_uncaught_subprocess_failure_is_a_tool_error_naming_the_line(rt: Runtime) -> None:
    result = attack(
        rt, "import subprocess\n\n\ndef tool() -> str:\n    return subprocess.check_output(['id'])\n"
    )
    assert not result.success and result.error is not None
    assert result.error.kind == "tool_error"
    assert "PermissionError" in result.error.message and "line 5" in result.error.message


SUBPROCESS_REACHES = {
    "run-globals": "subprocess.run.__globals__",
    "popen-init-globals": "subprocess.Popen.__init__.__globals__",
    "internals": "subprocess._posixsubprocess",
    "os": "subprocess.os",
}


@pytest.mark.parametrize("spelling", SUBPROCESS_REACHES.values(), ids=SUBPROCESS_REACHES.keys())
def test_subprocess_view_hands_out_no_module_or_globals(rt: Runtime, spelling: str) -> None:
    assert_refused_when_added_or_called(
        rt, f"import subprocess\n\n\ndef tool() -> str:\n    return repr({spelling})\n"
    )


STAND_IN_TRACEBACKS = {
    "format-exception": "logging.Formatter().formatException((KeyError, KeyError('k'), Tb()))",
    "exc-info-tuple": "emit(exc_info=(KeyError, KeyError('k'), Tb()))",
    "exc-info-non-exception": "logging.Formatter().formatException((KeyError, Tb(), Tb()))",
    "group-answering-stand-ins": "logging.Formatter().formatException((None, Group('g', [KeyError()]), None))",
}
STAND_IN_TOOL = """
import io
import logging


def tool() -> list:
    return [SPELLING, walked]


walked = []


class Code:
    co_filename = "HOST_FILE"
    co_name = "read"

    def co_positions(self):
        walked.append("walked")
        return iter([(1, 1, 0, 10)] * 8)


class Frame:
    f_code = Code()
    f_globals = {}
    f_locals = {}
    f_lineno = 1


class Tb:
    tb_frame = Frame()
    tb_lineno = 1
    tb_lasti = 0
    tb_next = None


class Member:
    def __init__(self):
        self.note = Tb()


class Group(ExceptionGroup):
    @property
    def exceptions(self):
        return (Member(),)


def emit(**kwargs):
    text = io.StringIO()
    log = logging.getLogger("stand-in")
    log.addHandler(logging.StreamHandler(text))
    log.error("x", **kwargs)
    return text.getvalue()
"""


@pytest.mark.parametrize("spelling", STAND_IN_TRACEBACKS.values(), ids=STAND_IN_TRACEBACKS.keys())
def test_a_stand_in_traceback_is_never_walked(rt: Runtime, spelling: str) -> None:
    host_file = f"{PACKAGE_DIR}/sandbox/language/rules.py"  # its first line would show if read
    source = STAND_IN_TOOL.replace("HOST_FILE", host_file).replace("SPELLING", spelling)
    result = attack(rt, source)
    if not result.success:
        assert_refused(rt, result, ("policy", "tool_error"))
        return
    text, walked = result.output
    assert walked == []  # traceback never walked the stand-in: no file named by it was read
    assert "language wall" not in text and host_file not in text
