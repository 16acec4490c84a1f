"""Two `toolpen serve` processes sharing one store: no lost updates, tenant isolation, one catalog.

The store is an SQLite file here, and every ``postgresql://`` or ``redis://`` URL of
``TOOLPEN_TEST_STORE_URLS`` (space separated). Without a PostgreSQL URL the PostgreSQL case is
skipped, except under ``CI=true``, where it fails.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.runtime.store.test_store import fresh_postgres, fresh_redis, server_answers
from tests.runtime.test_shared_state import CALLS, COUNT, SESSIONS, fails
from tests.runtime.test_shared_state import session_of as session_of_call

pytestmark = pytest.mark.slow

SHARED_SCHEMES = ("postgresql://", "redis://")
EXTRA_URLS = [
    url for url in os.environ.get("TOOLPEN_TEST_STORE_URLS", "").split() if url.startswith(SHARED_SCHEMES)
]

ADD = '''
def add(n: int) -> int:
    """Adds n to the session's counter.

    Args:
        n: How much to add.
    """
    context.state["count"] = context.state.get("count", 0) + n
    return context.state["count"]
'''

SHOUT = '''
def shout(word: str) -> str:
    """Upper-cases a word.

    Args:
        word: The word.
    """
    return word.upper()
'''


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Replica:
    """One `toolpen serve` process on a free loopback port."""

    def __init__(self, store: str, tools: Path | None, keys: dict[str, str], cwd: Path, *extra: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        api_keys = [arg for key, tenant in keys.items() for arg in ("--api-key", f"{key}={tenant}")]
        command = [sys.executable, "-c", "from runtime._cli import main; main()", "serve"]
        command += ["--port", str(self.port), "--store", store, *api_keys, *extra]
        command += ["--tools", str(tools)] if tools is not None else []
        command += ["--workers", "2", "--rate", "10000", "--burst", "10000"]
        self.log = (cwd / f"replica-{self.port}.log").open("w+")
        self.process = subprocess.Popen(command, cwd=cwd, stdout=self.log, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout: float = 60.0) -> Replica:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self.log.seek(0)
                raise AssertionError(f"replica exited with {self.process.returncode}: {self.log.read()}")
            try:
                if requests.get(f"{self.url}/healthz", timeout=1).ok:
                    return self
            except requests.ConnectionError:
                time.sleep(0.05)
        raise AssertionError("replica did not become healthy")

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs."""
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it has not exited within 20 s."""
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.kill()
        self.log.close()


def start(store: str, tools: Path, keys: dict[str, str], cwd: Path, count: int = 2) -> list[Replica]:
    """``count`` healthy replicas sharing ``store``; on failure none is left running."""
    started = [Replica(store, tools, keys, cwd) for _ in range(count)]
    try:
        return [replica.wait_ready() for replica in started]
    except BaseException:
        stop_all(started)
        raise


def stop_all(replicas: list[Replica]) -> None:
    """Stop replicas at once (each shutdown waits for its workers)."""
    for replica in replicas:
        if replica.process.poll() is None:
            replica.process.send_signal(signal.SIGTERM)
    for replica in replicas:
        replica.stop()


def store_params() -> list[Any]:
    params: list[Any] = ["sqlite"]
    params += [pytest.param(url, id=url.split("://")[0], marks=pytest.mark.services) for url in EXTRA_URLS]
    return params


def store_url_for(param: str, folder: Path) -> Iterator[str]:
    """The URL for a parameter of ``store_params``: a new SQLite file in ``folder``, or a server that
    answers, in a schema or key prefix of its own (a shared server's default schema may hold another
    toolpen's store version)."""
    if param == "sqlite":
        yield f"sqlite:///{folder / 'shared.db'}"
        return
    server_answers(param)
    yield from (fresh_postgres if param.startswith("postgres") else fresh_redis)(param)


@pytest.fixture(scope="module", params=store_params())
def store_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from store_url_for(str(request.param), tmp_path_factory.mktemp("store"))


@pytest.fixture(scope="module")
def keys() -> dict[str, str]:
    """Two tenants, named afresh per run so that a long-lived shared store starts them empty."""
    run = uuid.uuid4().hex[:8]
    return {f"key-a-{run}-0123456789": f"a-{run}", f"key-b-{run}-0123456789": f"b-{run}"}


@pytest.fixture(scope="module")
def tools_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tools = tmp_path_factory.mktemp("tools")
    (tools / "add.py").write_text(ADD)
    (tools / "count.py").write_text(COUNT)
    return tools


@pytest.fixture(scope="module")
def replicas(
    store_url: str, keys: dict[str, str], tools_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[list[Replica]]:
    started = start(store_url, tools_dir, keys, tmp_path_factory.mktemp("replicas"))
    yield started
    stop_all(started)


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def post_call(url: str, key: str, session: str, call_id: str, n: int, timeout: float = 60) -> dict[str, Any]:
    body = {"tool": "add", "args": {"n": n}, "call_id": call_id}
    response = requests.post(
        f"{url}/v1/sessions/{session}/calls", json=body, headers=bearer(key), timeout=timeout
    )
    assert response.status_code == 200, response.text
    return response.json()


def session_of(url: str, key: str, session: str) -> dict[str, Any]:
    response = requests.get(f"{url}/v1/sessions/{session}", headers=bearer(key), timeout=30)
    assert response.status_code == 200, response.text
    return response.json()


def called_ids(session: dict[str, Any]) -> list[str]:
    """The call ids of the session's function_call events, in order."""
    return [
        part["function_call"]["id"]
        for event in session["events"]
        for part in event["content"]["parts"]
        if "function_call" in part
    ]


@pytest.mark.services
def test_postgresql_store_is_tested() -> None:
    if not any(url.startswith("postgresql://") for url in EXTRA_URLS):
        reason = "no postgresql:// URL in TOOLPEN_TEST_STORE_URLS: the replicas ran on SQLite only"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)


def test_concurrent_calls_through_both_replicas_lose_no_update(
    replicas: list[Replica], keys: dict[str, str]
) -> None:
    key = next(iter(keys))
    threads, per_thread = 6, 10

    def worker(thread: int) -> None:
        for i in range(per_thread):
            post_call(replicas[(thread + i) % 2].url, key, "hot", f"t{thread}-{i}", 1)

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(worker, range(threads)))
    for replica in replicas:
        session = session_of(replica.url, key, "hot")
        assert session["state"]["count"] == threads * per_thread
        ids = called_ids(session)
        assert len(ids) == len(set(ids)) == threads * per_thread


def test_a_retry_on_the_other_replica_replays_instead_of_running_again(
    replicas: list[Replica], keys: dict[str, str]
) -> None:
    key = next(iter(keys))
    first = post_call(replicas[0].url, key, "retry", "only-once", 7)
    again = post_call(replicas[1].url, key, "retry", "only-once", 7)
    assert (first["replayed"], again["replayed"]) == (False, True)
    assert again["output"] == first["output"] == 7
    assert session_of(replicas[1].url, key, "retry")["state"]["count"] == 7


def test_tenants_stay_isolated_across_replicas(replicas: list[Replica], keys: dict[str, str]) -> None:
    key_a, key_b = keys
    one, two = (replica.url for replica in replicas)
    post_call(one, key_a, "private", "c1", 1)
    for method in (requests.get, requests.delete):
        assert method(f"{two}/v1/sessions/private", headers=bearer(key_b), timeout=30).status_code == 404
    listed = requests.get(f"{two}/v1/sessions", headers=bearer(key_b), timeout=30).json()["sessions"]
    assert listed == []
    assert session_of(two, key_a, "private")["state"] == {"count": 1}


def test_tools_registered_on_one_replica_are_served_by_the_other_for_their_tenant_only(
    replicas: list[Replica], keys: dict[str, str]
) -> None:
    key_a, key_b = keys
    one, two = (replica.url for replica in replicas)
    created = requests.post(f"{one}/v1/tools", json={"source": SHOUT}, headers=bearer(key_a), timeout=30)
    assert created.status_code == 201, created.text
    body = {"tool": "shout", "args": {"word": "hi"}}
    on_two = requests.post(f"{two}/v1/sessions/s/calls", json=body, headers=bearer(key_a), timeout=30)
    assert on_two.json()["output"] == "HI"
    names_b = [
        t["name"] for t in requests.get(f"{two}/v1/tools", headers=bearer(key_b), timeout=30).json()["tools"]
    ]
    assert names_b == ["add", "count"]
    assert (
        requests.post(f"{two}/v1/sessions/s/calls", json=body, headers=bearer(key_b), timeout=30).status_code
        == 404
    )
    assert requests.delete(f"{two}/v1/tools/shout", headers=bearer(key_a), timeout=30).status_code == 204
    names_a = [
        t["name"] for t in requests.get(f"{one}/v1/tools", headers=bearer(key_a), timeout=30).json()["tools"]
    ]
    assert names_a == ["add", "count"]


def test_200_increments_of_app_and_user_keys_through_both_replicas_lose_none(
    replicas: list[Replica], keys: dict[str, str]
) -> None:
    key = next(iter(keys))

    def call(i: int) -> dict[str, Any]:
        session, user = session_of_call(i)
        body = {"tool": "count", "args": {"fail": fails(i)}, "call_id": f"shared-{i}", "user_id": user}
        url = f"{replicas[i % 2].url}/v1/sessions/shared-{session}/calls"
        response = requests.post(url, json=body, headers=bearer(key), timeout=120)
        assert response.status_code == 200, response.text
        return {"i": i, **response.json()}

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(call, range(CALLS)))
    succeeded = [result for result in results if result["success"]]
    assert all(result["error"]["kind"] == "tool_error" for result in results if not result["success"])
    assert len(succeeded) == CALLS - sum(fails(i) for i in range(CALLS))
    assert sorted(result["output"] for result in succeeded) == list(range(1, len(succeeded) + 1))
    for k in range(SESSIONS):
        session = session_of(replicas[k % 2].url, key, f"shared-s{k}")
        mine = [r for r in succeeded if r["session_id"] == f"shared-s{k}"]
        of_user = [r for r in succeeded if session_of_call(r["i"])[1] == session["user_id"]]
        assert session["state"] == {
            "app:count": len(succeeded),
            "user:count": len(of_user),
            "count": len(mine),
        }


def test_200_increments_through_4_replicas_end_at_exactly_200(
    store_url: str, keys: dict[str, str], tools_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    key = next(iter(keys))
    four = start(store_url, tools_dir, keys, tmp_path_factory.mktemp("four"), count=4)
    try:
        with ThreadPoolExecutor(8) as pool:
            results = list(
                pool.map(lambda i: post_call(four[i % 4].url, key, "four", f"inc-{i}", 1), range(200))
            )
        assert all(result["success"] for result in results)
        assert sorted(result["output"] for result in results) == list(range(1, 201))
        assert session_of(four[0].url, key, "four")["state"]["count"] == 200
    finally:
        stop_all(four)
