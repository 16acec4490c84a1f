"""A ``Runtime`` holding an app: its Python tools, OpenAPI toolsets, one agent's callbacks and the fakes.

Tools are registered under the names CES code calls them by (``tools.<function>``,
``tools.<toolset>_<operation>``); the callbacks are those of one agent (default: the root
agent), disabled ones left out, in the order of its lists, after the callbacks of the enabled code
guardrails the app and the agent name (their ``{"decision": "TRIGGER"}`` ends a chain and is what
``run_callbacks`` returns; ``OK`` lets it carry on); a tool's fake only when fakes are
asked for and its ``toolFakeConfig`` has ``enableFakeMode``; new sessions start from the declared
variables' defaults. A problem names the app's file.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from runtime._egress import EgressPolicy
from runtime._execution import parse_tool_execution_mode
from runtime._runtime import Runtime
from runtime.app._loader import App, AppGuardrail
from runtime.store import Store
from sandbox.common.errors import ToolpenError
from sandbox.common.walls import WallsMode


def app_runtime(
    app: App,
    *,
    agent: str | None = None,
    store: str | Store = "memory://",
    fakes: bool = False,
    egress: EgressPolicy | None = None,
    auth: dict[str, str] | None = None,
    walls: WallsMode = "all",
    pool_size: int = 1,
    allow_weak_isolation: bool = False,
    app_name: str | None = None,
) -> Runtime:
    """A runtime with the app registered; the caller closes it. ``app_name`` names the runtime's
    sessions' app (default: the app's display name; a service gives its tenant's name)."""
    chosen = app.agent(agent) if agent or app.root_agent else None
    rt = Runtime(
        store=store,
        egress=egress,
        pool_size=pool_size,
        enable_fakes=fakes,
        walls=walls,
        allow_weak_isolation=allow_weak_isolation,
        app_name=app_name or app.name,
        agent_name=chosen.display_name if chosen else "agent",
        initial_state=app.initial_state(),
        tool_execution_mode=parse_tool_execution_mode(app.resource.tool_execution_mode),
        agents=transfer_targets(app),
    )
    try:
        register_app(rt, app, chosen.display_name if chosen else None, fakes=fakes, auth=auth)
    except BaseException:
        rt.close()
        raise
    return rt


def transfer_targets(app: App) -> list[str]:
    """The names ``transfer_to_agent`` may give: each agent's displayName, and its folder's name
    (the agent's id in the export, which a resource name ends with)."""
    return [*app.agents, *(agent.resource_path.split("/")[1] for agent in app.agents.values())]


def register_app(
    rt: Runtime, app: App, agent: str | None, *, fakes: bool = False, auth: dict[str, str] | None = None
) -> None:
    """Register the app's tools and toolsets, the code guardrails that apply and ``agent``'s callbacks,
    and (with ``fakes``) the tool fakes."""
    for tool in app.tools.values():
        with _about(tool.code_path):
            registered = rt.add_tool(
                tool.source, tool.entry, execution_type=tool.execution_type, timeout=tool.timeout
            )
        if fakes and tool.fake_enabled and tool.fake_source:
            with _about(tool.fake_path or tool.resource_path):
                rt.add_fakes(tool.fake_source, tool=registered.name)
    for toolset in app.toolsets.values():
        with _about(toolset.schema_path):
            rt.add_openapi(
                toolset.display_name,
                toolset.document,
                auth=auth,
                execution_type=toolset.execution_type,
                timeout=toolset.timeout,
            )
    _add_callbacks(rt, app, agent)


def register_agent(rt: Runtime, app: App, agent: str | None) -> None:
    """Make ``agent``'s callbacks (after the code guardrails that apply to it) the runtime's
    callbacks, in place of those registered before (an agent transfer); fakes stay."""
    rt.clear_callbacks()
    _add_callbacks(rt, app, agent)


def _add_callbacks(rt: Runtime, app: App, agent: str | None) -> None:
    guards = [callback for guardrail in applied_guardrails(app, agent) for callback in guardrail.callbacks]
    for callback in [*guards, *(app.agent(agent).callbacks if agent is not None else [])]:
        if not callback.disabled:
            with _about(callback.code_path):
                rt.add_callback(callback.source)


def applied_guardrails(app: App, agent: str | None) -> list[AppGuardrail]:
    """The enabled guardrails of the app's ``guardrails``, then of ``agent``'s, each once; names
    that are no guardrail of the app are left to ``check_app``."""
    names = [*app.resource.guardrails, *(app.agent(agent).resource.guardrails if agent is not None else [])]
    chosen = [app.guardrails[name] for name in dict.fromkeys(names) if name in app.guardrails]
    return [guardrail for guardrail in chosen if guardrail.enabled]


@contextmanager
def _about(path: str) -> Iterator[None]:
    """A ``ToolpenError`` raised inside says which file of the app it is about."""
    try:
        yield
    except ToolpenError as error:
        raise type(error)(f"{path}: {error.message}", line=error.line, col=error.col) from None
