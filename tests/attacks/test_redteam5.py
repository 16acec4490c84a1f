"""Red team 5 (issue 31, 36): the asyncio view, glob, pydantic's loaders, the pickle hook and lazy state.

What got through, each with several spellings:
- asyncio's default exception handler formats a context's ``source_traceback`` and
  ``handle_traceback`` with ``traceback.format_list``, whose ``linecache`` read every line the
  tool named from any file of the jail (``/proc/self/status``, toolpen's own code, ``os.py``
  found through ``sys.path``) into the text it logs: ``linecache`` reads no file under the
  language wall now (``sandbox/language/source_lines.py``);
- ``context.state`` keeps a large value it has not read from the host as a placeholder in its
  dict storage: ``dict``'s own methods read unbound (``dict.get(context.state, k)``, ``values``,
  ``items``, ``setdefault``, ``pop``, through ``getattr``, ``type({})``, ``Counter`` or a
  subclass) handed tool code the placeholder (its class too), and ``dict.update`` there was lost;
  on a library's dict subclass they are that class's own methods now (``guards.py``);
- the read-only copies of a library model's ``model_fields`` were shallow: each field's
  ``metadata`` list was the class's own (``pydantic_classes.py`` copies deeply now).
"""

from __future__ import annotations

import textwrap

import pytest

from runtime import Runtime
from sandbox.language import rules
from tests.attacks import attack

FILES = {
    "/proc/self/status": "Name:",
    rules.__file__: "The language wall's rules as data",
    "os.py": "OS routines",  # a relative name: linecache searches sys.path for it
}
"""Files of the jail, each with a piece of its first line."""
FRAMES = repr([(name, 1, "f", None) for name in FILES])

CAPTURE = """
import asyncio
import logging


class Capture(logging.Handler):
    def __init__(self):
        super().__init__()
        self.seen = []

    def emit(self, record):
        self.seen.append(record.getMessage())


def captured():
    capture = Capture()
    logging.getLogger("asyncio").addHandler(capture)
    return capture
"""
RUNNING_LOOP_CALL = """
        async def tool() -> list:
            capture = captured()
            asyncio.get_running_loop().{call}({{"message": "m", "{key}": {frames}}})
            return capture.seen
        """
SOURCE_LINE_READS = {
    **{
        f"{call}-{key}": RUNNING_LOOP_CALL.format(call=call, key=key, frames=FRAMES)
        for call, key in (
            ("call_exception_handler", "source_traceback"),
            ("call_exception_handler", "handle_traceback"),
            ("default_exception_handler", "source_traceback"),
        )
    },
    "from-the-loop": f"""
        async def tool() -> list:
            capture = captured()
            loop = asyncio.get_running_loop()
            loop.call_soon(loop.call_exception_handler, {{"message": "m", "source_traceback": {FRAMES}}})
            await asyncio.sleep(0)
            return capture.seen
        """,
    "sync-new-loop": f"""
        def tool() -> list:
            capture = captured()
            loop = asyncio.new_event_loop()
            loop.call_exception_handler({{"message": "m", "handle_traceback": {FRAMES}}})
            loop.close()
            return capture.seen
        """,
}


@pytest.mark.parametrize("body", SOURCE_LINE_READS.values(), ids=SOURCE_LINE_READS.keys())
def test_a_stack_the_tool_names_reads_no_file_of_the_jail(rt: Runtime, body: str) -> None:
    result = attack(rt, textwrap.dedent(body) + CAPTURE)  # the entry is the first function
    assert result.success, result.error
    text = "\n".join(result.output)
    for name, first_line in FILES.items():
        assert f'File "{name}", line 1' in text, text  # the handler formatted the frame
        assert first_line not in text, text  # without reading the file


def test_an_uncaught_handler_context_logs_no_line_of_a_file(rt: Runtime) -> None:
    source = f"""
        import asyncio

        def tool() -> int:
            asyncio.new_event_loop().call_exception_handler({{"message": "m", "source_traceback": {FRAMES}}})
            return 1
        """
    result = attack(rt, source)
    assert result.success, result.error
    assert 'File "/proc/self/status", line 1' in result.logs, result.logs
    assert not any(first_line in result.logs for first_line in FILES.values()), result.logs


def test_the_tools_own_lines_still_show_in_what_it_logs(rt: Runtime) -> None:
    source = """
        import logging

        def tool() -> int:
            try:
                1 / 0
            except ZeroDivisionError:
                logging.getLogger("t").exception("failed")
            return 1
        """
    result = attack(rt, source)
    assert result.success, result.error
    assert "1 / 0" in result.logs, result.logs


BIG = "x" * 20_000
"""Over the size from which a value stays in the host until the tool reads it (``LAZY_FROM``)."""
SEED = "def seed() -> int:\n    context.state['big'] = 'x' * 20_000\n    return 1\n"
UNBOUND_READS = {
    "get": "dict.get(context.state, 'big')",
    "getattr": "getattr(dict, 'get')(context.state, 'big')",
    "type-of-a-dict": "type({}).get(context.state, 'big')",
    "values": "list(dict.values(context.state))[0]",
    "items": "list(dict.items(context.state))[0][1]",
    "setdefault": "dict.setdefault(context.state, 'big', 0)",
    "counter": "collections.Counter.get(context.state, 'big')",
    "own-subclass": "Mine.get(context.state, 'big')",
    "map": "list(map(dict.get, [context.state], ['big']))[0]",
    "pop": "dict.pop(context.state, 'big')",
}


@pytest.mark.parametrize("read", UNBOUND_READS.values(), ids=UNBOUND_READS.keys())
def test_a_value_left_in_the_host_is_never_a_placeholder_for_the_tool(rt: Runtime, read: str) -> None:
    rt.add_tool(SEED, replace=True)
    session = f"lazy-{abs(hash(read))}"
    assert rt.call("seed", {}, session_id=session).success
    source = f"""
        import collections

        class Mine(dict):
            pass

        def tool() -> list:
            value = {read}
            return [type(value).__name__, value == {BIG!r}]
        """
    tool = rt.add_tool(textwrap.dedent(source), "tool", replace=True)
    result = rt.call(tool.name, {}, session_id=session)
    assert result.success, result.error
    assert result.output == ["str", True]


def test_a_write_through_dicts_own_update_is_kept(rt: Runtime) -> None:
    rt.add_tool(SEED, replace=True)
    assert rt.call("seed", {}, session_id="lazy-update").success
    source = "def tool() -> int:\n    dict.update(context.state, {'big': 'new'})\n    return 1\n"
    assert rt.call(rt.add_tool(source, replace=True).name, {}, session_id="lazy-update").success
    read = rt.add_tool("def read() -> str:\n    return context.state['big']\n", replace=True)
    assert rt.call(read.name, {}, session_id="lazy-update").output == "new"


def test_a_formatters_own_format_exception_gets_a_traceback_that_leads_nowhere(rt: Runtime) -> None:
    source = """
        import asyncio
        import logging

        async def tool() -> list:
            seen = []

            class Peek(logging.Formatter):
                def formatException(self, ei):
                    for name in ("tb_frame", "tb_next"):
                        try:
                            seen.append(getattr(ei[2], name))
                        except Exception as refused:
                            seen.append(type(refused).__name__)
                    return "x"

            class Format(logging.Handler):
                def emit(self, record):
                    self.format(record)

            handler = Format()
            handler.setFormatter(Peek())
            logging.getLogger("asyncio").addHandler(handler)
            asyncio.get_running_loop().call_soon(lambda: 1 / 0)  # the loop logs it with its traceback
            await asyncio.sleep(0.01)
            return seen
        """
    result = attack(rt, source)
    assert result.success, result.error
    assert result.output == ["PolicyViolation", "PolicyViolation"]


FIELD_METADATA_WRITES = {
    "append": "Part.model_fields['text'].metadata.append('planted')",
    "extend": "Part.model_fields['text'].metadata.extend(['planted'])",
    "augmented": "field = Part.model_fields['text']\n    field.metadata += ['planted']",
    "getattr": "getattr(Part.model_fields['text'], 'meta' + 'data').append('planted')",
    "instance": "Part(text='t').model_fields['text'].metadata.append('planted')",
    "type-of-instance": "type(Part(text='t')).model_fields['text'].metadata.insert(0, 'planted')",
}


@pytest.mark.parametrize("write", FIELD_METADATA_WRITES.values(), ids=FIELD_METADATA_WRITES.keys())
def test_a_library_models_field_metadata_is_never_shared(rt: Runtime, write: str) -> None:
    source = f"def tool() -> list:\n    {write}\n    return list(Part.model_fields['text'].metadata)\n"
    result = attack(rt, source)
    assert result.success, result.error
    assert result.output == []
