"""How a call's cost grows with the work around it: registered tools, payload size, state size.

Each case is measured at a base size and at 10x and 100x it, in one run, and printed as p50 and
the ratio to the base size (a cost independent of the size stays near 1.0x; one that grows with
it shows here before it shows in production):

- tools registered in the runtime (10, 100, 1,000): a call of one of them, and the time to
  register them;
- argument payload (1 KB, 10 KB, 100 KB of text in and the length out);
- output payload (1 KB, 10 KB, 100 KB of text returned);
- session state size (10, 100, 1,000 keys stored; the tool writes one of them);
- large states (1,000, 10,000, 100,000 keys): a call that touches no state in the session that
  holds them, and in another session of the same app when they are ``app:`` keys (every
  session's snapshot carries them).

Single-use workers, the default. Run: ``.venv/bin/python bench/bench_scaling.py``; to measure
another checkout's code put it first on ``PYTHONPATH``.
"""

import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # after PYTHONPATH: it picks the code measured

from runtime import Runtime  # noqa: E402
from sandbox.common.limits import Limits  # noqa: E402

ROUNDS = 60
LARGE_ROUNDS = 10
SIZES = (1, 10, 100)

ECHO_LENGTH = '''
def text_length(text: str) -> int:
    """Counts the characters of a text.

    Args:
        text: Any text.
    """
    return len(text)
'''

MAKE_TEXT = '''
def make_text(size: int) -> str:
    """Returns a text of the given size.

    Args:
        size: Characters wanted.
    """
    return "x" * size
'''

FILL = '''
def fill(prefix: str, count: int) -> int:
    """Writes count keys.

    Args:
        prefix: The keys' prefix ("app:" or "").
        count: How many keys.
    """
    for index in range(count):
        context.state[f"{prefix}k{index}"] = "v"
    return count
'''

NOTHING = '''
def nothing() -> int:
    """Touches no state."""
    return 0
'''

TOUCH_ONE_KEY = '''
def touch(key: str) -> str:
    """Sets one state key.

    Args:
        key: The key to set.
    """
    context.state[key] = "touched"
    return key
'''


def numbered_tool(index: int) -> str:
    """The source of a small distinct tool, ``tool_<index>``."""
    return f'def tool_{index}(a: int) -> int:\n    """Tool number {index}.\n\n    Args:\n        a: A number.\n    """\n    return a + {index}\n'


def p50_ms(call: Callable[[], object], rounds: int = ROUNDS) -> float:
    """Median milliseconds of ``rounds`` calls."""
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e3


def checked(rt: Runtime, name: str, args: dict, **options: object) -> object:
    """Calls a tool and fails loudly if the call failed (a benchmark of failures measures nothing)."""
    result = rt.call(name, args, **options)
    assert result.success, result.error
    return result.output


def registered_tools(scale: int) -> tuple[float, float]:
    """Registration seconds for 10*scale tools, and a call's p50 among them."""
    count = 10 * scale
    with Runtime() as rt:
        start = time.perf_counter()
        for index in range(count):
            rt.add_tool(numbered_tool(index))
        registering = time.perf_counter() - start
        return registering, p50_ms(lambda: checked(rt, f"tool_{count - 1}", {"a": 1}))


def argument_payload(rt: Runtime, scale: int) -> float:
    """p50 of a call whose argument is a text of ``scale`` KB."""
    text = "x" * (1000 * scale)
    return p50_ms(lambda: checked(rt, "text_length", {"text": text}))


def output_payload(rt: Runtime, scale: int) -> float:
    """p50 of a call returning a text of ``scale`` KB."""
    return p50_ms(lambda: checked(rt, "make_text", {"size": 1000 * scale}))


def state_size(rt: Runtime, scale: int) -> float:
    """A one-key write's p50 in a session whose state holds 10*scale keys (written by a tool)."""
    session_id = uuid.uuid4().hex
    keys = 10 * scale
    fill = "\n".join(f"    context.state['k{i}'] = 'v'" for i in range(keys))
    rt.add_tool(f'def fill_{keys}() -> int:\n    """Fills the state."""\n{fill}\n    return {keys}\n')
    checked(rt, f"fill_{keys}", {}, session_id=session_id)
    return p50_ms(lambda: checked(rt, "touch", {"key": "k0"}, session_id=session_id))


def large_state(rt: Runtime, scale: int, prefix: str) -> float:
    """p50 of a call touching no state, with 1,000*scale keys ``prefix``-ed: in the session that
    holds them (no prefix), or in another session of the app (``app:``)."""
    writer = uuid.uuid4().hex
    checked(rt, "fill", {"prefix": prefix, "count": 1000 * scale}, session_id=writer)
    reader = uuid.uuid4().hex if prefix == "app:" else writer
    return p50_ms(lambda: checked(rt, "nothing", {}, session_id=reader), rounds=LARGE_ROUNDS)


def row(label: str, figures: list[float], unit: str = "ms") -> None:
    """One table row: each figure and its ratio to the first."""
    cells = " | ".join(f"{value:.2f} {unit} ({value / figures[0]:.2f}x)" for value in figures)
    print(f"| {label} | {cells} |", flush=True)


def main() -> None:
    print("| case | 1x | 10x | 100x |")
    print("| --- | ---: | ---: | ---: |")
    registrations = [registered_tools(scale) for scale in SIZES]
    row("a call among 10 / 100 / 1,000 registered tools, p50", [call for _, call in registrations])
    row(
        "registering 10 / 100 / 1,000 tools, per tool",
        [reg / (10 * s) * 1e3 for (reg, _), s in zip(registrations, SIZES, strict=True)],
    )
    with Runtime(store="memory://") as rt:
        for source in (ECHO_LENGTH, MAKE_TEXT, TOUCH_ONE_KEY):
            rt.add_tool(source)
        row("argument of 1 KB / 10 KB / 100 KB, p50", [argument_payload(rt, scale) for scale in SIZES])
        row("output of 1 KB / 10 KB / 100 KB, p50", [output_payload(rt, scale) for scale in SIZES])
        row("session state of 10 / 100 / 1,000 keys, p50", [state_size(rt, scale) for scale in SIZES])
    for prefix, where in (("", "in the session"), ("app:", "`app:` keys, another session")):
        with Runtime(store="memory://", limits=Limits(wall_time=60, cpu_time=60)) as rt:
            for source in (FILL, NOTHING):
                rt.add_tool(source)
            figures = [large_state(rt, scale, prefix) for scale in SIZES]
        row(f"1,000 / 10,000 / 100,000 keys {where}, p50", figures)


if __name__ == "__main__":
    main()
