"""Typical logging and subprocess code, run by a fresh CPython and by toolpen: the same log, the same result.

The reference is a new interpreter per tool (logging's state is the process's), with stderr and
stdout joined, as a terminal shows them and as toolpen's call log holds them (``print`` and
logging's stderr in one text). It runs the tool as toolpen does: a module named like toolpen's
(``rules.TOOL_MODULE_NAME``, so logger names built from ``__name__`` compare), compiled from a
file named ``<entry>.py`` (``namespace.tool_file``: ``__file__``, ``%(filename)s``, tracebacks).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator

import pytest

from runtime import Runtime
from sandbox.language.namespace import tool_file
from sandbox.language.rules import TOOL_MODULE_NAME

DRIVER = """
import io, json, linecache, sys, types
source, entry, name = json.loads(sys.argv[1])
module = types.ModuleType(name)
module.__file__ = sys.argv[2]
linecache.cache[module.__file__] = (len(source), None, source.splitlines(True), module.__file__)
sys.modules[name] = module
log = io.StringIO()
sys.stdout = sys.stderr = log
try:
    exec(compile(source, module.__file__, "exec"), vars(module))
    outcome = {"output": vars(module)[entry]()}
except Exception as error:
    outcome = {"error": type(error).__name__}
sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
print(json.dumps(outcome | {"logs": log.getvalue()}))
"""

CASES: dict[str, str] = {
    "last-resort": """
import logging
logger = logging.getLogger(__name__)


def tool() -> str:
    print("before")
    logger.debug("hidden")
    logger.info("hidden too")
    logger.warning("low stock: %d left of %s", 3, "widgets")
    logger.error("failed for %r", {"id": 7})
    logger.critical("down")
    print("after")
    return "ok"
""",
    "basic-config-level-and-format": """
import logging
logging.basicConfig(level=logging.INFO, format="%(levelname)s [%(name)s] %(filename)s:%(lineno)d %(funcName)s: %(message)s")
logger = logging.getLogger(__name__)


def tool() -> int:
    logger.debug("hidden")
    logger.info("looking up %s", "order-1")
    logger.log(logging.WARNING, "slow: %.1fs", 2.5)
    return 1
""",
    "module-level-functions": """
import logging
logging.info("configures the root logger, shows nothing")


def tool() -> str:
    logging.warning("root warning")
    logging.getLogger().setLevel(logging.DEBUG)
    logging.debug("now shown %s", [1, 2])
    return logging.getLevelName(logging.WARNING)
""",
    "children-extra-and-own-handler": """
import logging

parent = logging.getLogger("shop")
handler = logging.StreamHandler()
handler.setFormatter(logging.Formatter("%(name)s|%(levelname)s|%(user)s|%(message)s"))
parent.addHandler(handler)
parent.setLevel(logging.DEBUG)
parent.propagate = False
child = parent.getChild("cart")


def tool() -> list:
    child.debug("added %s", "apple", extra={"user": "ana"})
    child.info("total %s", 3, extra={"user": "bo"})
    return [child.name, child.parent.name, child.getEffectiveLevel(), child.isEnabledFor(logging.DEBUG)]
""",
    "handler-filter-and-adapter-subclasses": """
import logging


class Collect(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines = []

    def emit(self, record):
        self.lines.append(self.format(record))


class AddRequest(logging.Filter):
    def filter(self, record):
        record.request = "req-1"
        return record.levelno >= logging.INFO


class Prefixed(logging.LoggerAdapter):
    def process(self, msg, kwargs):
        return f"[{self.extra['who']}] {msg}", kwargs


collect = Collect()
collect.setFormatter(logging.Formatter("%(request)s %(levelname)s %(message)s"))
collect.addFilter(AddRequest())
logger = logging.getLogger("svc")
logger.addHandler(collect)
logger.setLevel(logging.DEBUG)
logger.propagate = False


def tool() -> list:
    logger.debug("dropped by the filter")
    logger.info("kept %d", 1)
    Prefixed(logger, {"who": "agent"}).warning("adapted")
    logger.addFilter(lambda record: "secret" not in record.getMessage())
    logger.error("a secret")
    return collect.lines
""",
    "brace-and-dollar-styles": """
import logging

out = logging.getLogger("styles")
out.propagate = False
brace = logging.StreamHandler()
brace.setFormatter(logging.Formatter("{levelname:<8}|{name}|{message}", style="{"))
dollar = logging.StreamHandler()
dollar.setFormatter(logging.Formatter("$levelname-$message", style="$"))
out.addHandler(brace)
out.addHandler(dollar)


def tool() -> int:
    out.warning("twice %s", "shown")
    return len(out.handlers)
""",
    "exception-and-stack": """
import logging
logging.basicConfig(format="%(levelname)s:%(message)s")
logger = logging.getLogger(__name__)


def parse(text):
    return int(text)


def tool() -> str:
    try:
        parse("x")
    except ValueError:
        logger.exception("could not parse")
    try:
        {}["missing"]
    except KeyError as error:
        logger.error("lookup failed: %s", error, exc_info=True)
    logger.warning("where", stack_info=True)
    return "handled"
""",
    "subprocess-refused": """
import logging
import subprocess
logger = logging.getLogger(__name__)


def tool() -> str:
    try:
        subprocess.run(["git", "status"], check=True, capture_output=True)
    except (subprocess.SubprocessError, OSError) as error:
        logger.warning("no git: %s", type(error).__name__)
        return "fallback"
    return "ran"
""",
    "file-and-name": """
def tool() -> list:
    return [__file__, __name__ == "__main__"]
""",
}


def cpython(source: str, entry: str = "tool") -> dict[str, object]:
    """What a fresh CPython prints and returns for ``source`` (see the module docstring)."""
    argument = json.dumps([source, entry, TOOL_MODULE_NAME])
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, argument, tool_file(entry)], capture_output=True, text=True, check=True
    )
    outcome: dict[str, object] = json.loads(done.stdout)
    # the driver's own frame, above the tool's: toolpen's stack_info lists the tool's frames only
    outcome["logs"] = re.sub(r'  File "<string>", line \d+, in <module>\n', "", str(outcome["logs"]))
    return outcome


@pytest.fixture(scope="module")
def rt() -> Iterator[Runtime]:
    with Runtime(store="memory://", pool_size=1) as runtime:
        yield runtime


def _toolpen(rt: Runtime, source: str) -> dict[str, object]:
    rt.add_tool(source, "tool", replace=True)
    result = rt.call("tool", {})
    if not result.success:
        assert result.error is not None
        return {"error": result.error.message.partition(":")[0], "logs": result.logs}
    return {"output": result.output, "logs": result.logs}


@pytest.mark.parametrize("source", CASES.values(), ids=CASES.keys())
def test_logging_writes_the_calls_log_as_cpython_writes_stderr(rt: Runtime, source: str) -> None:
    expected = cpython(source)
    if "subprocess" in source:  # CPython here may fork: the refusal's branch is the sandbox's
        expected = {"output": "fallback", "logs": "no git: PermissionError\n"}
    assert _toolpen(rt, source) == expected
