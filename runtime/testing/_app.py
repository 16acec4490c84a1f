"""``CesApp``: an export loaded for tests; each call runs in a new session, in real workers."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runtime.app import load_app

if TYPE_CHECKING:
    from runtime._results import ToolResult
    from runtime._runtime import Runtime
    from runtime.app import App
    from sandbox.common.walls import WallsMode


def plain(value: Any) -> Any:
    """``value`` as JSON values: the CES objects a test built (``Content``, ``Event``, ...) turned back."""
    to_json = getattr(value, "to_json", None)
    if callable(to_json) and not isinstance(value, type):
        return to_json()
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


class CesApp:
    """An exported app (zip or folder) whose tools and callbacks a test calls in the sandbox.

    ``call`` runs a tool with the agent's tool callbacks around it; ``callbacks`` runs an agent
    or model callback chain. Each starts a new session from the declared variables' defaults with
    ``state`` over them; ``context`` gives ``user_content``, ``events`` and the rest (CES objects
    or their JSON). One runtime per agent and fakes setting, closed by ``close()``.
    """

    def __init__(self, path: str | Path, *, walls: WallsMode = "all") -> None:
        self.path = Path(path)
        self.app: App = load_app(self.path)
        self._walls: WallsMode = walls
        self._runtimes: dict[tuple[str | None, bool], Runtime] = {}
        self._sessions = itertools.count(1)

    def call(
        self,
        tool: str,
        args: dict[str, Any] | None = None,
        *,
        state: dict[str, Any] | None = None,
        context: dict[str, Any] | None = None,
        agent: str | None = None,
        fakes: bool = False,
    ) -> ToolResult:
        """Run ``tool`` (a Python tool's name or ``<toolset>_<operation>``) as the agent's model would."""
        rt = self.runtime(agent, fakes)
        return rt.call(
            tool, plain(args or {}), context=self._context(state, context), session_id=self._session()
        )

    def callbacks(
        self,
        kind: str,
        *,
        state: dict[str, Any] | None = None,
        context: dict[str, Any] | None = None,
        llm_request: Any = None,
        llm_response: Any = None,
        agent: str | None = None,
    ) -> ToolResult:
        """Run the agent's ``before_agent`` / ``after_agent`` / ``before_model`` / ``after_model``
        callbacks; ``output`` is the replacement the chain chose, or None."""
        return self.runtime(agent, False).run_callbacks(
            kind,
            context=self._context(state, context),
            session_id=self._session(),
            llm_request=plain(llm_request),
            llm_response=plain(llm_response),
        )

    def runtime(self, agent: str | None = None, fakes: bool = False) -> Runtime:
        """The runtime the app runs in for ``agent`` (default: the root agent)."""
        from runtime.app import app_runtime

        key = (agent, fakes)
        if key not in self._runtimes:
            self._runtimes[key] = app_runtime(self.app, agent=agent, fakes=fakes, walls=self._walls)
        return self._runtimes[key]

    def close(self) -> None:
        """Stop every runtime's workers."""
        for rt in self._runtimes.values():
            rt.close()
        self._runtimes.clear()

    def _context(self, state: dict[str, Any] | None, context: dict[str, Any] | None) -> dict[str, Any]:
        given = plain(dict(context or {}))
        given["state"] = {**self.app.initial_state(), **(given.get("state") or {}), **plain(state or {})}
        return dict(given)

    def _session(self) -> str:
        return f"test-{next(self._sessions)}"

    def __enter__(self) -> CesApp:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
