"""SQLite's lock files: removed by their holder, and mutual exclusion holds while they come and go."""

from __future__ import annotations

import threading
from pathlib import Path

from runtime.state import StateDelta
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
