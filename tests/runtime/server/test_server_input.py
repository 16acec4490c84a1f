"""Every request gets a 4xx in the JSON error shape, never a 500: huge numbers, pathological
sources, unknown routes and methods, ``.``/``..`` ids; a replay answers the state its call left."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests

from runtime._server import ServerConfig, parse_api_keys
from tests.runtime.server.test_server import ADD, KEY_A, auth, call, serve, tool_files
from tests.sandbox.language.test_parsing import PATHOLOGICAL


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("server_input")
    config = ServerConfig(
        store=f"sqlite:///{folder / 'sessions.db'}",
        tool_paths=tool_files(folder, add=ADD),
        api_keys=parse_api_keys([f"{KEY_A}=a"]),
        max_body=1024 * 1024 + 4096,
        workers=1,
    )
    yield from serve(config)


def error_of(response: requests.Response, status: int) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    return response.json()["error"]


def test_an_integer_of_5000_digits_is_400_invalid_arguments(url: str) -> None:
    body = '{"tool": "add", "args": {"n": ' + "9" * 5000 + "}}"
    response = requests.post(
        f"{url}/v1/sessions/big/calls",
        data=body,
        headers={**auth(KEY_A), "Content-Type": "application/json"},
        timeout=30,
    )
    assert error_of(response, 400)["kind"] == "invalid_arguments"


@pytest.mark.parametrize("case", PATHOLOGICAL)
def test_pathological_sources_are_422_invalid_source(url: str, case: str) -> None:
    response = requests.post(
        f"{url}/v1/tools", json={"source": PATHOLOGICAL[case]}, headers=auth(KEY_A), timeout=60
    )
    error = error_of(response, 422)
    assert error["kind"] in ("invalid_source", "policy")
    assert response.json()["diagnostics"]


@pytest.mark.parametrize("path", ["/nowhere", "/v1", "/v1/sessions/a/calls/b", "/v1/tools/a/b"])
def test_unknown_routes_answer_the_json_error(url: str, path: str) -> None:
    error = error_of(requests.get(url + path, headers=auth(KEY_A), timeout=5), 404)
    assert error["kind"] == "not_found"


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("PUT", "/v1/tools", {"GET", "HEAD", "POST"}),
        ("PATCH", "/v1/sessions/s1", {"GET", "HEAD", "DELETE"}),
        ("GET", "/v1/sessions/s1/calls", {"POST"}),
        ("POST", "/healthz", {"GET", "HEAD"}),
    ],
)
def test_a_wrong_method_is_405_allowing_every_method_of_the_path(
    url: str, method: str, path: str, allowed: set[str]
) -> None:
    response = requests.request(method, url + path, headers=auth(KEY_A), timeout=5)
    assert error_of(response, 405)["kind"] == "method_not_allowed"
    assert {m.strip() for m in response.headers["Allow"].split(",")} == allowed


@pytest.mark.parametrize("name", [".", ".."])
def test_dot_ids_are_refused(url: str, name: str) -> None:
    # requests would resolve /v1/sessions/.. itself: percent-encode the dots
    encoded = name.replace(".", "%2E")
    response = requests.post(
        f"{url}/v1/sessions/{encoded}/calls",
        json={"tool": "add", "args": {"n": 1}},
        headers=auth(KEY_A),
        timeout=5,
    )
    assert error_of(response, 400)["kind"] == "bad_request"
    response = call(url, KEY_A, "dots", "add", {"n": 1}, call_id=name)
    assert error_of(response, 400)["kind"] == "bad_request"


def test_a_replay_answers_the_delta_its_call_made_and_the_current_state(url: str) -> None:
    """A call's record keeps its result and delta, not the state it left (issue 36)."""
    first = call(url, KEY_A, "replay-state", "add", {"n": 1}, call_id="one").json()
    assert first["state"]["count"] == 1
    call(url, KEY_A, "replay-state", "add", {"n": 10}, call_id="two")
    again = call(url, KEY_A, "replay-state", "add", {"n": 1}, call_id="one").json()
    assert again["replayed"] is True
    assert again["output"] == first["output"] and again["state_delta"] == first["state_delta"]
    assert again["state"]["count"] == 11
