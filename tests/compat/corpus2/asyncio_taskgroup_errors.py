# args: {"items": [1, 0, 2]}
import asyncio


async def invert(value: int) -> float:
    await asyncio.sleep(0.001 * value)
    return 1 / value


async def asyncio_taskgroup_errors(items: list[int]) -> dict:
    """A task group whose child fails (its ExceptionGroup caught), timeouts moved and nested."""
    caught = []
    try:
        async with asyncio.TaskGroup() as group:
            for item in items:
                group.create_task(invert(item))
    except ExceptionGroup as errors:  # except* is refused by the language wall (RestrictedPython's rule)
        caught = [type(error).__name__ for error in errors.exceptions]
    results = await asyncio.gather(*(invert(item) for item in items), return_exceptions=True)
    async with asyncio.timeout(None) as scope:
        scope.reschedule(asyncio.get_running_loop().time() + 5)
        await asyncio.sleep(0)
        moved = scope.when() is not None
    try:
        async with asyncio.timeout(0.01):
            await asyncio.wait_for(asyncio.sleep(1), timeout=5)
        outcome = "done"
    except TimeoutError:
        outcome = "outer timeout"
    lock = asyncio.Lock()
    condition = asyncio.Condition()
    async with lock:
        locked = lock.locked()
    async with condition:
        condition.notify_all()
    return {
        "caught": caught,
        "results": [type(r).__name__ if isinstance(r, Exception) else r for r in results],
        "moved": moved,
        "outcome": outcome,
        "locked": [locked, lock.locked()],
    }
