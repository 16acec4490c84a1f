"""How the frameworks call a tool function: the arguments as its annotations type them, the parameters they fill.

Arguments (as ADK's ``FunctionTool``, the Agents SDK and MCP do, through pydantic): a parameter
annotated with a model, dataclass or TypedDict (or a list, dict, Optional... of them) receives the
validated instance, not the JSON object; an omitted parameter whose default is ``Field(...)`` (or
whose ``Annotated`` metadata holds one with a default) gets that field's default, not the
``FieldInfo``.

The parameters a framework fills itself (``runtime/_schema/injected.py`` names them):

- ``tool_context`` (ADK's ``ToolContext``): the call's CES ``context`` (state, ids, ...), the very
  object the ``context`` global is;
- ``run_context`` (the Agents SDK's ``RunContextWrapper[T]``): a wrapper whose ``context`` is the
  session state validated as ``T`` (a dataclass, model or TypedDict; the state dict itself when
  ``T`` is absent or another type), as ``Runner.run(context=...)`` would hand the app's object;
- ``mcp_context`` (MCP's ``Context``): its logging and progress calls, which a server sends to
  its client, do nothing here; ``request_context`` is None, as outside a request;
  (both classes are the framework views', ``sandbox/language/framework_views``, which tool code
  imports under those names);
- ``runnable_config`` (LangChain's ``RunnableConfig``): ``{"configurable": <a copy of the state>}``.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import sys
import typing
from typing import Any

from sandbox.bridges.proxies import Context
from sandbox.language.framework_views.agents_sdk import RunContextWrapper
from sandbox.language.framework_views.mcp_server import Context as McpContext

_WRAPPING_PACKAGES = ("langchain_core.", "google.adk.")
"""Whose tool objects keep the function they wrap as ``func`` (``coroutine`` for an async one)."""


def framework_function(value: Any) -> Any:
    """The function a real framework's tool object wraps (plain CPython, ``walls="process"``, where
    tool code imports the framework itself): LangChain's ``@tool`` gives a ``StructuredTool``
    (``func``/``coroutine``), ADK's ``FunctionTool`` keeps ``func``. Under the language wall the
    views' decorators hand back the function itself. Anything else is returned as it is.
    """
    module = getattr(type(value), "__module__", "") or ""
    if not module.startswith(_WRAPPING_PACKAGES):
        return value
    wrapped = getattr(value, "func", None) or getattr(value, "coroutine", None)
    return wrapped if callable(wrapped) else value


def not_a_function(entry: str, value: Any) -> str:
    """Why the name ``entry`` does not give a function to call."""
    if value is None:
        return f"the tool defines no function named {entry!r}"
    kind = f"{type(value).__module__}.{type(value).__qualname__}"
    return (
        f"{entry!r} is a {kind}, not a function: toolpen calls the tool function (the Agents SDK's"
        " FunctionTool keeps none to call; under the default walls @function_tool gives the function)"
    )


def injected_values(injected: dict[str, Any], function: Any, context: Context) -> dict[str, Any]:
    """The value of each injected parameter of ``function`` for this call."""
    annotations = _hints(function)
    values: dict[str, Any] = {}
    for name, kind in injected.items():
        if kind == "tool_context":
            values[name] = context
        elif kind == "mcp_context":
            values[name] = McpContext()
        elif kind == "runnable_config":
            values[name] = {"configurable": copy.deepcopy(dict(context.state))}
        elif kind == "run_context":
            values[name] = RunContextWrapper(_run_context(annotations.get(name), context))
    return values


def _run_context(annotation: Any, context: Context) -> Any:
    state = copy.deepcopy(dict(context.state))
    arguments = typing.get_args(annotation)
    target = arguments[0] if arguments else None
    pydantic = sys.modules.get("pydantic")
    if target is None or pydantic is None or not _validated(target):
        return state
    return pydantic.TypeAdapter(target).validate_python(state)


def typed_arguments(function: Any, args: dict[str, Any], injected: dict[str, Any]) -> dict[str, Any]:
    """``args`` with model-typed values validated and ``Field(...)`` defaults filled in."""
    pydantic = sys.modules.get("pydantic")  # not loaded: the tool uses no model, no Field
    if pydantic is None:
        return args
    annotations = _hints(function)
    result = dict(args)
    for name, value in args.items():
        annotation = annotations.get(name)
        if annotation is not None and _validated(annotation):
            result[name] = pydantic.TypeAdapter(annotation).validate_python(value)
    for parameter in inspect.signature(function).parameters.values():
        if parameter.name in args or parameter.name in injected:
            continue
        field = _field_of(parameter, pydantic.fields.FieldInfo)
        if field is not None and not field.is_required():
            result[parameter.name] = field.get_default(call_default_factory=True)
    return result


def _hints(function: Any) -> dict[str, Any]:
    """The function's annotations, strings resolved as pydantic resolves them (under the language
    wall every annotation is a plain type expression, and each resolved name is checked:
    ``sandbox/language/annotations.py``); the raw ones when a name does not resolve."""
    try:
        return typing.get_type_hints(function, include_extras=True)
    except Exception:  # an unresolvable string: left as written, as plain CPython leaves it
        return dict(getattr(function, "__annotations__", None) or {})


def _field_of(parameter: inspect.Parameter, field_class: type) -> Any:
    """The ``FieldInfo`` a parameter's default is, else the one in its ``Annotated`` metadata."""
    if isinstance(parameter.default, field_class):
        return parameter.default
    if parameter.default is parameter.empty:
        for meta in getattr(parameter.annotation, "__metadata__", ()):
            if isinstance(meta, field_class):
                return meta
    return None


def _validated(annotation: Any) -> bool:
    """Whether pydantic turns a JSON value of ``annotation`` into an instance (a model, dataclass or TypedDict in it)."""
    if typing.get_origin(annotation) is not None:
        return any(_validated(argument) for argument in typing.get_args(annotation))
    if not isinstance(annotation, type):
        return False
    if dataclasses.is_dataclass(annotation) or typing.is_typeddict(annotation):
        return True
    pydantic = sys.modules.get("pydantic")
    return pydantic is not None and issubclass(annotation, pydantic.BaseModel)
