"""After the zygote's warm-up a worker imports nothing and reads no code from disk.

The zygote's preparation (``install_process_hooks``, ``warmup.preload``, ``run_warm_up``) and its
warm-up of each tool of the compatibility corpus (``warmup.preload_for``: numpy and
protobuf for the tools importing them) run in a fresh interpreter; then every tool runs there as
a worker runs it, under an audit hook that records each module import and each file opened
(code, or data such as a time zone). A real pool loads numpy only once a tool importing it is
warmed; a worker that reaches it otherwise imports it itself.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest

from runtime import Runtime
from sandbox.bridges.ces_context import uses_model_classes
from sandbox.common.limits import Limits
from sandbox.language.module_allowlist import ALLOWED_MODULES
from sandbox.messages import Call
from sandbox.process.pool import WorkerPool
from sandbox.process.warm_tools import STANDARD_LIBRARY
from sandbox.process.warmup import modules_needed
from tests.compat.reference import DEFAULT_USER_CONTENT, INVOCATION_ID, corpus, run_in_cpython

SCRIPT = """
import json, sys
from sandbox.language.namespace import install_process_hooks
from sandbox.process.warmup import preload, preload_for
from sandbox.process.worker import run_warm_up

jobs = json.loads(sys.stdin.read())
install_process_hooks()
preload()
run_warm_up()
core = sorted(name for name in sys.modules if name.partition(".")[0] in ("numpy", "pydantic", "pydantic_core")
              or name.startswith("google.protobuf"))
for job in jobs:
    preload_for(job["source"])
before = set(sys.modules)
seen = []

def audit(event, args):
    if event in ("import", "open"):
        seen.append(f"{event} {args[0]}")

sys.addaudithook(audit)
failed = []
for job in jobs:
    try:
        run_warm_up(job)
    except Exception as error:
        failed.append(f"{job['entry']}: {type(error).__name__}: {error}")
print(json.dumps({"new_modules": sorted(set(sys.modules) - before), "seen": seen, "failed": failed, "core": core}))
"""


def test_a_worker_imports_nothing_after_the_warm_up() -> None:
    tools = corpus()
    jobs = [
        {
            "source": tool.source,
            "entry": tool.name,
            "args": tool.args,
            "context": {
                "state": {},
                "user_content": DEFAULT_USER_CONTENT,
                "invocation_id": INVOCATION_ID,
                **tool.context,
            },
        }
        for tool in tools
    ]
    # the tools that raise in plain CPython too, and those that call other tools (no host here)
    expected = {tool.name for tool in tools if tool.tools or run_in_cpython(tool).error}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], input=json.dumps(jobs), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert {failure.partition(":")[0] for failure in report["failed"]} == expected
    assert report["new_modules"] == []
    assert report["seen"] == []
    assert report["core"] == []  # pydantic, numpy and protobuf only with the tools needing them


LIBRARIES_LOADED = """
import sys


def libraries_loaded() -> list:
    return sorted({name.partition(".")[0] for name in sys.modules if name.partition(".")[0] == "numpy"}
                  | {"protobuf" for name in sys.modules if name.startswith("google.protobuf")})
"""
"""Under ``walls="process"`` a worker sees the modules of the zygote it was forked from."""
NUMPY_TOOL = 'import numpy as np\n\ndef total(n: int) -> float:\n    """Sums."""\n    return float(np.arange(n).sum())\n'
PROTOBUF_TOOL = (
    "from google.protobuf import struct_pb2\n\ndef packed(n: int) -> dict:\n"
    '    """Packs."""\n    message = struct_pb2.Struct()\n    message.update({"n": n})\n    return {"n": message["n"]}\n'
)
DYNAMIC_NUMPY = (
    "import importlib\n\ndef dynamic(n: int) -> float:\n"
    '    """Imports numpy by name."""\n    return float(importlib.import_module("numpy").arange(n).sum())\n'
)
needs_libraries = pytest.mark.skipif(
    not {"numpy", "google.protobuf"} <= ALLOWED_MODULES, reason="the ces extra is not installed"
)


def _loaded(pool: WorkerPool) -> list[str]:
    job = {"source": LIBRARIES_LOADED, "entry": "libraries_loaded", "args": {}, "walls": "process"}
    reply = pool.run(Call.from_dict(job), Limits(), _no_rpc)
    assert reply.success, reply.error
    return reply.output


def _no_rpc(target: str, method: str, params: dict) -> None:
    raise AssertionError("no host call expected")


@pytest.mark.parametrize(
    ("source", "modules"),
    [
        ("import numpy\n", {"numpy"}),
        ("import numpy.linalg as la\n", {"numpy"}),
        ("from numpy.random import default_rng\n", {"numpy"}),
        ("def f():\n    from numpy import arange\n", {"numpy"}),
        ("import google.protobuf.struct_pb2\n", {"google.protobuf"}),
        ("from google.protobuf import json_format\n", {"google.protobuf"}),
        ("from google import protobuf\n", {"google.protobuf"}),
        (
            "import json, numpy as np\nfrom google.protobuf import any_pb2\n",
            {"json", "numpy", "google.protobuf"},
        ),
        ("import socket\nimport numpyish\nfrom .numpy import x\n", set()),
        ("import os\nfrom pathlib import Path\n", {"os", "os.path", "pathlib"}),
        ("import urllib\n", {"urllib.parse"}),
        ("from collections import abc\n", {"collections", "collections.abc"}),
        ("from xml import etree\n", {"xml.etree.ElementTree"}),
        ("def f():\n    import datetime as dt, zoneinfo\n", {"datetime", "zoneinfo"}),
        ("x = 'import numpy'\n", set()),
        ("import numpy(\n", set()),  # not Python: nothing to load, the call reports the error
    ],
)
@needs_libraries
def test_the_modules_a_source_imports_are_read_from_its_import_statements(source: str, modules: set) -> None:
    assert modules_needed(source) == modules


@pytest.fixture(params=["all", "process"])
def walls(request: pytest.FixtureRequest) -> str:
    return request.param


@needs_libraries
def test_a_pool_loads_numpy_and_protobuf_only_once_a_tool_imports_them(walls: str) -> None:
    with WorkerPool(size=2) as pool:
        pool.warm('def plain(n: int) -> int:\n    """Plain."""\n    return n\n', walls)
        assert _loaded(pool) == []
        pool.warm(NUMPY_TOOL, walls)
        assert _loaded(pool) == ["numpy"]
        reply = pool.run(
            Call.from_dict({"source": NUMPY_TOOL, "entry": "total", "args": {"n": 4}, "walls": walls}),
            Limits(),
            _no_rpc,
        )
        assert reply.output == 6.0, reply.error
        pool.warm(PROTOBUF_TOOL, walls)
        assert _loaded(pool) == ["numpy", "protobuf"]


@needs_libraries
def test_a_pool_warms_a_source_it_runs_for_the_first_time(walls: str) -> None:
    with WorkerPool(size=1) as pool:
        job = {"source": NUMPY_TOOL, "entry": "total", "args": {"n": 5}, "walls": walls}
        reply = pool.run(Call.from_dict(job), Limits(), _no_rpc)
        assert reply.output == 10.0, reply.error
        assert _loaded(pool) == ["numpy"]  # in the zygote: its worker imported nothing


@needs_libraries
def test_a_restarted_zygote_loads_again_what_its_tools_import() -> None:
    with Runtime(store="memory://", pool_size=1) as runtime:
        runtime.add_tool(NUMPY_TOOL)
        assert _loaded(runtime.pool) == ["numpy"]
        runtime.pool.kill_zygote_for_test()
        assert runtime.call("total", {"n": 5}).output == 10.0
        assert _loaded(runtime.pool) == ["numpy"]


PROTOBUF_CALLBACK = (
    "from google.protobuf import struct_pb2\n\n\n"
    "def after_tool_callback(tool, input, callback_context, tool_response):\n"
    "    message = struct_pb2.Struct()\n    message.update({'n': tool_response})\n"
    "    return {'n': message['n']}\n"
)


@needs_libraries
def test_a_callback_is_warmed_as_a_tool_is() -> None:
    with Runtime(store="memory://", pool_size=1) as runtime:
        runtime.add_tool(NUMPY_TOOL)
        runtime.add_callback(PROTOBUF_CALLBACK)
        assert _loaded(runtime.pool) == ["numpy", "protobuf"]
        assert runtime.call("total", {"n": 4}).output == {"n": 6.0}


@pytest.fixture
def plain_runtime() -> Iterator[Runtime]:
    with Runtime(store="memory://", walls="process", pool_size=1) as runtime:
        yield runtime


@needs_libraries
def test_a_tool_reaching_numpy_without_an_import_statement_imports_it_in_its_worker(
    plain_runtime: Runtime,
) -> None:
    plain_runtime.add_tool(DYNAMIC_NUMPY)
    assert _loaded(plain_runtime.pool) == []
    for n in (3, 4):  # each in a worker of its own, which reads numpy from disk
        result = plain_runtime.call("dynamic", {"n": n})
        assert result.success, result.error
        assert result.output == n * (n - 1) / 2


PYDANTIC_LOADED = """
import sys


def pydantic_loaded() -> bool:
    return "pydantic" in sys.modules
"""
PART_TOOL = 'def part(text: str) -> dict:\n    """A part."""\n    return Part(text=text).to_json()\n'


def _pydantic_loaded(pool: WorkerPool) -> bool:
    job = {"source": PYDANTIC_LOADED, "entry": "pydantic_loaded", "args": {}, "walls": "process"}
    reply = pool.run(Call.from_dict(job), Limits(), _no_rpc)
    assert reply.success, reply.error
    return reply.output


def test_a_pool_loads_pydantic_only_once_a_tool_needs_it(walls: str) -> None:
    with WorkerPool(size=1) as pool:
        pool.warm('def plain(n: int) -> int:\n    """Plain."""\n    return n\n', walls)
        assert _pydantic_loaded(pool) is False
        pool.warm(PART_TOOL, walls)
        assert _pydantic_loaded(pool) is True
        reply = pool.run(
            Call.from_dict({"source": PART_TOOL, "entry": "part", "args": {"text": "a"}, "walls": walls}),
            Limits(),
            _no_rpc,
        )
        assert reply.output == {"text": "a"}, reply.error


@pytest.mark.parametrize(
    ("source", "needed"),
    [
        ("def f() -> dict:\n    return Part(text='x').to_json()\n", True),
        ("def f() -> str:\n    return context.user_content.role\n", True),
        ("def f() -> int:\n    return len(context.events)\n", True),
        ("from pydantic import BaseModel\n", True),
        ("def before_model_callback(callback_context, llm_request):\n    return None\n", True),
        ("def after_tool_callback(tool, input, tool_context, tool_response):\n    return None\n", True),
        ("def f(x: 'list[Content]') -> None:\n    return None\n", True),
        ('def f() -> int:\n    """Tool that counts the Parts of an Event."""\n    return 1\n', False),
        ("def f(n: int) -> int:\n    return context.state.get('n', n)\n", False),
    ],
)
def test_pydantic_is_needed_where_the_code_names_what_is_built_on_it(source: str, needed: bool) -> None:
    assert ("pydantic" in modules_needed(source)) is needed


@pytest.mark.parametrize(
    ("source", "uses"),
    [
        ("def f():\n    return Part(text='x')\n", True),
        ("from pydantic import BaseModel\nclass M(BaseModel):\n    p: 'Part'\n", True),
        ("def f():\n    return globals()['Part']\n", True),
        ("def f():\n    return context.user_content\n", False),
        ("def f():\n    raise StatusError('x')\n", False),
    ],
)
def test_a_tool_gets_the_ces_model_classes_where_its_code_names_one(source: str, uses: bool) -> None:
    assert uses_model_classes(source) is uses


REACH_USER_CONTENT = (
    "def peek() -> list:\n"
    '    """Reads context.user_content without naming it."""\n'
    "    content = getattr(context, 'user_' + 'content')\n"
    "    return [type(content).__name__, content.role, content.to_json()]\n"
)
ANNOTATED_MODEL = (
    "from pydantic import BaseModel\n\n\nclass Message(BaseModel):\n    part: 'Part'\n\n\n"
    'def wrap(text: str) -> dict:\n    """Wraps."""\n    return Message(part={"text": text}).model_dump()\n'
)


def test_a_tool_reaching_the_ces_classes_without_naming_them_loads_them_only_under_the_process_wall(
    walls: str,
) -> None:
    with Runtime(store="memory://", walls=walls, pool_size=1) as runtime:
        runtime.add_tool(REACH_USER_CONTENT)
        assert _pydantic_loaded(runtime.pool) is False
        result = runtime.call(
            "peek", {}, context={"user_content": {"role": "user", "parts": [{"text": "hi"}]}}
        )
        if walls == "process":  # that worker reads pydantic from disk; the zygote still has none
            assert result.output == ["Content", "user", {"role": "user", "parts": [{"text": "hi"}]}], (
                result.error
            )
        else:
            assert result.error is not None and result.error.kind == "policy"
            assert "in a way its source does not show" in result.error.message
        assert _pydantic_loaded(runtime.pool) is False


def test_a_model_annotated_with_a_ces_class_name_in_a_string_resolves_it(walls: str) -> None:
    with Runtime(store="memory://", walls=walls, pool_size=1) as runtime:
        runtime.add_tool(ANNOTATED_MODEL)
        result = runtime.call("wrap", {"text": "hi"})
        assert result.output == {"part": {"text": "hi"}} or result.output["part"]["text"] == "hi", (
            result.error
        )


STANDARD_MODULES_LOADED = """
import sys


def standard_modules_loaded() -> list:
    return sorted(name for name in ("statistics", "difflib", "html.entities", "_strptime", "zoneinfo") if name in sys.modules)
"""


def _standard_modules_loaded(pool: WorkerPool) -> list[str]:
    job = {
        "source": STANDARD_MODULES_LOADED,
        "entry": "standard_modules_loaded",
        "args": {},
        "walls": "process",
    }
    reply = pool.run(Call.from_dict(job), Limits(), _no_rpc)
    assert reply.success, reply.error
    return reply.output


def test_a_pool_loads_a_module_of_the_standard_library_only_once_a_tool_imports_it() -> None:
    with WorkerPool(size=2) as pool:
        pool.warm('def plain(n: int) -> int:\n    """Plain."""\n    return n\n', "all")
        assert _standard_modules_loaded(pool) == []
        tool = "import statistics\nfrom datetime import datetime\n\ndef mean(values: list[float]) -> float:\n    return statistics.mean(values)\n"
        reply = pool.run(
            Call.from_dict({"source": tool, "entry": "mean", "args": {"values": [1, 2]}}), Limits(), _no_rpc
        )
        assert reply.output == 1.5, reply.error
        assert _standard_modules_loaded(pool) == [
            "_strptime",
            "statistics",
        ]  # datetime.strptime's, with datetime


DATETIME_FROM_PYDANTIC = """
from pydantic import AwareDatetime, BaseModel


class Stamp(BaseModel):
    when: AwareDatetime


def reparse(text: str) -> list:
    when = Stamp(when="2024-01-02T03:04:05Z").when
    return [when.isoformat(), when.strptime(text, "%Y-%m-%d").isoformat()]
"""


def test_strptime_on_a_datetime_a_tool_did_not_import_datetime_for_gets_what_cpython_gives() -> None:
    # the zygote loads _strptime with datetime and time, which this source does not name: the
    # worker imports it, from disk, under the checks, when datetime's C code asks for it
    with Runtime(store="memory://", pool_size=1) as runtime:
        runtime.add_tool(DATETIME_FROM_PYDANTIC)
        assert "_strptime" not in _standard_modules_loaded(runtime.pool)
        for _ in range(2):
            result = runtime.call("reparse", {"text": "2024-02-03"})
            assert result.success, result.error
            assert result.output == ["2024-01-02T03:04:05+00:00", "2024-02-03T00:00:00"]


EVERY_WARM_UP = """
from sandbox.language.module_allowlist import ALLOWED_MODULES
from sandbox.language.namespace import install_process_hooks
from sandbox.process.warmup import _load, modules_needed, preload

install_process_hooks()
preload()
install_process_hooks(worker=True)  # armed, as in the zygote
needed = modules_needed("\\n".join(f"import {name}" for name in sorted(ALLOWED_MODULES)))
for name in sorted(needed):
    _load(name)  # raises, where preload_for goes on to the next module
print(len(needed))
"""


def test_every_module_a_tool_may_import_loads_and_warms_up_under_the_checks() -> None:
    # preload_for goes on past a module that fails to load (its calls fail): a warm-up tool that broke
    # would only make that module's calls slower, so each is run here, where a failure shows
    done = subprocess.run([sys.executable, "-c", EVERY_WARM_UP], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) >= len(STANDARD_LIBRARY)
