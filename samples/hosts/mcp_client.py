"""An MCP client (the official SDK) talking to `toolpen mcp` over stdio.

    python samples/hosts/mcp_client.py

For streamable HTTP, run `toolpen mcp samples/get_customer.py --transport http --port 8000`
and connect with `Client("http://127.0.0.1:8000/mcp")`.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from mcp import Client, StdioServerParameters

SAMPLES = Path(__file__).resolve().parents[1]


async def main() -> None:
    server = StdioServerParameters(
        command=sys.executable,
        args=[
            "-c",
            "from runtime._cli import main; main()",
            "mcp",
            str(SAMPLES / "get_customer.py"),
            str(SAMPLES / "update_customer_loyalty_points.py"),
            "--store",
            "memory://",
            "--read-only",
            "get_customer",
        ],
    )
    async with Client(server) as client:
        for tool in (await client.list_tools()).tools:
            print("tool:", tool.name, tool.annotations)
        result = await client.call_tool("get_customer", {"customer_id": "123"})
        print("get_customer:", result.content[0].text)
        for _ in range(2):
            result = await client.call_tool("update_customer_loyalty_points", {"points_to_add": 5})
            print("update_customer_loyalty_points:", result.structured_content)


if __name__ == "__main__":
    asyncio.run(main())
