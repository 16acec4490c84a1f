"""Attacks on `toolpen serve`: hostile bodies, contexts, session ids, keys and tenants.

A real uvicorn on 127.0.0.1 in a thread, a real SQLite store, real worker processes; nothing of
ours mocked.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from runtime._server import ServerConfig, parse_api_keys
from runtime.store import open_store
from tests.conftest import COUNTER
from tests.runtime.server.test_server import ADD, KEY_A, KEY_B, auth, call, serve, tool_files

ECHO = '''
def echo_text(text: str) -> str:
    """Returns the text.

    Args:
        text: Anything.
    """
    return text
'''


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    folder = tmp_path_factory.mktemp("services")
    db_url = f"sqlite:///{folder / 'sessions.db'}"
    config = ServerConfig(
        store=db_url,
        tool_paths=tool_files(folder, add=ADD, echo_text=ECHO),
        api_keys=parse_api_keys([f"{KEY_A}=a", f"{KEY_B}=b"]),
        max_body=1024 * 1024,
        workers=1,
    )
    for url in serve(config):
        yield url, db_url


@pytest.fixture
def url(server: tuple[str, str]) -> str:
    return server[0]


def post_raw(url: str, path: str, body: bytes, key: str = KEY_A) -> requests.Response:
    headers = {**auth(key), "Content-Type": "application/json"}
    return requests.post(f"{url}{path}", data=body, headers=headers, timeout=30)


def test_metrics_labels_do_not_take_attacker_chosen_methods(url: str) -> None:
    # Unauthenticated requests with made-up methods must not each add a metric series.
    for i in range(5):
        assert requests.request(f"XMETHOD{i}", f"{url}/healthz", timeout=5).status_code == 405
    text = requests.get(f"{url}/metrics", timeout=5).text
    assert "XMETHOD" not in text
    assert 'method="other",route="/healthz",status="405"' in text


def test_deeply_nested_body_is_a_400_not_a_crash(url: str) -> None:
    depth = 100_000
    deep = b'{"tool": "echo_text", "args": {"text": ' + b"[" * depth + b"]" * depth + b"}}"
    answer = post_raw(url, "/v1/sessions/deep/calls", deep)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["kind"] == "bad_request"
    # Nesting that json.loads still takes, but deeper than anything a tool call needs.
    body = {"tool": "add", "args": {"n": 1}, "context": {"user_content": {"parts": []}}}
    nested: Any = "x"
    for _ in range(900):
        nested = [nested]
    body["context"]["state"] = {"temp:deep": nested}
    answer = post_raw(url, "/v1/sessions/deep/calls", json.dumps(body).encode())
    assert answer.status_code == 400, answer.text


@pytest.mark.parametrize(
    "body",
    [
        b'{"tool": "echo_text", "args": {"text": "\\ud800"}, "call_id": "sur1"}',
        b'{"tool": "add", "args": {"n": 1}, "context": {"state": {"\\udfff": 1}}, "call_id": "sur2"}',
        b'{"tool": "add", "args": {"n": 1}, "context": {"invocation_id": "\\ud800"}, "call_id": "sur3"}',
    ],
)
def test_lone_surrogates_are_a_400_and_run_nothing(url: str, body: bytes) -> None:
    answer = post_raw(url, "/v1/sessions/surrogates/calls", body)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["kind"] == "bad_request"


@pytest.mark.parametrize(
    "context",
    [
        {"agent_name": {"not": "a string"}},
        {"invocation_id": ["x"]},
        {"state": "not an object"},
        {"state": [1]},
        {"user_content": "text"},
        {"events": {"x": 1}},
        {"function_call_id": {"a": 1}},
        {"function_call_id": "spaces * and ?"},
    ],
)
def test_malformed_context_is_a_400_before_anything_runs(url: str, context: dict[str, Any]) -> None:
    session = f"ctx-{abs(hash(json.dumps(context, sort_keys=True)))}"
    answer = call(url, KEY_A, session, "add", {"n": 1}, context=context, call_id="c1")
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["kind"] == "bad_request"
    # Nothing ran and nothing was begun: the same call id still runs normally.
    retried = call(url, KEY_A, session, "add", {"n": 1}, call_id="c1")
    assert retried.status_code == 200 and retried.json()["success"] is True, retried.text
    assert retried.json()["replayed"] is False


def test_context_function_call_id_still_names_the_call(url: str) -> None:
    first = call(url, KEY_A, "fcid", "add", {"n": 1}, context={"function_call_id": "f-1"})
    again = call(url, KEY_A, "fcid", "add", {"n": 1}, context={"function_call_id": "f-1"})
    assert first.json()["call_id"] == "f-1" and again.json()["replayed"] is True


def test_a_tenant_cannot_delete_a_session_of_another_app_in_the_store(server: tuple[str, str]) -> None:
    url, db_url = server
    # Another app on the same store (a CLI run, an embedding host) whose id happens to
    # start with the tenant's prefix.
    with open_store(db_url) as shared:
        shared.create_session("toolpen", "user", "a:foreign", {"secret": 1})
    assert requests.get(f"{url}/v1/sessions/foreign", headers=auth(KEY_A), timeout=5).status_code == 404
    deleted = requests.delete(f"{url}/v1/sessions/foreign", headers=auth(KEY_A), timeout=5)
    assert deleted.status_code == 404
    with open_store(db_url) as shared:
        assert shared.require_session("a:foreign").state == {"secret": 1}


@pytest.mark.parametrize(
    "path", ["..", "%2e%2e", "a%2Fb", "s%C3%A9", "%23tools", "%23tools:a", "b:x", "a:x", "%00", "*"]
)
def test_session_ids_with_tricks_stay_inside_the_tenant(url: str, path: str) -> None:
    assert call(url, KEY_B, "b-secret", "add", {"n": 7}).json()["success"]
    for method in ("GET", "DELETE"):
        answer = requests.request(method, f"{url}/v1/sessions/{path}", headers=auth(KEY_A), timeout=5)
        assert answer.status_code in (400, 404), (path, answer.status_code, answer.text)
        assert "b-secret" not in answer.text and '"count"' not in answer.text
    listed = requests.get(f"{url}/v1/sessions", headers=auth(KEY_A), timeout=5).json()["sessions"]
    assert all(s["app_name"] == "a" for s in listed)
    assert not any("tools" in s["id"] or s["id"].startswith("b") for s in listed)


def test_keys_only_in_headers_and_exact(url: str) -> None:
    tools = f"{url}/v1/tools"
    assert requests.get(f"{tools}?api_key={KEY_A}", timeout=5).status_code == 401
    assert requests.get(tools, headers={"Authorization": f"Basic {KEY_A}"}, timeout=5).status_code == 401
    assert requests.get(tools, headers={"X-API-Key": KEY_A[:-1]}, timeout=5).status_code == 401
    assert (
        requests.get(tools, headers={"Authorization": "Bearer " + KEY_A.upper()}, timeout=5).status_code
        == 401
    )
    assert requests.get(tools, headers={"X-API-Key": KEY_A}, timeout=5).status_code == 200


def test_a_tool_registered_by_one_tenant_is_invisible_to_another(url: str) -> None:
    added = requests.post(
        f"{url}/v1/tools", json={"source": COUNTER, "replace": True}, headers=auth(KEY_A), timeout=30
    )
    assert added.status_code == 201, added.text
    assert call(url, KEY_B, "x", "bump", {"n": 1}).status_code == 404
    names = [
        t["name"] for t in requests.get(f"{url}/v1/tools", headers=auth(KEY_B), timeout=5).json()["tools"]
    ]
    assert "bump" not in names
    assert requests.delete(f"{url}/v1/tools/bump", headers=auth(KEY_B), timeout=5).status_code == 404
    assert call(url, KEY_A, "x", "bump", {"n": 1}).json()["success"] is True


def test_call_ids_and_app_state_do_not_cross_tenants(url: str) -> None:
    first = call(url, KEY_A, "same", "add", {"n": 5}, call_id="shared-id", user_id="u1").json()
    other = call(url, KEY_B, "same", "add", {"n": 1}, call_id="shared-id", user_id="u1").json()
    assert first["success"] and other["success"] and other["replayed"] is False
    assert other["output"] == 1
    # A tenant's context cannot seed another tenant's app state either.
    call(url, KEY_A, "seed", "add", {"n": 1}, context={"state": {"app:planted": True}})
    seen = call(url, KEY_B, "fresh-b", "add", {"n": 1}).json()
    assert "app:planted" not in seen["state"]


def test_oversized_and_slow_declared_bodies_are_refused_before_reading(url: str) -> None:
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as raw:
        raw.sendall(
            f"POST /v1/sessions/s/calls HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY_A}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {10**12}\r\n\r\n{{".encode()
        )
        assert raw.recv(4096).startswith(b"HTTP/1.1 413 ")  # answered without waiting for the body

    def chunks() -> Iterator[bytes]:
        yield b'{"tool": "echo_text", "args": {"text": "'
        for _ in range(2048):
            yield b"x" * 1024
        yield b'"}}'

    chunked = requests.post(f"{url}/v1/sessions/s/calls", data=chunks(), headers=auth(KEY_A), timeout=30)
    assert chunked.status_code == 413, chunked.text
