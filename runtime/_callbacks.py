"""Callbacks and fakes as pasted code: their fixed names and signatures, read statically.

A callback file defines one main function with a fixed name (helpers may sit beside it):

====================  ===================================================  =======================
name                  parameters                                           a returned dict ...
====================  ===================================================  =======================
before_agent          (callback_context)                                   replaces the agent's turn
after_agent           (callback_context)                                   replaces the agent's output
before_model          (callback_context, llm_request)                      is the model's response
after_model           (callback_context, llm_response)                     replaces the response
before_tool           (tool, input, callback_context)                      is the tool's result
after_tool            (tool, input, callback_context, tool_response)       replaces the result
====================  ===================================================  =======================

(each name ends in ``_callback``). ``None`` changes nothing. A fake file defines
``fake_tool_call(tool, input, callback_context)`` (every tool) or ``fake_<tool>(tool, input,
callback_context)`` (one tool); a non-None result stands in for the tool's.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from runtime._schema import parse_tool_source
from sandbox.common.diagnostics import Diagnostic
from sandbox.common.errors import InvalidSource

CALLBACK_PARAMETERS: dict[str, tuple[str, ...]] = {
    "before_agent": ("callback_context",),
    "after_agent": ("callback_context",),
    "before_model": ("callback_context", "llm_request"),
    "after_model": ("callback_context", "llm_response"),
    "before_tool": ("tool", "input", "callback_context"),
    "after_tool": ("tool", "input", "callback_context", "tool_response"),
}
"""Each callback kind and the parameters of its main function ``<kind>_callback``."""

PARAMETER_ALIASES: dict[str, frozenset[str]] = {"input": frozenset({"input", "tool_input"})}
"""Other names a parameter may have: the host passes the arguments by position, and Google's own
exports name the tool's input ``tool_input`` (an ``after_tool_callback(tool, tool_input, ...)``)."""

FAKE_PARAMETERS = ("tool", "input", "callback_context")
FAKE_ALL_TOOLS = "fake_tool_call"


@dataclass(frozen=True)
class Hook:
    """A callback or a fake: its kind, the entry function and the source it lives in.

    ``kind`` is a callback kind, or ``"fake"`` with ``target`` the tool it fakes (None: all).
    """

    kind: str
    entry: str
    source: str
    target: str | None = None

    @property
    def parameters(self) -> tuple[str, ...]:
        return FAKE_PARAMETERS if self.kind == "fake" else CALLBACK_PARAMETERS[self.kind]


def _functions(module: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [node for node in module.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]


def _is_hook_name(name: str) -> bool:
    return name.endswith("_callback") or name.startswith("fake_")


def _may_be_hook(name: str) -> bool:
    """A hook's name, or a near miss worth reporting in a file of hooks (``after_tool_callbak``)."""
    return _is_hook_name(name) or name.startswith(("before_", "after_"))


def looks_like_hooks(module: ast.Module) -> bool:
    """True when the module defines a callback or a fake (a function named ``*_callback`` or ``fake_*``)."""
    return any(_is_hook_name(function.name) for function in _functions(module))


def _signature_problem(
    function: ast.FunctionDef | ast.AsyncFunctionDef, expected: tuple[str, ...]
) -> str | None:
    arguments = function.args
    names = tuple(arg.arg for arg in [*arguments.posonlyargs, *arguments.args])
    matches = len(names) == len(expected) and all(
        name in PARAMETER_ALIASES.get(wanted, {wanted}) for name, wanted in zip(names, expected, strict=True)
    )
    if not matches or arguments.vararg or arguments.kwarg or arguments.kwonlyargs:
        return f"{function.name} must take ({', '.join(expected)}), not ({', '.join(names)})"
    return None


def _hook_of(function: ast.FunctionDef | ast.AsyncFunctionDef, source: str) -> Hook | Diagnostic:
    name = function.name
    if name.endswith("_callback") and name.removesuffix("_callback") in CALLBACK_PARAMETERS:
        hook = Hook(kind=name.removesuffix("_callback"), entry=name, source=source)
    elif name == FAKE_ALL_TOOLS:
        hook = Hook(kind="fake", entry=name, source=source)
    elif name.startswith("fake_") and len(name) > len("fake_"):
        hook = Hook(kind="fake", entry=name, source=source, target=name.removeprefix("fake_"))
    else:
        known = ", ".join(f"{kind}_callback" for kind in CALLBACK_PARAMETERS)
        message = f"{name!r} is not a callback name; use one of: {known} (or fake_tool_call / fake_<tool>)"
        return Diagnostic("error", message, function.lineno, function.col_offset + 1, "callback")
    problem = _signature_problem(function, hook.parameters)
    if problem:
        return Diagnostic("error", problem, function.lineno, function.col_offset + 1, "callback")
    return hook


def hook_diagnostics(module: ast.Module) -> list[Diagnostic]:
    """Wrong callback or fake names and signatures, located (the hooks found are not kept: no source)."""
    found = (_hook_of(function, "") for function in _functions(module) if _may_be_hook(function.name))
    return [problem for problem in found if isinstance(problem, Diagnostic)]


def parse_hooks(source: str) -> list[Hook]:
    """The callbacks and fakes a source defines; ``InvalidSource`` for a wrong name or signature."""
    functions = [f for f in _functions(parse_tool_source(source)) if _may_be_hook(f.name)]
    if not functions:
        raise InvalidSource("no callback or fake function found (e.g. before_tool_callback, fake_tool_call)")
    hooks: list[Hook] = []
    for function in functions:
        found = _hook_of(function, source)
        if isinstance(found, Diagnostic):
            raise InvalidSource(found.message, line=found.line, col=found.col)
        hooks.append(found)
    return hooks
