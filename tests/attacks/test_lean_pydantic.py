"""Red-team attacks on the lean zygote: pydantic and the CES classes loaded inside a worker, on first need.

The tools here never name pydantic or a CES class in their source, so ``warmup.modules_needed``
does not load pydantic in the zygote: the worker loads it from disk, while the tool runs
(``getattr(context, "user_" + "content")``, ``sandbox.language.pydantic_loader``).
"""

from __future__ import annotations

import re
import textwrap
import time
from collections.abc import Iterator
from typing import Any

import pytest

from runtime import Runtime
from sandbox.common.errors import NotFound
from sandbox.common.limits import Limits
from sandbox.messages import Call, Done
from sandbox.process.pool import WorkerPool
from tests.attacks import assert_refused, attack
from tests.attacks.finalizers import with_prelude

USER_CONTENT = {"user_content": {"role": "user", "parts": [{"text": "hi"}]}}
LIMITS = Limits(wall_time=10.0, cpu_time=10.0)


@pytest.fixture
def lean() -> Iterator[Runtime]:
    """A runtime of its own per attack: no earlier tool made its zygote load pydantic."""
    with Runtime(store="memory://") as runtime:
        yield runtime


def call(rt: Runtime, source: str) -> Any:
    tool = rt.add_tool(textwrap.dedent(source), replace=True)
    return rt.call(tool.name, {}, context=USER_CONTENT)


# Appended after the entry (a tool's entry is its first function). A deferred model (no validator built, so nothing checked when the class is made) whose only field
# reads ces_requests.request.__func__.__globals__ with from_attributes. Its validator is then built
# by a *host* callable, model_rebuild, that the garbage collector calls from io's finalizer
# (iobase_finalize calls ``self.close()``) while a module is being imported from disk:
# arming.checks_apply() meets ``<frozen importlib`` before any tool frame and returns False, so
# pydantic_wall's checked_schema_validator builds the validator unchecked.
GC_DURING_IMPORT_PRELUDE = """
import io
from typing import Any

def deferred_model():
    content = getattr(context, "user_" + "content")  # pydantic loads here, in the worker, from disk
    base = type(content)
    field_info = type(base.model_fields["role"])

    class Leaky(base):
        model_config = {"defer_build": True, "from_attributes": True}
        g: Any = field_info(default=None, validation_alias=[["request", "__fu" + "nc__", "__glo" + "bals__"]])

    class Closing(io.BytesIO):
        close = Leaky.model_rebuild  # a bound host method: no tool frame when the finalizer calls it

    return base, Leaky, Closing

def garbage(closing):
    cycle = closing()
    cycle.me = cycle  # collected by the GC, not by refcount: during whatever allocates next

def leak(model) -> str:
    real = model.model_validate(ces_requests, from_attributes=True).g["__builtins__"]
    os = real["__imp" + "ort__"]("os")
    return repr([real["open"], os.getpid(), os.listdir("/")[:3]])
"""


def test_gc_finalizer_during_lazy_pydantic_import_builds_an_unchecked_validator(lean: Runtime) -> None:
    # schema_json() imports pydantic.networks, pydantic.color and pydantic.deprecated.json from disk
    # in a lean worker (a zygote that loaded pydantic had pydantic.networks already): thousands of
    # allocations, so a GC pass runs inside the import, and with it Closing.close.
    source = (
        textwrap.dedent("""
        def finalizer_in_import() -> str:
            base, leaky, closing = deferred_model()
            garbage(closing)
            try:
                base.schema_json()
            except Exception:
                pass
            return leak(leaky)
        """)
        + GC_DURING_IMPORT_PRELUDE
    )
    result = call(lean, source)
    assert "built-in function open" not in repr(result.output), result.output
    assert_refused(lean, result)


def test_gc_finalizer_during_a_codec_import_builds_an_unchecked_validator(lean: Runtime) -> None:
    # The same through the standard library: "x".encode(codec) imports encodings.<codec> from disk
    # (only a few codecs are preloaded, warmup.CODECS). Small modules, so some padding and a
    # few codecs until a GC pass falls inside one of the imports; a pass outside one runs the
    # finalizer under the tool frame, where the check refuses (an unraisable error), and the loop goes on.
    source = (
        textwrap.dedent("""
        CODECS = ["cp1250", "cp1251", "cp1253", "cp1254", "cp1255", "cp1256", "cp1257", "cp1258", "koi8_r",
            "koi8_u", "mac_roman", "mac_cyrillic", "mac_greek", "mac_iceland", "mac_latin2", "mac_turkish",
            "iso8859_2", "iso8859_3", "iso8859_4", "iso8859_5", "iso8859_6", "iso8859_7", "iso8859_8",
            "iso8859_9", "iso8859_10", "iso8859_11", "iso8859_13", "iso8859_14", "iso8859_15", "iso8859_16",
            "cp850", "cp852", "cp855", "cp857", "cp860", "cp861", "cp862", "cp863", "cp864", "cp865", "cp866",
            "cp869", "cp874", "cp875", "cp037", "cp500", "cp1026", "cp1140", "cp273", "cp424", "cp720",
            "cp737", "cp775", "cp856", "cp858", "cp1006", "cp1125", "hp_roman8", "ptcp154", "tis_620",
            "kz1048", "palmos", "mac_arabic", "mac_farsi", "mac_croatian", "mac_romanian", "koi8_t"]

        def finalizer_in_codec_import() -> str:
            base, leaky, closing = deferred_model()
            keep = []
            for number, codec in enumerate(CODECS):
                keep.append([[] for _ in range((number * 37) % 700)])
                garbage(closing)
                "x".encode(codec)
                try:
                    return leak(leaky)
                except Exception:
                    continue
            return "refused"
        """)
        + GC_DURING_IMPORT_PRELUDE
    )
    result = call(lean, source)
    assert "built-in function open" not in repr(result.output), result.output
    assert result.output == "refused" or not result.success, result


def test_gc_finalizer_during_the_lazy_pydantic_load_evaluates_an_unchecked_forward_ref(lean: Runtime) -> None:
    # No pydantic needed by the attack: the lean worker's load of pydantic and the CES classes from
    # disk, which getattr(context, "user_" + "content") starts from a tool frame, is the import. The
    # finalizer calls typing.get_type_hints (a host function, through functools.partial) on an
    # object whose __getattr__ answers __annotations__ with a code string: ForwardRef's checked
    # __init__/_evaluate see <frozen importlib before the tool frame (arming.checks_apply), so the
    # string is compiled and eval-ed unchecked, with globals {} (the real builtins).
    source = with_prelude("""
        def forward_ref_in_import() -> str:
            box = [MARK]
            garbage()
            getattr(context, "user_" + "content")  # the in-worker load of pydantic
            return repr(box)
        """)
    result = call(lean, source)
    assert "built-in function open" not in repr(result.output), result.output


def test_re_cache_eviction_during_the_lazy_pydantic_load_runs_a_finalizer_unchecked(lean: Runtime) -> None:
    # The same without the garbage collector (so gc.disable() around the load would not help): the
    # only reference to the io object hangs off a str subclass that is a key of re's pattern cache,
    # the oldest of a full cache (re._MAXCACHE, 512). The lazy load compiles new patterns at module
    # level (about 19), the first of which evicts the key: its refcount drops to zero inside
    # re._compile, under <frozen importlib, and the finalizer runs there. Deterministic.
    source = with_prelude("""
        def evicted_in_import() -> str:
            box = [MARK]
            plant_in_re_cache()
            for number in range(511):
                re.compile("toolpen-fill-b-" + str(number))
            getattr(context, "user_" + "content")  # the in-worker load of pydantic
            return repr(box)
        """)
    result = call(lean, source)
    assert "built-in function open" not in repr(result.output), result.output


LAZY_ROUTE_ATTACKS = {
    "list-alias-on-subclass": """
        from typing import Any

        def list_alias() -> str:
            base = type(getattr(context, "user_" + "content"))
            field_info = type(base.model_fields["role"])

            class Leaky(base):
                model_config = {"from_attributes": True}
                g: Any = field_info(default=None, validation_alias=[["request", "__fu" + "nc__", "__glo" + "bals__"]])

            return repr(Leaky.model_validate(ces_requests, from_attributes=True).g)
        """,
    "deferred-list-alias-validated-by-tool": """
        from typing import Any

        def deferred_alias() -> str:
            base = type(getattr(context, "user_" + "content"))
            field_info = type(base.model_fields["role"])

            class Leaky(base):
                model_config = {"defer_build": True, "from_attributes": True}
                g: Any = field_info(default=None, validation_alias=[["request", "__fu" + "nc__", "__glo" + "bals__"]])

            return repr(Leaky.model_validate(ces_requests, from_attributes=True).g)
        """,
    "alias-generator-on-subclass": """
        from typing import Any

        def alias_generator() -> str:
            base = type(getattr(context, "user_" + "content"))

            class Leaky(base):
                model_config = {"from_attributes": True, "alias_generator": lambda name: "__in" + "it__"}
                g: Any = None

            return repr(Leaky.model_validate(ces_requests, from_attributes=True).g)
        """,
    "mutated-field-info-rebuild": """
        from typing import Any

        def mutated_field() -> str:
            base = type(getattr(context, "user_" + "content"))

            class Leaky(base):
                model_config = {"from_attributes": True}
                g: Any = None

            Leaky.model_fields["g"].validation_alias = "__in" + "it__"
            Leaky.model_rebuild(force=True)
            return repr(Leaky.model_validate(ces_requests, from_attributes=True).g)
        """,
    "model-construct-dunder": """
        def construct_dunder() -> str:
            base = type(getattr(context, "user_" + "content"))
            return repr(base.model_construct(**{"__cl" + "ass__": int}))
        """,
    "validator-class-of-model": """
        def validator_class() -> str:
            base = type(getattr(context, "user_" + "content"))
            validator = getattr(base, "__pydantic_" + "validator__")
            return repr(type(validator)({"type": "any"}))
        """,
    "deferred-model-returned-to-jsonable": """
        from typing import Any

        def returned_deferred() -> Any:
            base = type(getattr(context, "user_" + "content"))
            field_info = type(base.model_fields["role"])

            class Leaky(base):
                model_config = {"defer_build": True}
                g: Any = field_info(default=None, serialization_alias="__in" + "it__")

            return Leaky.model_construct(g=1)
        """,
}


@pytest.mark.parametrize("source", LAZY_ROUTE_ATTACKS.values(), ids=LAZY_ROUTE_ATTACKS.keys())
def test_known_pydantic_attacks_through_the_lazy_load_are_refused(lean: Runtime, source: str) -> None:
    result = call(lean, source)
    if result.success:  # only the last one may succeed: it reads nothing private, and leaks nothing
        assert "function" not in repr(result.output) and "builtins" not in repr(result.output), result.output
        return
    assert_refused(lean, result, ("policy", "tool_error"))


def test_a_worker_under_the_language_wall_does_not_load_pydantic_for_a_tool(lean: Runtime) -> None:
    """The load is refused, not run: an import in a worker runs under the checks."""
    source = """
        def still_works() -> list:
            content = getattr(context, "user_" + "content")
            return [type(content).__name__, content.to_json(), StatusError("x", 404).status_code]
        """
    assert_refused(lean, call(lean, source), ("policy",))


def test_status_error_moved_to_proxies_keeps_its_internals_closed(lean: Runtime) -> None:
    source = """
        def status_error_globals() -> str:
            return repr(getattr(StatusError.__init__, "__glo" + "bals__"))
        """
    assert_refused(lean, attack(lean, source))


def _run(pool: WorkerPool, source: str, walls: str) -> Done:
    source = textwrap.dedent(source)
    entry = re.search(r"^def (\w+)", source, re.M).group(1)
    job = {
        "source": source,
        "entry": entry,
        "args": {},
        "context": {"state": {}, **USER_CONTENT},
        "walls": walls,
    }
    return pool.run(Call.from_dict(job), LIMITS, _no_rpc)


def _no_rpc(target: str, method: str, params: dict[str, Any]) -> Any:
    raise NotFound(f"no {target}.{method} here")


def test_pydantic_imported_plainly_by_a_process_job_is_walled_for_the_next_language_job() -> None:
    with WorkerPool(size=1, reuse=True) as pool:
        deadline = time.monotonic() + 30
        while pool.ready_count < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        plain = _run(
            pool,
            """
            import importlib, os, sys
            def plain_import():
                importlib.import_module("pyd" + "antic")  # unseen: the zygote does not load it
                return [os.getpid(), "sandbox.bridges.ces_types" in sys.modules]
            """,
            "process",
        )
        assert plain.success, plain.error
        assert plain.output[1] is False
        walled = _run(
            pool,
            """
            from typing import Any
            import os
            def walled_after():
                base = type(getattr(context, "user_" + "content"))
                field_info = type(base.model_fields["role"])

                class Leaky(base):
                    model_config = {"from_attributes": True}
                    g: Any = field_info(default=None, validation_alias="__in" + "it__")

                return repr(Leaky.model_validate(ces_requests, from_attributes=True).g)
            """,
            "all",
        )
        assert not walled.success, walled.output
        assert walled.error.kind == "policy", walled.error


def test_process_walls_lazy_load_from_disk_gains_no_write_access_or_descriptors() -> None:
    source = """
        import importlib, os, sys

        def lazy_in_jail() -> dict:
            before = sorted(os.listdir("/proc/self/fd"))
            was_loaded = "pydantic" in sys.modules
            pydantic = importlib.import_module("pyd" + "antic")  # not an import statement: no preload
            content = getattr(context, "user_" + "content")
            after = sorted(os.listdir("/proc/self/fd"))
            writes = []
            for path in (os.path.dirname(pydantic.__file__), os.path.join(os.path.dirname(pydantic.__file__), "__pycache__")):
                try:
                    with open(os.path.join(path, "toolpen-red-team"), "w") as handle:
                        handle.write("x")
                    writes.append(path)
                except OSError:
                    pass
            return {"was_loaded": was_loaded, "fds": [before, after], "writes": writes, "content": repr(content)[:40]}
        """
    with Runtime(store="memory://", walls="process") as runtime:
        tool = runtime.add_tool(textwrap.dedent(source))
        result = runtime.call(tool.name, {}, context=USER_CONTENT)
    assert result.success, result.error
    assert result.output["was_loaded"] is False  # the lazy path under test
    before, after = result.output["fds"]
    assert before == after
    assert result.output["writes"] == []
