# args: {"names": ["a", "b"]}
from contextlib import asynccontextmanager

log = []


@asynccontextmanager
async def connection(name):
    log.append(f"open {name}")
    try:
        yield name.upper()
    finally:
        log.append(f"close {name}")


async def asynccontextmanager_tool(names: list[str]) -> dict:
    """An async tool using asynccontextmanager."""
    log.clear()
    results = []
    for name in names:
        async with connection(name) as conn:
            results.append(conn)
    return {"results": results, "log": log}
