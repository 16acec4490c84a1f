"""A fourth outside red team's attacks on the language wall, the worker's error path and the app
chat loop, each asserted refused or held (issue 31):

- pydantic's deprecated loaders on any model class, the tool's own and the host's (CES's
  ``Part``, ``mcp.types``): ``parse_raw(b, content_type="pickle", allow_pickle=True)`` unpickled
  the tool's bytes, so a pickle naming ``sys.modules`` handed tool code the real builtins and the
  real ``open``; ``parse_file`` opened any path of the jail with the real ``open``;
- the host's pydantic classes shared with the rest of the worker (CES's and MCP's): their config
  and field dicts (closed on MCP's, read-only copies on CES's: ``test_pydantic_class_state.py``),
  ``model_rebuild`` and pydantic v1's ``update_forward_refs``;
- a tool that fills its memory, then raises: ``memory``, not a ``tool_error`` whose message could
  not be read;
- a ``before_model``/``after_model`` callback answering what is not an ``LlmResponse``.
"""

from __future__ import annotations

import pickle
import pickletools
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from runtime import Runtime
from sandbox.common.limits import Limits, MiB
from tests.attacks import assert_refused, attack

SYS_MODULES = b"(dp0\nS'extra'\np1\ncsys\nmodules\np2\ns."
"""A protocol 0 pickle of ``{"extra": sys.modules}`` (the GLOBAL opcode)."""


class _Names:
    """Pickles ``{"extra": builtins.open}`` with the newer opcodes (STACK_GLOBAL, REDUCE)."""

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, ([("extra", open)],))


PICKLES = {
    "global": SYS_MODULES,
    "stack-global": pickletools.optimize(pickle.dumps(_Names(), protocol=4)),
    "reduce-protocol-2": pickle.dumps(_Names(), protocol=2),
    "global-as-text": SYS_MODULES.decode(),
}
LOADERS = {
    "ces-part": ("", "Part"),
    "ces-llm-response": ("", "LlmResponse"),
    "own-model": (
        "from pydantic import BaseModel, ConfigDict\n\n\nclass Own(BaseModel):\n"
        "    model_config = ConfigDict(extra='allow')\n",
        "Own",
    ),
    "mcp-annotations": ("from mcp.types import Annotations\n", "Annotations"),
}
CALLS = {
    "content-type": "{cls}.parse_raw({data!r}, content_type='application/pickle', allow_pickle=True)",
    "proto-string": "{cls}.parse_raw({data!r}, proto='pickle', allow_pickle=True)",
    "getattr": "getattr({cls}, 'parse_raw')({data!r}, content_type='pickle', allow_pickle=True)",
}


PAIRS = [
    pytest.param(PICKLES[data], CALLS[spelling], id=f"{data}-{spelling}")
    for data, spelling in zip(PICKLES, [*CALLS, "content-type"], strict=True)
]
"""Each pickle with one spelling of the call (every pickle and every spelling once)."""


@pytest.mark.parametrize(("data", "spelling"), PAIRS)
@pytest.mark.parametrize("loader", LOADERS.values(), ids=LOADERS.keys())
def test_pydantic_never_unpickles_a_class_or_function_for_tool_code(
    rt: Runtime, data: bytes | str, loader: tuple[str, str], spelling: str
) -> None:
    """Through ``parse_raw``'s pickle protocol a tool got the real ``sys.modules`` (and from it the
    real ``open``, which read ``/proc/self/environ``) or the real ``open`` itself; every class or
    function a pickle names is refused while the language wall applies."""
    prelude, cls = loader
    source = (
        f"{prelude}\n\ndef unpickle() -> str:\n"
        f"    found = {spelling.format(cls=cls, data=data)}\n"
        "    extra = found.extra\n"
        "    opener = extra['builtins'].open if isinstance(extra, dict) else extra\n"
        "    return opener('/proc/self/environ').read()\n"
    )
    result = attack(rt, source)
    assert_refused(rt, result)
    assert "unpickling a class or function is not allowed" in result.error.message


def test_a_pickle_of_plain_data_still_loads(rt: Runtime) -> None:
    """The control case: a pickle naming no class or function is only data."""
    data = pickle.dumps({"text": "hi"}, protocol=0)
    source = f"def plain() -> str:\n    return Part.parse_raw({data!r}, content_type='pickle', allow_pickle=True).text\n"
    assert attack(rt, source).output == "hi"


PARSE_FILE = {
    "ces-part": "Part.parse_file(PATH)",
    "ces-content": "Content.parse_file(PATH, content_type='json')",
    "own-model": "Own.parse_file(PATH)",
    "own-model-getattr": "getattr(Own, 'parse_file')(PATH)",
    "own-instance": "Own().parse_file(PATH)",
}


@pytest.mark.parametrize("call", PARSE_FILE.values(), ids=PARSE_FILE.keys())
def test_parse_file_never_opens_a_file_of_the_jail(rt: Runtime, call: str) -> None:
    """``parse_file`` opened a path by name with the real ``open``, past the scratch directory that
    tool code's ``open`` is confined to: ``/proc/self/cmdline`` here, whose text pydantic's
    validation error then quoted. It now reads the scratch directory only (``pydantic_files.py``),
    where no such file is."""
    source = (
        "from pydantic import BaseModel\n\n\nclass Own(BaseModel):\n    a: int = 0\n\n\n"
        "PATH = '/proc/self/cmdline'\n\n\n"
        f"def read() -> str:\n    return str({call})\n"
    )
    result = attack(rt, source)
    assert not result.success and result.error is not None
    assert "FileNotFoundError" in result.error.message and "sandbox.process" not in result.error.message
    assert "json_invalid" not in result.error.message


CLOSED = ("model_rebuild", "update_forward_refs", "model_config")
SHARED_CLASS = {
    "mcp-update-forward-refs": "from mcp.types import TextContent as C\n@C.update_forward_refs()",
    "mcp-instance-update-forward-refs": "from mcp.types import TextContent\n@TextContent(type='text', text='a').update_forward_refs()",
    "mcp-type-of-instance": "from mcp.types import TextContent\n@type(TextContent(type='text', text='a')).update_forward_refs()",
    "mcp-getattr": "from mcp.types import CallToolResult as C\n@getattr(C, 'update_forward_refs')()",
    "mcp-nested-class": "from mcp.types import Annotations as C\n@C.update_forward_refs()",
    "ces-model-rebuild": "\n@Part.model_rebuild(force=True)",
    "ces-update-forward-refs": "\n@LlmResponse.update_forward_refs()",
    "mcp-config-write": "from mcp.types import TextContent as C\n@C.model_config.update(extra='forbid')",
    "ces-getattr": "\n@getattr(Tool, 'update_forward_refs')()",
}


@pytest.mark.parametrize("spelling", SHARED_CLASS.values(), ids=SHARED_CLASS.keys())
def test_a_host_pydantic_class_is_never_changed_by_tool_code(rt: Runtime, spelling: str) -> None:
    """``mcp.types`` closed ``model_rebuild`` but not pydantic v1's ``update_forward_refs`` (which
    calls ``model_rebuild(force=True)``), and CES's classes closed neither: each changed a class the
    worker itself builds and serializes CES objects with."""
    prelude, statement = spelling.split("@")
    source = f"{prelude}\n\ndef change() -> int:\n    {statement}\n    return 1\n"
    result = attack(rt, source)
    assert_refused(rt, result)
    (name,) = [name for name in CLOSED if name in statement]
    assert f"{name!r}" in result.error.message and "not available in toolpen" in result.error.message


def test_the_tools_own_model_keeps_model_rebuild_and_its_config(rt: Runtime) -> None:
    """The control case: the tool's own classes keep pydantic's whole API."""
    source = (
        "from pydantic import BaseModel\n\n\nclass Own(BaseModel):\n    a: int = 0\n\n\n"
        "def own() -> list:\n    Own.model_rebuild(force=True)\n    Own.update_forward_refs()\n"
        "    return [sorted(Own.model_fields), Own.model_config.get('extra')]\n"
    )
    assert attack(rt, source).output == [["a"], None]


@pytest.fixture(scope="module")
def plain_rt() -> Iterator[Runtime]:
    with Runtime(store="memory://", walls="process") as runtime:
        yield runtime


FILL_THEN_RAISE = """
HOARD = []


class Heavy(Exception):
    def __str__(self):
        return "m" * (64 * 1024 * 1024)


def fill() -> int:
    message = "m" * (8 * 1024 * 1024)
    try:
        while True:
            HOARD.append(bytearray(256 * 1024))
    except MemoryError:
        pass
    RAISE
"""
RAISES = {
    "a-long-message": "raise ValueError(message)",
    "a-str-that-allocates": "raise Heavy()",
    "a-key-error-of-a-long-key": "raise KeyError(message)",
}


@pytest.mark.parametrize("walls", ["all", "process"])
@pytest.mark.parametrize("raising", RAISES.values(), ids=RAISES.keys())
def test_a_tool_that_fills_its_memory_then_raises_ends_as_memory(
    rt: Runtime, plain_rt: Runtime, walls: str, raising: str
) -> None:
    """Reading the message needed memory the tool had used up: the worker answered ``tool_error``
    "(its message could not be read: MemoryError)" instead of the call's ``memory``."""
    runtime = rt if walls == "all" else plain_rt
    tool = runtime.add_tool(
        FILL_THEN_RAISE.replace("RAISE", raising), replace=True, limits=Limits(memory=128 * MiB)
    )
    result = runtime.call(tool.name, {})
    assert result.error is not None and result.error.kind == "memory", result.error
    assert runtime.call(tool.name, {}).error.kind == "memory"  # the pool serves on


MALFORMED_ANSWERS = {
    "content-a-string": {"content": "abc"},
    "content-a-list": {"content": ["abc"]},
    "parts-a-number": {"content": {"parts": 5}},
}
CALLBACK = '''
SHAPES = SHAPES_LITERAL


def KIND_callback(callback_context: CallbackContext, ARGUMENT) -> LlmResponse | None:
    """Answers the shape the customer's text names (for after_model: the model's reply names it)."""
    contents = ARGUMENT.contents if hasattr(ARGUMENT, "contents") else [ARGUMENT.content]
    latest = contents[-1] if contents else None
    text = " ".join(part.text for part in latest.parts or [] if part.text) if latest else ""
    return SHAPES.get(text.strip())
'''
CALLBACK_FILES = {
    "before_model": "agents/Support_Agent/before_model_callbacks/before_model_callbacks_01/python_code.py",
    "after_model": "agents/Support_Agent/after_model_callbacks/after_model_callbacks_01/python_code.py",
}


@pytest.fixture(scope="module")
def chat_model() -> Iterator[Any]:
    from tests.model_server import model_server

    with model_server() as server:
        yield server


@pytest.fixture(scope="module", params=list(CALLBACK_FILES))
def shaped_desk(request: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any, Runtime]]:
    """Support Desk whose ``before_model`` (or ``after_model``) callback answers a malformed shape."""
    from runtime.app import app_runtime, load_app
    from tests.conftest import SAMPLES

    kind = request.param
    folder = tmp_path_factory.mktemp(kind) / "Support_Desk"
    shutil.copytree(SAMPLES / "apps" / "Support_Desk", folder)
    argument = "llm_request" if kind == "before_model" else "llm_response"
    code = CALLBACK.replace("SHAPES_LITERAL", repr(MALFORMED_ANSWERS)).replace("KIND", kind)
    Path(folder / CALLBACK_FILES[kind]).write_text(code.replace("ARGUMENT", argument))
    app = load_app(folder)
    with app_runtime(app, fakes=True) as service:
        yield kind, app, service


@pytest.mark.parametrize("shape", list(MALFORMED_ANSWERS))
def test_a_model_callbacks_malformed_answer_ends_the_turn_with_a_structured_error(
    shaped_desk: tuple[str, Any, Runtime], chat_model: Any, shape: str
) -> None:
    """``chat_message`` called ``.get`` on a callback's answer and its ``content``, and iterated its
    ``parts``: a string or a list as content, or a number as parts, raised a bare
    ``AttributeError``/``TypeError`` out of host code (a 500 of the playground's chat). It is the turn's ``tool_error`` now, naming
    the callback, and the conversation goes on."""
    from runtime.app import AppChat
    from tests.model_server import says
    from tests.runtime.app.test_app_chat import client

    kind, app, service = shaped_desk
    chat = AppChat(service, app, client(chat_model), "test-model", session_id=f"{kind}-{shape}")
    if kind == "after_model":
        chat_model.play(says(shape))
    turn = chat.turn(shape)
    assert turn.error is not None and turn.error.kind == "tool_error", turn.error
    assert f"the {kind} callback's answer is not an LlmResponse" in turn.error.message
    chat_model.play(says("back"))
    assert chat.turn("hello again").reply == "back"
