"""The runtimes a page run goes through: the page's files (with its unsaved edits) or an app.

A turn names the tools, toolsets, callbacks and fakes it registers, relative to its own file (a
new turn: to the working folder); a turn naming no tools gets every tool of the page. Only files
the page may read are read (``Listing.allows``). Given an app, a run gets the app's tools,
toolsets, callbacks and fakes, with the page's edits of their code.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sandbox.common.errors import InvalidArguments, ToolpenError
from sandbox.common.walls import WallsMode

if TYPE_CHECKING:
    from runtime._runtime import Runtime
    from runtime._web.files import Listing
    from runtime.app import App
    from runtime.store import Store

APP_NAME = "toolpen-web"


@dataclass(frozen=True)
class Setup:
    """How the page's runtimes are made."""

    store: Store
    """One store for every runtime of the page: a runtime's ``pool`` is closed, never the store."""
    walls: WallsMode
    allow_weak_isolation: bool
    app: App | None = None
    agent: str | None = None
    fakes: bool = False


def edited_app(app: App, listing: Listing, sources: dict[str, str]) -> App:
    """The app with the code of its files replaced by ``sources`` (page path -> source)."""
    tools, agents, guardrails = dict(app.tools), dict(app.agents), dict(app.guardrails)
    for path, source in sources.items():
        file = listing.files.get(path)
        if file is None or file.app_ref is None:
            continue
        what, name, index = file.app_ref
        if what == "tool":
            tools[name] = replace(tools[name], source=source)
        elif what == "fake":
            tools[name] = replace(tools[name], fake_source=source)
        elif what == "guardrail":
            callbacks = list(guardrails[name].callbacks)
            callbacks[index] = replace(callbacks[index], source=source)
            guardrails[name] = replace(guardrails[name], callbacks=callbacks)
        else:
            callbacks = list(agents[name].callbacks)
            callbacks[index] = replace(callbacks[index], source=source)
            agents[name] = replace(agents[name], callbacks=callbacks)
    return replace(app, tools=tools, agents=agents, guardrails=guardrails)


def app_runtime_for(setup: Setup, listing: Listing, sources: dict[str, str]) -> Runtime:
    """A runtime holding the app as edited; the caller closes it."""
    from runtime.app import app_runtime

    assert setup.app is not None
    return app_runtime(
        edited_app(setup.app, listing, sources),
        agent=setup.agent,
        store=setup.store,
        fakes=setup.fakes,
        walls=setup.walls,
        allow_weak_isolation=setup.allow_weak_isolation,
    )


def turn_runtime(
    setup: Setup, listing: Listing, script: dict[str, Any], base: Path, edits: dict[str, str]
) -> tuple[Runtime, list[str]]:
    """A runtime for one turn and the notes about what it left out; the caller closes it."""
    if setup.app is not None:
        notes = [
            f"the app's {key} are used, not the script's"
            for key in ("tools", "callbacks", "fakes")
            if key in script
        ]
        return app_runtime_for(setup, listing, edits), notes
    from runtime._runtime import Runtime

    rt = Runtime(
        store=setup.store,
        walls=setup.walls,
        pool_size=1,
        enable_fakes=bool(script.get("fakes")),
        app_name=APP_NAME,
        allow_weak_isolation=setup.allow_weak_isolation,
    )
    try:
        return rt, _register(rt, listing, script, base, edits)
    except BaseException:
        rt.close()
        raise


def _register(
    rt: Runtime, listing: Listing, script: dict[str, Any], base: Path, edits: dict[str, str]
) -> list[str]:
    def source(item: Any) -> tuple[str, str]:
        path = base / str(item)
        if not listing.allows(path):
            raise InvalidArguments(f"{item}: not a file of the paths this page was started with")
        listed = listing.disk_paths().get(path.resolve())
        if listed in edits:
            return str(item), edits[listed]
        try:
            return str(item), path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise InvalidArguments(f"{item}: {error}") from None

    notes: list[str] = []
    if "tools" in script:
        for item in script.get("tools") or []:
            name, text = source(item)
            _about(name, lambda text=text: rt.add_tool(text, replace=True))
    else:
        for file in listing.files.values():
            if file.kind != "tool":
                continue
            try:
                rt.add_tool(edits[file.path] if file.path in edits else file.read(), replace=True)
            except (ToolpenError, OSError, UnicodeDecodeError) as error:
                notes.append(f"{file.label} left out: {getattr(error, 'message', error)}")
    for toolset, spec in (script.get("openapi") or {}).items():
        path = base / str(spec)
        if not listing.allows(path):
            raise InvalidArguments(f"{spec}: not a file of the paths this page was started with")
        _about(str(spec), lambda toolset=toolset, path=path: rt.add_openapi(toolset, str(path), replace=True))
    for item in script.get("callbacks") or []:
        name, text = source(item)
        _about(name, lambda text=text: rt.add_callback(text))
    for item in script.get("fakes") or []:
        name, text = source(item)
        _about(name, lambda text=text: rt.add_fakes(text))
    return notes


def _about(name: str, register: Any) -> None:
    """Run ``register``; a ``ToolpenError`` it raises names the file."""
    try:
        register()
    except ToolpenError as error:
        raise type(error)(f"{name}: {error.message}", line=error.line, col=error.col) from None
