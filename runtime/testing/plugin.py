"""toolpen's pytest plugin (entry point ``pytest11: toolpen``): fixtures that run an export in the sandbox.

- ``load_ces_app(path, walls="all")``: a :class:`~runtime.testing.CesApp` for the export at
  ``path`` (zip or folder), closed when the test session ends;
- ``ces_app``: the export ``--ces-app PATH`` (or the ``ces_app`` ini value, or
  ``TOOLPEN_CES_APP``) names; a test asking for it fails saying so when none is given.
- ``--ces-scrapi-classes`` (or ini ``ces_scrapi_classes = true``): ``cxas_scrapi.utils.callback_libs``
  names toolpen's CES classes (``runtime.testing.ces``), so that cxas-scrapi's callback tests run
  unchanged; refused when cxas-scrapi itself is installed (its classes would be shadowed).
- with an app folder given (not a zip: ``toolpen app test`` unpacks one into a folder), a test
  that imports the app's code (``from python_code import before_model_callback``, as scrapi's
  callback tests do) gets it with the CES globals, and its ``tools.<name>(...)`` runs the app's
  tool in the sandbox (``runtime.testing._code``).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from runtime._results import ToolResult
    from runtime.testing._app import CesApp
    from runtime.testing._code import CesCodeFinder
    from sandbox.common.walls import WallsMode

SCRAPI_MODULE = "cxas_scrapi.utils.callback_libs"
APP_ENV = "TOOLPEN_CES_APP"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("toolpen", "toolpen: test exported CES apps in the sandbox")
    group.addoption("--ces-app", default=None, help=f"The export the ces_app fixture loads (or ${APP_ENV}).")
    group.addoption(
        "--ces-scrapi-classes",
        action="store_true",
        default=False,
        help=f"Let {SCRAPI_MODULE} name toolpen's CES classes (scrapi-style tests, unchanged).",
    )
    parser.addini("ces_app", "The export the ces_app fixture loads.", default="")
    parser.addini(
        "ces_scrapi_classes", f"Let {SCRAPI_MODULE} name toolpen's CES classes.", type="bool", default=False
    )


LOADED = pytest.StashKey["LoadedApps"]()


class LoadedApps:
    """The exports a test session loaded, each once (by path and walls), closed at its end."""

    def __init__(self) -> None:
        self._apps: dict[tuple[Path, str], CesApp] = {}
        self.finder: CesCodeFinder | None = None

    def load(self, path: str | Path, walls: WallsMode = "all") -> CesApp:
        from runtime.testing._app import CesApp

        key = (Path(path).resolve(), walls)
        if key not in self._apps:
            self._apps[key] = CesApp(path, walls=walls)
        return self._apps[key]

    def close(self) -> None:
        if self.finder is not None:
            self.finder.remove()
        for app in self._apps.values():
            app.close()
        self._apps.clear()


def given_app(config: pytest.Config) -> str | None:
    """The export ``--ces-app`` (ini ``ces_app``, ``$TOOLPEN_CES_APP``) names, if any."""
    return config.getoption("ces_app") or config.getini("ces_app") or os.environ.get(APP_ENV) or None


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("ces_scrapi_classes") or config.getini("ces_scrapi_classes"):
        install_scrapi_classes()
    apps = config.stash[LOADED] = LoadedApps()
    given = given_app(config)
    if given and Path(given).is_dir():
        _import_app_code_with_ces_globals(apps, Path(given))


def pytest_unconfigure(config: pytest.Config) -> None:
    if LOADED in config.stash:
        config.stash[LOADED].close()


def _import_app_code_with_ces_globals(apps: LoadedApps, folder: Path) -> None:
    from runtime.app import load_app
    from runtime.app._crosscheck import code_files
    from runtime.testing._code import CesCodeFinder, host_rpc
    from sandbox.common.errors import ToolpenError

    def call_tool(name: str, args: dict[str, Any], state: dict[str, Any]) -> ToolResult:
        return apps.load(folder).call(name, args, state=state)

    try:
        loaded = load_app(folder)
    except ToolpenError as error:
        raise pytest.UsageError(f"--ces-app {folder}: {error.kind}: {error.message}") from None
    code_paths = {folder / path for path, _ in code_files(loaded)}
    apps.finder = CesCodeFinder(folder, code_paths, host_rpc(call_tool))
    apps.finder.install()


def install_scrapi_classes() -> None:
    """Make ``cxas_scrapi.utils.callback_libs`` toolpen's CES classes (idempotent)."""
    if SCRAPI_MODULE in sys.modules:
        return
    if importlib.util.find_spec("cxas_scrapi") is not None:
        raise pytest.UsageError(
            "--ces-scrapi-classes: cxas-scrapi is installed, and its classes would be shadowed; "
            "uninstall it in this environment, or import toolpen's from runtime.testing.ces"
        )
    from runtime.testing import ces

    package = types.ModuleType("cxas_scrapi")
    package.__path__ = []
    utils = types.ModuleType("cxas_scrapi.utils")
    utils.__path__ = []
    package.utils = utils  # type: ignore[attr-defined]
    utils.callback_libs = ces  # type: ignore[attr-defined]
    sys.modules.update({"cxas_scrapi": package, "cxas_scrapi.utils": utils, SCRAPI_MODULE: ces})


@pytest.fixture(scope="session")
def load_ces_app(request: pytest.FixtureRequest) -> Callable[..., CesApp]:
    """``load_ces_app(path, walls="all")``: the export at ``path``, loaded once per test session."""
    return request.config.stash[LOADED].load


@pytest.fixture(scope="session")
def ces_app(request: pytest.FixtureRequest, load_ces_app: Callable[..., CesApp]) -> CesApp:
    """The export ``--ces-app`` (ini ``ces_app``, ``$TOOLPEN_CES_APP``) names."""
    given = given_app(request.config)
    if not given:
        pytest.fail(
            f"the ces_app fixture needs an export: pass --ces-app PATH, set ini ces_app, or ${APP_ENV}"
        )
    return load_ces_app(given)
