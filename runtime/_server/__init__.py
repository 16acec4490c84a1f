"""The HTTP service of `toolpen serve`: tenants by API key, limits, metrics, its OpenAPI document.

``create_app`` loads the ``serve`` extra (Starlette, prometheus-client) when first named, so that
``runtime._server.config`` stays importable without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from runtime._server.config import ServerConfig, parse_api_keys

if TYPE_CHECKING:
    from runtime._server.app import create_app

__all__ = ["ServerConfig", "create_app", "parse_api_keys"]


def __getattr__(name: str) -> Any:
    if name != "create_app":
        raise AttributeError(f"module 'runtime._server' has no attribute {name!r}")
    from runtime._server.app import create_app

    return create_app
