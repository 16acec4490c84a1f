"""A finalizer that runs host code with a tool's arguments, for attacks on windows where the checks are off.

``close`` of a tool's io object is a host callable (``typing.get_type_hints`` through
``functools.partial``) on an object whose ``__annotations__`` is a code string. Run unchecked,
``ForwardRef`` compiles and evaluates the string with the real builtins: it seeds ``random``
(``SEEDED`` is then the worker's next ``random.random()``) and puts the real ``open`` into the
tool's marker lists (``[MARK]``). ``with_prelude(entry)`` is a tool source: the attack's entry
function, then these helpers.
"""

from __future__ import annotations

import random
import textwrap
from typing import Any

SEEDED = random.Random(4242).random()
"""What the worker's first ``random.random()`` answers after the unchecked string ran."""

FINALIZER_PRELUDE = """
import functools, io, random, re, typing

MARK = "toolpen-red-" + "marker"
CODE = ("[__import__('random').seed(4242), [o.append(__import__('builtins').open) "
        "for o in __import__('gc').get_objects() "
        "if type(o) is list and len(o) == 1 and o[0] == 'toolpen-red-marker']]")


class Hints:
    def __getattr__(self, name):
        if name == "__annota" + "tions__":
            return {"x": CODE}
        raise AttributeError(name)


class Closing(io.BytesIO):
    close = functools.partial(typing.get_type_hints, Hints())


def garbage():
    cycle = Closing()
    cycle.me = cycle  # freed by the collector, during whatever allocates next


def plant_in_re_cache():
    # the oldest key of a full re cache (512) holds the only reference to a Closing: the next
    # new pattern compiled evicts it, and the finalizer runs inside that compile
    class Pattern(str):
        pass

    for number in range(512):
        re.compile("toolpen-fill-a-" + str(number))
    pattern = Pattern("toolpen-red-(pattern)")
    pattern.keep = Closing()
    re.compile(pattern)
"""


def with_prelude(entry: str) -> str:
    """A tool: ``entry`` (its first function), then the finalizer's helpers."""
    return textwrap.dedent(entry) + FINALIZER_PRELUDE


def assert_not_leaked(output: Any) -> None:
    assert "built-in function open" not in repr(output), output
    assert SEEDED not in (output if isinstance(output, list) else [output]), output
