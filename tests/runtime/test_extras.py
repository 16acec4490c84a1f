"""The core without the extras: a missing extra is one line and exit 2; the core runs without any.

Each test runs the real CLI in a subprocess in which the extras' modules are made missing the way
Python itself models it (``sys.modules[name] = None``: ``find_spec`` answers None, ``import``
raises ``ImportError``). `bench/bench_startup.py` does the same in a fresh venv with only the
core installed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from importlib.metadata import PackageNotFoundError, metadata, requires
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from runtime._extras import EXTRAS
from tests.conftest import ROOT, SAMPLES

EXTRA_MODULES = sorted({module for modules in EXTRAS.values() for module in modules} | {"psycopg_binary"})
HEAVY = ["numpy", "bm25s", "openapi_spec_validator", "jsonschema", "requests", "asyncio", "pydantic_settings"]

WITHOUT_EXTRAS = f"""
import sys
for name in {EXTRA_MODULES!r}:
    sys.modules[name] = None
"""


def core_toolpen(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`toolpen ARGS` with every extra missing."""
    code = WITHOUT_EXTRAS + "from runtime._cli import main\nmain()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=cwd, timeout=120
    )


def core_python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_EXTRAS + code], capture_output=True, text=True, cwd=cwd, timeout=120
    )


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["serve"], "toolpen serve needs the 'serve' extra: pip install 'toolpen[serve]'"),
        (
            ["mcp", str(SAMPLES / "get_customer.py")],
            "toolpen mcp needs the 'mcp' extra: pip install 'toolpen[mcp]'",
        ),
        (
            ["session", "list", "--store", "postgresql://u@127.0.0.1:1/db"],
            "a postgresql:// store needs the 'postgres' extra: pip install 'toolpen[postgres]'",
        ),
        (
            ["session", "list", "--store", "redis://127.0.0.1:1/0"],
            "a redis:// store needs the 'redis' extra: pip install 'toolpen[redis]'",
        ),
        (["web"], "toolpen web needs the 'serve' extra: pip install 'toolpen[serve]'"),
    ],
)
def test_a_missing_extra_is_one_line_and_exit_2(args: list[str], line: str, tmp_path: Path) -> None:
    done = core_toolpen(*args, cwd=tmp_path)
    assert (done.returncode, done.stderr) == (2, line + "\n")


@pytest.mark.parametrize(
    ("module", "extra"),
    [
        ("runtime.adapters.openai_agents", "agents"),
        ("runtime.adapters.adk", "adk"),
        ("runtime.adapters.langchain", "langchain"),
    ],
)
def test_an_adapter_without_its_extra_is_one_line(module: str, extra: str, tmp_path: Path) -> None:
    done = core_python(
        f"try:\n    import {module}\nexcept ImportError as error:\n    print(type(error).__name__, error)\n",
        tmp_path,
    )
    assert done.stdout == f"MissingExtra {module} needs the '{extra}' extra: pip install 'toolpen[{extra}]'\n"


def test_run_names_the_missing_store_extra(tmp_path: Path) -> None:
    done = core_toolpen(
        "run",
        str(SAMPLES / "get_customer.py"),
        "--store",
        "postgresql://u@127.0.0.1:1/db",
        "--json",
        cwd=tmp_path,
    )
    assert done.returncode == 2
    error = json.loads(done.stdout)["error"]
    assert error == {
        "kind": "missing_extra",
        "message": "a postgresql:// store needs the 'postgres' extra: pip install 'toolpen[postgres]'",
    }


@pytest.mark.slow
def test_the_core_runs_a_tool_from_the_cli_and_the_api(tmp_path: Path) -> None:
    done = core_toolpen(
        "run",
        str(SAMPLES / "update_customer_loyalty_points.py"),
        "--args",
        '{"points_to_add": 5}',
        "--json",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["output"]["loyalty_points"] == 5
    api = core_python(
        "from runtime import Runtime\n"
        "with Runtime(store='memory://') as rt:\n"
        "    tool = rt.add_tool('def add(a: int, b: int) -> int:\\n    return a + b\\n')\n"
        "    print(rt.call(tool.name, {'a': 1, 'b': 2}).output)\n"
        f"print([name for name in {EXTRA_MODULES!r} if sys.modules.get(name) is not None])",
        tmp_path,
    )
    assert api.stdout.splitlines() == ["3", "[]"], api.stderr


def core_install() -> set[str]:
    """The distributions `pip install .` may bring into play: pyproject.toml's dependencies and
    theirs, as installed here, without toolpen's extras; a dependency's own optional ones count
    (a library may import one when present, as jsonschema does jsonpointer)."""
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pending = [Requirement(text) for text in dependencies]
    found: set[str] = set()
    while pending:
        name = canonicalize_name(pending.pop().name)
        if name in found:
            continue
        found.add(name)
        try:
            texts, extras = requires(name) or [], metadata(name).get_all("Provides-Extra") or []
        except PackageNotFoundError:  # not installed here (a platform's own dependency)
            continue
        for child in map(Requirement, texts):
            if child.marker is None or any(child.marker.evaluate({"extra": e}) for e in ["", *extras]):
                pending.append(child)
    return found


@pytest.mark.slow
def test_running_a_tool_loads_only_what_the_core_installs(tmp_path: Path) -> None:
    # `pip install .` in a fresh venv is bench/bench_startup.py (it needs a package index); here,
    # what the CLI and the API load in the host must all come from the core's distributions.
    listing = tmp_path / "loaded.json"
    code = (
        "import json\nfrom importlib.metadata import packages_distributions\nbefore = set(sys.modules)\n"
        f"sys.argv = ['toolpen', 'run', {str(SAMPLES / 'update_customer_loyalty_points.py')!r}, "
        "'--args', '{\"points_to_add\": 5}', '--store', 'memory://', '--json']\n"
        "from runtime._cli import main\ntry:\n    main()\nexcept SystemExit as end:\n    assert not end.code\n"
        "from runtime import Runtime\nwith Runtime(store='memory://') as rt:\n"
        "    tool = rt.add_tool('def add(a: int, b: int) -> int:\\n    return a + b\\n')\n"
        "    assert rt.call(tool.name, {'a': 1, 'b': 2}).output == 3\n"
        "owners = packages_distributions()\n"
        "new = [name for name, module in list(sys.modules.items()) if name not in before and module]\n"
        "loaded = {owner for name in new for owner in owners.get(name.partition('.')[0], [])}\n"
        f"open({str(listing)!r}, 'w').write(json.dumps(sorted(loaded)))\n"
    )
    done = core_python(code, tmp_path)
    assert done.returncode == 0, done.stderr
    loaded = {canonicalize_name(name) for name in json.loads(listing.read_text())}
    assert "pydantic" in loaded and "restrictedpython" in loaded  # the listing sees distributions
    assert loaded - core_install() - {"toolpen"} == set()


def test_tool_search_works_in_the_core(tmp_path: Path) -> None:
    done = core_python(
        "from runtime import Runtime\n"
        "from runtime.protocols import search_deferred\n"
        "with Runtime(store='memory://') as rt:\n"
        f"    rt.add_tool(open({str(SAMPLES / 'get_current_weather.py')!r}).read(), defer_loading=True)\n"
        f"    rt.add_tool(open({str(SAMPLES / 'get_customer.py')!r}).read(), defer_loading=True)\n"
        "    print([tool.name for tool in search_deferred(rt, 'weather in Paris')])\n",
        tmp_path,
    )
    assert done.stdout.splitlines() == ["['get_current_weather']"], done.stderr


def test_import_and_help_load_nothing_heavy(tmp_path: Path) -> None:
    # What start-up must not pay for: these load when a call, a document or a server needs them.
    code = (
        "import runtime\nfrom runtime import Runtime\nimport runtime._cli\nruntime._cli.load_commands()\n"
        f"print(sorted(name for name in {HEAVY!r} if sys.modules.get(name) is not None))"
    )
    done = core_python(code, tmp_path)
    assert done.stdout.splitlines() == ["[]"], done.stderr


def test_a_call_that_sends_no_request_loads_no_http_client(tmp_path: Path) -> None:
    # requests and urllib3 load with the broker's first request (runtime/_http_transport.py)
    code = (
        "from runtime import Runtime\nwith Runtime(store='memory://') as rt:\n"
        "    tool = rt.add_tool('def add(a: int, b: int) -> int:\\n    return a + b\\n')\n"
        "    print(rt.call(tool.name, {'a': 1, 'b': 2}).output)\n"
        "print(sorted(name for name in ('requests', 'urllib3') if name in sys.modules))"
    )
    done = core_python(code, tmp_path)
    assert done.stdout.splitlines() == ["3", "[]"], done.stderr


def test_version_loads_no_command(tmp_path: Path) -> None:
    code = (
        "sys.argv[1:] = ['--version']\nfrom runtime._cli import COMMAND_MODULES, main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print([name for name in COMMAND_MODULES if f'runtime._cli.{name}' in sys.modules])"
    )
    done = core_python(code, tmp_path)
    assert done.stdout.startswith("toolpen ")
    assert done.stdout.splitlines()[-1] == "[]", done.stderr
    assert core_toolpen("--version", cwd=tmp_path).returncode == 0
