"""An export's code imported by a test as CES runs it: with the CES globals, and ``tools`` calling
the app's real tools in the sandbox.

cxas-scrapi's callback harness (``CallbackEvals``) copies a callback's ``python_code.py`` to a
temporary folder with ``from cxas_scrapi.utils.callback_libs import *`` prepended, so that the
test's ``from python_code import before_model_callback`` finds the names CES injects. Here an
import hook does it without rewriting the file (line numbers stay the user's): a module whose
file is one of the app's code files, or a ``python_code.py`` inside the app's folder, runs with
the CES classes, ``CallbackContext``, ``ToolContext``, ``tools``, ``async_tools``, ``ces_requests``,
``get_variable`` ... in its globals, as the sandbox gives them. ``tools.<name>(args)`` runs that
tool of the app in a worker (its callbacks around it, the caller's state over the declared
defaults); ``ces_requests`` answers with a refusal (HTTP goes through the sandbox's broker: use
the ``ces_app`` fixture). The module itself, like the test, runs in the test's process.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from sandbox.bridges.ces_context import ToolContext, ces_globals
from sandbox.common.errors import InvalidArguments, ToolpenError

CODE_FILE_NAME = "python_code.py"


def host_rpc(call_tool: Callable[[str, dict[str, Any], dict[str, Any]], Any]) -> Callable[..., Any]:
    """The RPC a host-side module's ``tools`` sends: ``call_tool(name, args, state)`` gives a
    ``ToolResult``; anything else (``ces_requests``) is refused, saying what to use instead."""

    def rpc(target: str, method: str, params: dict[str, Any]) -> Any:
        if (target, method) != ("tools", "call"):
            raise InvalidArguments(
                f"{target}.{method} is not available to code a test imports (it runs in the test's "
                "process); call the tool through the ces_app fixture, which runs it in the sandbox"
            )
        result = call_tool(
            str(params["name"]), dict(params.get("args") or {}), dict(params.get("state") or {})
        )
        if not result.success:
            raise result.error or ToolpenError(f"tool {params['name']!r} failed")
        return {"output": result.output, "state_delta": result.state_delta}

    return rpc


class _CesCodeLoader(importlib.machinery.SourceFileLoader):
    """A source file run with the CES globals seeded before its first line."""

    def __init__(self, fullname: str, path: str, seed: Callable[[], dict[str, Any]]) -> None:
        super().__init__(fullname, path)
        self._seed = seed

    def exec_module(self, module: ModuleType) -> None:
        module.__dict__.update(self._seed())
        super().exec_module(module)


class CesCodeFinder(importlib.abc.MetaPathFinder):
    """Finds the app's code modules (below ``folder``) and loads them with the CES globals."""

    def __init__(self, folder: Path, code_paths: set[Path], rpc: Callable[..., Any]) -> None:
        self.folder = folder.resolve()
        self.code_paths = {path.resolve() for path in code_paths}
        self._rpc = rpc

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
            return None
        origin = Path(spec.origin).resolve()
        if not origin.is_relative_to(self.folder):
            return None
        if origin not in self.code_paths and origin.name != CODE_FILE_NAME:
            return None
        spec.loader = _CesCodeLoader(fullname, spec.origin, self.seed)
        return spec

    def seed(self) -> dict[str, Any]:
        """The globals a module of the app's code starts with."""
        return ces_globals(ToolContext(state={}), self._rpc)

    def install(self) -> None:
        if self not in sys.meta_path:
            sys.meta_path.insert(0, self)

    def remove(self) -> None:
        if self in sys.meta_path:
            sys.meta_path.remove(self)
