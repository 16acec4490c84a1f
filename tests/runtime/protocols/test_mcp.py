"""MCP: the official `mcp` SDK client against `toolpen mcp` over stdio and over streamable HTTP."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import requests
from mcp import Client, StdioServerParameters

from runtime import Runtime
from runtime.protocols.mcp import http_app
from tests.conftest import COUNTER, NOTE_LATER, READ_NOTE, serving_app

SAMPLES = Path(__file__).resolve().parents[3] / "samples"
TOOLPEN = [sys.executable, "-c", "from runtime._cli import main; main()"]

RAISES = '''
def fail_loudly(reason: str) -> str:
    """Always fails."""
    raise ValueError(reason)
'''


def sample(name: str) -> Path:
    return SAMPLES / f"{name}.py"


def stdio_server(tmp_path: Path) -> StdioServerParameters:
    failing = tmp_path / "fail_loudly.py"
    failing.write_text(RAISES)
    paths = [
        str(sample(n)) for n in ("get_customer", "get_current_weather", "update_customer_loyalty_points")
    ]
    args = [*TOOLPEN[1:], "mcp", *paths, str(failing), "--store", "memory://", "--read-only", "get_customer"]
    return StdioServerParameters(command=TOOLPEN[0], args=[*args, "--idempotent", "get_customer"])


def structured(result: Any) -> Any:
    assert not result.is_error, result.content
    [block] = result.content
    assert json.loads(block.text) == (
        result.structured_content
        if isinstance(result.structured_content, dict) and "result" not in result.structured_content
        else result.structured_content["result"]
    )
    return result.structured_content


@pytest.mark.slow
def test_stdio_lists_and_calls_the_samples(tmp_path: Path) -> None:
    async def scenario() -> dict[str, Any]:
        async with Client(stdio_server(tmp_path), read_timeout_seconds=60) as client:
            listed = await client.list_tools()
            customer = await client.call_tool("get_customer", {"customer_id": "123"})
            weather = await client.call_tool("get_current_weather", {"location": "Boston, MA"})
            points = [
                await client.call_tool("update_customer_loyalty_points", {"points_to_add": 5})
                for _ in range(2)
            ]
            failed = await client.call_tool("fail_loudly", {"reason": "no stock"})
            missing = await client.call_tool("no_such_tool", {})
            bad_args = await client.call_tool("get_customer", {})
        return locals()

    seen = asyncio.run(scenario())
    tools = {tool.name: tool for tool in seen["listed"].tools}
    assert set(tools) == {
        "get_customer",
        "get_current_weather",
        "update_customer_loyalty_points",
        "fail_loudly",
    }
    printed = subprocess.run(
        [*TOOLPEN, "schema", "--format", "mcp", str(sample("get_customer"))],
        capture_output=True,
        text=True,
        check=True,
    )
    served = tools["get_customer"].model_dump(by_alias=True, exclude_none=True)
    assert served.pop("annotations") == {"readOnlyHint": True, "idempotentHint": True}
    assert served == json.loads(printed.stdout)
    assert tools["get_current_weather"].annotations is None

    assert structured(seen["customer"])["name"] == "Ana Souza"
    assert structured(seen["weather"]) == {
        "result": "The temperature in Boston, MA is 75 degrees Fahrenheit."
    }
    # One toolpen session per MCP session: the second call sees the first one's state.
    assert [structured(r)["loyalty_points"] for r in seen["points"]] == [5, 10]
    for name, needle in (
        ("failed", "no stock"),
        ("missing", "no_such_tool"),
        ("bad_args", "invalid_arguments"),
    ):
        result = seen[name]
        assert result.is_error is True and needle in result.content[0].text, (name, result.content)


@contextmanager
def serving(rt: Runtime) -> Iterator[str]:
    """The URL of ``rt``'s tools served over streamable HTTP, until the block ends."""
    with serving_app(http_app(rt)) as base:
        yield f"{base}/mcp"


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    with Runtime(store="memory://", pool_size=1) as rt:
        rt.add_tool(sample("update_customer_loyalty_points").read_text())
        rt.add_tool(sample("get_customer").read_text(), read_only=True)
        rt.add_tool(COUNTER)
        with serving(rt) as url:
            yield url


async def add_points(url: str, times: int) -> list[int]:
    async with Client(url, mode="legacy") as client:
        results = [
            await client.call_tool("update_customer_loyalty_points", {"points_to_add": 5})
            for _ in range(times)
        ]
    return [structured(result)["loyalty_points"] for result in results]


def test_an_asynchronous_tool_answers_pending_and_commits_its_result_in_the_session() -> None:
    async def scenario(url: str) -> tuple[Any, list[Any]]:
        async with Client(url, mode="legacy") as client:
            started = await client.call_tool("note_later", {"text": "hi"})
            reads = [await client.call_tool("read_note", {})]
            deadline = time.monotonic() + 30
            while structured(reads[-1]) != {"result": "hi"} and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
                reads.append(await client.call_tool("read_note", {}))
        return started, reads

    with Runtime(store="memory://", pool_size=1) as rt:
        rt.add_tool(NOTE_LATER, execution_type="ASYNCHRONOUS")
        rt.add_tool(READ_NOTE)
        with serving(rt) as url:
            started, reads = asyncio.run(scenario(url))
    assert structured(started) == {"status": "pending"}
    assert structured(reads[0]) == {"result": ""}  # answered before the tool ended
    assert structured(reads[-1]) == {"result": "hi"}


def test_http_keeps_one_toolpen_session_per_mcp_session(http_url: str) -> None:
    async def scenario() -> tuple[list[int], list[int]]:
        return await add_points(http_url, 2), await add_points(http_url, 1)

    first, second = asyncio.run(scenario())
    assert first == [5, 10]
    assert second == [5]


def test_http_lists_and_calls_with_the_default_client(http_url: str) -> None:
    async def scenario() -> tuple[Any, Any]:
        async with Client(http_url) as client:
            return await client.list_tools(), await client.call_tool("get_customer", {"customer_id": "999"})

    listed, result = asyncio.run(scenario())
    tools = {tool.name: tool for tool in listed.tools}
    assert tools["get_customer"].annotations.read_only_hint is True
    assert tools["get_customer"].input_schema["required"] == ["customer_id"]
    assert structured(result) == {"error": "no customer with ID 999"}


# -- attacks over HTTP ------------------------------------------------------------------------

MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
LEGACY = "2025-11-25"
MODERN = "2026-07-28"


def _mcp_result(answer: requests.Response) -> Any:
    for line in answer.text.splitlines():
        if line.startswith("data:"):
            return json.loads(line[5:])
    return answer.json()


def _bump(http: requests.Session, url: str, headers: dict[str, str], n: int, meta: Any = None) -> Any:
    params: dict[str, Any] = {"name": "bump", "arguments": {"n": n}}
    if meta is not None:
        params["_meta"] = meta
    body = {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params}
    return _mcp_result(http.post(url, headers=headers, json=body, timeout=30))


def test_mcp_modern_requests_cannot_join_another_clients_session(http_url: str) -> None:
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
            http_url, headers={**MCP_HEADERS, "MCP-Protocol-Version": LEGACY}, json=init, timeout=30
        )
        victim_id = opened.headers["mcp-session-id"]
        victim = {**MCP_HEADERS, "MCP-Protocol-Version": LEGACY, "mcp-session-id": victim_id}
        http.post(
            http_url,
            headers=victim,
            json={"jsonrpc": "2.0", "method": "notifications/initialized"},
            timeout=30,
        )
        assert _bump(http, http_url, victim, 5)["result"]["structuredContent"] == {"result": 5}

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
        stolen = _bump(http, http_url, attacker, 1000, meta)
        assert stolen["result"]["structuredContent"] == {"result": 1000}, stolen  # no session: fresh state
        assert _bump(http, http_url, victim, 5)["result"]["structuredContent"] == {"result": 10}


@pytest.mark.slow
def test_the_mcp_client_sample_runs() -> None:
    host = SAMPLES / "hosts" / "mcp_client.py"
    done = subprocess.run([sys.executable, str(host)], capture_output=True, text=True, timeout=60, check=True)
    assert "'loyalty_points': 10" in done.stdout.splitlines()[-1]


def test_http_transport_refuses_a_public_address_without_public() -> None:
    command = [
        sys.executable,
        "-c",
        "from runtime._cli import main; main()",
        "mcp",
        str(SAMPLES / "get_customer.py"),
        "--transport",
        "http",
        "--host",
        "0.0.0.0",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "no authentication" in done.stderr
