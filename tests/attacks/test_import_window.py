"""Red-team attacks on the import window after e8e5c1d (imports in a worker run under the checks).

Each attack tries to get host code to run a tool's string, or a tool's callable, with the checks
off: from a finalizer during an import a tool starts (a codec, a lazy pydantic submodule), after the
tool returned (the result's release in ``worker.serve``), in a reused worker, in a call under
``walls="process"`` of a pool that also runs language-walled jobs, and in the zygote (compiling a
hostile source). The oracle of most is the worker's ``random`` state: the unchecked string seeds it
(``random.seed(4242)``) and puts the real ``open`` into the tool's marker lists.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from typing import Any

import pytest

from runtime import Runtime
from sandbox.common.errors import NotFound, PolicyViolation
from sandbox.common.limits import Limits
from sandbox.messages import Call, Done
from sandbox.process.pool import WorkerPool
from tests.attacks import PACKAGE_DIR, assert_refused, attack
from tests.attacks.finalizers import SEEDED, assert_not_leaked, with_prelude

USER_CONTENT = {"user_content": {"role": "user", "parts": [{"text": "hi"}]}}
LIMITS = Limits(wall_time=20.0, cpu_time=20.0)

CODECS = (
    '["cp1250", "cp1251", "cp1253", "cp1254", "cp1255", "cp1256", "cp1257", "cp1258", "koi8_r", "koi8_u",'
    ' "mac_roman", "mac_cyrillic", "mac_greek", "mac_iceland", "mac_latin2", "mac_turkish", "iso8859_2",'
    ' "iso8859_3", "iso8859_4", "iso8859_5", "iso8859_6", "iso8859_7", "iso8859_8", "iso8859_9",'
    ' "iso8859_10", "iso8859_11", "iso8859_13", "iso8859_14", "iso8859_15", "iso8859_16", "cp850",'
    ' "cp852", "cp855", "cp857", "cp860", "cp861", "cp862", "cp863", "cp864", "cp865", "cp866", "cp869",'
    ' "cp874", "cp875", "cp037", "cp500", "cp1026", "cp1140", "cp273", "cp424", "cp720", "cp737",'
    ' "cp775", "cp856", "cp858", "cp1006", "cp1125", "hp_roman8", "ptcp154", "tis_620", "kz1048",'
    ' "palmos", "mac_arabic", "mac_farsi", "mac_croatian", "mac_romanian", "koi8_t"]'
)


@pytest.fixture
def lean() -> Iterator[Runtime]:
    with Runtime(store="memory://") as runtime:
        yield runtime


@pytest.fixture
def reused() -> Iterator[Runtime]:
    with Runtime(store="memory://", reuse_workers=True, pool_size=1) as runtime:
        yield runtime


def test_gc_finalizer_during_codec_imports_from_disk_is_checked(lean: Runtime) -> None:
    # "x".encode(codec) imports encodings.<codec> from disk in the worker: a GC pass inside one of
    # the imports runs close() there, with no tool frame between it and <frozen importlib.
    source = with_prelude(f"""
        def codec_imports() -> list:
            box = [MARK]
            keep = []
            for number, codec in enumerate({CODECS}):
                keep.append([[] for _ in range((number * 37) % 700)])
                garbage()
                "x".encode(codec)
            return [repr(box), random.random()]
        """)
    result = attack(lean, source)
    assert_not_leaked(result.output)


def test_re_cache_eviction_during_a_codec_import_is_checked(lean: Runtime) -> None:
    # No collector: the io object hangs off a str-subclass key of re's full cache, evicted by the
    # next new pattern. The codec modules imported from disk compile none, so the eviction lands in
    # the tool's own compile right after an import (a tool frame on the stack): checked either way.
    source = with_prelude(f"""
        import re

        def evicted() -> list:
            box = [MARK]
            plant_in_re_cache()
            for number, codec in enumerate({CODECS}):
                "x".encode(codec)
                re.compile("toolpen-fill-b-" + str(number))
            return [repr(box), random.random()]
        """)
    result = attack(lean, source)
    assert_not_leaked(result.output)


READER = """
import random

MARK = "toolpen-red-" + "marker"


def collect() -> list:
    box = [MARK]
    junk = []
    for number in range(300):  # enough allocation for the collector's oldest generation
        junk.append([[number] for _ in range(1000)])
        junk = junk[-10:]
    return [repr(box), random.random()]
"""


def _plant_then_read(rt: Runtime, planter: str) -> Any:
    """Call ``planter``, then ``READER`` in the same reused worker (both registered first: each
    ``add_tool`` warms the zygote and replaces the idle workers)."""
    plant = rt.add_tool(planter)
    read = rt.add_tool(READER)
    planted = rt.call(plant.name, {})
    assert planted.success and planted.output == "planted", planted.error
    result = rt.call(read.name, {})
    assert result.success, result.error
    return result.output


def test_finalizer_run_by_the_worker_after_the_tool_returned_is_checked(reused: Runtime) -> None:
    # The result is a str subclass (JSON as it is) holding the io object: run_call's last reference
    # to it goes when run_call returns, in worker.serve, with no tool frame at all, in a worker that
    # stays for the next call. Under walls="process" the next call reads the seeded random state.
    planter = with_prelude("""
        def plant() -> str:
            class Text(str):
                pass

            text = Text("planted")
            text.keep = Closing()
            return text
        """)
    assert_not_leaked(_plant_then_read(reused, planter))


def test_finalizer_of_a_dead_namespace_in_a_reused_worker_is_checked(reused: Runtime) -> None:
    # A module-level global and a cycle: the tool's namespace (a cycle of functions and their
    # globals) is collected after the call, in host code or during the next call's allocations.
    # Under walls="process" the next call's marker list receives the real open.
    planter = with_prelude("""
        def plant() -> str:
            global KEEP
            KEEP = Closing()
            garbage()
            return "planted"
        """)
    assert_not_leaked(_plant_then_read(reused, planter))


def _run(pool: WorkerPool, source: str, walls: str) -> Done:
    source = textwrap.dedent(source)
    entry = source.split("def ", 1)[1].split("(", 1)[0]
    job = {"source": source, "entry": entry, "args": {}, "context": {"state": {}}, "walls": walls}
    return pool.run(Call.from_dict(job), LIMITS, _no_rpc)


def _no_rpc(target: str, method: str, params: dict[str, Any]) -> Any:
    raise NotFound(f"no {target}.{method} here")


def test_a_language_job_key_evicted_by_a_process_job_of_a_mixed_reused_pool() -> None:
    # A WorkerPool runs each job under the job's walls: a walled job leaves a key of re's cache
    # holding its io object; the next job, under walls="process" (checks disarmed on purpose),
    # compiles patterns and evicts it. The walled tool's string then runs with the real builtins in
    # a call that is not its own. (A Runtime gives all its jobs one walls mode.)
    planter = with_prelude("""
        import re

        def plant_key() -> str:
            plant_in_re_cache()
            return "planted"
        """)
    plain = """
        import random, re

        def plain_compiles() -> list:
            for number in range(600):
                re.compile("toolpen-plain-" + str(number))
            return [random.random()]
        """
    with WorkerPool(size=1, reuse=True) as pool:
        deadline = time.monotonic() + 30
        while pool.ready_count < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        planted = _run(pool, planter, "all")
        assert planted.success and planted.output == "planted", planted.error
        result = _run(pool, plain, "process")
    assert result.success, result.error
    assert result.output != [SEEDED], "the walled job's string ran with the real builtins in the process job"


LEAN_ROUTES = {
    "events": """
        def events_route() -> str:
            return repr(getattr(context, "ev" + "ents"))
        """,
    "last-user-input": """
        def last_input() -> str:
            return repr(getattr(context, "get_last_" + "user_input")())
        """,
    "user-content-through-vars": """
        def through_vars() -> str:
            return repr(vars(context))
        """,
}


@pytest.mark.parametrize("source", LEAN_ROUTES.values(), ids=LEAN_ROUTES.keys())
def test_lean_worker_reaches_no_pydantic_object_by_a_hidden_route(lean: Runtime, source: str) -> None:
    events = [{"author": "user", "content": {"role": "user", "parts": [{"text": "hi"}]}}]
    tool = lean.add_tool(textwrap.dedent(source), replace=True)
    result = lean.call(tool.name, {}, context={**USER_CONTENT, "events": events})
    if result.success:  # JSON only: no pydantic object, and nothing loaded unwalled
        assert "Content(" not in repr(result.output) and "Event(" not in repr(result.output), result.output
        return
    assert_refused(lean, result, ("policy", "tool_error"))


def test_gc_finalizer_during_lazy_pydantic_submodule_imports_is_checked(lean: Runtime) -> None:
    # The zygote loaded pydantic (the source imports it); the deprecated API still imports its
    # modules from disk in the worker (pydantic.deprecated.json under schema_json, the migration
    # shims), with a GC pass and the finalizer in them.
    source = with_prelude("""
        from pydantic import BaseModel

        def lazy_submodules() -> list:
            box = [MARK]

            class Model(BaseModel):
                a: int = 0

            keep = []
            for number in range(40):
                keep.append([[] for _ in range((number * 53) % 700)])
                garbage()
                for name, arguments in (("schema_json", ()), ("schema", ()), ("parse_raw", ('{"a": 1}',)),
                                        ("update_forward_refs", ())):
                    try:
                        getattr(Model, name)(*arguments)
                    except Exception:
                        pass
            return [repr(box), random.random()]
        """)
    result = attack(lean, source)
    assert_not_leaked(result.output)


def test_compiling_a_hostile_source_imports_nothing_in_the_compiling_process() -> None:
    # The zygote compiles every registered source (zygote.warm -> compile_for), and the host checks
    # it at add_tool: the policy's left_out_reason called hasattr() on the real module, and numpy's
    # module __getattr__ imported numpy.testing, numpy.f2py, ... from disk for the name (pydantic's
    # view itself holds validator and root_validator, of pydantic.deprecated.class_validators).
    script = textwrap.dedent("""
        import sys
        from sandbox.common.errors import ToolpenError
        from sandbox.process.warmup import modules_needed
        from sandbox.process.worker import compile_for
        source = "from numpy import testing, f2py, ctypeslib\\nfrom pydantic import parse_obj_as\\ndef tool():\\n    return 1\\n"
        before = set(sys.modules)
        modules_needed(source)
        for walls in ("all", "process"):
            try:
                compile_for(source, walls)
            except ToolpenError:
                pass
        print(" ".join(sorted(name for name in set(sys.modules) - before
                              if name.startswith(("numpy.testing", "numpy.f2py", "unittest", "pydantic.deprecated.tools")))))
        """)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=PACKAGE_DIR
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", f"compiling imported: {done.stdout.strip()}"


def test_names_in_and_modules_needed_run_nothing() -> None:
    from sandbox.bridges.ces_context import names_in
    from sandbox.process.warmup import modules_needed

    events: list[str] = []
    source = "x: \"__import__('os').system('id')\"\n# -*- coding: rot13 -*-\ndef f(): pass\n"
    hook_armed = True

    def audit(event: str, args: tuple[Any, ...]) -> None:
        if hook_armed and event in ("exec", "import", "compile", "os.system"):
            events.append(event)

    sys.addaudithook(audit)
    try:
        names_in.cache_clear()
        names = names_in(source)
        needed = modules_needed(source)
    finally:
        hook_armed = False
    assert "system" in names and needed == set()
    assert "exec" not in events and "import" not in events and "os.system" not in events, events


def test_still_serves_after_the_attacks(lean: Runtime) -> None:
    with pytest.raises(PolicyViolation):
        lean.add_tool("def t():\n    return __import__('os')\n")
    assert attack(lean, "def ok() -> int:\n    return 42\n").output == 42
