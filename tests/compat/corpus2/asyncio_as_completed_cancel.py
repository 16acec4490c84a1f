# args: {"delays": [0.03, 0.01, 0.02]}
import asyncio


async def fetch(index: int, delay: float) -> tuple:
    await asyncio.sleep(delay)
    return index, delay


async def forever(log: list) -> None:
    try:
        await asyncio.sleep(60)
    except asyncio.CancelledError:
        log.append("cleaned up")
        raise


async def asyncio_as_completed_cancel(delays: list[float]) -> dict:
    """as_completed over fetches, a task cancelled and awaited, wait_for that finishes in time."""
    order = []
    for next_done in asyncio.as_completed([fetch(i, d) for i, d in enumerate(delays)]):
        index, _ = await next_done
        order.append(index)
    log: list = []
    task = asyncio.create_task(forever(log), name="background")
    await asyncio.sleep(0)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        log.append("cancelled")
    quick = await asyncio.wait_for(fetch(9, 0), timeout=5)
    return {
        "count": len(order),
        "first": order[0] == delays.index(min(delays)),
        "log": log,
        "state": [task.cancelled(), task.done(), task.get_name()],
        "quick": list(quick),
    }
