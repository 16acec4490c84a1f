"""Red-team attacks on the zygote of what the tools import (``warmup.modules_needed``, ``preload_for``).

The zygote loads a module of the standard library only once a registered tool's source imports
it, and starts without ``site`` (``python -S``, ``jail.import_path``). A tool that reaches a
module's objects without naming the module makes its worker import what they need from disk,
under the checks: ``_strptime`` (``modules.LAZY_C_IMPORTS``) under ``datetime.strptime`` of a
``datetime`` that ``tomllib`` returned, with ``calendar`` and ``locale`` beneath it. Under
``walls="process"`` the tool sees the interpreter the zygote is, which must look like plain CPython.
What the zygote's warm-up tools leave in process-wide state is seen by every later call, and now
depends on which tools the pool warmed. An unjailed zygote of a root host imports a tool's
modules after it dropped to nobody.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import sysconfig
import textwrap
from collections.abc import Iterator

import pytest

from runtime import Runtime
from sandbox.common.limits import Limits
from sandbox.messages import Call
from sandbox.process.pool import WorkerPool
from tests.attacks import attack
from tests.attacks.finalizers import assert_not_leaked, with_prelude

TOML_DATETIME = '"a = 1979-05-27T07:32:00Z"'


def test_strptime_of_a_datetime_reached_through_tomllib_gives_cpythons_result(rt: Runtime) -> None:
    # Neither datetime nor time is named: the zygote loads tomllib only, not _strptime; the worker
    # imports it from disk when the C code of datetime.strptime asks the tool's __import__ for it.
    source = f"""
        import tomllib

        def strptime_without_datetime() -> list:
            moment = tomllib.loads({TOML_DATETIME})["a"]
            kind = type(moment)

            class Late(kind):
                pass

            return [kind.strptime("2024-02-03 04:05", "%Y-%m-%d %H:%M").isoformat(), moment.isoformat(),
                    repr(Late.strptime("2024 35", "%Y %j")), kind.strptime("Mar 1 2024", "%b %d %Y").isoformat()]
        """
    result = attack(rt, source)
    assert result.success, result.error
    assert result.output == [
        "2024-02-03T04:05:00",
        "1979-05-27T07:32:00+00:00",
        "Late(2024, 2, 4, 0, 0)",
        "2024-03-01T00:00:00",
    ]


def test_re_cache_eviction_during_the_in_worker_strptime_import_runs_no_unchecked_finalizer(
    rt: Runtime,
) -> None:
    # locale, which _strptime imports from disk in the worker (the zygote loaded tomllib, datetime
    # and time only), compiles a pattern at module level: it evicts the oldest key of a full re
    # cache, a str subclass holding the only references to an io object whose close is
    # typing.get_type_hints on a code string, and to one whose close notes that it ran (so the
    # test knows the finalizer ran inside the strptime call: its import comes before any pattern
    # of its own). Under the checks the first is refused.
    source = with_prelude(f"""
        import functools, io, tomllib

        NOTES = []


        class Noting(io.BytesIO):
            close = functools.partial(NOTES.append, "finalized")


        def evicted_in_strptime_import() -> str:
            box = [MARK]
            kind = type(tomllib.loads({TOML_DATETIME})["a"])

            class Pattern(str):
                pass

            for number in range(512):
                re.compile("toolpen-fill-a-" + str(number))
            pattern = Pattern("toolpen-red-(pattern)")
            pattern.keep = [Closing(), Noting()]
            re.compile(pattern)
            del pattern
            for number in range(511):
                re.compile("toolpen-fill-b-" + str(number))
            before = list(NOTES)
            moment = kind.strptime("2024", "%Y").isoformat()
            return repr([box, moment, before, NOTES, random.random()])
        """)
    result = attack(rt, source)
    assert_not_leaked(result.output)
    assert result.success, result.error
    assert "'2024-01-01T00:00:00', [], " in result.output, result.output
    if "['finalized']" not in result.output:  # a zygote that loads locale and _strptime itself
        pytest.skip("strptime imported nothing from disk in the worker: no window to attack")


def test_gc_finalizer_during_the_in_worker_strptime_import_runs_checked(rt: Runtime) -> None:
    source = with_prelude(f"""
        import tomllib

        def collected_in_strptime_import() -> str:
            box = [MARK]
            kind = type(tomllib.loads({TOML_DATETIME})["a"])
            keep = [[] for _ in range(300)]
            for _ in range(50):
                garbage()
            return repr([box, kind.strptime("2024", "%Y").isoformat(), random.random(), len(keep)])
        """)
    result = attack(rt, source)
    assert_not_leaked(result.output)
    assert result.success, result.error


# What a walls="process" tool sees of the interpreter, compared with plain CPython: this very
# interpreter (the venv's), started as a plain process with the zygote's environment.
SYS_PROBE = """
import importlib.util, sys, sysconfig

stdlib = sysconfig.get_paths()["stdlib"]
purelib = sysconfig.get_paths()["purelib"]
first_stdlib = min(i for i, p in enumerate(sys.path) if p == stdlib)
first_packages = min((i for i, p in enumerate(sys.path) if p.endswith("site-packages")), default=len(sys.path))
distutils = importlib.util.find_spec("distutils")
SEEN = {
    "prefix": sys.prefix,
    "exec_prefix": sys.exec_prefix,
    "purelib": purelib,
    "no_site": sys.flags.no_site,
    "stdlib_before_site_packages": first_stdlib < first_packages,
    "distutils": distutils.origin if distutils else None,
    "sys_names": sorted(dir(sys)),
}
"""


def plain_cpython() -> dict[str, object]:
    code = SYS_PROBE + "print(__import__('json').dumps(SEEN))\n"
    env = {"PYTHONUTF8": "1", "LC_ALL": "C.UTF-8", "PYTHONNOUSERSITE": "1", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd="/", check=True
    )
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def plain() -> Iterator[Runtime]:
    with Runtime(store="memory://", walls="process") as runtime:
        yield runtime


def seen_under_walls_process(plain: Runtime) -> dict[str, object]:
    source = textwrap.dedent(SYS_PROBE) + "\n\ndef seen() -> dict:\n    return SEEN\n"
    tool = plain.add_tool(source, replace=True)
    result = plain.call(tool.name, {})
    assert result.success, result.error
    return result.output


@pytest.mark.parametrize(
    "what", ["prefix", "exec_prefix", "purelib", "no_site", "stdlib_before_site_packages", "sys_names"]
)
def test_walls_process_sees_the_sys_of_plain_cpython(plain: Runtime, what: str) -> None:
    # python -S: sys.prefix stays the base interpreter's (site.venv() sets the venv's), sysconfig's
    # purelib follows it, sys.flags.no_site is 1, and the PYTHONPATH that replaces site puts the
    # site-packages *before* the standard library (a package there named like a standard module
    # would shadow it, in the zygote too); sys._home (site.venv) and sys.__interactivehook__ are
    # missing. Plain CPython in the venv: the venv, 0, stdlib first, both names.
    assert seen_under_walls_process(plain)[what] == plain_cpython()[what]


def test_walls_process_imports_what_pth_files_set_up(plain: Runtime) -> None:
    # site processes the .pth files of site-packages (setuptools' distutils-precedence.pth makes
    # `import distutils` setuptools' copy); without site they are skipped.
    expected = plain_cpython()["distutils"]
    if expected is None or "site-packages" not in str(expected):
        pytest.skip("no .pth file of site-packages changes distutils here")
    assert seen_under_walls_process(plain)["distutils"] == expected


# What the zygote's warm-up tools (warm_tools.STANDARD_LIBRARY, LIBRARIES) leave in process-wide
# state, which every worker forked after them inherits: a call must see a fresh process's, as in
# plain CPython, whatever other tools the pool has warmed.
WARM_UP_LEFTOVERS = {
    # Decimal(1) / 3 and quantize(ROUND_HALF_UP) set Inexact and Rounded in the main thread's context
    "decimal-flags": """
        import decimal

        def decimal_flags() -> list:
            flags = decimal.getcontext().flags
            return sorted(kind.__name__ for kind in flags if flags[kind])
        """,
    # HtmlDiff().make_table bumps the class counter HtmlDiff._default_prefix: ids start at 1, not 0
    "difflib-ids": """
        import difflib

        def difflib_ids() -> str:
            return difflib.HtmlDiff().make_table(["a"], ["b"]).split('id="')[1].split('"')[0]
        """,
    # urlsplit is an lru_cache: the warm-up tool's URLs are in it
    "urlsplit-cache": """
        import urllib.parse

        def urlsplit_cache() -> str:
            return str(urllib.parse.urlsplit.cache_info())
        """,
}


def in_plain_cpython(source: str) -> object:
    entry = re.search(r"^def (\w+)", textwrap.dedent(source), re.MULTILINE).group(1)
    code = textwrap.dedent(source) + f"\nprint(__import__('json').dumps({entry}()))\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    return json.loads(done.stdout)


@pytest.mark.parametrize("name", sorted(WARM_UP_LEFTOVERS))
def test_a_call_sees_no_state_a_warm_up_tool_left(rt: Runtime, name: str) -> None:
    source = WARM_UP_LEFTOVERS[name]
    result = attack(rt, source)
    assert result.success, result.error
    assert result.output == in_plain_cpython(source)


def test_another_tool_of_the_pool_changes_no_state_a_call_sees() -> None:
    # Another tool of the runtime (an app's shared tool, say, beside a tenant's own) imports
    # pydantic: the zygote runs pydantic's warm-up tool, whose invalid Decimal("z") sets
    # InvalidOperation in the context every later worker inherits. A tool that never names
    # pydantic reads its decimal flags: they depend on which other tools the pool has warmed.
    flags = WARM_UP_LEFTOVERS["decimal-flags"]
    seen = []
    for others in ([], ["from pydantic import BaseModel\n\n\ndef other_tenant() -> int:\n    return 1\n"]):
        with Runtime(store="memory://") as runtime:
            for source in others:
                runtime.add_tool(source)
            result = attack(runtime, flags)
            assert result.success, result.error
            seen.append(result.output)
    assert seen[0] == seen[1], seen


def _readable_by_nobody(path: str) -> bool:
    """Whether every folder on the way to ``path`` lets other users in (the unjailed zygote drops to nobody)."""
    while path not in ("/", ""):
        if not os.stat(path).st_mode & stat.S_IXOTH:
            return False
        path = os.path.dirname(path)
    return True


def _no_rpc(target: str, method: str, params: dict) -> object:
    raise AssertionError("no host calls here")


CALENDAR_TOOL = "from calendar import monthrange\n\n\ndef days(month: int) -> list:\n    return list(monthrange(2024, month))\n"


def test_an_unjailed_root_pool_serves_a_tool_whose_module_its_zygote_can_no_longer_read() -> None:
    # Without the jail (allow_weak_isolation, a bubblewrap that cannot run) a root host's zygote
    # drops to nobody before it forks (isolation._drop_privileges). It used to import the standard
    # library before that; now it imports a module when a tool needs it, after. With an
    # interpreter nobody may read (pyenv in /root, this machine), the warm-up of a tool's
    # `from calendar import ...` fails, then compile_for's policy (left_out_reason -> module_view)
    # raises ModuleNotFoundError, which zygote.warm lets through: the zygote exits, its
    # replacement warms the same source and exits too, and every later call of any tool fails
    # with an unstructured ValueError (seek of closed file) instead of a result.
    if os.geteuid() != 0 or _readable_by_nobody(sysconfig.get_paths()["stdlib"]):
        pytest.skip("needs a root host whose interpreter nobody can read")
    ok = {"source": "def ok() -> int:\n    return 42\n", "entry": "ok", "args": {}}
    with WorkerPool(size=1, bwrap="/nonexistent/bwrap", allow_weak_isolation=True) as pool:
        assert pool.run(Call.from_dict(ok), Limits(), _no_rpc).output == 42
        pool.warm(CALENDAR_TOOL)
        reply = pool.run(Call.from_dict(ok), Limits(), _no_rpc)
        assert reply.success and reply.output == 42, reply.error
        assert pool.alive
        reply = pool.run(
            Call.from_dict({"source": CALENDAR_TOOL, "entry": "days", "args": {"month": 2}}),
            Limits(),
            _no_rpc,
        )
        assert reply.success and reply.output == [3, 29], reply.error
