"""An OpenAPI secret echoed back by a server is redacted in whatever encoding the server used.

A real server on 127.0.0.1 echoes the API key it received: JSON-escaped (``\\/``, ``\\u00XX``),
percent-encoded, as HTML character references, in base64, in an error body. Neither the tool's
result nor the error message may hold the secret in any of those forms.
"""

from __future__ import annotations

import base64
import json
import re
import time
from collections.abc import Callable, Iterator
from urllib.parse import quote

import pytest
from httpd import Handler, LocalServer, serve

from runtime._egress import EgressPolicy
from runtime._http import HttpBroker
from runtime._openapi_toolset import OpenApiToolset
from runtime._redaction import Redactor
from sandbox.common.errors import HttpFailed

SECRET = "s3cret-Key/42+x="

ENCODINGS: dict[str, Callable[[str], str]] = {
    "json-slash": lambda key: json.dumps({"echo": key}).replace("/", "\\/"),
    "json-ascii": lambda key: json.dumps({"echo": key}, ensure_ascii=True),
    "json-all-escaped": lambda key: '{"echo": "' + "".join(f"\\u{ord(c):04x}" for c in key) + '"}',
    "json-mixed": lambda key: (
        '{"echo": "' + key[:3] + "".join(f"\\u{ord(c):04x}" for c in key[3:6]) + key[6:] + '"}'
    ),
    "percent": lambda key: json.dumps({"echo": "https://x.test/?k=" + quote(key, safe="")}),
    "percent-lower": lambda key: json.dumps(
        {"echo": re.sub("%..", lambda m: m.group().lower(), quote(key, safe=""))}
    ),
    "html": lambda key: json.dumps({"echo": "".join(f"&#{ord(c)};" for c in key)}),
    "base64": lambda key: json.dumps({"echo": base64.b64encode(key.encode()).decode()}),
    "raw-text": lambda key: f"your key is {key}",
}


def echoing(h: Handler) -> None:
    encoding = h.path.strip("/").split("?")[0]
    status = 401 if encoding.startswith("error-") else 200
    body = ENCODINGS[encoding.removeprefix("error-")](h.hit.headers["X-Api-Key"])
    content_type = "text/plain" if encoding.endswith("raw-text") else "application/json"
    h.send(status, body, {"Content-Type": content_type})


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with serve({}) as local:
        for name in ENCODINGS:
            local.routes[f"/{name}"] = echoing
            local.routes[f"/error-{name}"] = echoing
        yield local


def _call(server: LocalServer, path: str) -> str:
    document = {
        "openapi": "3.1.0",
        "info": {"title": "echo", "version": "1"},
        "components": {"securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Api-Key"}}},
        "security": [{"key": []}],
        "paths": {path: {"get": {"operationId": "echo", "responses": {"200": {"description": "ok"}}}}},
    }
    tool = OpenApiToolset.from_dict("svc", document, server=server.url, auth={"key": SECRET}).tools[0]
    broker = HttpBroker(EgressPolicy(allow_hosts=[f"127.0.0.1:{server.port}"]))
    try:
        output = tool.invoke({}, broker=broker, budget=broker.new_budget(), deadline=time.monotonic() + 5)
    except HttpFailed as error:
        return error.message
    return output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)


@pytest.mark.parametrize("encoding", ENCODINGS, ids=ENCODINGS.keys())
@pytest.mark.parametrize("path", ["/{}", "/error-{}"], ids=["result", "error"])
def test_an_echoed_secret_is_redacted_in_any_encoding(server: LocalServer, encoding: str, path: str) -> None:
    text = _call(server, path.format(encoding))
    assert server.hits[-1].headers["X-Api-Key"] == SECRET  # the server did get the key
    assert "***" in text, text
    assert SECRET not in Redactor(())(text)
    for form in ("s3cret", "czNjcmV0", "&#115;&#51;", "\\u0073\\u0033"):
        assert form not in text, text


def test_text_without_a_secret_is_left_alone() -> None:
    text = '{"a": "x\\/y %41 &amp; \\u00e9"}'
    assert Redactor((SECRET,))(text) == text
    assert json.loads(Redactor((SECRET,))(json.dumps({"echo": SECRET}).replace("/", "\\/"))) == {
        "echo": "***"
    }
