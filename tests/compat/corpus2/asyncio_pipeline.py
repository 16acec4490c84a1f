# args: {"jobs": [3, 1, 2], "limit": 2}
import asyncio


async def work(job: int, gate: asyncio.Semaphore, done: list) -> int:
    async with gate:
        await asyncio.sleep(0.005 * job)
        done.append(job)
        return job * job


async def producer(queue: asyncio.Queue, jobs: list) -> None:
    for job in jobs:
        await queue.put(job)
    await queue.put(None)


async def consumer(queue: asyncio.Queue) -> list:
    seen = []
    while (job := await queue.get()) is not None:
        seen.append(job)
        queue.task_done()
    return seen


async def asyncio_pipeline(jobs: list[int], limit: int) -> dict:
    """An async tool on asyncio: gather under a semaphore, a queue, timeouts, a task group, events."""
    gate = asyncio.Semaphore(limit)
    done: list = []
    squares = await asyncio.gather(*(work(job, gate, done) for job in jobs))
    queue: asyncio.Queue = asyncio.Queue()
    _, seen = await asyncio.gather(producer(queue, jobs), consumer(queue))
    try:
        await asyncio.wait_for(asyncio.sleep(1), timeout=0.01)
        waited = "finished"
    except TimeoutError:
        waited = "timed out"
    try:
        async with asyncio.timeout(0.01):
            await asyncio.sleep(1)
    except TimeoutError:
        waited += ", timeout()"
    event = asyncio.Event()
    async with asyncio.TaskGroup() as group:
        waiter = group.create_task(event.wait())
        group.create_task(asyncio.sleep(0, result=event.set()))
    first, pending = await asyncio.wait(
        [asyncio.ensure_future(asyncio.sleep(0.001, result="a")), asyncio.ensure_future(asyncio.sleep(5))],
        return_when=asyncio.FIRST_COMPLETED,
    )
    for task in pending:
        task.cancel()
    shielded = await asyncio.shield(asyncio.sleep(0, result="shielded"))
    current = asyncio.current_task()
    return {
        "squares": squares,
        "finished": sorted(done),  # the order they finish in depends on the machine's load
        "seen": seen,
        "waited": waited,
        "event": [waiter.result(), event.is_set()],
        "first": [task.result() for task in first],
        "shielded": shielded,
        "task": [current.done(), current is not None, len(asyncio.all_tasks()) >= 1],
        "coroutine": [asyncio.iscoroutinefunction(work), asyncio.iscoroutine(asyncio.sleep(0).close())],
    }
