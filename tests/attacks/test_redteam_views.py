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


SCRATCH_SIZE_SPELLINGS_KEPT_OPEN = {  # 30 MiB held at once: the second file is past the limit
    "removed-files-kept-open": "kept = []\n    try:\n        for name in 'abcde':\n            f = open(name, 'wb')\n"
    "            f.write(b'x' * (6 * MiB))\n            f.flush()\n            os.remove(name)\n"
    "            kept.append(f)\n    except OSError as error:\n        return str(error)\n    return 'held past the limit'",
    "replaced-files-kept-open": "kept = []\n    try:\n        for _ in range(5):\n            f = open('a', 'wb')\n"
    "            f.write(b'x' * (6 * MiB))\n            f.flush()\n            open('b', 'wb').close()\n"
    "            os.replace('b', 'a')\n            kept.append(f)\n    except OSError as error:\n        return str(error)\n"
    "    return 'held past the limit'",
    "copied-stream-closed": "import copy\n    kept = []\n    try:\n        for name in 'abcde':\n"
    "            f = open(name, 'wb', buffering=0)\n            f.write(b'x' * (6 * MiB))\n            os.remove(name)\n"
    "            copy.copy(f).close()\n            kept.append(f)\n    except (OSError, TypeError) as error:\n"
    "        return str(error) + ' Limits.scratch_size'\n    return 'held past the limit'",
}
SCRATCH_SIZE_SPELLINGS |= SCRATCH_SIZE_SPELLINGS_KEPT_OPEN


@pytest.mark.parametrize("spelling", SCRATCH_SIZE_SPELLINGS.values(), ids=SCRATCH_SIZE_SPELLINGS.keys())
def test_the_scratch_size_holds_whatever_truncate_is_given(rt: Runtime, spelling: str) -> None:
    """``Limits.scratch_size`` is kept by accounting: a negative size, or a file truncated after it
    left the tree (removed or replaced while open), took bytes off the count that were never on it,
    and a file removed while open took its bytes off the count while it still held them (the memory
    limit still held: the bytes are in the worker's memory)."""
    result = attack(rt, SCRATCH_SIZE_BYPASS.replace("SPELLING", spelling))
    assert result.success, result.error
    assert "Limits.scratch_size" in result.output


LOGGING_REACHES = {
    "own-logger-makerecord-traceback-frame": "getattr(Sub('s').caught(), 'tb_frame')",
    "own-logger-makerecord-traceback-next": "getattr(Sub('s').caught(), 'tb_next')",
    "own-formatter-style-private": "Own('%(message)s').style()._fmt",
    "own-formatter-style-vars": "vars(Own('%(message)s').style())",
    "own-formatter-style-format": "Own('{message}', style='{').style().format",
    "own-formatter-style-class-attribute": "type(Own('{message}', style='{').style()).validation_pattern",
    "root-logger-class-made-manager": "type(logging.root)(10).manager",
    "adapter-manager-property": "logging.LoggerAdapter(logging.getLogger('a'), {}).manager",
    "deep-copied-logger-manager": "copy.deepcopy(logging.getLogger('a')).manager",
    "logger-class-dict": "vars(logging.Logger)",
    "call-log-stream-write-globals": "getattr(type(logging.StreamHandler().stream).write, '__glo' + 'bals__')",
    "module-lock": "logging._lock",
    "manager-class": "logging.Manager",
    "placeholder-class": "logging.PlaceHolder",
    "type-of-logger-manager": "type(logging.getLogger('a')).manager",
    "type-of-logger-root": "type(logging.getLogger('a')).root",
    "getattr-type-of-root-manager": "getattr(type(logging.root), 'manager')",
    "child-parent-manager": "logging.root.getChild('x').parent.manager",
    "super-of-host-logger": "super(logging.Logger, logging.root).manager",
    "record-class-dict": "type(logging.makeLogRecord({})).__dict__",
    "logger-class-dict-entry": "vars(type(logging.root))['manager']",
    "handler-lock-private": "logging.Handler().lock._release_save",
    "brace-walk-of-a-held-traceback": (
        "logging.Formatter('{exc_info[2].tb_frame.f_globals}', style='{', validate=False)"
        ".format(logging.LogRecord('n', 40, 'p', 1, 'm', (), (KeyError, KeyError(), Sub('s').caught())))"
    ),
}
LOGGING_REACH_TOOL = """
import copy
import logging


class Sub(logging.Logger):
    def makeRecord(self, name, level, fn, lno, msg, args, exc_info, func=None, extra=None, sinfo=None):
        self.held = exc_info  # Logger._log hands makeRecord sys.exc_info(): a real traceback
        return logging.LogRecord(name, level, fn, lno, msg, args, None)

    def caught(self):
        try:
            {}["k"]
        except KeyError:
            self.exception("x")
        return self.held[2]


class Own(logging.Formatter):
    def style(self):
        return self._style


class Keep(logging.Handler):
    def emit(self, record):
        pass


def tool() -> str:
    return repr(SPELLING)
"""


@pytest.mark.parametrize("spelling", LOGGING_REACHES.values(), ids=LOGGING_REACHES.keys())
def test_logging_subclasses_and_held_objects_reach_no_internals(rt: Runtime, spelling: str) -> None:
    """The tool's own subclasses of logging's classes read what logging's code stored in them (a
    formatter's style object, the real traceback ``Logger._log`` hands ``makeRecord``); past them
    nothing: a frame, a class's namespace, a host function's globals."""
    assert_refused_when_added_or_called(rt, LOGGING_REACH_TOOL.replace("SPELLING", spelling))


SUBPROCESS_ROUTES = {
    "popen-init-on-own-object": "subprocess.Popen.__init__(Own(), ['id'])",
    "own-popen-subclass": "Mine(['id'])",
    "own-popen-subclass-super-init": "Chained(['id'])",
    "popen-execute-child": "getattr(subprocess.Popen, '_execute_child')",
    "popen-new": "subprocess.Popen.__new__(subprocess.Popen)",
    "run-wrapped": "subprocess.run.__wrapped__",
    "completed-process-class-globals": "getattr(subprocess.CompletedProcess.check_returncode, '__glo' + 'bals__')",
}
SUBPROCESS_ROUTE_TOOL = """
import subprocess


class Own:
    pass


class Mine(subprocess.Popen):
    pass


class Chained(subprocess.Popen):
    def __init__(self, args):
        super().__init__(args, shell=False)


def tool() -> str:
    try:
        return repr(SPELLING)
    except PermissionError as error:
        return f"forbidden {error.errno}"
"""


@pytest.mark.parametrize("spelling", SUBPROCESS_ROUTES.values(), ids=SUBPROCESS_ROUTES.keys())
def test_subprocess_routes_start_no_process_and_reach_no_module(rt: Runtime, spelling: str) -> None:
    try:
        result = attack(rt, SUBPROCESS_ROUTE_TOOL.replace("SPELLING", spelling))
    except Exception as refused:  # noqa: BLE001 - refused at add_tool
        assert "not" in str(refused)
        return
    if result.success:  # the call reached the view's Popen: the jailed fork's error
        assert result.output == "forbidden 1", result.output
        return
    assert_refused(rt, result, ("policy", "tool_error"))


OUTSIDE_PATHS = {
    "open-proc-environ": "open('/proc/self/environ', 'rb').read()",
    "open-proc-mem-relative": "open('../proc/self/mem', 'rb').read(8)",
    "pathlib-etc-passwd": "pathlib.Path('/etc/passwd').read_text()",
    "pathlib-dotdot": "(pathlib.Path.cwd() / '..' / '..' / 'etc' / 'passwd').read_bytes()",
    "os-stat-passwd": "os.stat('/etc/passwd')",
    "os-listdir-proc-fd": "os.listdir('/proc/self/fd')",
    "os-scandir-root": "[entry.name for entry in os.scandir('/')]",
    "os-walk-root": "[top for top, dirs, files in os.walk('/')]",
    "exists-usr": "[os.path.exists(p) for p in ('/usr', '/etc', '/proc', '/dev/null', '/tmp/../etc')]",
    "os-read-stdin": "os.read(0, 10)",
    "os-fdopen-stderr": "os.fdopen(2, 'w').write('x')",
    "open-descriptor-one": "open(1, 'w').write('x')",
    "fstat-two": "os.fstat(2)",
    "mkstemp-in-etc": "tempfile.mkstemp(dir='/etc')",
    "named-temporary-prefix-escape": "tempfile.NamedTemporaryFile(prefix='../etc/x')",
    "chdir-up": "os.chdir('/tmp/../..')",
    "rename-scratch-itself": "os.rename('/tmp', '/tmp2')",
    "rename-out": "open('/tmp/a', 'w').close() or os.rename('/tmp/a', '/a')",
    "makedirs-outside": "os.makedirs('/opt/x/y')",
    "temporary-directory-renamed-root": "cleaned(tempfile.TemporaryDirectory())",
    "expandvars-host-path": "os.path.expandvars('$PATH $HOME $USER') + os.path.expanduser('~root')",
    "environ-host": "dict(os.environ) or os.getenv('PATH') or 'empty'",
    "realpath-proc-cwd": "os.path.realpath('/proc/self/cwd') and open('/proc/self/cwd/pyproject.toml').read()",
    "zoneinfo-host-file": "zoneinfo.ZoneInfo('../../../etc/passwd')",
}
OUTSIDE_TOOL = """
import os
import pathlib
import tempfile
import zoneinfo


def tool() -> str:
    try:
        return repr(SPELLING)
    except (OSError, ValueError) as error:
        return f"refused {type(error).__name__}: {error}"


def cleaned(directory):
    directory.name = "/"
    directory.cleanup()
    return os.listdir("/")
"""


@pytest.mark.parametrize("spelling", OUTSIDE_PATHS.values(), ids=OUTSIDE_PATHS.keys())
def test_the_file_views_see_nothing_outside_the_calls_scratch_directory(rt: Runtime, spelling: str) -> None:
    """No path, descriptor or variable names anything of the worker's file system or environment:
    an error as CPython gives it for a missing file, or only the scratch tree (``/`` holds ``tmp``)."""
    try:
        result = attack(rt, OUTSIDE_TOOL.replace("SPELLING", spelling))
    except Exception as refused:  # noqa: BLE001 - refused at add_tool
        assert "not" in str(refused)
        return
    if not result.success:
        assert_refused(rt, result, ("policy", "tool_error"))
        return
    text = result.output
    for leak in ("root:", "/usr", "/bin", "PYTHON", "[project]", "'proc'", "'etc'", "TZif", *LEAKS):
        assert leak not in text.replace("'/tmp/../etc'", ""), text
    assert text.startswith("refused") or text in (
        "[False, False, False, False, False]",
        "['tmp']",
        "['/', '/tmp']",
        "' /tmp /tmp~root'",
        "'$PATH $HOME $USER~root'",
        "'empty'",
    ), text


SHADOWED_RAW = """
kept = []


def tool() -> list:
    with open("a", "wb") as file:
        file.write(b"Z" * 100)
    FILE
    try:
        SHADOW
    except (AttributeError, TypeError, PermissionError) as error:
        return ["refused", str(error)]
    CALL
    view = kept[0]
    before = bytes(view[:16])
    file.close()
    del file
    spray = [bytearray(b"Q" * 8192) for _ in range(50)]
    return [len(view), before.hex(), bytes(view[:16]).hex(), len(spray)]


def grab(buffer, *rest):
    kept.append(buffer.cast("B"))  # a cast outlives the buffered layer's own release of its view
    return 0
"""
SHADOW_SPELLINGS = {
    "reader-readinto-attribute": ("file = open('a', 'rb')", "file.raw.readinto = grab", "file.read(10)"),
    "reader-readinto-setattr": (
        "file = open('a', 'rb')",
        "setattr(file.raw, 'readinto', grab)",
        "file.read(10)",
    ),
    "text-reader-readinto": ("file = open('a', 'r')", "file.buffer.raw.readinto = grab", "file.read(1)"),
    "writer-write": ("file = open('a', 'wb')", "file.raw.write = grab", "file.write(b'x') and file.flush()"),
    "random-readinto": ("file = open('a', 'r+b')", "file.raw.readinto = grab", "file.read(10)"),
    "object-setattr": (
        "file = open('a', 'rb')",
        "object.__setattr__(file.raw, 'readinto', grab)",
        "file.read(10)",
    ),
    "vars-write": ("file = open('a', 'rb')", "vars(file.raw)['readinto'] = grab", "file.read(10)"),
    "class-write": ("file = open('a', 'rb')", "type(file.raw).readinto = grab", "file.read(10)"),
    "descriptor-fdopen-readinto": (
        "import os\n    file = os.fdopen(os.open('a', os.O_RDONLY), 'rb')",
        "file.raw.readinto = grab",
        "file.read(10)",
    ),
}


@pytest.mark.parametrize("spelling", SHADOW_SPELLINGS.values(), ids=SHADOW_SPELLINGS.keys())
def test_no_buffered_layer_hands_the_tool_a_view_of_its_own_buffer(
    rt: Runtime, spelling: tuple[str, str, str]
) -> None:
    """An instance attribute ``readinto`` (or ``write``) on a scratch file's raw stream is what
    CPython's buffered layer calls with a memoryview of its own buffer: a cast of it kept by the
    tool read the buffer's uninitialized bytes (heap addresses) and, after ``close`` freed it,
    whatever was allocated there next; writing through it crashed the worker (SIGSEGV). The fix
    (the raw stream's ``__setattr__``) stands with the guards' refusals of the other spellings."""
    open_file, shadow, call = spelling
    source = SHADOWED_RAW.replace("FILE", open_file).replace("SHADOW", shadow).replace("CALL", call)
    result = attack(rt, source)
    if not result.success:  # the guards refused the write itself
        assert_refused(rt, result)
        return
    assert result.output[0] == "refused", result.output


JAILED_AFTER_RAW_MEMORY = """
import os

kept = []


def tool() -> list:
    file = open(os.__file__, "rb")  # a file the jail shows (nothing may be created in it)
    file.raw.readinto = grab  # plain CPython: the real FileIO takes it, and the view with it
    file.read(10)
    heap = bytes(kept[0][:16]).hex()
    outcomes = []
    for target in (PACKAGE_DIR + "/pyproject.toml", "/etc/passwd", "/proc/1/environ"):
        try:
            outcomes.append(open(target, "rb").read(1).hex())
        except OSError as error:
            outcomes.append(type(error).__name__)
    try:
        open(PACKAGE_DIR + "/toolpen-red-team", "w").write("x")
        outcomes.append("written")
    except OSError as error:
        outcomes.append(type(error).__name__)
    return [len(heap), outcomes]


def grab(buffer, *rest):
    kept.append(buffer.cast("B"))
    return 0
"""


def test_the_process_wall_alone_holds_the_same_goals() -> None:
    """Under ``walls="process"`` the breaks above are plain CPython's (a kept view of the buffered
    layer's memory is CPython's own behaviour): what they were for, files outside the call and the
    worker's error path, is held by the jail and the worker."""
    with Runtime(store="memory://", walls="process") as runtime:
        crashed = attack(runtime, UNREADABLE_OUT.replace("SPELLING", "raise Out()"))
        assert crashed.error is not None and crashed.error.kind == "tool_error", crashed.error
        result = attack(runtime, JAILED_AFTER_RAW_MEMORY.replace("PACKAGE_DIR", repr(PACKAGE_DIR)))
        assert result.success, result.error
        heap, outcomes = result.output
        assert heap == 32  # the view was handed out: plain CPython
        assert outcomes == ["FileNotFoundError", "FileNotFoundError", "PermissionError", "PermissionError"]


def test_a_handler_over_a_scratch_file_hands_back_that_file(rt: Runtime) -> None:
    """Compatibility found while attacking: the check that keeps the process's own files from tool
    code refused the tool's own scratch file, of the same io classes, as ``handler.stream``."""
    source = """
import logging


def tool() -> list:
    handler = logging.StreamHandler(open("log.txt", "w"))
    logging.getLogger("scratch").addHandler(handler)
    logging.getLogger("scratch").warning("into the file")
    handler.stream.close()
    return [handler.stream.name, open("log.txt").read()]
"""
    result = attack(rt, source)
    assert result.success, result.error
    assert result.output == ["log.txt", "into the file\n"]


HOST_NAMED_TOOL = """
import io
import logging


def textwrap() -> list:
    text = io.StringIO()
    log = logging.getLogger("named")
    log.addHandler(logging.StreamHandler(text))
    try:
        {}["k"]
    except KeyError:
        log.exception("caught", stack_info=True)
    return [__file__, text.getvalue()]
"""


def test_a_tool_named_like_a_host_module_shows_its_own_source_lines(rt: Runtime) -> None:
    """``__file__`` is ``<entry>.py``: for a tool named ``textwrap`` that is the name of a file on
    ``sys.path`` (the standard library's), which ``linecache`` would read for a frame renamed to it.
    Tracebacks and stacks read the tool's lines (registered with linecache) before the frames are
    renamed, so no line of the host's ``textwrap.py`` shows."""
    result = attack(rt, HOST_NAMED_TOOL)
    assert result.success, result.error
    name, text = result.output
    assert name == "textwrap.py"
    assert 'File "textwrap.py", line 11, in textwrap' in text and '{}["k"]' in text
    assert 'log.exception("caught", stack_info=True)' in text
    shown = [line.strip() for line in text.splitlines() if line.startswith("    ") and line.strip("~^ ")]
    assert all(line in HOST_NAMED_TOOL for line in shown), shown


STAND_IN_METACLASS = {
    "type-of-type": "type(type(file))",
    "class-of-type": "type(file).__class__",
    "type-of-raw-type": "type(type(file.buffer.raw))",
    "type-of-buffer-type": "type(type(file.buffer))",
    "getattr-class": "getattr(type(file), '__cla' + 'ss__')",
}
STAND_IN_METACLASS_TOOL = """
import numpy as np


def tool() -> str:
    file = open("a", "w")
    meta = SPELLING
    interface = {"data": (id(file), False), "shape": (8,), "typestr": "|u1", "version": 3}
    return repr(np.asarray(meta("X", (), {"__array_interface__": interface})))
"""


@pytest.mark.parametrize("spelling", STAND_IN_METACLASS.values(), ids=STAND_IN_METACLASS.keys())
def test_the_file_stand_ins_hand_out_no_metaclass(rt: Runtime, spelling: str) -> None:
    """The stand-ins ``type(f)`` answers are classes of a metaclass of toolpen's: called with a
    namespace it would build a class whose dict C code reads (numpy's ``__array_interface__``)."""
    pytest.importorskip("numpy")
    assert_refused_when_added_or_called(rt, STAND_IN_METACLASS_TOOL.replace("SPELLING", spelling))


def test_named_temporary_files_take_every_mode_cpython_takes(rt: Runtime) -> None:
    """Compatibility found while attacking: ``NamedTemporaryFile(mode="r")`` (``"a"``, ``"r+"``,
    ``"rb"``) failed with ``KeyError: 'xr'``; CPython makes the file, then opens it with the mode."""
    source = """
import os
import tempfile


def tool() -> list:
    found = []
    for mode in ("r", "a", "r+", "rb", "w+b", "x"):
        with tempfile.NamedTemporaryFile(mode=mode) as file:
            found.append([mode, file.readable(), file.writable(), os.path.exists(file.name)])
        found.append(os.path.exists(file.name))
    return found
"""
    result = attack(rt, source)
    assert result.success, result.error
    assert result.output == [
        ["r", True, False, True], False,
        ["a", False, True, True], False,
        ["r+", True, True, True], False,
        ["rb", True, False, True], False,
        ["w+b", True, True, True], False,
        ["x", False, True, True], False,
    ]  # fmt: skip
