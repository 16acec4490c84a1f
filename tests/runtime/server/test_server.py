"""The HTTP service in one process: a real uvicorn on 127.0.0.1, real workers, requests as client."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from openapi_spec_validator import validate

from runtime._server import ServerConfig, create_app, parse_api_keys
from sandbox.common.errors import InvalidArguments
from tests.conftest import serving_app

KEY_A = "key-of-tenant-a-0123456789"
KEY_B = "key-of-tenant-b-0123456789"

ADD = '''
def add(n: int) -> int:
    """Adds n to the session's counter and to the tenant-wide app:total.

    Args:
        n: How much to add.
    """
    context.state["count"] = context.state.get("count", 0) + n
    context.state["app:total"] = context.state.get("app:total", 0) + n
    return context.state["count"]
'''

BOOM = '''
def boom() -> int:
    """Always fails."""
    raise ValueError("boom")
'''

SECRET = '''
def secret_of_a(word: str) -> str:
    """Only tenant a has this tool.

    Args:
        word: Anything.
    """
    return word.upper()
'''


def serve(config: ServerConfig) -> Iterator[str]:
    """Run ``create_app(config)`` on uvicorn in a thread; yield its base URL."""
    with serving_app(create_app(config)) as url:
        yield url


def tool_files(folder: Path, **sources: str) -> tuple[Path, ...]:
    for name, source in sources.items():
        (folder / f"{name}.py").write_text(source)
    return tuple(folder / f"{name}.py" for name in sources)


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("server")
    config = ServerConfig(
        store=f"sqlite:///{folder / 'sessions.db'}",
        tool_paths=tool_files(folder, add=ADD, boom=BOOM),
        api_keys=parse_api_keys([f"{KEY_A}=a", f"{KEY_B}=b"]),
        max_body=64 * 1024,
        workers=1,
    )
    yield from serve(config)


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def call(url: str, key: str, session: str, tool: str, args: dict, **extra: object) -> requests.Response:
    body = {"tool": tool, "args": args, **extra}
    return requests.post(f"{url}/v1/sessions/{session}/calls", json=body, headers=auth(key), timeout=30)


# -- open endpoints -----------------------------------------------------------------------------


def test_health_and_openapi_need_no_key(url: str) -> None:
    assert requests.get(f"{url}/healthz", timeout=5).json() == {"status": "ok"}
    document = requests.get(f"{url}/openapi.json", timeout=5).json()
    validate(document)
    assert {"/v1/tools", "/v1/sessions/{session_id}/calls", "/metrics"} <= set(document["paths"])


def test_metrics_count_requests_by_route_and_calls_by_outcome(url: str) -> None:
    call(url, KEY_A, "metrics", "add", {"n": 1}, call_id="m1")
    call(url, KEY_A, "metrics", "add", {"n": 1}, call_id="m1")
    requests.get(f"{url}/v1/tools", timeout=5)
    text = requests.get(f"{url}/metrics", timeout=5).text
    assert (
        'toolpen_http_requests_total{method="POST",route="/v1/sessions/{session_id}/calls",status="200"}'
        in text
    )
    assert 'toolpen_tool_calls_total{outcome="replayed"}' in text
    assert 'toolpen_refused_requests_total{reason="auth"}' in text
    assert "toolpen_tenants 2.0" in text
    assert "/v1/sessions/metrics" not in text  # raw paths never become labels


# -- authentication and tenant isolation --------------------------------------------------------


@pytest.mark.parametrize(
    "headers", [{}, {"Authorization": "Bearer not-a-key-of-ours-at-all"}, {"X-API-Key": "x"}]
)
def test_a_key_is_required(url: str, headers: dict[str, str]) -> None:
    response = requests.get(f"{url}/v1/sessions", headers=headers, timeout=5)
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == "Bearer"
    assert response.json()["error"]["kind"] == "unauthorized"


def test_x_api_key_header_is_accepted(url: str) -> None:
    assert requests.get(f"{url}/v1/sessions", headers={"X-API-Key": KEY_A}, timeout=5).status_code == 200


def test_tenants_never_see_each_others_sessions(url: str) -> None:
    state_a = call(url, KEY_A, "shared-name", "add", {"n": 5}).json()["state"]
    # the same session id is another session for b, and app: state is per tenant
    assert call(url, KEY_B, "shared-name", "add", {"n": 100}).json()["state"]["count"] == 100
    assert call(url, KEY_A, "shared-name", "add", {"n": 0}).json()["state"] == state_a
    assert state_a["count"] == 5
    call(url, KEY_A, "only-a", "add", {"n": 1})
    listed_b = requests.get(f"{url}/v1/sessions", headers=auth(KEY_B), timeout=5).json()["sessions"]
    assert "only-a" not in {s["id"] for s in listed_b}
    assert all(s["app_name"] == "b" for s in listed_b)
    for method in (requests.get, requests.delete):
        response = method(f"{url}/v1/sessions/only-a", headers=auth(KEY_B), timeout=5)
        assert response.status_code == 404, method
    session = requests.get(f"{url}/v1/sessions/only-a", headers=auth(KEY_A), timeout=5).json()
    assert session["id"] == "only-a" and session["state"]["count"] == 1 and len(session["events"]) == 2


def test_tenants_never_see_each_others_tools(url: str) -> None:
    created = requests.post(f"{url}/v1/tools", json={"source": SECRET}, headers=auth(KEY_A), timeout=30)
    assert created.status_code == 201, created.text
    assert set(created.json()["schemas"]) == {"openai", "responses", "gemini", "mcp"}
    names_b = [
        t["name"] for t in requests.get(f"{url}/v1/tools", headers=auth(KEY_B), timeout=5).json()["tools"]
    ]
    assert names_b == ["add", "boom"]
    assert call(url, KEY_B, "s", "secret_of_a", {"word": "x"}).status_code == 404
    assert requests.delete(f"{url}/v1/tools/secret_of_a", headers=auth(KEY_B), timeout=5).status_code == 404
    assert call(url, KEY_A, "s", "secret_of_a", {"word": "x"}).json()["output"] == "X"


def test_shared_tools_cannot_be_replaced_or_removed(url: str) -> None:
    replaced = requests.post(
        f"{url}/v1/tools", json={"source": ADD, "replace": True}, headers=auth(KEY_B), timeout=30
    )
    assert replaced.status_code == 409 and replaced.json()["error"]["kind"] == "conflict"
    assert requests.delete(f"{url}/v1/tools/add", headers=auth(KEY_B), timeout=5).status_code == 409


# -- tools ---------------------------------------------------------------------------------------


def test_register_list_in_each_format_replace_and_delete(url: str) -> None:
    source = SECRET.replace("secret_of_a", "shout")
    body = {"source": source, "read_only": True}
    assert requests.post(f"{url}/v1/tools", json=body, headers=auth(KEY_B), timeout=30).status_code == 201
    again = requests.post(f"{url}/v1/tools", json=body, headers=auth(KEY_B), timeout=30)
    assert again.status_code == 409
    replaced = requests.post(
        f"{url}/v1/tools", json={**body, "replace": True}, headers=auth(KEY_B), timeout=30
    )
    assert replaced.status_code == 201 and replaced.json()["read_only"] is True
    gemini = requests.get(f"{url}/v1/tools?format=gemini", headers=auth(KEY_B), timeout=5).json()
    shout = next(t for t in gemini["tools"] if t["name"] == "shout")
    assert shout["shared"] is False and shout["schema"]["name"] == "shout" and "type" not in shout["schema"]
    openai = requests.get(f"{url}/v1/tools?format=openai", headers=auth(KEY_B), timeout=5).json()
    assert openai["tools"][0]["schema"]["type"] == "function"
    bad_format = requests.get(f"{url}/v1/tools?format=xml", headers=auth(KEY_B), timeout=5)
    assert bad_format.status_code == 400
    assert requests.delete(f"{url}/v1/tools/shout", headers=auth(KEY_B), timeout=5).status_code == 204
    assert call(url, KEY_B, "s", "shout", {"word": "x"}).status_code == 404


def test_bad_source_is_422_with_located_diagnostics(url: str) -> None:
    source = 'def broken(x: int) -> int:\n    """Broken."""\n    return x.__globals__\n'
    response = requests.post(f"{url}/v1/tools", json={"source": source}, headers=auth(KEY_A), timeout=30)
    assert response.status_code == 422
    body = response.json()
    assert body["error"]["kind"] == "policy" and body["error"]["line"] == 3
    assert any(d["line"] == 3 for d in body["diagnostics"])
    syntax = requests.post(f"{url}/v1/tools", json={"source": "def f(:\n"}, headers=auth(KEY_A), timeout=30)
    assert syntax.status_code == 422 and syntax.json()["error"]["kind"] == "invalid_source"
    compiled = {"source": 'def f(x: int) -> int:\n    """F."""\n    return x\n\n\nbreak\n'}
    late = requests.post(f"{url}/v1/tools", json=compiled, headers=auth(KEY_A), timeout=30)
    assert late.status_code == 422 and late.json()["error"]["kind"] == "invalid_source"  # not a 500
    assert late.json()["error"]["line"] == 6


# -- calls ---------------------------------------------------------------------------------------


def test_idempotency_key_header_replays_the_stored_result(url: str) -> None:
    headers = {**auth(KEY_A), "Idempotency-Key": "once"}
    body = {"tool": "add", "args": {"n": 3}}
    first = requests.post(f"{url}/v1/sessions/idem/calls", json=body, headers=headers, timeout=30).json()
    second = requests.post(f"{url}/v1/sessions/idem/calls", json=body, headers=headers, timeout=30).json()
    assert (first["replayed"], second["replayed"]) == (False, True)
    assert first["output"] == second["output"] == 3 and first["call_id"] == "once"
    state = requests.get(f"{url}/v1/sessions/idem", headers=auth(KEY_A), timeout=5).json()["state"]
    assert state["count"] == 3
    differ = requests.post(
        f"{url}/v1/sessions/idem/calls", json={**body, "call_id": "other"}, headers=headers, timeout=30
    )
    assert differ.status_code == 400


def test_a_failing_tool_is_200_with_its_error_and_changes_nothing(url: str) -> None:
    response = call(url, KEY_A, "fails", "boom", {})
    assert response.status_code == 200
    body = response.json()
    assert body["success"] is False and body["error"]["kind"] == "tool_error"
    assert requests.get(f"{url}/v1/sessions/fails", headers=auth(KEY_A), timeout=5).json()["events"] == []


@pytest.mark.parametrize(
    ("body", "status", "kind"),
    [
        ({"tool": "add", "args": {"n": "two"}}, 422, "invalid_arguments"),
        ({"tool": "add", "args": {"n": 1, "extra": 1}}, 422, "invalid_arguments"),
        ({"tool": "nope", "args": {}}, 404, "not_found"),
        ({"args": {}}, 400, "bad_request"),
        ({"tool": "add", "args": [1]}, 400, "bad_request"),
        ({"tool": "add", "args": {"n": 1}, "call_id": "has space"}, 400, "bad_request"),
    ],
)
def test_protocol_problems_are_4xx(url: str, body: dict, status: int, kind: str) -> None:
    response = requests.post(f"{url}/v1/sessions/p/calls", json=body, headers=auth(KEY_A), timeout=30)
    assert response.status_code == status, response.text
    assert response.json()["error"]["kind"] == kind


def test_bad_json_and_large_bodies(url: str) -> None:
    headers = {**auth(KEY_A), "Content-Type": "application/json"}
    bad = requests.post(f"{url}/v1/sessions/p/calls", data=b"{nope", headers=headers, timeout=5)
    assert bad.status_code == 400 and bad.json()["error"]["kind"] == "bad_request"
    big = {"tool": "add", "args": {"n": 1}, "context": {"pad": "x" * 70_000}}
    too_large = requests.post(f"{url}/v1/sessions/p/calls", json=big, headers=headers, timeout=5)
    assert too_large.status_code == 413 and too_large.json()["error"]["kind"] == "body_too_large"

    def chunks() -> Iterator[bytes]:  # no Content-Length: the cap applies while reading
        yield b'{"tool": "add", "args": {"n": 1}, "pad": "'
        for _ in range(100):
            yield b"x" * 1024
        yield b'"}'

    streamed = requests.post(f"{url}/v1/sessions/p/calls", data=chunks(), headers=headers, timeout=5)
    assert streamed.status_code == 413


def test_delete_a_session(url: str) -> None:
    call(url, KEY_B, "gone", "add", {"n": 1})
    assert requests.delete(f"{url}/v1/sessions/gone", headers=auth(KEY_B), timeout=5).status_code == 204
    assert requests.get(f"{url}/v1/sessions/gone", headers=auth(KEY_B), timeout=5).status_code == 404
    assert requests.delete(f"{url}/v1/sessions/gone", headers=auth(KEY_B), timeout=5).status_code == 404


# -- rate limit and refusing to start -----------------------------------------------------------


def test_rate_limit_per_key_answers_429_with_retry_after(tmp_path: Path) -> None:
    config = ServerConfig(
        store="memory://", api_keys=parse_api_keys([f"{KEY_A}=a", f"{KEY_B}=b"]), rate=0.5, burst=3, workers=1
    )
    for url in serve(config):
        statuses = [
            requests.get(f"{url}/v1/sessions", headers=auth(KEY_A), timeout=5).status_code for _ in range(4)
        ]
        assert statuses == [200, 200, 200, 429]
        limited = requests.get(f"{url}/v1/sessions", headers=auth(KEY_A), timeout=5)
        assert limited.json()["error"]["kind"] == "rate_limited" and int(limited.headers["Retry-After"]) >= 1
        assert requests.get(f"{url}/v1/sessions", headers=auth(KEY_B), timeout=5).status_code == 200


def test_loopback_without_keys_serves_one_local_tenant() -> None:
    for url in serve(ServerConfig(store="memory://", workers=1)):
        assert requests.get(f"{url}/v1/sessions", timeout=5).json() == {"sessions": []}


def test_walls_process_registers_and_runs_plain_python() -> None:
    source = 'import os\n\n\ndef pid_is_positive() -> bool:\n    """Plain CPython."""\n    return os.getpid() > 0\n'
    for url in serve(ServerConfig(store="memory://", workers=1, walls="process")):
        added = requests.post(f"{url}/v1/tools", json={"source": source}, timeout=30)
        assert added.status_code == 201, added.text
        done = requests.post(
            f"{url}/v1/sessions/s/calls", json={"tool": "pid_is_positive", "args": {}}, timeout=30
        )
        assert done.json()["output"] is True
        broken = requests.post(f"{url}/v1/tools", json={"source": source + "def (:\n"}, timeout=30)
        assert broken.status_code == 422
        assert [d["code"] for d in broken.json()["diagnostics"]] == ["syntax"]


def test_refuses_a_public_address_without_keys() -> None:
    with pytest.raises(InvalidArguments, match="without API keys"):
        create_app(ServerConfig(host="0.0.0.0", store="memory://"))
    command = [
        sys.executable,
        "-c",
        "from runtime._cli import main; main()",
        "serve",
        "--host",
        "0.0.0.0",
        "--store",
        "memory://",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "without API keys" in done.stderr


@pytest.mark.parametrize("item", ["short=a", "key-long-enough-0123456=bad tenant!"])
def test_bad_api_keys_are_refused(item: str) -> None:
    with pytest.raises(InvalidArguments):
        parse_api_keys([item])
