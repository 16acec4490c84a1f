# args: {"limit": 5}
import asyncio
import contextvars

request_id = contextvars.ContextVar("request_id", default="none")


async def countdown(limit: int):
    for value in range(limit, 0, -1):
        await asyncio.sleep(0)
        yield value


async def handle(name: str) -> str:
    request_id.set(name)
    await asyncio.sleep(0)
    return f"{name}:{request_id.get()}"


async def asyncio_generators_contextvars(limit: int) -> dict:
    """Async generators and comprehensions; a context variable set in each task stays in it."""
    values = [value async for value in countdown(limit)]
    evens = [value * 10 async for value in countdown(limit) if value % 2 == 0]
    gen = countdown(limit)
    first = await anext(gen)
    await gen.aclose()
    handled = await asyncio.gather(handle("a"), handle("b"))
    request_id.set("outer")
    ctx = contextvars.copy_context()
    seen = await asyncio.create_task(handle("c"), context=ctx)
    return {"values": values, "evens": evens, "first": first, "handled": handled, "seen": seen, "outer": request_id.get()}
