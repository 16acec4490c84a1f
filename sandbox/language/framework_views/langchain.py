"""The view of LangChain core (``langchain_core``) a tool file imports: the ``tool`` decorator and
``RunnableConfig``.

``@tool``, ``@tool("name")`` and ``@tool(..., args_schema=Model, description=...)`` hand back the
function itself (LangChain's ``StructuredTool`` is what its agents call); the schema reader reads
the decorator's name, description and ``args_schema`` (``runtime/_schema/decorators.py``). A
``RunnableConfig`` parameter is handed ``{"configurable": <the session state>}``.
"""

from __future__ import annotations

from typing import Any, TypedDict

from sandbox.language.framework_views.inert import by_name

TOOL_OPTIONS = frozenset(
    {
        "description",
        "return_direct",
        "args_schema",
        "infer_schema",
        "response_format",
        "parse_docstring",
        "error_on_invalid_docstring",
        "extras",
    }
)
"""The keywords of LangChain's ``tool`` (langchain-core 1.x)."""


class RunnableConfig(TypedDict, total=False):
    """LangChain's ``RunnableConfig``: a dict; a tool reads its ``configurable``."""

    tags: list[str]
    metadata: dict[str, Any]
    run_name: str
    max_concurrency: int | None
    recursion_limit: int
    configurable: dict[str, Any]


def _the_function(fn: Any) -> Any:
    if not callable(fn):
        raise ValueError(f"The first argument must be a string or a callable, not {type(fn).__name__}")
    return fn


def tool(name_or_callable: Any = None, *args: Any, **options: Any) -> Any:
    """``@tool`` / ``@tool("name", ...)``: the function itself (name, description, schema are the schema reader's)."""
    unknown = sorted(set(options) - TOOL_OPTIONS)
    if unknown:
        raise TypeError(f"tool() got an unexpected keyword argument {unknown[0]!r}")
    if name_or_callable is None or isinstance(name_or_callable, str):
        return _the_function
    return _the_function(name_or_callable)


MEMBERS: dict[str, dict[str, Any]] = {
    "langchain_core.tools": by_name(tool),
    "langchain_core.runnables": by_name(RunnableConfig),
    "langchain_core.runnables.config": by_name(RunnableConfig),
}
