"""The HTTP service of `toolpen serve`: tenants by API key, limits, metrics, its OpenAPI document."""

from __future__ import annotations

from runtime.server.app import create_app
from runtime.server.config import ServerConfig, parse_api_keys

__all__ = ["ServerConfig", "create_app", "parse_api_keys"]
