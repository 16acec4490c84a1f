"""The HTTP broker against real servers on 127.0.0.1: requests, redirects, refusals, time, size, budget."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from httpd import Handler, LocalServer, make_tls, serve

from runtime._egress import EgressPolicy, PinnedTarget
from runtime._http import HttpBroker, HttpRequest, RequestBudget
from runtime._http_transport import PinnedAdapter, prepare
from sandbox.common.errors import BudgetExceeded, HttpDenied, HttpFailed


def echo(h: Handler) -> None:
    h.send_json(200, {"method": h.command, "query": h.hit.query, "body": h.hit.body.decode("latin-1")})


def redirect_to(location: str, status: int = 302):
    return lambda h: h.send(status, "", {"Location": location})


def slow_headers(h: Handler) -> None:
    time.sleep(3)
    h.send(200, "late")


def drip(h: Handler) -> None:
    h.send_response(200)
    h.end_headers()
    try:
        for _ in range(100):
            h.wfile.write(b"x")
            h.wfile.flush()
            time.sleep(0.05)
    except OSError:
        pass


def huge(h: Handler) -> None:
    h.send(200, b"a" * (6 * 1024 * 1024))


def huge_undeclared(h: Handler) -> None:
    h.send_response(200)
    h.end_headers()
    try:
        for _ in range(7):
            h.wfile.write(b"b" * (1024 * 1024))
    except OSError:
        pass


@pytest.fixture
def server() -> Iterator[LocalServer]:
    routes = {
        "/echo": echo,
        "/json": lambda h: h.send_json(200, {"cart": [1, 2]}),
        "/fail": lambda h: h.send_json(500, {"error": "boom"}),
        "/binary": lambda h: h.send(200, bytes(range(256)), {"Content-Type": "application/octet-stream"}),
        "/to-echo": redirect_to("/echo"),
        "/see-other": redirect_to("/echo", 303),
        "/temporary": redirect_to("/echo", 307),
        "/loop": redirect_to("/loop"),
        "/slow": slow_headers,
        "/drip": drip,
        "/huge": huge,
        "/huge-undeclared": huge_undeclared,
    }
    with serve(routes) as s:
        yield s


@pytest.fixture
def other() -> Iterator[LocalServer]:
    with serve({"/echo": echo}) as s:
        yield s


def fetch(
    broker: HttpBroker, request: HttpRequest, seconds: float = 5.0, budget: RequestBudget | None = None
):
    return broker.fetch(request, budget=budget or broker.new_budget(), deadline=time.monotonic() + seconds)


def broker_for(*servers: LocalServer, **options) -> HttpBroker:
    return HttpBroker(EgressPolicy(allow_hosts=[s.allow for s in servers]), **options)


def test_json_get_with_params(server: LocalServer) -> None:
    response = fetch(
        broker_for(server), HttpRequest("GET", f"{server.url}/echo", params={"q": "a b", "n": 2})
    )
    assert response.status_code == 200 and response.is_json
    assert json.loads(response.text) == {"method": "GET", "query": {"q": ["a b"], "n": ["2"]}, "body": ""}
    assert server.hits[0].headers["Host"] == server.allow


def test_json_and_form_post(server: LocalServer) -> None:
    broker = broker_for(server)
    posted = fetch(broker, HttpRequest("POST", f"{server.url}/echo", json={"item": "é"}))
    assert json.loads(json.loads(posted.text)["body"].encode("latin-1")) == {"item": "é"}
    assert server.hits[-1].headers["Content-Type"] == "application/json"
    form = fetch(broker, HttpRequest("PUT", f"{server.url}/echo", data={"a": "1"}))
    assert json.loads(form.text) == {"method": "PUT", "query": {}, "body": "a=1"}


def test_error_statuses_are_responses(server: LocalServer) -> None:
    broker = broker_for(server)
    assert fetch(broker, HttpRequest("GET", f"{server.url}/nowhere")).status_code == 404
    failed = fetch(broker, HttpRequest("GET", f"{server.url}/fail"))
    assert (failed.status_code, json.loads(failed.text)) == (500, {"error": "boom"})


def test_answer_for_the_worker(server: LocalServer) -> None:
    broker = broker_for(server)
    budget = broker.new_budget()
    answer = broker.handle(
        {"method": "get", "url": f"{server.url}/json"}, budget=budget, deadline=time.monotonic() + 5
    )
    assert answer["status_code"] == 200 and answer["reason"] == "OK"
    assert json.loads(answer["text"]) == {"cart": [1, 2]}
    assert answer["headers"]["Content-Type"] == "application/json"
    binary = broker.handle({"url": f"{server.url}/binary"}, budget=budget, deadline=time.monotonic() + 5)
    assert "text" not in binary and len(binary["content_b64"]) > 256
    with pytest.raises(HttpFailed, match="^invalid url: method 'TRACE'"):
        broker.handle({"method": "TRACE", "url": server.url}, budget=budget, deadline=time.monotonic() + 5)


def test_redirects_are_followed_and_rewritten(server: LocalServer) -> None:
    broker = broker_for(server)
    followed = fetch(broker, HttpRequest("POST", f"{server.url}/to-echo", json={"x": 1}))
    assert followed.url == f"{server.url}/echo" and json.loads(followed.text)["method"] == "GET"
    assert (
        json.loads(fetch(broker, HttpRequest("POST", f"{server.url}/see-other", data="d")).text)["body"] == ""
    )
    kept = json.loads(fetch(broker, HttpRequest("POST", f"{server.url}/temporary", data="d")).text)
    assert (kept["method"], kept["body"]) == ("POST", "d")


def test_too_many_redirects(server: LocalServer) -> None:
    budget = RequestBudget(20)
    with pytest.raises(HttpFailed, match="^too many redirects: more than 5"):
        fetch(broker_for(server), HttpRequest("GET", f"{server.url}/loop"), budget=budget)
    assert budget.used == 6 and len(server.hits) == 6


@pytest.mark.parametrize(
    "location",
    ["http://10.0.0.1/", "http://169.254.169.254/latest/meta-data/", "http://2130706433:{port}/echo"],
)
def test_redirect_to_refused_address(server: LocalServer, other: LocalServer, location: str) -> None:
    server.routes["/away"] = redirect_to(location.format(port=other.port))
    with pytest.raises(HttpDenied, match="^refused: "):
        fetch(broker_for(server), HttpRequest("GET", f"{server.url}/away"))
    assert other.hits == []


def test_credentials_dropped_across_origins(server: LocalServer, other: LocalServer) -> None:
    server.routes["/away"] = redirect_to(f"{other.url}/echo")
    secret = {"Authorization": "Bearer s3cret", "X-Api-Key": "k3y", "X-Trace": "t"}
    broker = broker_for(server, other)
    fetch(
        broker,
        HttpRequest(
            "GET", f"{server.url}/to-echo", headers=secret, sensitive_headers=frozenset({"X-Api-Key"})
        ),
    )
    assert server.hits[-1].headers["Authorization"] == "Bearer s3cret"
    fetch(
        broker,
        HttpRequest("GET", f"{server.url}/away", headers=secret, sensitive_headers=frozenset({"x-api-key"})),
    )
    received = other.hits[-1].headers
    assert "Authorization" not in received and "X-Api-Key" not in received and received["X-Trace"] == "t"
    assert received["Host"] == other.allow


@pytest.mark.parametrize(
    "spelling",
    [
        "2130706433",
        "0x7f000001",
        "0177.0.0.1",
        "127.1",
        "localhost",
        "127.0.0.1",
        "[::ffff:127.0.0.1]",
        "[::1]",
    ],
)
def test_spellings_refused_before_connecting(server: LocalServer, spelling: str) -> None:
    broker = HttpBroker(EgressPolicy())
    with pytest.raises(HttpDenied, match="loopback"):
        fetch(broker, HttpRequest("GET", f"http://{spelling}:{server.port}/echo"))
    assert server.hits == []


def test_connects_to_the_pinned_address_not_the_name(server: LocalServer) -> None:
    target = PinnedTarget("http", "cart.example.invalid", server.port, "127.0.0.1")
    request = prepare(HttpRequest("GET", f"http://cart.example.invalid:{server.port}/json"))
    request.headers["Host"] = f"cart.example.invalid:{server.port}"
    adapter = PinnedAdapter(target)
    try:
        response = adapter.send(request, timeout=(2, 2), proxies={})
    finally:
        adapter.close()
    assert response.json() == {"cart": [1, 2]}
    assert server.hits[-1].headers["Host"] == f"cart.example.invalid:{server.port}"


def test_environment_proxies_are_ignored(
    server: LocalServer, other: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY"):
        monkeypatch.setenv(name, other.url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    assert fetch(broker_for(server, other), HttpRequest("GET", f"{server.url}/json")).status_code == 200
    assert other.hits == [] and len(server.hits) == 1


def test_slow_server_times_out_within_the_deadline(server: LocalServer) -> None:
    broker = broker_for(server)
    started = time.monotonic()
    with pytest.raises(HttpFailed, match="^timeout: "):
        fetch(broker, HttpRequest("GET", f"{server.url}/slow"), seconds=0.5)
    assert time.monotonic() - started < 1.5
    started = time.monotonic()
    with pytest.raises(HttpFailed, match="^timeout: .*sent nothing for 0.3s"):
        fetch(broker, HttpRequest("GET", f"{server.url}/slow", timeout=0.3))
    assert time.monotonic() - started < 1.3


def test_dripping_body_stops_at_the_deadline(server: LocalServer) -> None:
    started = time.monotonic()
    with pytest.raises(HttpFailed, match="^timeout: the call's deadline passed while reading"):
        fetch(broker_for(server), HttpRequest("GET", f"{server.url}/drip"), seconds=0.6)
    assert time.monotonic() - started < 1.2


def test_expired_deadline_sends_nothing(server: LocalServer) -> None:
    with pytest.raises(HttpFailed, match="^timeout: "):
        fetch(broker_for(server), HttpRequest("GET", f"{server.url}/json"), seconds=-1)
    assert server.hits == []


@pytest.mark.parametrize("path", ["/huge", "/huge-undeclared"])
def test_response_size_cap(server: LocalServer, path: str) -> None:
    with pytest.raises(HttpFailed, match="^response too large: .* larger than 5 MiB"):
        fetch(broker_for(server), HttpRequest("GET", f"{server.url}{path}"))


def test_small_cap_refuses_256_bytes(server: LocalServer) -> None:
    with pytest.raises(HttpFailed, match="larger than 100 bytes"):
        fetch(broker_for(server, max_response_bytes=100), HttpRequest("GET", f"{server.url}/binary"))


def test_request_budget(server: LocalServer) -> None:
    broker = broker_for(server, max_requests=2)
    budget = broker.new_budget()
    for _ in range(2):
        fetch(broker, HttpRequest("GET", f"{server.url}/json"), budget=budget)
    with pytest.raises(BudgetExceeded, match="at most 2 requests per call"):
        fetch(broker, HttpRequest("GET", f"{server.url}/json"), budget=budget)
    assert len(server.hits) == 2


def test_connection_refused(server: LocalServer) -> None:
    port = server.port
    broker = broker_for(server)
    server.shutdown()
    server.server_close()
    with pytest.raises(HttpFailed, match=f"^connection error: cannot talk to 127.0.0.1:{port}"):
        fetch(broker, HttpRequest("GET", f"http://127.0.0.1:{port}/json"))


def test_https_through_the_broker_verifies_the_certificate(tmp_path: Path) -> None:
    tls, ca_file, _ = make_tls(tmp_path, "127.0.0.1")
    with serve({"/json": lambda h: h.send_json(200, {"tls": True})}, tls=tls) as server:
        url = f"https://127.0.0.1:{server.port}/json"
        trusted = HttpBroker(EgressPolicy(allow_hosts=[server.allow]), ca_bundle=ca_file)
        assert json.loads(fetch(trusted, HttpRequest("GET", url)).text) == {"tls": True}
        with pytest.raises(HttpFailed, match="^connection error: TLS handshake or certificate check"):
            fetch(broker_for(server), HttpRequest("GET", url))


def test_pinned_https_keeps_the_name_for_sni_and_the_certificate(tmp_path: Path) -> None:
    tls, ca_file, sni = make_tls(tmp_path, "crm.toolpen.test")
    with serve({"/json": lambda h: h.send_json(200, {"tls": True})}, tls=tls) as server:

        def send(name: str) -> requests.Response:
            target = PinnedTarget("https", name, server.port, "127.0.0.1")
            request = prepare(HttpRequest("GET", f"https://{name}:{server.port}/json"))
            request.headers["Host"] = f"{name}:{server.port}"
            adapter = PinnedAdapter(target)
            try:
                return adapter.send(request, timeout=(2, 2), verify=ca_file, proxies={})
            finally:
                adapter.close()

        assert send("crm.toolpen.test").json() == {"tls": True}
        assert sni == ["crm.toolpen.test"]
        with pytest.raises(requests.exceptions.SSLError, match="crm.toolpen.test|match|mismatch"):
            send("other.toolpen.test")


def test_tool_cannot_forge_the_host_header(server: LocalServer) -> None:
    headers = {"Host": "metadata.google.internal"}
    fetch(broker_for(server), HttpRequest("GET", f"{server.url}/json", headers=headers))
    assert server.hits[-1].headers["Host"] == server.allow
