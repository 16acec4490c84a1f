"""Operating the service: readiness, slow clients, the per-request deadline, request ids and
access logs, and the metrics an operator alerts on."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from runtime._server import ServerConfig, create_app, parse_api_keys
from runtime._server.timeouts import uvicorn_options
from tests.conftest import serving_app
from tests.runtime.server.test_fairness import SLOW
from tests.runtime.server.test_server import KEY_A, auth, call, tool_files
from tests.runtime.store.test_store import POSTGRES_URLS, fresh_postgres


def serve(config: ServerConfig) -> Iterator[str]:
    """``create_app(config)`` on uvicorn with the options `toolpen serve` uses; yields its URL."""
    with serving_app(create_app(config), **uvicorn_options(config.header_timeout)) as url:
        yield url


def config(folder: Path, store: str | None = None, **options: object) -> ServerConfig:
    return ServerConfig(
        store=store or f"sqlite:///{folder / 'sessions.db'}",
        tool_paths=tool_files(folder, slow=SLOW),
        api_keys=parse_api_keys([f"{KEY_A}=a"]),
        workers=1,
        **options,  # type: ignore[arg-type]
    )


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    yield from serve(config(tmp_path, header_timeout=1.0, body_timeout=1.0, request_deadline=2.0))


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def test_ready_when_the_store_and_the_pools_are(url: str) -> None:
    response = requests.get(f"{url}/readyz", timeout=10)
    assert response.status_code == 200, response.text
    assert response.json() == {"status": "ready", "checks": {"pools": "ok", "store": "ok"}}
    assert requests.get(f"{url}/healthz", timeout=5).json() == {"status": "ok"}
    assert "/readyz" in requests.get(f"{url}/openapi.json", timeout=5).json()["paths"]


@pytest.mark.skipif(not POSTGRES_URLS, reason="no PostgreSQL URL in TOOLPEN_TEST_STORE_URLS")
@pytest.mark.services
def test_unready_while_the_store_fails(tmp_path: Path) -> None:
    schema_url_iter = fresh_postgres(POSTGRES_URLS[0])
    store = next(schema_url_iter)
    try:
        for url in serve(config(tmp_path, store)):
            assert requests.get(f"{url}/readyz", timeout=10).status_code == 200
            schema = store.rsplit("%3D", 1)[1]
            import psycopg

            with psycopg.connect(POSTGRES_URLS[0], autocommit=True) as conn:
                conn.execute(f"DROP SCHEMA {schema} CASCADE")
                conn.execute(f"CREATE SCHEMA {schema}")  # empty: the tables are gone
            response = requests.get(f"{url}/readyz", timeout=10)
            assert response.status_code == 503
            assert response.json()["status"] == "unready"
            assert "toolpen_sessions" in response.json()["checks"]["store"]
            listed = requests.get(f"{url}/v1/sessions", headers=auth(KEY_A), timeout=10)
            assert listed.status_code == 503 and listed.json()["error"]["kind"] == "store_error"
            metrics = requests.get(f"{url}/metrics", timeout=5).text
            assert "toolpen_store_errors_total 2.0" in metrics
    finally:
        next(schema_url_iter, None)


def test_unready_when_a_worker_pool_cannot_fork(url: str) -> None:
    zygotes = [int(pid) for pid in os.listdir("/proc") if pid.isdigit() and _is_our_zygote(int(pid))]
    assert zygotes
    for pid in zygotes:
        os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while (response := requests.get(f"{url}/readyz", timeout=10)).status_code == 200:
        assert time.monotonic() < deadline, "still ready with its zygotes killed"
        time.sleep(0.1)
    assert response.status_code == 503
    assert "cannot fork" in response.json()["checks"]["pools"]


def _is_our_zygote(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    parent = next(line.split()[1] for line in status.splitlines() if line.startswith("PPid:"))
    return int(parent) == os.getpid() and b"sandbox.process.zygote" in cmdline


@pytest.mark.slow
def test_a_slow_request_head_is_cut_off(url: str) -> None:
    with socket.create_connection(("127.0.0.1", port_of(url)), timeout=10) as sock:
        started = time.monotonic()
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        for _ in range(20):  # a header byte every 0.2 s: never a complete head
            try:
                sock.sendall(b"X")
            except OSError:
                break
            time.sleep(0.2)
        sock.settimeout(5)
        with contextlib.suppress(ConnectionResetError):
            assert sock.recv(1024) == b""  # closed
        assert time.monotonic() - started < 4.5


def test_a_slow_body_is_408(url: str) -> None:
    with socket.create_connection(("127.0.0.1", port_of(url)), timeout=10) as sock:
        head = (
            f"POST /v1/sessions/s/calls HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY_A}\r\n"
            'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"tool"'
        )
        sock.sendall(head.encode())
        sock.settimeout(5)
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
        answer = answer.decode()
    assert answer.startswith("HTTP/1.1 408"), answer
    assert '"kind":"request_timeout"' in answer


@pytest.mark.slow
def test_a_request_past_its_deadline_is_504_and_its_call_still_completes(url: str) -> None:
    response = call(url, KEY_A, "late", "slow", {"seconds": 3.0}, call_id="late-1")
    assert response.status_code == 504
    assert response.json()["error"]["kind"] == "deadline"
    time.sleep(2.0)
    again = call(url, KEY_A, "late", "slow", {"seconds": 3.0}, call_id="late-1")
    assert again.status_code == 200 and again.json()["replayed"] and again.json()["output"] == 1


def test_request_ids_and_json_access_logs(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="toolpen.access")
    for url in serve(config(tmp_path, access_log="json")):
        given = requests.get(f"{url}/healthz", headers={"X-Request-Id": "req-42"}, timeout=5)
        fresh = requests.get(f"{url}/nowhere\nforged", timeout=5)
    assert given.headers["X-Request-Id"] == "req-42"
    assert len(fresh.headers["X-Request-Id"]) == 32
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "toolpen.access"]
    first = next(line for line in lines if line["request_id"] == "req-42")
    assert (first["method"], first["path"], first["route"], first["status"]) == (
        "GET",
        "/healthz",
        "/healthz",
        200,
    )
    assert any(
        line["status"] == 404 and line["request_id"] == fresh.headers["X-Request-Id"] for line in lines
    )


def test_metrics_for_lock_waits_and_pool_saturation(tmp_path: Path) -> None:
    for url in serve(config(tmp_path)):
        check_metrics(url)


def check_metrics(url: str) -> None:
    threads = [
        threading.Thread(
            target=call, args=(url, KEY_A, "m", "slow", {"seconds": 0.3}), kwargs={"call_id": f"m{i}"}
        )
        for i in range(3)
    ]
    for thread in threads:
        thread.start()
    time.sleep(0.2)
    during = requests.get(f"{url}/metrics", timeout=5).text
    for thread in threads:
        thread.join()
    assert all(not thread.is_alive() for thread in threads)
    after = requests.get(f"{url}/metrics", timeout=5).text
    assert "toolpen_pool_workers 1.0" in during
    assert "toolpen_pool_calls_in_flight 1.0" in during
    assert "toolpen_session_lock_wait_seconds_count 3.0" in after
    assert "toolpen_store_errors_total 0.0" in after
