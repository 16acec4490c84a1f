"""The optional dependency groups (``pip install 'toolpen[NAME]'``) and the check a feature makes
before it imports one: a missing extra is one line naming the feature and the install command.
"""

from __future__ import annotations

from importlib.util import find_spec

from sandbox.common.errors import MissingExtra

EXTRAS: dict[str, tuple[str, ...]] = {
    "serve": ("starlette", "uvicorn", "prometheus_client"),
    "postgres": ("psycopg", "psycopg_pool"),
    "redis": ("redis",),
    "mcp": ("mcp", "uvicorn", "starlette"),
    "agents": ("openai", "agents"),
    "adk": ("google.adk",),
    "langchain": ("langchain_core",),
    "ces": ("numpy", "cffi", "google.protobuf"),
}
"""Each extra and the modules it installs (as pyproject.toml lists them)."""


def missing_modules(extra: str) -> list[str]:
    """The modules of ``extra`` that cannot be imported here (found without importing them)."""
    missing = []
    for module in EXTRAS[extra]:
        try:
            found = find_spec(module) is not None
        except ImportError:  # a parent package is missing ("google" for "google.adk")
            found = False
        if not found:
            missing.append(module)
    return missing


def require_extra(extra: str, feature: str) -> None:
    """Raise ``MissingExtra`` unless every module of ``extra`` is installed."""
    if missing_modules(extra):
        raise MissingExtra(f"{feature} needs the '{extra}' extra: pip install 'toolpen[{extra}]'")
