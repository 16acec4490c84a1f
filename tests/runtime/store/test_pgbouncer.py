"""Session locks behind PgBouncer in transaction mode (Debian's pgbouncer, started here on
loopback in front of the test PostgreSQL): no lost update, no deadlock with fewer server
connections than threads, prepared statements off."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import pytest

from runtime._state import StateDelta
from runtime.store import open_store
from tests.runtime.store.test_store import POSTGRES_URLS

pytestmark = [pytest.mark.services, pytest.mark.slow]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def bouncer_url() -> Iterator[str]:
    binary = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
    if not POSTGRES_URLS or not os.path.exists(binary):
        reason = "needs pgbouncer (apt-get install pgbouncer) and a PostgreSQL URL"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    pg = urlsplit(POSTGRES_URLS[0])
    # a schema of its own (as the other store tests), not the database's shared default one
    with psycopg.connect(POSTGRES_URLS[0], autocommit=True) as conn:
        schema = f"test_{uuid.uuid4().hex[:16]}"
        conn.execute(f"CREATE SCHEMA {schema}")
    folder = Path(tempfile.mkdtemp(prefix="toolpen-pgbouncer-"))  # pytest's folders are root's only
    port = free_port()
    (folder / "userlist.txt").write_text(f'"{pg.username}" "{pg.password}"\n')
    (folder / "pgbouncer.ini").write_text(
        f"[databases]\n{pg.path.lstrip('/')} = host={pg.hostname} port={pg.port} dbname={pg.path.lstrip('/')}"
        f" connect_query='SET search_path = {schema}'\n"
        f"[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = {port}\nauth_type = plain\n"
        f"auth_file = {folder / 'userlist.txt'}\npool_mode = transaction\ndefault_pool_size = 3\n"
        "max_client_conn = 100\nunix_socket_dir =\nignore_startup_parameters = extra_float_digits\n"
    )
    command = [binary, str(folder / "pgbouncer.ini")]
    if os.getuid() == 0:  # pgbouncer refuses to run as root
        nobody = pwd.getpwnam("nobody")
        os.chmod(folder, 0o755)
        for path in folder.iterdir():
            os.chown(path, nobody.pw_uid, nobody.pw_gid)
        command = ["runuser", "-u", "nobody", "--", *command]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "pgbouncer did not start"
            time.sleep(0.05)
    yield f"postgresql://{pg.username}:{pg.password}@127.0.0.1:{port}{pg.path}?prepared_statements=off"
    process.terminate()
    process.wait(10)
    shutil.rmtree(folder, ignore_errors=True)
    with psycopg.connect(POSTGRES_URLS[0], autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")


def test_locks_behind_pgbouncer_in_transaction_mode(bouncer_url: str) -> None:
    # 3 server connections for 6 threads: waiters must not hold them (each open transaction pins one)
    with open_store(bouncer_url) as store:
        session_id = f"bouncer-{uuid.uuid4().hex[:8]}"
        store.create_session("app", "ana", session_id, {"n": 0})
        errors: list[BaseException] = []

        def increments(thread: int) -> None:
            for i in range(10):
                try:
                    with store.lock(session_id, timeout=30):
                        n = store.require_session(session_id).state["n"]
                        call_id = f"{thread}-{i}"
                        assert store.begin_call(session_id, call_id, "tool", {}) is None
                        time.sleep(0.002)  # widen the window a lost update would need
                        store.commit_call(session_id, call_id, StateDelta({"n": n + 1}), [], {"ok": True})
                except BaseException as error:  # noqa: BLE001 - reported below
                    errors.append(error)

        threads = [threading.Thread(target=increments, args=(t,)) for t in range(6)]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert not errors, errors[:3]
        assert store.require_session(session_id).state["n"] == 60
        assert time.monotonic() - started < 30
        store.delete_session(session_id)
