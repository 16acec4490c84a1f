"""Attacks on the host-side services: `toolpen serve`, the protocol adapters, the stores, the CLI.

Real servers on 127.0.0.1 (uvicorn in a thread), real stores (PostgreSQL and Redis from
``TOOLPEN_TEST_STORE_URLS`` when they answer), real worker processes; nothing of ours mocked.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import uvicorn

from runtime import Runtime
from runtime.protocols.agents import handle_required_actions
from runtime.protocols.chat import handle_tool_calls
from runtime.protocols.mcp import http_app
from runtime.server import ServerConfig, parse_api_keys
from runtime.session import StateDelta
from runtime.store import open_store
from tests.test_server import ADD, KEY_A, KEY_B, auth, call, serve, tool_files
from tests.test_store import POSTGRES_URLS, fresh_postgres, run_call, store, store_url  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
TOOLPEN = [sys.executable, "-c", "from runtime.cli import main; main()"]

COUNTER = '''
def bump(n: int) -> int:
    """Adds n to the session's counter.

    Args:
        n: How much to add.
    """
    context.state["count"] = context.state.get("count", 0) + n
    return context.state["count"]
'''

ECHO = '''
def echo_text(text: str) -> str:
    """Returns the text.

    Args:
        text: Anything.
    """
    return text
'''

DEFERRED = '''
def find_weather(city: str) -> str:
    """Finds the weather of a city.

    Args:
        city: The city.
    """
    return city
'''


# -- toolpen serve ------------------------------------------------------------------------------


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


# -- MCP ----------------------------------------------------------------------------------------

MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
LEGACY = "2025-11-25"
MODERN = "2026-07-28"


def _mcp_result(answer: requests.Response) -> Any:
    for line in answer.text.splitlines():
        if line.startswith("data:"):
            return json.loads(line[5:])
    return answer.json()


@pytest.fixture(scope="module")
def mcp_url() -> Iterator[str]:
    with Runtime(store="memory://", pool_size=1) as rt:
        rt.add_tool(COUNTER)
        server = uvicorn.Server(uvicorn.Config(http_app(rt), host="127.0.0.1", port=0, log_level="warning"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 20
        while not server.started:
            assert time.monotonic() < deadline and thread.is_alive()
            time.sleep(0.02)
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}/mcp"
        server.should_exit = True
        thread.join(10)


def _bump(http: requests.Session, url: str, headers: dict[str, str], n: int, meta: Any = None) -> Any:
    params: dict[str, Any] = {"name": "bump", "arguments": {"n": n}}
    if meta is not None:
        params["_meta"] = meta
    body = {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params}
    return _mcp_result(http.post(url, headers=headers, json=body, timeout=30))


def test_mcp_modern_requests_cannot_join_another_clients_session(mcp_url: str) -> None:
    with requests.Session() as http:
        init = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": LEGACY,
                "capabilities": {},
                "clientInfo": {"name": "v", "version": "1"},
            },
        }
        opened = http.post(
            mcp_url, headers={**MCP_HEADERS, "MCP-Protocol-Version": LEGACY}, json=init, timeout=30
        )
        victim_id = opened.headers["mcp-session-id"]
        victim = {**MCP_HEADERS, "MCP-Protocol-Version": LEGACY, "mcp-session-id": victim_id}
        http.post(
            mcp_url,
            headers=victim,
            json={"jsonrpc": "2.0", "method": "notifications/initialized"},
            timeout=30,
        )
        assert _bump(http, mcp_url, victim, 5)["result"]["structuredContent"] == {"result": 5}

        # The attacker speaks the stateless era and names the victim's MCP session.
        meta = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        attacker = {
            **MCP_HEADERS,
            "MCP-Protocol-Version": MODERN,
            "Mcp-Method": "tools/call",
            "Mcp-Name": "bump",
            "mcp-session-id": victim_id,
        }
        stolen = _bump(http, mcp_url, attacker, 1000, meta)
        assert stolen["result"]["structuredContent"] == {"result": 1000}, stolen  # no session: fresh state
        assert _bump(http, mcp_url, victim, 5)["result"]["structuredContent"] == {"result": 10}


# -- Agents API and Chat Completions adapters -------------------------------------------------


@pytest.fixture(scope="module")
def rt() -> Iterator[Runtime]:
    with Runtime(store="memory://", pool_size=1) as runtime:
        runtime.add_tool(COUNTER)
        runtime.add_tool(DEFERRED, defer_loading=True)
        yield runtime


def _action(turn_id: Any, call_id: Any, n: int = 1) -> dict[str, Any]:
    return {
        "type": "function_call",
        "turn_id": turn_id,
        "call_id": call_id,
        "name": "bump",
        "arguments": {"n": n},
    }


def test_agents_turn_and_call_ids_cannot_collide_in_the_stored_key(rt: Runtime) -> None:
    session = {"id": "agents-collide", "required_actions": [_action("t:1", "c", 1), _action("t", "1:c", 10)]}
    first, second = handle_required_actions(session, rt)
    assert first["output"] == "1" and second["output"] == "11", (first, second)
    # Ordinary ids keep their stored key: a second handling replays both.
    plain = {"id": "agents-collide", "required_actions": [_action("turn_1", "call_1", 100)]}
    assert handle_required_actions(plain, rt)[0]["output"] == "111"
    assert handle_required_actions(plain, rt)[0]["output"] == "111"


@pytest.mark.parametrize(
    "session",
    [
        {"required_actions": [_action("t", "c")]},
        {"id": "agents-types", "required_actions": [_action(None, "c")]},
        {"id": "agents-types", "required_actions": [_action("t", 7)]},
        {"id": "agents-types", "required_actions": [_action("t", "")]},
    ],
)
def test_agents_actions_without_usable_ids_run_nothing(rt: Runtime, session: dict[str, Any]) -> None:
    [event] = handle_required_actions(session, rt)
    assert event["success"] is False and event["error"].startswith("invalid_arguments:"), event
    assert rt.store.get_session("None") is None


@pytest.mark.parametrize(
    "arguments",
    [
        '{"query": "weather", "limit": "many"}',
        '{"query": "weather", "limit": 1e400}',
        '{"query": ["x"]}',
        "{}",
    ],
)
def test_tool_search_with_bad_arguments_is_an_error_reply(rt: Runtime, arguments: str) -> None:
    message = {"tool_calls": [{"id": "s1", "function": {"name": "tool_search", "arguments": arguments}}]}
    [reply] = handle_tool_calls(message, rt)
    assert reply["content"].startswith("invalid_arguments:"), reply


def test_tool_search_with_a_huge_query_or_limit_still_answers(rt: Runtime) -> None:
    query = json.dumps({"query": "weather " * 100_000, "limit": 10**30})
    message = {"tool_calls": [{"id": "s1", "function": {"name": "tool_search", "arguments": query}}]}
    [reply] = handle_tool_calls(message, rt)
    assert json.loads(reply["content"])["tools"][0]["function"]["name"] == "find_weather"


# -- stores -------------------------------------------------------------------------------------

ODD_IDS = ["a' OR '1'='1", "*", "a:*", "a b", "../../../../tmp/x", '"],["victim', "%s", "a\\", "é\u202e"]


def test_odd_ids_and_keys_never_reach_another_session(store) -> None:  # noqa: F811
    store.create_session("victim", "u", "victim:s", {"app:secret": 1, "user:secret": 2, "secret": 3})
    for session_id in ODD_IDS:
        store.get_or_create_session("evil", "u", session_id)
        with store.lock(session_id):
            run_call(store, session_id, "c", StateDelta({"k": 1, "app:*": 2, "user:a:*": 3}))
        assert not {"app:secret", "user:secret", "secret"} & set(store.require_session(session_id).state)
    for app, user in (("victim", '","'), ('victim","', "u"), ("vict*", "u"), ("victim", "*")):
        state = store.create_session(app, user, f"x-{app}-{user}").state
        assert "user:secret" not in state and "secret" not in state
        assert "app:secret" not in state or app == "victim"
    assert store.require_session("victim:s").state == {"app:secret": 1, "user:secret": 2, "secret": 3}
    if store.url.startswith("sqlite:///"):
        lock_dir = Path(store.url.removeprefix("sqlite:///") + ".locks")
        assert all(len(name) == len("0" * 64 + ".lock") for name in os.listdir(lock_dir))


# -- CLI ----------------------------------------------------------------------------------------


def toolpen(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*TOOLPEN, *args], capture_output=True, text=True, timeout=120, cwd=ROOT)


@pytest.mark.parametrize("command", [["session", "list"], ["serve", "--port", "0"]])
def test_store_passwords_never_printed_for_a_mistyped_url(command: list[str]) -> None:
    done = toolpen(*command, "--store", "postgres://alice:S3cretPw@db.invalid:5432/toolpen")
    assert done.returncode != 0
    assert "S3cretPw" not in done.stdout + done.stderr
    assert "unknown store URL" in done.stderr


@pytest.mark.parametrize("url", POSTGRES_URLS)
def test_store_passwords_never_printed_by_session_commands(url: str) -> None:
    for fresh in fresh_postgres(url):
        password = fresh.split("@", 1)[0].rsplit(":", 1)[1]
        listed = toolpen("session", "list", "--store", fresh)
        deleted = toolpen("session", "delete", "nope", "--store", fresh)
        assert listed.returncode == 0 and deleted.returncode == 1, listed.stderr + deleted.stderr
        for done in (listed, deleted):
            assert f":{password}@" not in done.stdout + done.stderr
        assert "no sessions in postgresql://" in listed.stdout
