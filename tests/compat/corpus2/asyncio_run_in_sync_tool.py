# args: {"names": ["ada", "bob"]}
import asyncio


async def greet(name: str) -> str:
    await asyncio.sleep(0)
    return f"hello {name}"


async def everyone(names: list) -> list:
    return await asyncio.gather(*(greet(name) for name in names))


def asyncio_run_in_sync_tool(names: list[str]) -> dict:
    """A sync tool driving coroutines itself: asyncio.run, a Runner, a loop of its own."""
    first = asyncio.run(everyone(names))
    with asyncio.Runner() as runner:
        second = runner.run(greet(names[0]))
    loop = asyncio.new_event_loop()
    try:
        third = loop.run_until_complete(greet(names[-1]))
        later = []
        loop.call_later(0.001, later.append, "later")
        loop.call_soon(later.append, "soon")
        loop.run_until_complete(asyncio.sleep(0.01))
    finally:
        loop.close()
    try:
        asyncio.get_running_loop()
        running = True
    except RuntimeError:
        running = False
    return {"first": first, "second": second, "third": third, "later": later, "closed": loop.is_closed(), "running": running}
