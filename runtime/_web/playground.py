"""The page's state: the files it lists and may save, the store, and the runs and turns made from it.

A tool run goes through one long-lived runtime in session ``web``; given an app, that runtime
holds the app (remade when the page's unsaved edits of its code change). A turn gets a
runtime of its own over the same store and starts its session anew. Runs are one at a time.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runtime._egress import is_loopback_host
from runtime._web.chat import ChatSettings, PageChat
from runtime._web.files import Listing, PageFile, app_listing, discover
from runtime._web.turns import APP_NAME, Setup, app_runtime_for, edited_app, turn_runtime
from sandbox.common.errors import Conflict, InvalidArguments, ToolpenError
from sandbox.common.walls import WallsMode

if TYPE_CHECKING:
    from runtime._runtime import Runtime

SESSION = "web"
"""The session of the page's tool runs; given an app, ``web-<app name>`` (a store may hold both)."""


@dataclass(frozen=True)
class WebConfig:
    """What `toolpen web` was started with."""

    token: str
    files: tuple[Path, ...] = ()
    store: str = "memory://"
    walls: WallsMode = "all"
    host: str = "127.0.0.1"
    allow_weak_isolation: bool = False
    app: Path | None = None
    """An exported app (zip or folder): its tools, toolsets, callbacks and fakes, its defaults."""
    agent: str | None = None
    fakes: bool = False


CANCELLED_MESSAGE = "stopped from the page (Cancel): the worker was killed and nothing was committed"
CANCELLED: dict[str, Any] = {
    "success": False,
    "cancelled": True,
    "error": {"kind": "cancelled", "message": CANCELLED_MESSAGE},
}


class Playground:
    def __init__(self, config: WebConfig) -> None:
        from runtime.store import open_store

        self.config = config
        app = None
        if config.app is not None:
            from runtime.app import load_app

            app = load_app(config.app)
        self.listing = self._listing(config, app)
        self.store = open_store(config.store)
        self.setup = Setup(
            self.store, config.walls, config.allow_weak_isolation, app, config.agent, config.fakes
        )
        self.lock = threading.Lock()
        self.running: tuple[Runtime, list[bool]] | None = None
        """The runtime of the call or turn running now (``cancel`` stops it), and its flag."""
        self.session = SESSION if app is None else f"{SESSION}-{re.sub(r'[^A-Za-z0-9_-]+', '_', app.name)}"
        self.page_chat = PageChat(self.session)
        self.app_code: dict[str, str] = {}
        """Given an app: the code its runtime was made with (page path -> source)."""
        try:
            self.runtime = self._runtime()
        except BaseException:
            self.store.close()
            raise

    @staticmethod
    def _listing(config: WebConfig, app: Any) -> Listing:
        listing = discover(list(config.files))
        if app is None or config.app is None:
            return listing
        merged = app_listing(app, config.app)
        merged.files.update(listing.files)
        merged.roots, merged.referenced = listing.roots, listing.referenced
        return merged

    def _runtime(self) -> Runtime:
        if self.setup.app is not None:
            self.app_code = self._app_sources({})
            return app_runtime_for(self.setup, self.listing, self.app_code)
        from runtime._runtime import Runtime

        return Runtime(
            store=self.store,
            walls=self.config.walls,
            pool_size=1,
            app_name=APP_NAME,
            allow_weak_isolation=self.config.allow_weak_isolation,
        )

    def initial_state(self) -> dict[str, Any]:
        return self.setup.app.initial_state() if self.setup.app is not None else {}

    def describe(self) -> dict[str, Any]:
        """The files of the page (with their text) and what it runs with."""
        app = self.setup.app
        about: dict[str, Any] | None = None
        if app is not None:
            agent = self.config.agent or app.root_agent
            about = {
                "name": app.name,
                "agent": agent,
                "fakes": self.config.fakes,
                "state": app.initial_state(),
            }
            about["toolsets"] = sorted(app.toolsets)
            about["agents"] = [agent.display_name for agent in app.agents.values()]
        files = [file.to_dict() for file in self.listing.files.values()]
        return {
            "tools": files,
            "walls": self.config.walls,
            "app": about,
            "session": self.session,
            "public": not is_loopback_host(self.config.host),
        }

    def read(self, path: str) -> dict[str, Any]:
        """One listed file as it is now (on disk when it lives there)."""
        file = self._file(path)
        try:
            return {"path": path, "source": file.read()}
        except (OSError, UnicodeDecodeError) as error:
            return {"path": path, "error": str(error)}

    def _file(self, path: str) -> PageFile:
        if path not in self.listing.files:
            raise InvalidArguments(f"{path!r} is not one of the files this page was started with")
        return self.listing.files[path]

    def _app_sources(self, edits: dict[str, str]) -> dict[str, str]:
        """The app's code as the next run sees it: the page's edits, else the files as on disk now."""
        sources = {}
        for path, file in self.listing.files.items():
            if file.app_ref is None:
                continue
            if path in edits:
                sources[path] = edits[path]
            elif file.disk is not None:
                try:
                    sources[path] = file.read()
                except (OSError, UnicodeDecodeError) as error:
                    raise InvalidArguments(f"{path}: {error}") from None
        return sources

    def _app_edits(self, edits: dict[str, str]) -> None:
        """Given an app: remake its runtime when its code (edited, or changed on disk) changed."""
        if self.setup.app is None:
            return
        wanted = self._app_sources(edits)
        if wanted != self.app_code:
            remade = app_runtime_for(self.setup, self.listing, wanted)  # raises: the old one stays
            self.runtime.close(close_store=False)
            self.runtime, self.app_code = remade, wanted

    def run(
        self, source: str, args: dict[str, Any], context: dict[str, Any], edits: dict[str, str]
    ) -> dict[str, Any]:
        """One call of the edited tool in the page's session, with the state before and after."""
        from runtime._given_context import call_context, prepare_session

        with self.lock:
            try:
                self._app_edits(edits)
                tool = self.runtime.add_tool(source, replace=True)
                if self.store.get_session(self.session) is None:
                    context = {**context, "state": {**self.initial_state(), **(context.get("state") or {})}}
                prepare_session(self.runtime, self.session, context, fresh=False)
            except ToolpenError as error:
                failed = {"success": False, "error": error.to_dict(), "state_before": None, "duration_ms": 0}
                return {**failed, "session": self.session}
            before = self.store.require_session(self.session).state
            started = time.perf_counter()
            with self._cancellable(self.runtime) as cancelled:
                result = self.runtime.call(
                    tool.name, args, context=call_context(context), session_id=self.session
                )
            duration = (time.perf_counter() - started) * 1000
            answer = {**result.to_dict(), "session": self.session, "state_before": before}
            if cancelled:
                self.runtime = self._runtime()  # the cancelled one's workers are gone
                answer.update(CANCELLED, state=self.store.require_session(self.session).state)
        return {**answer, "duration_ms": round(duration, 1)}

    @contextmanager
    def _cancellable(self, runtime: Runtime) -> Iterator[list[bool]]:
        """While the block runs, ``cancel`` stops ``runtime``'s workers; the list yielded holds True
        afterwards when it did."""
        cancelled: list[bool] = []
        self.running = (runtime, cancelled)
        try:
            yield cancelled
        finally:
            self.running = None

    def cancel(self) -> bool:
        """Stop the call or turn running now: its worker is killed, so nothing is committed. False
        when nothing runs."""
        running = self.running
        if running is None:
            return False
        runtime, cancelled = running
        cancelled.append(True)
        runtime.pool.close()
        return True

    def turn(self, text: str, path: str | None, edits: dict[str, str]) -> dict[str, Any]:
        """Play a turn script (as edited) in its session, started anew: each step and the state after."""
        from runtime._turns import parse_turn, play_turn

        file = self._file(path) if path else None
        script = parse_turn(text, file.label if file else "the new turn")
        base = file.disk.parent if file is not None and file.disk is not None else Path.cwd()
        session = str(script.get("session") or "turn")
        context = dict(script.get("context") or {})
        context["state"] = {**self.initial_state(), **(context.get("state") or {})}
        with self.lock:
            started = time.perf_counter()
            try:
                sources = self._app_sources(edits) if self.setup.app is not None else edits
                rt, notes = turn_runtime(self.setup, self.listing, script, base, sources)
            except ToolpenError as error:
                return {"session": session, "error": error.to_dict(), "steps": [], "notes": []}
            try:
                self.store.delete_session(session)
                with self._cancellable(rt) as cancelled:
                    steps = play_turn(rt, {**script, "context": context}, session)
                hooks = self._hook_files(rt, edits)
            except ToolpenError as error:
                return {"session": session, "error": error.to_dict(), "steps": [], "notes": notes}
            finally:
                rt.close(close_store=False)  # the store is the page's
            if cancelled:
                notes.append(CANCELLED_MESSAGE)
            stored = self.store.get_session(session)
        if [name for name, _ in steps] == ["before_agent_callback"] and script["calls"]:
            notes.append(
                f"before_agent_callback answered (or failed): the agent did not run, so the script's "
                f"{len(script['calls'])} call(s) were not made, as in CES"
            )
        return {
            "session": session,
            "steps": [{"name": name, **result.to_dict()} for name, result in steps],
            "state_before": context["state"],
            "state": stored.state if stored else {},
            "hooks": hooks,
            "notes": notes,
            "duration_ms": round((time.perf_counter() - started) * 1000, 1),
        }

    def _hook_files(self, rt: Runtime, edits: dict[str, str]) -> dict[str, list[str]]:
        """The runtime's callbacks and fakes by kind, each named by the listed file it came from."""
        labels = {}
        for path, file in self.listing.files.items():
            try:
                labels[edits[path] if path in edits else file.read()] = file.label
            except (OSError, UnicodeDecodeError, InvalidArguments):
                continue
        return {
            kind: [labels.get(hook.source, hook.entry) for hook in hooks]
            for kind, hooks in rt.callbacks().items()
        }

    def timeline(self, session: str) -> dict[str, Any]:
        stored = self.store.get_session(session)
        if stored is None:
            return {"session": session, "state": {}, "events": []}
        events = [event.to_dict() for event in stored.events]
        return {"session": session, "state": stored.state, "events": events}

    def reset(self, session: str) -> None:
        with self.lock:
            self.store.delete_session(session)

    def save(self, path: str, source: str, *, expected: str | None = None) -> None:
        """Write ``source`` to a listed file; with ``expected`` (the text the page's edits started
        from), refuse (``Conflict``) when the file changed on disk since."""
        file = self._file(path)
        if file.disk is None:
            raise InvalidArguments(
                f"{file.label} is read-only here: the app is a zip (`toolpen app unpack` it) or the code is inline"
            )
        disk = file.on_disk()
        if expected is not None and disk.exists() and disk.read_text(encoding="utf-8") != expected:
            raise Conflict(
                f"{file.label} changed on disk since it was opened: overwrite it, or load the disk version"
            )
        disk.write_text(source, encoding="utf-8")

    def chat(self, text: str, settings: ChatSettings, edits: dict[str, str]) -> dict[str, Any]:
        """One user turn of the page's chat (started with the code as edited now)."""
        with self.lock:
            return self.page_chat.turn(
                text, settings, lambda chosen, session: self._start_chat(chosen, session, edits)
            )

    def reset_chat(self) -> None:
        with self.lock:
            self.page_chat.reset()
            self.store.delete_session(self.page_chat.session)

    def _start_chat(self, settings: ChatSettings, session: str, edits: dict[str, str]) -> tuple[Runtime, Any]:
        client = settings.client()
        if self.setup.app is None:
            from runtime._web.chat import ToolsChat

            rt, _ = turn_runtime(self.setup, self.listing, {}, Path.cwd(), edits)
            return rt, ToolsChat(rt, client, settings.model, session)
        from runtime.app._chat import AppChat

        sources = self._app_sources(edits)
        rt = app_runtime_for(self.setup, self.listing, sources)
        try:
            app = edited_app(self.setup.app, self.listing, sources)
            agent = settings.agent or self.config.agent
            return rt, AppChat(rt, app, client, settings.model, agent=agent, session_id=session)
        except BaseException:
            rt.close(close_store=False)
            raise

    def close(self) -> None:
        self.page_chat.reset()
        self.runtime.close(close_store=False)
        self.store.close()
