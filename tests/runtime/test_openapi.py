"""OpenAPI toolsets: schemas from documents, and calls against the CRM stub and an echo server."""

from __future__ import annotations

import base64
import importlib.util
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from httpd import Handler, LocalServer, serve

from runtime._egress import EgressPolicy
from runtime._http import HttpBroker
from runtime._openapi_toolset import OpenApiToolset, Operation, snake_case
from sandbox.common.errors import HttpDenied, HttpFailed, InvalidArguments, InvalidSource

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
CRM_SPEC = SAMPLES / "openapi" / "crm_service.yaml"
SECRET = "s3cret-Key/42"


def load_crm_server() -> Any:
    spec = importlib.util.spec_from_file_location("crm_server", SAMPLES / "crm_server.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def crm() -> Iterator[Any]:
    server = load_crm_server().CrmServer(port=0, api_key=SECRET)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def echo(h: Handler) -> None:
    h.send_json(
        200, {"method": h.command, "path": h.path, "headers": h.hit.headers, "body": h.hit.body.decode()}
    )


@pytest.fixture
def echo_server() -> Iterator[LocalServer]:
    with serve({}) as server:
        server.routes.update({"/things/a%2Fb": echo, "/things/42": echo, "/things": echo, "/secure": echo})
        yield server


def call(tool: Operation, args: dict[str, Any], broker: HttpBroker) -> Any:
    return tool.invoke(args, broker=broker, budget=broker.new_budget(), deadline=time.monotonic() + 5)


def broker_for(port: int) -> HttpBroker:
    return HttpBroker(EgressPolicy(allow_hosts=[f"127.0.0.1:{port}"]))


def crm_toolset(port: int, secret: str = SECRET) -> OpenApiToolset:
    return OpenApiToolset.from_file(
        "crm_service", CRM_SPEC, server=f"http://127.0.0.1:{port}", auth={"crm_key": secret}
    )


def test_seed_pattern_get_cart_information(crm: Any) -> None:
    tool = crm_toolset(crm.port).get("crm_service_get_cart_information")
    assert call(tool, {}, broker_for(crm.port)) == {
        "cart_id": "c-1",
        "items": [{"sku": "tea", "quantity": 2}],
    }
    assert call(tool, {"customer_id": "c-9"}, broker_for(crm.port)) == {"cart_id": "c-9", "items": []}


def test_path_header_and_body(crm: Any) -> None:
    toolset = crm_toolset(crm.port)
    broker = broker_for(crm.port)
    added = call(
        toolset.get("crm_service_add_cart_item"),
        {"cartId": "c-2", "body": {"sku": "mug", "quantity": 1}},
        broker,
    )
    assert added == {"cart_id": "c-2", "items": [{"sku": "mug", "quantity": 1}]}
    loyalty = toolset.get("crm_service_patch_customers_customer_id_loyalty")
    assert call(loyalty, {"customerId": "ana", "body": {"points": 5, "note": None}}, broker) == {"points": 5}


def test_sample_schemas() -> None:
    toolset = OpenApiToolset.from_file("crm_service", CRM_SPEC)
    assert [t.name for t in toolset.tools] == [
        "crm_service_get_cart_information",
        "crm_service_add_cart_item",
        "crm_service_patch_customers_customer_id_loyalty",
    ]
    cart = toolset.get("crm_service_get_cart_information")
    assert cart.server == "http://127.0.0.1:8765"
    assert cart.spec.description == "The current customer's shopping cart."
    assert cart.spec.parameters["properties"]["customer_id"]["type"] == "string"
    add = toolset.get("crm_service_add_cart_item").spec.parameters
    assert (
        add["required"] == ["cartId", "body"]
        and add["properties"]["cartId"]["description"] == "The cart's id."
    )
    assert add["properties"]["body"]["required"] == ["sku", "quantity"]
    note = toolset.get("crm_service_patch_customers_customer_id_loyalty").spec.parameters["properties"][
        "body"
    ]
    assert note["properties"]["note"] == {"type": ["string", "null"]}


def test_http_errors_never_show_the_key(crm: Any) -> None:
    wrong = crm_toolset(crm.port, secret="wrong-" + SECRET)
    with pytest.raises(HttpFailed, match=r"^HTTP 401 Unauthorized from GET /cart: .*X-CRM-Key") as info:
        call(wrong.get("crm_service_get_cart_information"), {}, broker_for(crm.port))
    assert SECRET not in str(info.value.to_dict())
    add = crm_toolset(crm.port).get("crm_service_add_cart_item")
    added = call(add, {"cartId": "a/b", "body": {"sku": "x", "quantity": 1}}, broker_for(crm.port))
    assert added["cart_id"] == "a%2Fb"


def test_invalid_arguments(crm: Any) -> None:
    tool = crm_toolset(crm.port).get("crm_service_add_cart_item")
    for args in (
        {"body": {"sku": "x", "quantity": 1}},
        {"cartId": "c", "body": {"sku": "x", "quantity": 0}},
        {"cartId": "c", "body": {}, "extra": 1},
    ):
        with pytest.raises(InvalidArguments):
            call(tool, args, broker_for(crm.port))
    with pytest.raises(InvalidArguments, match="cannot be '..'"):
        call(tool, {"cartId": "..", "body": {"sku": "x", "quantity": 1}}, broker_for(crm.port))


def test_refused_server_address() -> None:
    toolset = OpenApiToolset.from_file(
        "crm_service", CRM_SPEC, server="http://169.254.169.254", auth={"crm_key": SECRET}
    )
    with pytest.raises(HttpDenied) as info:
        call(toolset.get("crm_service_get_cart_information"), {}, HttpBroker(EgressPolicy()))
    assert SECRET not in info.value.message


def document(
    security_schemes: dict[str, Any], security: list[dict[str, list[str]]], **paths: Any
) -> dict[str, Any]:
    """A small 3.1 document around the echo server's routes."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "echo", "version": "1"},
        "servers": [{"url": "http://example.invalid"}],
        "components": {"securitySchemes": security_schemes},
        "security": security,
        "paths": paths
        or {
            "/secure": {"get": {"operationId": "readSecure", "responses": {"200": {"description": "ok"}}}},
        },
    }


AUTH_CASES = {
    "header": ({"type": "apiKey", "in": "header", "name": "X-Api-Key"}, "X-Api-Key", SECRET),
    "bearer": ({"type": "http", "scheme": "bearer"}, "Authorization", f"Bearer {SECRET}"),
    "basic": (
        {"type": "http", "scheme": "basic"},
        "Authorization",
        "Basic " + base64.b64encode(b"ana:" + SECRET.encode()).decode(),
    ),
    "cookie": ({"type": "apiKey", "in": "cookie", "name": "sid"}, "Cookie", f"sid={SECRET}"),
}


@pytest.mark.parametrize("case", sorted(AUTH_CASES))
def test_auth_schemes_reach_the_server_but_not_the_tool(echo_server: LocalServer, case: str) -> None:
    scheme, header, expected = AUTH_CASES[case]
    secret = f"ana:{SECRET}" if case == "basic" else SECRET
    toolset = OpenApiToolset.from_dict(
        "svc", document({"key": scheme}, [{"key": []}]), server=echo_server.url, auth={"key": secret}
    )
    tool = toolset.tools[0]
    output = call(tool, {}, broker_for(echo_server.port))
    assert echo_server.hits[-1].headers[header] == expected
    assert SECRET not in json.dumps(output) and "***" in output["headers"][header]
    assert SECRET not in repr(tool) and SECRET not in repr(toolset)
    assert SECRET not in json.dumps(tool.spec.parameters)


def test_query_api_key(echo_server: LocalServer) -> None:
    scheme = {"type": "apiKey", "in": "query", "name": "api_key"}
    toolset = OpenApiToolset.from_dict(
        "svc", document({"key": scheme}, [{"key": []}]), server=echo_server.url, auth={"key": SECRET}
    )
    output = call(toolset.tools[0], {}, broker_for(echo_server.port))
    assert echo_server.hits[-1].query == {"api_key": [SECRET]}
    assert SECRET not in json.dumps(output)


def test_first_satisfiable_security_alternative(echo_server: LocalServer) -> None:
    schemes = {
        "oauth": {"type": "http", "scheme": "bearer"},
        "key": {"type": "apiKey", "in": "header", "name": "K"},
    }
    toolset = OpenApiToolset.from_dict(
        "svc", document(schemes, [{"oauth": []}, {"key": []}]), server=echo_server.url, auth={"key": SECRET}
    )
    call(toolset.tools[0], {}, broker_for(echo_server.port))
    assert echo_server.hits[-1].headers["K"] == SECRET and "Authorization" not in echo_server.hits[-1].headers


def test_parameters_and_refs_from_a_31_document(echo_server: LocalServer) -> None:
    paths = {
        "/things/{id}": {
            "parameters": [{"$ref": "#/components/parameters/Id"}],
            "put": {
                "parameters": [
                    {"name": "tags", "in": "query", "schema": {"type": "array", "items": {"type": "string"}}},
                    {"name": "flag", "in": "query", "schema": {"type": "boolean"}},
                    {"name": "X-Mode", "in": "header", "required": True, "schema": {"type": "string"}},
                    {"name": "session", "in": "cookie", "schema": {"type": "string"}},
                ],
                "requestBody": {
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}
                },
                "responses": {"200": {"description": "ok"}},
            },
        },
        "/things": {
            "post": {
                "requestBody": {
                    "content": {"application/x-www-form-urlencoded": {"schema": {"type": "object"}}}
                },
                "responses": {"200": {"description": "ok"}},
            }
        },
    }
    doc = document({}, [], **paths)
    doc["components"].update(
        parameters={"Id": {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}},
        schemas={
            "Thing": {
                "type": "object",
                "properties": {
                    "name": {"type": ["string", "null"]},
                    "parts": {"type": "array", "items": {"$ref": "#/components/schemas/Thing"}},
                },
            }
        },
    )
    toolset = OpenApiToolset.from_dict("svc", doc, server=echo_server.url + "/")
    put, post = toolset.tools
    assert (put.name, post.name) == ("svc_put_things_id", "svc_post_things")
    schema = put.spec.parameters
    assert schema["required"] == ["id", "X-Mode"] and "session" not in schema["properties"]
    assert schema["properties"]["body"]["properties"]["parts"]["items"] == {}
    assert [d.message for d in put.spec.diagnostics] == [
        "svc_put_things_id: parameter 'session' (cookie) skipped: cookie parameters are not supported"
    ]
    broker = broker_for(echo_server.port)
    out = call(
        put, {"id": "a/b", "tags": ["x", "y"], "flag": True, "X-Mode": "fast", "body": {"name": "n"}}, broker
    )
    assert out["path"] == "/things/a%2Fb?tags=x&tags=y&flag=true" and out["method"] == "PUT"
    assert out["headers"]["X-Mode"] == "fast" and json.loads(out["body"]) == {"name": "n"}
    assert call(post, {"body": {"a": "1"}}, broker)["body"] == "a=1"


def test_non_json_bodies_come_back_as_text(echo_server: LocalServer) -> None:
    echo_server.routes["/plain"] = lambda h: h.send(200, "hello", {"Content-Type": "text/plain"})
    echo_server.routes["/empty"] = lambda h: h.send(204)
    echo_server.routes["/broken"] = lambda h: h.send(503, "x" * 2000, {"Content-Type": "text/plain"})
    ok = {"responses": {"200": {"description": "ok"}}}
    paths = {"/plain": {"get": ok}, "/empty": {"delete": ok}, "/broken": {"get": ok}, "/gone": {"get": ok}}
    toolset = OpenApiToolset.from_dict("svc", document({}, [], **paths), server=echo_server.url)
    broker = broker_for(echo_server.port)
    assert call(toolset.get("svc_get_plain"), {}, broker) == "hello"
    assert call(toolset.get("svc_delete_empty"), {}, broker) is None
    with pytest.raises(HttpFailed, match=r"^HTTP 503 Service Unavailable from GET /broken: x{500}\.\.\.$"):
        call(toolset.get("svc_get_broken"), {}, broker)
    with pytest.raises(HttpFailed, match=r'^HTTP 404 Not Found from GET /gone: \{"error": "no such path"'):
        call(toolset.get("svc_get_gone"), {}, broker)


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"swagger": "2.0"}, "not an OpenAPI 3.0 or 3.1 document"),
        ({"openapi": "3.0.3", "info": {"title": "x"}, "paths": {}}, "invalid OpenAPI document"),
        (
            {
                "openapi": "3.1.0",
                "info": {"title": "x", "version": "1"},
                "paths": {"/a": {"get": {"responses": {"200": {"$ref": "http://169.254.169.254/x"}}}}},
            },
            r"external \$ref",
        ),
        (
            {
                "openapi": "3.1.0",
                "info": {"title": "x", "version": "1"},
                "paths": {
                    "/a": {"get": {"operationId": "a", "responses": {"200": {"description": "ok"}}}},
                    "/b": {"get": {"operationId": "A", "responses": {"200": {"description": "ok"}}}},
                },
            },
            "both named 'svc_a'",
        ),
    ],
)
def test_invalid_documents(doc: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidSource, match=message):
        OpenApiToolset.from_dict("svc", doc)


def test_bad_toolset_name_and_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(InvalidSource, match="snake_case"):
        OpenApiToolset.from_file("CRM-Service", CRM_SPEC)
    (tmp_path / "bad.yaml").write_text("openapi: [unclosed")
    with pytest.raises(InvalidSource, match="cannot read OpenAPI document bad.yaml"):
        OpenApiToolset.from_file("svc", tmp_path / "bad.yaml")


def test_relative_server_needs_an_override() -> None:
    doc = document({}, [])
    doc["servers"] = [{"url": "/api"}]
    tool = OpenApiToolset.from_dict("svc", doc).tools[0]
    with pytest.raises(HttpFailed, match="no absolute server URL"):
        call(tool, {}, HttpBroker(EgressPolicy()))


@pytest.mark.parametrize(
    ("text", "snake"),
    [
        ("getCartInformation", "get_cart_information"),
        ("HTTPServerStatus", "http_server_status"),
        ("get /carts/{cartId}", "get_carts_cart_id"),
        ("list-items.v2", "list_items_v2"),
    ],
)
def test_snake_case(text: str, snake: str) -> None:
    assert snake_case(text) == snake


def test_a_30_exclusive_flag_without_its_bound_is_taken_as_no_bound() -> None:
    """FastAPI writes `exclusiveMinimum: true` alone into 3.0 documents CES imports (nova_horizon_bot_v2);
    draft 4 makes `minimum` its dependency, so the validator alone would refuse the document."""
    amount = {"type": "number", "exclusiveMinimum": True, "nullable": True}
    floor = {"type": "number", "exclusiveMinimum": True, "minimum": 0}
    schema = {"type": "object", "properties": {"amount": amount, "floor": floor}}
    doc = {
        "openapi": "3.0.0",
        "info": {"title": "x", "version": "1"},
        "components": {"schemas": {"Create": schema}},  # where the validator checks a schema's keywords
        "paths": {
            "/a": {
                "post": {
                    "operationId": "create",
                    "requestBody": {
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Create"}}}
                    },
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    [tool] = OpenApiToolset.from_dict("svc", doc).tools
    body = tool.spec.parameters["properties"]["body"]["properties"]
    assert body["amount"] == {"type": ["number", "null"]}
    assert body["floor"] == {"type": "number", "exclusiveMinimum": 0}
