"""The public API is what ``runtime`` and its public subpackages list in ``__all__`` (as httpx's
tests/runtime/test_exported_members.py): every listed name imports and is what it claims, nothing public
is left out, and the docs and samples send users to these names only."""

from __future__ import annotations

import importlib
import inspect
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

import runtime
from sandbox.common import errors

ROOT = Path(__file__).resolve().parents[2]

PUBLIC_MODULES = (
    "runtime.adapters",
    "runtime.adapters.adk",
    "runtime.adapters.langchain",
    "runtime.adapters.openai_agents",
    "runtime.app",
    "runtime.protocols",
    "runtime.protocols.agents",
    "runtime.protocols.chat",
    "runtime.protocols.mcp",
    "runtime.protocols.profiles",
    "runtime.store",
)
"""The public subpackages and modules besides ``runtime`` itself, each with its ``__all__``."""


def _error_classes() -> list[type[errors.ToolpenError]]:
    return [
        value
        for value in vars(errors).values()
        if isinstance(value, type) and issubclass(value, errors.ToolpenError)
    ]


def test_all_is_sorted_and_matches_what_loads_lazily() -> None:
    assert runtime.__all__ == sorted(runtime.__all__)
    assert set(runtime.__all__) == set(runtime._EXPORTS)


@pytest.mark.parametrize("name", runtime.__all__)
def test_every_exported_name_imports_and_is_what_it_claims(name: str) -> None:
    value = getattr(runtime, name)
    module = importlib.import_module(runtime._EXPORTS[name])
    assert value is getattr(module, name)
    if inspect.isclass(value) or inspect.isfunction(value):
        assert value.__name__ == name
        assert value.__module__ == module.__name__


def test_nothing_public_in_runtime_is_left_out_of_all() -> None:
    public = {
        name
        for name, value in vars(runtime).items()
        if not name.startswith("_") and not isinstance(value, ModuleType)
    }
    assert public <= set(runtime.__all__)
    assert set(runtime.__all__) <= set(dir(runtime))


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        runtime.Nope  # noqa: B018


def test_every_error_class_and_family_is_exported() -> None:
    for cls in _error_classes():
        assert cls.__name__ in runtime.__all__
        assert getattr(runtime, cls.__name__) is cls


def test_importing_runtime_loads_none_of_the_host() -> None:
    code = "import sys, runtime; print(sorted(m for m in sys.modules if m.split('.')[0] in ('runtime', 'sandbox')))"
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert loaded.stdout.strip() == "['runtime']"


@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_public_subpackages_export_what_they_define(module_name: str) -> None:
    module = importlib.import_module(module_name)
    exported = module.__all__
    assert len(exported) == len(set(exported))
    for name in exported:
        value = getattr(module, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert value.__name__ == name
            assert value.__module__.startswith(module_name.partition(".")[0] + ".")
    # a package also owns what its own modules define (``runtime.app`` re-exports them)
    owned = (module_name, f"{module_name}.") if hasattr(module, "__path__") else (module_name,)
    defined_here = {
        name
        for name, value in vars(module).items()
        if (inspect.isclass(value) or inspect.isfunction(value))
        and not name.startswith("_")
        and (value.__module__ == module_name or value.__module__.startswith(owned[-1]))
    }
    assert defined_here <= set(exported), defined_here - set(exported)


# -- the docs send users to public names only ---------------------------------------------

_IMPORT = re.compile(r"^\s*from (runtime(?:\.[\w.]+)?) import \(?([\w, ]+)", re.M)


def _doc_imports() -> list[tuple[str, str, str]]:
    files = [
        ROOT / "README.md",
        *sorted((ROOT / "docs").glob("*.md")),
        *sorted((ROOT / "samples").rglob("*.py")),
    ]
    found = []
    for path in files:
        for match in _IMPORT.finditer(path.read_text()):
            for name in match.group(2).split(","):
                if name.strip():
                    found.append((path.relative_to(ROOT).as_posix(), match.group(1), name.strip()))
    return found


def _entry_points() -> set[tuple[str, str]]:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    return {tuple(target.split(":")) for target in scripts.values()}


def test_the_docs_and_samples_import_only_public_names() -> None:
    imports = _doc_imports()
    assert imports
    for where, module_name, name in imports:
        if (module_name, name) in _entry_points():
            continue
        assert module_name == "runtime" or module_name in PUBLIC_MODULES, (where, module_name)
        assert name in importlib.import_module(module_name).__all__, (where, module_name, name)
