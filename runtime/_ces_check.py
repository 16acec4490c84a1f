"""Warnings where CES would treat code differently from plain Python or from toolpen (``toolpen check``).

Read statically from the tree, never run. Each warning has code ``ces``:

- a state value that is visibly not a string (a number, bool, None, a list/dict/set/tuple
  display or comprehension, ``+=``): CES documents string-valued variables, toolpen keeps any
  JSON value;
- a tool's entry function taking ``**kwargs`` or a parameter defaulting to ``None``: CES drops
  such a tool on import (field reports, not in the reference);
- a tool named ``end_session``, ``transfer_to_agent`` or ``customize_response``: reserved names;
- in a file without callbacks, a function shaped like one (its parameters are a callback
  kind's) but not named for its kind; a model or agent callback returning a dict display where
  CES documents an ``LlmResponse`` or a ``Content`` (toolpen accepts both). Wrong callback names
  and signatures in a callback file are errors (``runtime._callbacks``).
"""

from __future__ import annotations

import ast

from runtime._callbacks import CALLBACK_PARAMETERS
from runtime._system_tools import SYSTEM_TOOLS
from sandbox.common.diagnostics import Diagnostic

RESERVED_TOOL_NAMES = SYSTEM_TOOLS

_STATE_OWNERS = frozenset({"context", "callback_context", "tool_context"})
_STATE_NAMES = frozenset({"state", "variables"})
_NOT_STRING_DISPLAYS = (ast.Dict, ast.List, ast.Set, ast.Tuple, ast.ListComp, ast.DictComp, ast.SetComp)
_RETURNS = {
    "before_model": "an LlmResponse (LlmResponse.from_parts([Part.from_text(...)]))",
    "after_model": "an LlmResponse (LlmResponse.from_parts([Part.from_text(...)]))",
    "before_agent": "a Content (Content(role='model', parts=[Part.from_text(...)]))",
    "after_agent": "a Content (Content(role='model', parts=[Part.from_text(...)]))",
}

Function = ast.FunctionDef | ast.AsyncFunctionDef


def _warning(node: ast.AST, message: str) -> Diagnostic:
    return Diagnostic(
        "warning", message, getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1, "ces"
    )


def _not_a_string(value: ast.expr) -> str | None:
    """What ``value`` visibly is when it is not a string; None when it may be one."""
    if isinstance(value, ast.Constant) and not isinstance(value.value, str):
        if value.value is None:
            return "None"
        return "a boolean" if isinstance(value.value, bool) else "a number"
    if isinstance(value, _NOT_STRING_DISPLAYS):
        return "a " + type(value).__name__.lower().removesuffix("comp")
    if isinstance(value, ast.BinOp):
        return _not_a_string(value.left) or _not_a_string(value.right)
    return None


def is_state(node: ast.expr) -> bool:
    """``context.state`` / ``callback_context.variables`` (and the like)."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr in _STATE_NAMES
        and isinstance(node.value, ast.Name)
        and node.value.id in _STATE_OWNERS
    )


def _is_set_variable(call: ast.Call) -> bool:
    function = call.func
    if isinstance(function, ast.Name):
        return function.id == "set_variable"
    return (
        isinstance(function, ast.Attribute)
        and function.attr == "set_variable"
        and isinstance(function.value, ast.Name)
        and function.value.id in _STATE_OWNERS
    )


def _state_message(kind: str) -> str:
    return (
        f"CES documents string values for variables; this stores {kind} "
        "(toolpen keeps any JSON value; use json.dumps for CES)"
    )


def state_value_warnings(module: ast.Module) -> list[Diagnostic]:
    """State writes whose value is visibly not a string."""
    found: list[Diagnostic] = []
    for node in ast.walk(module):
        if isinstance(node, ast.Assign):
            targets = [t for t in node.targets if isinstance(t, ast.Subscript) and is_state(t.value)]
            kind = _not_a_string(node.value) if targets else None
            if kind:
                found.append(_warning(node, _state_message(kind)))
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript):
            if is_state(node.target.value) and not isinstance(node.op, ast.Add):
                found.append(_warning(node, _state_message("a number")))
            elif is_state(node.target.value) and (kind := _not_a_string(node.value)):
                found.append(_warning(node, _state_message(kind)))
        elif isinstance(node, ast.Call) and _is_set_variable(node) and len(node.args) >= 2:
            kind = _not_a_string(node.args[1])
            if kind:
                found.append(_warning(node, _state_message(kind)))
    return found


def tool_entry_warnings(function: Function) -> list[Diagnostic]:
    """``**kwargs``, ``None`` defaults and reserved names on a tool's entry function."""
    found: list[Diagnostic] = []
    arguments = function.args
    if arguments.kwarg is not None:
        message = f"CES drops a tool whose entry function takes **{arguments.kwarg.arg}; name each parameter"
        found.append(_warning(arguments.kwarg, message))
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults = list(
        zip(positional[len(positional) - len(arguments.defaults) :], arguments.defaults, strict=True)
    )
    defaults += [
        (a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d is not None
    ]
    for argument, default in defaults:
        if isinstance(default, ast.Constant) and default.value is None:
            message = (
                f"CES drops a tool with a parameter defaulting to None ({argument.arg}); "
                "use another default, such as an empty string"
            )
            found.append(_warning(argument, message))
    if function.name in RESERVED_TOOL_NAMES:
        found.append(
            _warning(function, f"{function.name!r} is a reserved tool name in CES; rename the function")
        )
    return found


def _functions(module: ast.Module) -> list[Function]:
    return [node for node in module.body if isinstance(node, Function)]


def unnamed_callback_warnings(module: ast.Module) -> list[Diagnostic]:
    """In a file without callbacks: functions that take exactly a callback kind's parameters."""
    found: list[Diagnostic] = []
    for function in _functions(module):
        names = tuple(a.arg for a in [*function.args.posonlyargs, *function.args.args])
        for kind, parameters in CALLBACK_PARAMETERS.items():
            if names == parameters:
                message = (
                    f"{function.name} takes the parameters of a {kind} callback; "
                    f"CES runs a callback only when its function is named {kind}_callback"
                )
                found.append(_warning(function, message))
    return found


def callback_return_warnings(module: ast.Module) -> list[Diagnostic]:
    """Model and agent callbacks returning a dict display where CES documents an object."""
    found: list[Diagnostic] = []
    for function in _functions(module):
        kind = function.name.removesuffix("_callback")
        if function.name.endswith("_callback") and kind in _RETURNS:
            found += [
                _warning(node, f"CES expects {function.name} to return {_RETURNS[kind]} or None, not a dict")
                for node in ast.walk(function)
                if isinstance(node, ast.Return) and isinstance(node.value, ast.Dict)
            ]
    return found
