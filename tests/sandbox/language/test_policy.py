"""The compile-time policy and its entry points: compile_tool and policy_diagnostics."""

from __future__ import annotations

import typing

import pytest
from attacks import run_tool

from sandbox.common.errors import InvalidSource, PolicyViolation
from sandbox.language.annotations import string_annotation_problem
from sandbox.language.compiler import compile_tool, policy_diagnostics
from sandbox.language.namespace import install_process_hooks


def test_policy_diagnostics_lists_every_violation_with_line_and_column() -> None:
    source = "import socket\nx = 1\ny = x.__globals__\ndef _print():\n    pass\n"
    diagnostics = policy_diagnostics(source)
    assert [(d.line, d.col, d.code, d.level) for d in diagnostics] == [
        (1, 1, "policy", "error"),
        (3, 5, "policy", "error"),
        (4, 1, "policy", "error"),
    ]
    assert '"socket"' in diagnostics[0].message
    assert "__globals__" in diagnostics[1].message
    assert "json" in diagnostics[0].message  # an import refusal lists the modules a tool may import


def test_clean_source_has_no_diagnostics() -> None:
    assert policy_diagnostics("def tool(x: int) -> int:\n    return x + 1\n") == []


def test_syntax_errors_are_invalid_source() -> None:
    with pytest.raises(InvalidSource) as caught:
        compile_tool("def tool(:\n    pass\n")
    assert caught.value.line == 1
    assert [d.code for d in policy_diagnostics("def tool(:\n")] == ["syntax"]


def test_eval_and_exec_are_refused_saying_what_to_do_instead() -> None:
    """bella_notte's slot engine calls eval(): the refusal names the way out, and the inside of the
    call is not compiled (it is refused whole)."""
    source = "def tool(s: str):\n    return eval(s)(1), exec(s)\n"
    diagnostics = policy_diagnostics(source)
    assert [(d.line, d.col) for d in diagnostics] == [(2, 12), (2, 24)]
    for diagnostic, name in zip(diagnostics, ("eval", "exec"), strict=True):
        assert diagnostic.message.startswith(f"{name}() is not allowed")
        assert "--walls process" in diagnostic.message
    with pytest.raises(PolicyViolation):
        compile_tool(source)


def test_compile_tool_reports_the_first_problem() -> None:
    with pytest.raises(PolicyViolation) as caught:
        compile_tool("a = 1\nimport socket\nx.__globals__\ny.__code__\n")
    assert (caught.value.line, caught.value.col) == (3, 1)
    assert caught.value.kind == "policy"


def test_a_refused_import_compiles_and_is_reported_a_warning_where_it_is_caught() -> None:
    source = "try:\n    import ctypes\nexcept ImportError:\n    ctypes = None\nimport gc\n"
    compile_tool(source)  # raises ImportRefused (an ImportError) where the import runs
    found = [(d.line, d.col, d.level) for d in policy_diagnostics(source)]
    assert found == [(2, 5, "warning"), (5, 1, "error")]


def test_compiled_code_is_cached_by_source() -> None:
    source = "def tool():\n    return 1\n"
    assert compile_tool(source) is compile_tool(source)


@pytest.mark.parametrize(
    "annotation",
    [
        "int",
        "typing.Optional[str]",
        "dict[str, list[int]]",
        "int | None",
        "Literal['new delhi', 3]",
        "Callable[..., Any]",
        "'Item'",
    ],
)
def test_plain_type_expressions_are_accepted(annotation: str) -> None:
    assert string_annotation_problem(annotation) is None


@pytest.mark.parametrize(
    "annotation",
    [
        "f()",
        "x.__class__",
        "_private",
        "typing.List['os.system(1)']",
        "x.gi_frame",
        "str.format",
        "[i for i in x]",
        "a + b",
        "lambda: 1",
    ],
)
def test_other_annotations_are_refused(annotation: str) -> None:
    assert string_annotation_problem(annotation)


def test_annotations_are_checked_everywhere() -> None:
    source = (
        "def f(a: g(), *b: h(), c: i() = 1, **d: j()) -> k():\n    e: l() = 1\nclass C:\n    m: n() = 1\n"
    )
    assert [d.line for d in policy_diagnostics(source)] == [1, 1, 1, 1, 1, 2, 4]


def test_dunder_methods_only_in_class_bodies() -> None:
    allowed = (
        "class A:\n    def __init__(self):\n        self.x = 1\n    def __repr__(self):\n        return 'A'\n"
    )
    assert policy_diagnostics(allowed) == []
    nested = "class A:\n    def f(self):\n        def __init__():\n            pass\n"
    assert [d.line for d in policy_diagnostics(nested)] == [3]
    assert policy_diagnostics("class A:\n    def __del__(self):\n        pass\n")


def test_class_keywords_other_than_metaclass_are_kept() -> None:
    source = "from pydantic import BaseModel\nclass M(BaseModel, frozen=True):\n    x: int\ndef tool():\n    return M(x=1).model_config['frozen']\n"
    assert run_tool(source)[0] is True


def test_augmented_assignment_evaluates_target_once() -> None:
    source = (
        "calls = []\ndef target(value):\n    calls.append(1)\n    return value\n"
        "class Box:\n    count = 0\n"
        "def tool():\n    box = Box()\n    target(box).count += 2\n    data = {'k': [1]}\n    target(data)[target('k')] += [2]\n"
        "    return box.count, data, len(calls)\n"
    )
    assert run_tool(source)[0] == (2, {"k": [1, 2]}, 3)


def test_nonlocal_and_global_for_public_names() -> None:
    source = (
        "total = 0\ndef tool():\n    global total\n    count = 0\n    def bump():\n        nonlocal count\n        count += 1\n"
        "    bump()\n    bump()\n    total += count\n    return total\n"
    )
    assert run_tool(source)[0] == 2


def test_process_hook_is_idempotent_and_spares_host_code() -> None:
    install_process_hooks()
    install_process_hooks()
    assert typing.get_type_hints(_HostClass) == {"x": int}
    assert typing.ForwardRef("_internal.Thing").__forward_arg__ == "_internal.Thing"


class _HostClass:
    x: int


def test_constant_names_given_to_getattr_are_checked_statically() -> None:
    source = (
        "def tool(x):\n    a = getattr(x, '__globals__')\n    b = getattr(x, '__class__')\n"
        "    setattr(x, '__doc__', 1)\n    delattr(x, 'gi_frame')\n    return hasattr(x, '__iter__')\n"
    )
    assert [(d.line, d.col) for d in policy_diagnostics(source)] == [(2, 9), (5, 5)]


def test_a_missing_module_member_is_named_with_the_module_the_tool_wrote() -> None:
    with pytest.raises(ImportError) as caught:
        run_tool("from json import nope\ndef tool():\n    return 1\n")
    assert str(caught.value) == "cannot import name 'nope' from 'json': json has no such name"


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            "from io import FileIO",
            "toolpen's io offers BytesIO, SEEK_CUR, SEEK_END, SEEK_SET, StringIO, UnsupportedOperation only",
        ),
        (
            "from typing import ForwardRef",
            "toolpen's typing leaves it out: it evaluates its string outside the guards",
        ),
        (
            "from contextlib import suppress, redirect_stdout",
            "toolpen's contextlib leaves it out: it changes",
        ),
    ],
)
def test_a_left_out_member_is_refused_statically_with_the_reason(source: str, message: str) -> None:
    (diagnostic,) = policy_diagnostics(source)
    assert diagnostic.line == 1 and message in diagnostic.message


def test_context_state_errors_name_a_dict() -> None:
    from sandbox.bridges.proxies import Context

    with pytest.raises(AttributeError, match="'dict' object has no attribute 'nope'"):
        run_tool("def tool():\n    return context.state.nope\n", injected={"context": Context({})})
