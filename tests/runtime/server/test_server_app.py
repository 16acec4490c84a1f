"""`toolpen serve --app`: an exported CES app served over HTTP by a real `toolpen serve` process.

Every tenant gets the app's Python tools and toolset operations (shared: not theirs to replace),
the chosen agent's tool callbacks around each call, the fakes when asked, and new sessions that
start from the declared variables' defaults.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from samples.crm_server import CrmServer
from tests.conftest import CRM_KEY, SAMPLES
from tests.runtime.server.test_server_replicas import Replica, stop_all

APP = SAMPLES / "apps" / "Customer_Service"
KEYS = {"key-for-acme-0123456789": "acme", "key-for-globex-0123456789": "globex"}

pytestmark = pytest.mark.slow


def toolpen(*args: str | Path, cwd: Path) -> None:
    command = [sys.executable, "-c", "from runtime._cli import main; main()", *map(str, args)]
    subprocess.run(command, cwd=cwd, check=True, capture_output=True, timeout=120)


def call(replica: Replica, key: str, session: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    response = requests.post(
        f"{replica.url}/v1/sessions/{session}/calls",
        json={"tool": tool, "args": args},
        headers={"Authorization": f"Bearer {key}"},
        timeout=60,
    )
    assert response.status_code == 200, response.text
    return response.json()


def log_of(replica: Replica) -> str:
    replica.log.seek(0)
    return replica.log.read()


@pytest.fixture
def served(tmp_path: Path, crm: CrmServer) -> Iterator[Replica]:
    app = tmp_path / "app"
    toolpen("app", "pack", APP, "-o", "app.zip", cwd=tmp_path)
    toolpen("app", "unpack", "app.zip", app, cwd=tmp_path)
    environment = {"toolsets": {"crm_service": {"openApiToolset": {"url": f"http://127.0.0.1:{crm.port}"}}}}
    (app / "environment.json").write_text(json.dumps(environment))
    (tmp_path / "crm.key").write_text(CRM_KEY)
    server = Replica(
        f"sqlite:///{tmp_path / 'service.db'}",
        None,
        KEYS,
        tmp_path,
        "--app",
        str(app),
        "--agent",
        "Loyalty Desk",
        "--fakes",
        "--auth",
        "crm_key=@crm.key",
        "--allow-host",
        f"127.0.0.1:{crm.port}",
    )
    try:
        yield server.wait_ready()
    finally:
        stop_all([server])


def test_an_app_served_over_http(served: Replica) -> None:
    acme, globex = KEYS
    points = call(served, acme, "s1", "update_customer_loyalty_points", {"points_to_add": 50})
    # state from the declared default (100 points), the e-mail redacted by the after-tool callback
    assert points["success"] and points["output"] == {
        "email": "[email]",
        "loyalty_points": 150,
        "plan": "Gold",
    }
    refused = call(served, acme, "s1", "update_customer_loyalty_points", {"points_to_add": 900})
    assert refused["output"] == {"error": "points_to_add must be between 1 and 500; ask a manager for more."}
    faked = call(served, acme, "s1", "get_customer", {"customer_id": "test-9"})
    assert faked["faked"] and faked["output"]["name"] == "Test Customer"
    # an operation of the OpenAPI toolset, at the URL environment.json gives, with the scheme's secret
    cart = call(served, acme, "s1", "summarize_cart", {})
    assert cart["success"] and cart["output"].startswith("Cart "), cart

    session = requests.get(
        f"{served.url}/v1/sessions/s1", headers={"Authorization": f"Bearer {acme}"}, timeout=10
    ).json()
    assert session["state"]["customer_profile"] == {
        "email": "ana@example.com",
        "loyalty_points": 150,
        "plan": "Gold",
    }
    assert session["state"]["greeted"] == "false" and "123" in session["state"]["customers"]

    # the other tenant's new session starts from the declarations too
    other = call(served, globex, "s1", "update_customer_loyalty_points", {"points_to_add": 1})
    assert other["output"]["loyalty_points"] == 101

    headers = {"Authorization": f"Bearer {acme}"}
    listed = requests.get(f"{served.url}/v1/tools", headers=headers, timeout=10).json()["tools"]
    shared = {tool["name"]: tool["shared"] for tool in listed}
    assert shared["get_customer"] and shared["crm_service_get_cart_information"]
    replaced = requests.delete(f"{served.url}/v1/tools/get_customer", headers=headers, timeout=10)
    assert replaced.status_code == 409


def test_an_app_that_does_not_load_stops_serve_naming_the_file(tmp_path: Path) -> None:
    app = tmp_path / "app"
    subprocess.run(["cp", "-r", str(APP), str(app)], check=True)
    agent = app / "agents" / "Loyalty_Desk" / "Loyalty_Desk.json"
    agent.write_text(agent.read_text().replace('"displayName": "Loyalty Desk"', '"displayName": 7'))
    store = f"sqlite:///{tmp_path / 'service.db'}"
    for args, message in [
        (
            ("--app", str(app)),
            "agents/Loyalty_Desk/Loyalty_Desk.json: displayName: Input should be a valid string",
        ),
        (("--fakes",), "--agent, --fakes and --auth go with --app"),
    ]:
        server = Replica(store, None, {}, tmp_path, *args)
        try:
            assert server.process.wait(60) == 2 and message in log_of(server)
        finally:
            stop_all([server])
