"""Enum's functional API: ordinary enums run; private names and a borrowed module are refused."""

from __future__ import annotations

import pytest

from runtime import Runtime
from sandbox.common.errors import PolicyViolation
from tests.attacks import run_tool


def test_the_functional_api_still_makes_ordinary_enums() -> None:
    source = (
        "import enum\ndef tool():\n    Color = enum.Enum('Color', 'RED GREEN')\n"
        "    Size = enum.IntEnum('Size', [('S', 1), ('L', 3)])\n"
        "    Mood = enum.Enum('Mood', {'HAPPY': 'h'})\n"
        "    return [Color.GREEN.value, Size.L.value, Mood.HAPPY.value, Color.RED.name]\n"
    )
    result, _ = run_tool(source)
    assert result == [2, 3, "h", "RED"]


@pytest.mark.parametrize(
    "call",
    [
        "enum.Enum('E', [('__reduce_ex__', print)])",
        "enum.Enum('E', {'__init_subclass__': print})",
        "enum.Enum('E', '_sunder_ ok')",
        "enum.Enum('E', 'A B', module='os')",
        "enum.Enum('E', 'A B', qualname='os.path')",
        "enum.IntFlag('E', [('__index__', 1)])",
    ],
)
def test_private_names_and_borrowed_modules_are_refused(call: str) -> None:
    with pytest.raises(PolicyViolation):
        run_tool(f"import enum\ndef tool():\n    return {call}\n")


def test_through_the_runtime_the_call_fails_cleanly(rt: Runtime) -> None:
    rt.add_tool(
        'import enum\n\ndef sneaky() -> str:\n    """Makes an enum."""\n'
        "    E = enum.Enum('E', [('__reduce_ex__', len)])\n    return 'made'\n"
    )
    result = rt.call("sneaky", {})
    assert result.error is not None and result.error.kind == "policy" and result.error.line == 5


@pytest.mark.parametrize(
    "call",
    [
        "enum.Enum('E', [('A', 1.5)], type=np.float64)",
        "enum.Enum('E', [('A', 1)], type=np.int64)",
        "enum.Enum('E', [('A', 'x')], type=np.str_)",
    ],
)
def test_the_functional_api_derives_from_no_library_class(call: str) -> None:
    """``type=`` a numpy class made a subclass the class statement refuses, past numpy's attribute
    allowlist (``member.base``, ``member.getfield``, ``member.dumps``)."""
    pytest.importorskip("numpy")
    with pytest.raises(PolicyViolation, match="cannot derive from"):
        run_tool(f"import enum\nimport numpy as np\ndef tool():\n    return {call}.A.base\n")
