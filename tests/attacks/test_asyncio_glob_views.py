"""Attacks on the asyncio and glob views (issue 31): what they widen stays inside the call.

asyncio: toolpen's event loop (CPython's, without I/O) refuses every way out to the operating
system (threads, sockets, name resolution, pipes, processes, signals, debug mode), the view leaves
out subprocesses, streams, threads and the loop policy, and a task's stack (whose frames go on into
the worker's own loop and main) is a refused name, however it is spelled. glob: a pattern matches
only what the call wrote in its scratch directory, never the host's files, and ``dir_fd`` is refused.
"""

from __future__ import annotations

import sys

import pytest

from runtime import Runtime
from tests.attacks import assert_refused_when_added_or_called, attack

LOOP_WAYS_OUT = {
    "executor": "await loop.run_in_executor(None, len, 'x')",
    "default-executor": "loop.set_default_executor(None)",
    "resolve": "await loop.getaddrinfo('localhost', 80)",
    "connect": "await loop.create_connection(asyncio.Protocol, '127.0.0.1', 9)",
    "serve": "await loop.create_server(asyncio.Protocol, '127.0.0.1', 0)",
    "datagram": "await loop.create_datagram_endpoint(asyncio.DatagramProtocol, family=2)",
    "subprocess": "await loop.subprocess_exec(asyncio.Protocol, 'ls')",
    "shell": "await loop.subprocess_shell(asyncio.Protocol, 'ls')",
    "pipe": "await loop.connect_read_pipe(asyncio.Protocol, None)",
    "reader": "loop.add_reader(0, print)",
    "signal": "loop.add_signal_handler(2, print)",
    "debug": "loop.set_debug(True)",
}


@pytest.mark.parametrize("call", LOOP_WAYS_OUT.values(), ids=LOOP_WAYS_OUT.keys())
def test_the_event_loop_refuses_every_way_out(rt: Runtime, call: str) -> None:
    source = f"""
        import asyncio

        async def tool() -> str:
            loop = asyncio.get_running_loop()
            try:
                {call}
            except PermissionError as refused:
                return str(refused)
            return "reached"
        """
    result = attack(rt, source)
    assert result.success, result.error
    assert "a tool's event loop has no I/O, threads or processes" in result.output


LEFT_OUT = {
    "subprocess": "import asyncio\ndef tool():\n    return asyncio.create_subprocess_exec\n",
    "subprocess-import": "from asyncio import create_subprocess_shell\ndef tool():\n    return 1\n",
    "streams": "import asyncio\ndef tool():\n    return asyncio.open_connection\n",
    "server": "from asyncio import start_server\ndef tool():\n    return 1\n",
    "thread": "import asyncio\ndef tool():\n    return asyncio.to_thread\n",
    "threadsafe": "import asyncio\ndef tool():\n    return asyncio.run_coroutine_threadsafe\n",
    "policy": "import asyncio\ndef tool():\n    return asyncio.set_event_loop_policy\n",
    "selector-loop": "import asyncio\ndef tool():\n    return asyncio.SelectorEventLoop\n",
    "submodule": "import asyncio\ndef tool():\n    return asyncio.events\n",
    "submodule-import": "import asyncio.subprocess\ndef tool():\n    return 1\n",
    "task-stack": "import asyncio\nasync def tool():\n    return asyncio.current_task().get_stack()\n",
    "task-stack-getattr": (
        "import asyncio\nasync def tool():\n    return getattr(asyncio.current_task(), 'get_' + 'stack')()\n"
    ),
    "task-stack-unbound": "import asyncio\nasync def tool():\n    return asyncio.Task.get_stack(asyncio.current_task())\n",
    "task-print-stack": "import asyncio\nasync def tool():\n    asyncio.current_task().print_stack()\n",
    "task-stack-methodcaller": (
        "import asyncio, operator\nasync def tool():\n"
        "    return operator.methodcaller('get_' + 'stack')(asyncio.current_task())\n"
    ),
    "coroutine-frame": "import asyncio\nasync def tool():\n    return getattr(asyncio.current_task().get_coro(), 'cr_' + 'frame')\n",
    "loop-internals": "import asyncio\nasync def tool():\n    return getattr(asyncio.get_running_loop(), '_' + 'ready')\n",
    "loop-class-write": (
        "import asyncio\nasync def tool():\n    type(asyncio.get_running_loop()).run_in_executor = print\n"
    ),
    "queue-class-write": "import asyncio\ndef tool():\n    asyncio.Queue.maxsize = 3\n",
    "runner-private": "import asyncio\ndef tool():\n    return getattr(asyncio.Runner(), '_' + 'loop')\n",
    "runner-loop-internals": (
        "import asyncio\ndef tool():\n    with asyncio.Runner() as runner:\n"
        "        return getattr(runner.get_loop(), '_' + 'ready')\n"
    ),
    "runner-task-stack": (
        "import asyncio\nasync def stack():\n    return asyncio.current_task().get_stack()\n"
        "def tool():\n    with asyncio.Runner() as runner:\n        return runner.run(stack())\n"
    ),
    "runner-class-write": "import asyncio\ndef tool():\n    asyncio.Runner.run = print\n",
    "abstract-loop-class-write": "import asyncio\ndef tool():\n    asyncio.AbstractEventLoop.run_forever = print\n",
    "base-loop": "import asyncio\ndef tool():\n    return asyncio.BaseEventLoop\n",
}


@pytest.mark.parametrize("source", LEFT_OUT.values(), ids=LEFT_OUT.keys())
def test_what_the_asyncio_view_leaves_out_is_refused(rt: Runtime, source: str) -> None:
    assert_refused_when_added_or_called(rt, source)


FOREIGN_LOOPS = {
    "object": "Fake",
    "lambda": "lambda: Fake()",
    "subclass": "Mine",
    "subclass-instance": "lambda: Mine()",
    "instance-method": "Fake().get_debug",
}


@pytest.mark.parametrize("factory", FOREIGN_LOOPS.values(), ids=FOREIGN_LOOPS.keys())
@pytest.mark.parametrize("runs", ["runner", "run"])
def test_a_loop_factory_gives_only_toolpens_loop(rt: Runtime, factory: str, runs: str) -> None:
    # a loop of the tool's making would be handed the runner's tasks, and in debug mode the worker's stack
    if runs == "run" and sys.version_info < (3, 12):
        pytest.skip("3.11's asyncio.run takes no loop_factory")
    call = {
        "runner": f"with asyncio.Runner(debug=True, loop_factory={factory}) as runner:\n                    runner.run(coroutine)",
        "run": f"asyncio.run(coroutine, debug=True, loop_factory={factory})",
    }[runs]
    source = f"""
        import asyncio

        class Fake:
            def get_debug(self):
                return True

            def set_debug(self, enabled):
                pass

            def create_task(self, coroutine, **options):
                return coroutine

            def run_until_complete(self, what):
                return repr(what)

        class Mine(type(asyncio.new_event_loop())):
            def get_debug(self):
                return True

        def tool() -> str:
            coroutine = asyncio.sleep(0)
            try:
                {call}
            except TypeError as refused:
                coroutine.close()
                return str(refused)
            return "reached"
        """
    result = attack(rt, source)
    assert result.success, result.error
    # a subclass of toolpen's loop is refused as it is made, before the factory's check
    assert result.output.startswith(
        ("loop_factory must return toolpen's event loop", "toolpen's event loop is not")
    ), result.output


def test_a_sync_tool_cannot_run_a_loop_in_debug_mode(rt: Runtime) -> None:
    source = """
        import asyncio

        def tool() -> str:
            try:
                asyncio.run(asyncio.sleep(0), debug=True)
            except PermissionError as refused:
                return str(refused)
            return "reached"
        """
    result = attack(rt, source)
    assert result.success and "(debug mode)" in result.output, result


def test_a_task_waiting_for_nothing_fails_at_once_instead_of_hanging(rt: Runtime) -> None:
    source = """
        import asyncio

        async def tool() -> str:
            await asyncio.get_running_loop().create_future()
            return "woken"
        """
    result = attack(rt, source)
    assert not result.success
    assert "awaits something nothing will finish" in result.error.message


def test_a_pattern_matches_only_the_calls_own_files(rt: Runtime) -> None:
    source = """
        import glob

        def tool() -> dict:
            with open("mine.txt", "w") as handle:
                handle.write("x")
            patterns = ("/*", "/etc/*", "/proc/self/*", "/work/*", "../*", "/tmp/*", "/**/passwd")
            return {pattern: sorted(glob.glob(pattern, recursive=True)) for pattern in patterns}
        """
    result = attack(rt, source)
    assert result.success, result.error
    assert result.output == {
        "/*": ["/tmp"],
        "/etc/*": [],
        "/proc/self/*": [],
        "/work/*": [],
        "../*": ["../tmp"],
        "/tmp/*": ["/tmp/mine.txt"],
        "/**/passwd": [],
    }


GLOB_REFUSED = {
    "dir-fd": "import glob\ndef tool():\n    return glob.glob('*', dir_fd=3)\n",
    "iglob-dir-fd": "import glob\ndef tool():\n    return list(glob.iglob('*', dir_fd=0))\n",
    "helpers": "import glob\ndef tool():\n    return glob._iterdir\n",
    "module-os": "import glob\ndef tool():\n    return glob.os\n",
    "function-globals": "import glob\ndef tool():\n    return getattr(glob.glob, '__glo' + 'bals__')\n",
}


@pytest.mark.parametrize("source", GLOB_REFUSED.values(), ids=GLOB_REFUSED.keys())
def test_what_the_glob_view_leaves_out_is_refused(rt: Runtime, source: str) -> None:
    if "dir_fd" in source:
        result = attack(rt, source)
        assert not result.success and "dir_fd" in result.error.message
        return
    assert_refused_when_added_or_called(rt, source)


TOOL_LOOPS = {
    "future-keyword": "failed(asyncio.Future(loop=Fake()))",
    "task-keyword": "asyncio.Task(asyncio.sleep(0), loop=Fake())",
    "handle-positional": "asyncio.Handle(print, (), Fake())",
    "timer-handle-positional": "asyncio.TimerHandle(0.0, print, (), Fake())",
    "ensure-future": "asyncio.ensure_future(asyncio.sleep(0), loop=Fake())",
    "type-of-a-future": "failed(type(asyncio.get_running_loop().create_future())(loop=Fake()))",
    "class-of-a-task": "asyncio.current_task().__class__(asyncio.sleep(0), loop=Fake())",
    "type-of-a-handle": "type(asyncio.get_running_loop().call_soon(print))(print, (), Fake())",
    "own-future-super-init": "failed(Own())",
    "loop-subclass": "failed(Mine().create_future())",
    "unbound-create-future": "failed(type(asyncio.get_running_loop()).create_future(Fake()))",
    "unbound-create-task": "type(asyncio.get_running_loop()).create_task(Fake(), asyncio.sleep(0))",
    "get-loop-written": "(setattr(Plain, 'get_loop', lambda self: Fake()), gathered(Plain()))",
    "get-loop-of-an-instance": "gathered(with_get_loop(Plain()))",
    "get-loop-of-a-base-written-later": "(setattr(Base, 'get_loop', lambda self: Fake()), gathered(Later()))",
}


@pytest.mark.parametrize("make", TOOL_LOOPS.values(), ids=TOOL_LOOPS.keys())
def test_asyncio_takes_no_loop_of_the_tools_making(rt: Runtime, make: str) -> None:
    # a loop whose get_debug() says yes would be handed the worker's stack by a future's or task's report
    source = f"""
        import asyncio

        seen = []

        class Fake:
            def get_debug(self):
                return True

            def call_exception_handler(self, context):
                seen.append(repr(context))

            def call_soon(self, *args, **options):
                pass

            def _check_closed(self):
                pass

            _task_factory = None

        class Own(asyncio.Future):
            def __init__(self):
                super().__init__(loop=Fake())

        class Mine(type(asyncio.new_event_loop())):
            def get_debug(self):
                return True

            def call_exception_handler(self, context):
                seen.append(repr(context))

        class Plain(asyncio.Future):
            pass

        class Base:
            pass

        class Later(Base, asyncio.Future):
            pass

        async def tool() -> str:
            try:
                made = repr({make})
            except TypeError as refused:
                made = str(refused)
            for _ in range(3):
                await asyncio.sleep(0)
            return made + repr(seen)

        def with_get_loop(future):
            future.get_loop = lambda: Fake()
            return future

        def failed(future):
            future.set_exception(ValueError())

        def gathered(future):
            asyncio.gather(future)
            future.set_exception(ValueError())
        """
    result = attack(rt, source)
    assert result.success, result.error
    assert "FrameSummary" not in result.output and "created at" not in result.output, result.output


def test_a_future_class_may_not_override_get_loop(rt: Runtime) -> None:
    # gather builds its own future on the loop its first future's get_loop() gives
    source = """
        import asyncio

        class Theirs(asyncio.Future):
            def get_loop(self):
                return None

        def tool() -> int:
            return 1
        """
    result = attack(rt, source)
    assert not result.success and "may not be overridden" in result.error.message, result


def test_the_views_future_and_task_are_cpythons_for_isinstance(rt: Runtime) -> None:
    source = """
        import asyncio

        async def tool() -> list:
            loop = asyncio.get_running_loop()
            task = asyncio.current_task()
            return [isinstance(loop.create_future(), asyncio.Future), isinstance(task, asyncio.Task),
                    isinstance(task, asyncio.Future), issubclass(asyncio.Task, asyncio.Future),
                    asyncio.isfuture(asyncio.Future())]
        """
    result = attack(rt, source)
    assert result.success and result.output == [True] * 5, result
