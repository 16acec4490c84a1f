"""A third outside red team's attacks on issue 31's walls, each asserted refused or held: the
worker's error path and the call's log (from tool code, under both walls modes: a crash is
``worker_crashed`` instead of ``tool_error``), and the app chat loop (a model's reply that host
code took on trust).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from runtime import Runtime
from tests.attacks import assert_refused, attack


@pytest.fixture(scope="module")
def plain_rt() -> Iterator[Runtime]:
    with Runtime(store="memory://", walls="process") as runtime:
        yield runtime


RAISING_ACCESSOR = """
class E(BASE):
    ACCESSOR


def tool() -> str:
    RAISE
"""
ACCESSORS = {
    "setattr-raises": ("Exception", "def __setattr__(self, name, value):\n        raise ValueError(name)"),
    "setattr-raises-base": (
        "Exception",
        "def __setattr__(self, name, value):\n        raise KeyboardInterrupt()",
    ),
    "setattr-recurses": ("Exception", "def __setattr__(self, name, value):\n        self.again = 1"),
    "setattr-lambda-keyerror": ("KeyError", "__setattr__ = lambda self, name, value: 1 / 0"),
    "setattr-group": (
        "ExceptionGroup",
        "def __setattr__(self, name, value):\n        raise ValueError(name)",
    ),
}
RAISES = {
    "raise": "raise E(ARGS)",
    "raise-from": "try:\n        1 / 0\n    except ZeroDivisionError as z:\n        raise E(ARGS) from z",
}


def _accessor_source(base: str, accessor: str, raising: str) -> str:
    args = '"x", [ValueError(1)]' if base == "ExceptionGroup" else '"x"'
    return (
        RAISING_ACCESSOR.replace("BASE", base)
        .replace("ACCESSOR", accessor)
        .replace("RAISE", raising.replace("ARGS", args))
    )


@pytest.mark.parametrize("raising", RAISES.values(), ids=RAISES.keys())
@pytest.mark.parametrize("base_accessor", ACCESSORS.values(), ids=ACCESSORS.keys())
def test_an_exception_class_whose_setattr_raises_is_a_tool_error(
    rt: Runtime, base_accessor: tuple[str, str], raising: str
) -> None:
    """The worker's error path cleared the raised exception's ``__traceback__`` with an attribute
    write, which runs the exception class's own ``__setattr__``: one that raised (anything, a
    ``BaseException`` or a ``RecursionError`` included) escaped the error path and the worker died
    (``worker_crashed``). It now goes through ``BaseException``'s own slot."""
    base, accessor = base_accessor
    result = attack(rt, _accessor_source(base, accessor, raising))
    assert_refused(rt, result, "tool_error")
    assert result.error.message.startswith("E: ")


PLAIN_ACCESSORS = {
    "getattribute-raises": "def __getattribute__(self, name):\n        raise ValueError(name)",
    "getattribute-raises-itself": "def __getattribute__(self, name):\n        raise E.__new__(E)",
    "setattr-raises": "def __setattr__(self, name, value):\n        raise ValueError(name)",
}


@pytest.mark.parametrize("accessor", PLAIN_ACCESSORS.values(), ids=PLAIN_ACCESSORS.keys())
def test_under_walls_process_an_exceptions_own_accessors_leave_the_error_path_whole(
    plain_rt: Runtime, accessor: str
) -> None:
    """Plain CPython may define ``__getattribute__`` too: the error path reads and clears the
    traceback through ``BaseException``'s slot, never through the exception's class."""
    result = attack(plain_rt, _accessor_source("Exception", accessor, RAISES["raise"]))
    assert_refused(plain_rt, result, "tool_error")


LYING_TEXT = """
import logging
import sys


class NotText:
    def __add__(self, other):
        return self

    def __len__(self):
        return 0


class Huge(str):
    def __len__(self):
        return 10**9

    def __getitem__(self, index):
        return NotText()


class Joins(str):
    def join(self, items):
        return NotText()

    def __radd__(self, other):
        return Huge("y")

    def __str__(self):
        return Huge("q")


class Ends(str):
    def __radd__(self, other):
        return Joins("y")


def tool() -> str:
    SPELLING
    return "survived"
"""
LYING_TEXT_SPELLINGS = {
    "print-sep-join": 'print("a", "b", sep=Joins(" "))',
    "print-end-radd": 'print("a", end=Joins("\\n"))',
    "print-object-str": 'print(Joins("x"), end=Huge(""))',
    "stdout-write": 'sys.stdout.write(Joins("x"))',
    "stderr-writelines": 'sys.stderr.writelines([Huge("x"), Joins("y")])',
    "handler-terminator": (
        'h = logging.StreamHandler(); h.terminator = Ends("\\n");'
        ' logging.getLogger("t").addHandler(h); logging.getLogger("t").warning("hello")'
    ),
}


@pytest.mark.parametrize("spelling", LYING_TEXT_SPELLINGS.values(), ids=LYING_TEXT_SPELLINGS.keys())
def test_the_calls_log_keeps_only_text_whatever_a_str_subclass_answers(rt: Runtime, spelling: str) -> None:
    """A ``str`` subclass handed to ``print``, ``sys.stdout`` or a handler answered ``len``, slicing
    or ``join`` with an object of the tool's, which the log kept: reading the log's text then failed
    in the worker's success path and again in its error path (``worker_crashed``). The log now
    keeps an exact copy of a ``str``'s characters, and refuses anything else where it is written."""
    result = attack(rt, LYING_TEXT.replace("SPELLING", spelling))
    if result.success:  # logging reports a failing write as CPython does, on the call's log
        assert result.output == "survived"
        return
    assert_refused(rt, result, "tool_error")
    assert "must be str" in result.error.message


@pytest.mark.parametrize("spelling", ["stdout-write", "stderr-writelines"])
def test_under_walls_process_the_calls_log_keeps_only_text(plain_rt: Runtime, spelling: str) -> None:
    """The same streams under plain CPython (``sys.stdout`` is the call's log there too)."""
    result = attack(plain_rt, LYING_TEXT.replace("SPELLING", LYING_TEXT_SPELLINGS[spelling]))
    assert result.success, result.error
    assert result.output == "survived"


MALFORMED_REPLIES = {
    "tool-calls-of-numbers": {"content": None, "tool_calls": [1]},
    "tool-calls-a-string": {"content": None, "tool_calls": "abc"},
    "function-a-string": {"content": None, "tool_calls": [{"id": "a", "type": "function", "function": "x"}]},
    "name-a-list": {
        "content": None,
        "tool_calls": [{"id": "a", "type": "function", "function": {"name": ["x"], "arguments": "{}"}}],
    },
    "id-a-list": {
        "content": None,
        "tool_calls": [
            {"id": ["a"], "type": "function", "function": {"name": "get_customer", "arguments": "{}"}}
        ],
    },
    "content-an-object": {"content": {"a": 1}},
}


@pytest.fixture(scope="module")
def chat_model() -> Iterator[Any]:
    from tests.model_server import model_server

    with model_server() as server:
        yield server


@pytest.fixture(scope="module")
def chat_service() -> Iterator[Runtime]:
    from runtime.app import app_runtime
    from tests.runtime.app.test_app_chat import SERVICE

    with app_runtime(SERVICE, fakes=True) as service:
        yield service


@pytest.mark.parametrize("reply", MALFORMED_REPLIES.values(), ids=MALFORMED_REPLIES.keys())
def test_a_malformed_model_reply_is_a_model_error_of_the_turn(
    chat_service: Runtime, chat_model: Any, reply: dict[str, Any]
) -> None:
    """The app chat loop took the model's ``tool_calls`` on trust: a list of numbers, a string, a
    ``function`` that is no object, a non-string name or id made the turn raise a bare
    ``TypeError``/``ValueError``/``AttributeError`` out of host code (a 500 of the playground's chat),
    and an object as ``content`` became the reply's text. Each is now the turn's ``model_error``,
    the session unchanged, and the conversation goes on."""
    from runtime.app import AppChat
    from tests.model_server import says
    from tests.runtime.app.test_app_chat import SERVICE, client

    session = f"malformed-{sorted(MALFORMED_REPLIES.values(), key=repr).index(reply)}"
    chat = AppChat(chat_service, SERVICE, client(chat_model), "test-model", session_id=session)
    chat.turn("hello")  # answered by the app's before_agent callback
    before = (list(chat.messages), chat.agent, chat.state)
    chat_model.play(reply)
    turn = chat.turn("who am I?")
    assert turn.error is not None and turn.error.kind == "model_error", turn.error
    assert "not a Chat Completions message" in turn.error.message
    assert (chat.messages, chat.agent, chat.state) == before
    chat_model.play(says("back"))
    assert chat.turn("hello again").reply == "back"
