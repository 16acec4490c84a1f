"""MCP's stateless protocol with a session key: state accumulates as over stdio, per key, with
the official ``mcp`` client against `toolpen mcp`'s streamable HTTP app."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

from mcp import Client

from runtime.protocols.mcp import SESSION_KEY_META
from tests.runtime.protocols.test_mcp import http_url, structured  # noqa: F401  (the module's server fixture)


async def add_points(url: str, key: str | None, times: int) -> list[Any]:
    meta = None if key is None else {SESSION_KEY_META: key}
    async with Client(url) as client:  # the default: the stateless protocol
        return [
            await client.call_tool("update_customer_loyalty_points", {"points_to_add": 5}, meta=meta)
            for _ in range(times)
        ]


def points(results: list[Any]) -> list[int]:
    return [structured(result)["loyalty_points"] for result in results]


def test_a_session_key_keeps_state_across_stateless_requests_and_clients(http_url: str) -> None:  # noqa: F811
    key, other = secrets.token_urlsafe(32), secrets.token_urlsafe(32)

    async def scenario() -> tuple[list[Any], ...]:
        return (
            await add_points(http_url, key, 2),
            await add_points(http_url, key, 1),  # a new client, the same key: the same session
            await add_points(http_url, other, 1),
            await add_points(http_url, None, 2),  # no key: no session, nothing accumulates
        )

    first, again, another, keyless = asyncio.run(scenario())
    assert points(first) == [5, 10]
    assert points(again) == [15]
    assert points(another) == [5]
    assert points(keyless) == [5, 5]


def test_a_short_session_key_is_refused(http_url: str) -> None:  # noqa: F811
    (result,) = asyncio.run(add_points(http_url, "short", 1))
    assert result.is_error and "at least 32 characters" in result.content[0].text
