"""``ces_requests`` as tool code sees it, wired to the real broker through an in-process rpc."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from httpd import Handler, LocalServer, serve

from runtime._egress import EgressPolicy
from runtime._http import HttpBroker
from sandbox.bridges.requests_proxy import Requests, make_ces_requests
from sandbox.common.errors import BudgetExceeded


def echo(h: Handler) -> None:
    h.send_json(
        200,
        {"method": h.command, "query": h.hit.query, "body": h.hit.body.decode(), "headers": h.hit.headers},
    )


@pytest.fixture
def server() -> Iterator[LocalServer]:
    routes = {
        "/echo": echo,
        "/missing": lambda h: h.send_json(404, {"error": "no cart"}),
        "/text": lambda h: h.send(200, b"caf\xe9", {"Content-Type": "text/plain; charset=latin-1"}),
        "/binary": lambda h: h.send(200, bytes(range(256)), {"Content-Type": "application/octet-stream"}),
        "/loop": lambda h: h.send(302, "", {"Location": "/loop"}),
        "/slow": lambda h: (time.sleep(2), h.send(200, "late")),
        "/big": lambda h: h.send(200, b"z" * 2048),
    }
    with serve(routes) as s:
        yield s


def requests_for(server: LocalServer, **options: Any) -> Requests:
    """A ``ces_requests`` whose rpc runs the real broker in this process, one budget per 'call'."""
    broker = HttpBroker(EgressPolicy(allow_hosts=[server.allow]), **options)
    budget = broker.new_budget()

    def rpc(target: str, method: str, params: dict[str, Any]) -> Any:
        assert (target, method) == ("http", "request")
        return broker.handle(params, budget=budget, deadline=time.monotonic() + 1.0)

    return make_ces_requests(rpc)


def test_get_json(server: LocalServer) -> None:
    ces_requests = requests_for(server)
    res = ces_requests.get(f"{server.url}/echo", params={"cart": "42"}, headers={"X-Trace": "t1"})
    assert (res.status_code, res.ok, res.reason, res.url) == (200, True, "OK", f"{server.url}/echo?cart=42")
    assert res.headers["content-type"] == res.headers["Content-Type"] == "application/json"
    body = res.json()
    assert body["query"] == {"cart": ["42"]} and body["headers"]["X-Trace"] == "t1"
    assert res.content == res.text.encode() and repr(res) == "<Response [200]>"


@pytest.mark.parametrize("verb", ["post", "put", "patch"])
def test_body_verbs(server: LocalServer, verb: str) -> None:
    ces_requests = requests_for(server)
    sent = getattr(ces_requests, verb)(f"{server.url}/echo", json={"qty": 2}).json()
    assert (sent["method"], sent["body"]) == (verb.upper(), '{"qty": 2}')
    raw = getattr(ces_requests, verb)(f"{server.url}/echo", data=b"\x00raw").json()
    assert raw["body"] == "\x00raw"


def test_other_verbs(server: LocalServer) -> None:
    ces_requests = requests_for(server)
    assert ces_requests.delete(f"{server.url}/echo").json()["method"] == "DELETE"
    head = ces_requests.head(f"{server.url}/echo")
    assert head.status_code == 200 and head.content == b""
    assert ces_requests.request("options", f"{server.url}/echo").json()["method"] == "OPTIONS"


def test_text_and_binary_bodies(server: LocalServer) -> None:
    ces_requests = requests_for(server)
    text = ces_requests.get(f"{server.url}/text")
    assert (text.text, text.content, text.encoding) == ("café", b"caf\xe9", "iso8859-1")
    assert ces_requests.get(f"{server.url}/binary").content == bytes(range(256))
    with pytest.raises(ces_requests.JSONDecodeError) as info:
        text.json()
    assert isinstance(info.value, ValueError) and isinstance(info.value, ces_requests.RequestException)


def test_raise_for_status(server: LocalServer) -> None:
    ces_requests = requests_for(server)
    res = ces_requests.get(f"{server.url}/missing")
    assert not res.ok and res.json() == {"error": "no cart"}
    with pytest.raises(ces_requests.HTTPError, match=r"^404 Client Error: Not Found for url: ") as info:
        res.raise_for_status()
    assert info.value.response is res
    assert isinstance(info.value, ces_requests.RequestException) and isinstance(info.value, Exception)
    assert ces_requests.get(f"{server.url}/echo").raise_for_status() is None


def test_refusal_is_request_denied(server: LocalServer) -> None:
    ces_requests = requests_for(server)
    for url in ("http://169.254.169.254/latest/", "http://10.0.0.5/", f"http://127.0.0.2:{server.port}/echo"):
        with pytest.raises(ces_requests.RequestDenied, match="^refused: .* address"):
            ces_requests.get(url)
    with pytest.raises(ces_requests.RequestDenied, match="scheme 'file'"):
        ces_requests.get("file:///etc/passwd")
    assert server.hits == []


def test_transport_failures_have_requests_classes(server: LocalServer) -> None:
    ces_requests = requests_for(server, max_response_bytes=1024)
    with pytest.raises(ces_requests.Timeout):
        ces_requests.get(f"{server.url}/slow")
    with pytest.raises(ces_requests.TooManyRedirects):
        ces_requests.get(f"{server.url}/loop")
    with pytest.raises(ces_requests.ContentTooLarge, match="larger than 1024 bytes"):
        ces_requests.get(f"{server.url}/big")
    with pytest.raises(ces_requests.InvalidURL):
        ces_requests.get("http://")
    with pytest.raises(ces_requests.ConnectionError, match="cannot resolve"):
        ces_requests.get("http://no-such-host.invalid/")


def test_budget_errors_pass_through(server: LocalServer) -> None:
    ces_requests = requests_for(server, max_requests=1)
    ces_requests.get(f"{server.url}/echo")
    with pytest.raises(BudgetExceeded):
        ces_requests.get(f"{server.url}/echo")


def test_public_surface_holds_no_host_object(server: LocalServer) -> None:
    ces_requests = requests_for(server)
    public = {name for name in dir(ces_requests) if not name.startswith("_")}
    assert public == {
        "request", "get", "head", "options", "post", "put", "patch", "delete",
        "RequestException", "HTTPError", "ConnectionError", "Timeout", "TooManyRedirects",
        "InvalidURL", "ContentTooLarge", "RequestDenied", "JSONDecodeError",
    }  # fmt: skip
    assert not hasattr(ces_requests, "__dict__")
