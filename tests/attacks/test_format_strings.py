"""The real str.format walks attribute paths ("{0.__init__...}"): tool code may not reach it."""

from __future__ import annotations

import pytest

from runtime import Runtime
from tests.attacks import assert_refused_when_added_or_called, attack


@pytest.mark.parametrize("decorator", ["@dataclasses.dataclass(init=False)", ""])
def test_a_class_field_named_format_is_refused(rt: Runtime, decorator: str) -> None:
    # asdict/from_attributes would read the real str.format of a str subclass: "{0.__init__...}" walks
    source = f"""
        import dataclasses
        from typing import Any

        {decorator}
        class D(str):
            format: Any = dataclasses.field(init=False)

        def class_field_format() -> str:
            f = dataclasses.asdict(D("{{0.__init__.__globals__[__file__]}}"))["format"]
            return f(ces_requests)
        """
    from sandbox.common.errors import PolicyViolation

    with pytest.raises(PolicyViolation, match="format"):
        attack(rt, source)


def test_a_hostile_repr_in_an_fstring_is_refused(rt: Runtime) -> None:
    source = (
        "class H:\n    def __repr__(self):\n        return repr(getattr(self, '__glo' + 'bals__'))\n"
        "def t():\n    return f'{H()!r}'\n"
    )
    assert_refused_when_added_or_called(rt, source)
