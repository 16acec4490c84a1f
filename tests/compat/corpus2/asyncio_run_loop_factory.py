# args: {"n": 4}
import asyncio


async def total(n: int) -> int:
    values = await asyncio.gather(*(asyncio.sleep(0, result=i) for i in range(n)))
    return sum(values)


def asyncio_run_loop_factory(n: int) -> int:
    """asyncio.run with a loop factory (3.12's; 3.11's asyncio.run has none and says so)."""
    coroutine = total(n)
    try:
        return asyncio.run(coroutine, loop_factory=asyncio.new_event_loop)
    except TypeError as old:
        coroutine.close()
        return str(old)
