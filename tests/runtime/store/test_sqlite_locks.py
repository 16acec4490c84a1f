"""SQLite's lock files: removed by their holder, and mutual exclusion holds while they come and go."""

from __future__ import annotations

import multiprocessing
import threading
from multiprocessing.queues import Queue
from pathlib import Path

from runtime._state import StateDelta
from runtime.store import SqliteStore


def test_lock_files_are_removed_when_released(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "s.db") as store:
        for i in range(50):
            with store.lock(f"s{i}"):
                assert len(list((tmp_path / "s.db.locks").iterdir())) == 1
        assert list((tmp_path / "s.db.locks").iterdir()) == []


def test_no_lost_update_while_lock_files_come_and_go(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "s.db") as first, SqliteStore(tmp_path / "s.db") as second:
        first.create_session("app", "ana", "s", {"n": 0})

        def increments(store: SqliteStore, thread: int) -> None:
            for i in range(25):
                with store.lock("s"):
                    n = store.require_session("s").state["n"]
                    call_id = f"{thread}-{i}"
                    assert store.begin_call("s", call_id, "tool", {}) is None
                    store.commit_call("s", call_id, StateDelta({"n": n + 1}), [], {"ok": True})

        threads = [
            threading.Thread(target=increments, args=(store, t))
            for t, store in enumerate([first, second] * 3)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert first.require_session("s").state["n"] == 150
        assert list((tmp_path / "s.db.locks").iterdir()) == []


def _open_and_close(path: str, outcomes: Queue) -> None:
    try:
        SqliteStore(path).close()
        outcomes.put("ok")
    except Exception as error:  # the outcome is the assertion: any failure is reported
        outcomes.put(repr(error))


def test_processes_opening_a_new_file_at_once_all_succeed(tmp_path: Path) -> None:
    # SQLite runs no busy handler for the switch to WAL mode: replicas starting on a new file
    # at once failed with "database is locked" (a clean-clone CI run of test_server_crash)
    context = multiprocessing.get_context("fork")
    for trial in range(10):
        outcomes = context.Queue()
        openers = [
            context.Process(target=_open_and_close, args=(str(tmp_path / f"{trial}.db"), outcomes))
            for _ in range(8)
        ]
        for opener in openers:
            opener.start()
        for opener in openers:
            opener.join()
        assert [outcomes.get() for _ in openers] == ["ok"] * len(openers)
