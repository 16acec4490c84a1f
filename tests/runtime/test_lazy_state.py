"""A session's large state values stay in the host until tool code reads them (issue 36): the
worker gets their keys and sizes, reads a value over its RPC channel on first use, and sends
back what changed; the size limits are kept from per-key sizes and name the key; a commit
not done by the call's deadline, or failing midway, stores nothing. Real workers and stores."""

from __future__ import annotations

import sqlite3
import textwrap
import threading
import time
from pathlib import Path

from runtime import Runtime
from sandbox.common.limits import Limits

BLOB = "b" * 200_000

PEEK = '''
def peek() -> dict:
    """What the worker holds for the large key before and after the code reads it."""
    before = type(dict.get(context.state, "blob")).__name__
    value = context.state["blob"]
    return {"before": before, "after": type(dict.get(context.state, "blob")).__name__, "length": len(value)}
'''

MAPPING = '''
import json

def mapping() -> dict:
    """The mapping operations of context.state on a state whose large values stay in the host."""
    state = context.state
    seen = {
        "in": "blob" in state and "items" in state,
        "len": len(state),
        "keys": sorted(state),
        "get": state.get("missing", "default"),
        "dict": dict(state) == {"blob": "b" * 200000, "items": list(range(4000)), "n": 1},
        "json": len(json.dumps(state)),
    }
    state["items"].append("in place")  # a large value changed in place: found by the diff
    state.setdefault("n", 99)
    state.update({"m": 2})
    del state["blob"]
    return seen
'''

OUTER = '''
def outer() -> str:
    """Sets a key, then lets another tool read the large value and change it."""
    context.state["asked"] = True
    return tools.inner({})
'''

INNER = '''
def inner() -> str:
    """Reads what the caller set and the large value, then changes it."""
    context.state["blob"] = context.state["blob"][:5] + str(context.state["asked"])
    return context.state["blob"]
'''


def test_a_large_value_reaches_the_worker_only_when_the_code_reads_it() -> None:
    with Runtime(store="memory://", walls="process") as rt:  # plain CPython: dict.get sees the storage
        rt.add_tool(textwrap.dedent(PEEK))
        rt.store.create_session(rt.app_name, rt.user_id, "s", {"blob": BLOB, "n": 1})
        result = rt.call("peek", {}, session_id="s")
        assert result.success, result.error
        assert result.output == {"before": "_Unread", "after": "str", "length": len(BLOB)}


def test_context_state_is_the_same_mapping_with_values_left_in_the_host(tmp_path: Path) -> None:
    with Runtime(store=f"sqlite:///{tmp_path / 's.db'}") as rt:
        rt.add_tool(textwrap.dedent(MAPPING))
        rt.store.create_session(
            rt.app_name, rt.user_id, "s", {"blob": BLOB, "items": list(range(4000)), "n": 1}
        )
        result = rt.call("mapping", {}, session_id="s")
        assert result.success, result.error
        assert result.output == {
            "in": True,
            "len": 3,
            "keys": ["blob", "items", "n"],
            "get": "default",
            "dict": True,
            "json": len('{"blob": "", "items": [], "n": 1}')
            + len(BLOB)
            + len(", ".join(map(str, range(4000)))),
        }
        assert result.state_delta == {
            "set": {"items": [*range(4000), "in place"], "m": 2},
            "deleted": ["blob"],
        }
        assert rt.store.require_session("s").state == {"items": [*range(4000), "in place"], "n": 1, "m": 2}


def test_a_nested_tool_reads_the_large_value_with_its_callers_changes() -> None:
    with Runtime(store="memory://") as rt:
        rt.add_tool(textwrap.dedent(OUTER))
        rt.add_tool(textwrap.dedent(INNER))
        rt.store.create_session(rt.app_name, rt.user_id, "s", {"blob": BLOB})
        result = rt.call("outer", {}, session_id="s")
        assert result.success and result.output == "bbbbbTrue", result.error
        assert rt.store.require_session("s").state == {"blob": "bbbbbTrue", "asked": True}


def test_the_state_limit_is_kept_from_per_key_sizes_and_names_the_key() -> None:
    grow = 'def grow(size: int) -> None:\n    context.state["more"] = "m" * size\n'
    with Runtime(store="memory://", limits=Limits(state_size=300_000, state_value_size=150_000)) as rt:
        rt.add_tool(grow)
        rt.store.create_session(rt.app_name, rt.user_id, "s", {"blob": BLOB})
        assert rt.call("grow", {"size": 10}, session_id="s").success
        over = rt.call("grow", {"size": 120_000}, session_id="s")
        assert not over.success and over.error is not None and over.error.kind == "output_too_large"
        assert "limits.state_size" in over.error.message and "'more'" in over.error.message
        too_big = rt.call("grow", {"size": 160_000}, session_id="s")
        assert too_big.error is not None and "'more'" in too_big.error.message
        assert "state_value_size" in too_big.error.message
        assert rt.store.require_session("s").state == {"blob": BLOB, "more": "m" * 10}


def _started(path: Path) -> bool:
    with sqlite3.connect(path) as raw:
        found = raw.execute("SELECT count(*) FROM toolpen_calls WHERE status = 'started'").fetchone()[0]
    raw.close()
    return bool(found)


def test_a_commit_not_done_by_the_deadline_stores_nothing(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    slow = (
        "import time\n\ndef slow() -> int:\n    time.sleep(0.3)\n    context.state['n'] = 1\n    return 1\n"
    )
    with Runtime(store=f"sqlite:///{path}", limits=Limits(wall_time=1.5)) as rt:
        rt.add_tool(slow)
        rt.store.create_session(rt.app_name, rt.user_id, "s", {"blob": BLOB})
        holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        held = threading.Event()

        def hold_the_write_lock() -> None:  # another process's long write transaction
            while not _started(path):
                time.sleep(0.01)
            holder.execute("BEGIN IMMEDIATE")
            held.set()
            time.sleep(3)
            holder.execute("ROLLBACK")

        other = threading.Thread(target=hold_the_write_lock)
        other.start()
        start = time.monotonic()
        result = rt.call("slow", {}, session_id="s")
        other.join()
        holder.close()
        assert held.is_set()
        assert not result.success and result.error is not None and result.error.kind == "timeout", (
            result.error
        )
        assert "nothing was stored" in result.error.message
        assert time.monotonic() - start < 4
        assert rt.store.require_session("s").state == {"blob": BLOB}


def test_a_commit_failing_midway_leaves_the_store_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    two = "def two() -> None:\n    context.state['a'] = 1\n    context.state['boom'] = 2\n"
    with Runtime(store=f"sqlite:///{path}") as rt:
        rt.add_tool(two)
        rt.store.create_session(rt.app_name, rt.user_id, "s", {"blob": BLOB})
        with sqlite3.connect(path) as raw:  # the second key's row fails after the first is written
            raw.execute(
                "CREATE TRIGGER refuse BEFORE INSERT ON toolpen_state_keys WHEN NEW.key = 'boom'"
                " BEGIN SELECT RAISE(ABORT, 'refused'); END"
            )
        raw.close()
        result = rt.call("two", {}, session_id="s")
        assert not result.success and result.error is not None and "refused" in result.error.message
        session = rt.store.require_session("s")
        assert session.state == {"blob": BLOB} and session.events == []
