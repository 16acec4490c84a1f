# args: {"words": ["alpha", "beta", "gamma"]}
import asyncio


async def shout(word: str) -> str:
    await asyncio.sleep(0)
    return word.upper()


def asyncio_runner_class(words: list[str]) -> dict:
    """A sync tool keeping one Runner for several runs, with a loop factory, and asyncio.run's."""
    with asyncio.Runner() as runner:
        loud = [runner.run(shout(word)) for word in words]
        loop = runner.get_loop()
        same = runner.get_loop() is loop
        kinds = [isinstance(runner, asyncio.Runner), isinstance(loop, asyncio.AbstractEventLoop)]
    with asyncio.Runner(loop_factory=asyncio.new_event_loop) as runner:
        factory = runner.run(shout(words[0]))
    runner = asyncio.Runner(debug=False)
    try:
        debug = [runner.run(shout(words[-1])), runner.get_loop().get_debug()]
    finally:
        runner.close()
    coroutine = shout("late")
    try:
        runner.run(coroutine)
    except RuntimeError as closed:
        late = str(closed)
        coroutine.close()
    return {"loud": loud, "same": same, "kinds": kinds, "factory": factory, "debug": debug, "late": late, "closed": loop.is_closed()}
