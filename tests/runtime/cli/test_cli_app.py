"""`toolpen app` through real subprocesses: the README's walk-through (pack, unpack, check, a turn,
an edit, pack again), a tool reaching the CRM stub at the URL environment.json gives, and the
exit codes of a broken app and a bad archive."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from samples.crm_server import CrmServer
from tests.conftest import CRM_KEY, SAMPLES

APP = SAMPLES / "apps" / "Customer_Service"
TURN = SAMPLES / "turns" / "customer_service_turn.json"
TOOL = "tools/get_customer/python_function/python_code.py"

pytestmark = pytest.mark.slow


def toolpen(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from runtime._cli import main; main()", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=120)


def test_unpack_check_turn_edit_pack(tmp_path: Path) -> None:
    assert toolpen("app", "pack", APP, "-o", "export.zip", cwd=tmp_path).returncode == 0
    unpacked = toolpen("app", "unpack", "export.zip", "work", cwd=tmp_path)
    assert unpacked.returncode == 0 and f"work/{TOOL}" in unpacked.stdout
    assert toolpen("app", "pack", "work", "-o", "same.zip", cwd=tmp_path).returncode == 0
    assert (tmp_path / "same.zip").read_bytes() == (tmp_path / "export.zip").read_bytes()

    for app in ("work", "export.zip"):
        checked = toolpen("app", "check", app, cwd=tmp_path)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert "0 error(s), 0 warning(s) in 10 Python file(s) of Customer Service" in checked.stdout

    turn = toolpen(
        "app", "turn", "work", TURN, "--agent", "Loyalty Desk", "--store", "memory://", "--json", cwd=tmp_path
    )
    report = json.loads(turn.stdout)
    assert turn.returncode == 0 and report["success"], turn.stdout + turn.stderr
    # the agent's model callbacks run around each scripted response (issue 30): the tools' outputs
    outputs = [call["output"] for call in report["calls"] if not call["name"].endswith("_model_callback")]
    assert outputs[0]["name"] == "Ana Souza"  # from the declared default of `customers`
    assert outputs[1] == {"email": "[email]", "loyalty_points": 150, "plan": "Gold"}
    assert outputs[2] == "Hi! I'm customer 123. Please add 50 loyalty points."
    assert (
        report["state"]["customer_profile"]["loyalty_points"] == 150 and report["state"]["greeted"] == "false"
    )

    code = tmp_path / "work" / TOOL
    code.write_text(
        code.read_text().replace(
            'return {"error": f"no customer with ID {customer_id}"}', 'return {"error": "unknown customer"}'
        )
    )
    assert toolpen("app", "pack", "work", "-o", "edited.zip", cwd=tmp_path).returncode == 0
    run = toolpen(
        "app",
        "run",
        "edited.zip",
        "get_customer",
        "--args",
        '{"customer_id": "9"}',
        "--json",
        "--store",
        "memory://",
        cwd=tmp_path,
    )
    assert json.loads(run.stdout)["output"] == {"error": "unknown customer"}, run.stderr


def test_a_tool_reaches_the_toolset_at_the_environments_url(tmp_path: Path, crm: CrmServer) -> None:
    toolpen("app", "pack", APP, "-o", "export.zip", cwd=tmp_path)
    toolpen("app", "unpack", "export.zip", "work", cwd=tmp_path)
    environment = {"toolsets": {"crm_service": {"openApiToolset": {"url": f"http://127.0.0.1:{crm.port}"}}}}
    (tmp_path / "work" / "environment.json").write_text(json.dumps(environment))
    (tmp_path / "key").write_text(CRM_KEY)
    args = [
        "--auth",
        "crm_key=@key",
        "--allow-host",
        f"127.0.0.1:{crm.port}",
        "--json",
        "--store",
        "memory://",
    ]
    run = toolpen("app", "run", "work", "summarize_cart", *args, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert json.loads(run.stdout)["output"].startswith("Cart ")
    schema = json.loads(toolpen("app", "schema", "work", "--format", "gemini", cwd=tmp_path).stdout)
    assert [tool["name"] for tool in schema][-3:] == [
        "crm_service_get_cart_information",
        "crm_service_add_cart_item",
        "crm_service_patch_customers_customer_id_loyalty",
    ]
    for fmt in ("openai", "responses", "mcp"):
        other = toolpen("app", "schema", "work", "--format", fmt, cwd=tmp_path)
        assert other.returncode == 0 and len(json.loads(other.stdout)) == len(schema), other.stderr
        assert '"crm_service_add_cart_item"' in other.stdout and '"get_customer"' in other.stdout


def test_a_broken_app_and_a_bad_archive_have_their_exit_codes(tmp_path: Path) -> None:
    toolpen("app", "pack", APP, "-o", "export.zip", cwd=tmp_path)
    toolpen("app", "unpack", "export.zip", "work", cwd=tmp_path)
    cart = tmp_path / "work/tools/summarize_cart/python_function/python_code.py"
    cart.write_text(cart.read_text().replace("crm_service_get_cart_information", "crm_get_cart"))
    checked = toolpen("app", "check", "work", cwd=tmp_path)
    assert checked.returncode == 1
    assert (
        "tools/summarize_cart/python_function/python_code.py:7:11: error: tools.crm_get_cart: no tool"
        in checked.stdout
    )
    (tmp_path / "evil.zip").write_bytes((SAMPLES / "apps" / "Customer_Service" / "app.json").read_bytes())
    bad = toolpen("app", "unpack", "evil.zip", "out", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.startswith("error: bad_archive: not a zip archive")
    assert not (tmp_path / "out").exists()
    missing = toolpen("app", "run", "nowhere", "get_customer", cwd=tmp_path)
    assert missing.returncode == 2 and "error: invalid_app: nowhere: no such file or folder" in missing.stderr


def test_mcp_serves_an_app_with_its_defaults_callbacks_fakes_and_toolset(
    tmp_path: Path, crm: CrmServer
) -> None:
    from mcp import Client, StdioServerParameters

    shutil.copytree(APP, tmp_path / "app")
    environment = {"toolsets": {"crm_service": {"openApiToolset": {"url": f"http://127.0.0.1:{crm.port}"}}}}
    (tmp_path / "app" / "environment.json").write_text(json.dumps(environment))
    (tmp_path / "key").write_text(CRM_KEY)
    args = ["-c", "from runtime._cli import main; main()", "mcp", "--app", str(tmp_path / "app")]
    args += ["--agent", "Loyalty Desk", "--fakes", "--auth", f"crm_key=@{tmp_path / 'key'}"]
    args += ["--allow-host", f"127.0.0.1:{crm.port}", "--store", "memory://"]
    server = StdioServerParameters(command=sys.executable, args=args)

    async def scenario() -> tuple[list[str], list[Any]]:
        async with Client(server, read_timeout_seconds=60) as client:
            listed = [tool.name for tool in (await client.list_tools()).tools]
            results = [
                await client.call_tool("get_customer", {"customer_id": "123"}),
                await client.call_tool("update_customer_loyalty_points", {"points_to_add": 50}),
                await client.call_tool("update_customer_loyalty_points", {"points_to_add": 900}),
                await client.call_tool("get_customer", {"customer_id": "test-9"}),
                await client.call_tool("summarize_cart", {}),
            ]
        return listed, results

    listed, (customer, points, refused, faked, cart) = asyncio.run(scenario())
    assert "summarize_cart" in listed and "crm_service_get_cart_information" in listed
    assert json.loads(customer.content[0].text)["name"] == "Ana Souza"
    assert json.loads(points.content[0].text) == {"email": "[email]", "loyalty_points": 150, "plan": "Gold"}
    assert "between 1 and 500" in refused.content[0].text
    assert json.loads(faked.content[0].text)["name"] == "Test Customer"
    assert json.loads(cart.content[0].text).startswith("Cart "), cart


def test_mcp_refuses_app_options_without_an_app(tmp_path: Path) -> None:
    refused = toolpen("mcp", "--fakes", cwd=tmp_path)
    assert refused.returncode == 2 and "--agent, --fakes and --auth go with --app" in refused.stderr


def test_app_eval_replays_the_goldens(tmp_path: Path) -> None:
    replay = toolpen("app", "eval", APP, "--agent", "Loyalty Desk", "--json", cwd=tmp_path)
    report = json.loads(replay.stdout)
    assert replay.returncode == 0 and report["success"], replay.stdout + replay.stderr
    statuses = [check["status"] for check in report["evaluations"][0]["checks"]]
    assert statuses == ["skipped", "passed", "passed", "passed", "skipped"]
    # without the loyalty desk's callbacks the e-mail is not redacted: the tool response differs
    front = toolpen("app", "eval", APP, "add_points_golden", cwd=tmp_path)
    assert front.returncode == 1 and "email: expected '[email]', got 'ana@example.com'" in front.stdout
    unknown = toolpen("app", "eval", APP, "nope", cwd=tmp_path)
    assert unknown.returncode == 2 and "no evaluation named 'nope'" in unknown.stderr


def test_app_schema_takes_a_tools_description_from_its_file_without_a_docstring(tmp_path: Path) -> None:
    work = tmp_path / "work"
    shutil.copytree(APP, work)
    code = work / "tools/get_customer/python_function/python_code.py"
    code.write_text("def get_customer(customer_id: str) -> dict:\n    return {'id': customer_id}\n")
    schema = json.loads(toolpen("app", "schema", "work", cwd=tmp_path).stdout)
    [tool] = [item["function"] for item in schema if item["function"]["name"] == "get_customer"]
    assert tool["description"] == "Look up a customer by ID."
