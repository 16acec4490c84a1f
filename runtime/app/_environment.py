"""``environment.json`` applied to an OpenAPI toolset, as the console does on import.

On export the console moves a toolset's server URL into ``environment.json``
(``{"toolsets": {"<toolset>": {"openApiToolset": {"url": ...}}}}``) and leaves the placeholder
``$env_var`` in the schema; on import it puts the URL back. A placeholder with no URL for it is
an error naming the schema file.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from sandbox.common.errors import InvalidApp

PLACEHOLDER = "$env_var"


def toolset_url(environment: dict[str, Any], display_name: str, folder: str) -> str | None:
    """The URL ``environment.json`` holds for a toolset (by display name, else by folder name)."""
    toolsets = environment.get("toolsets") or {}
    entry = toolsets.get(display_name) or toolsets.get(folder) or {}
    url = (entry.get("openApiToolset") or {}).get("url") if isinstance(entry, dict) else None
    return url if isinstance(url, str) and url else None


def apply_environment(
    text: str, display_name: str, folder: str, environment: dict[str, Any], path: str
) -> dict[str, Any]:
    """The OpenAPI document of ``text`` with ``$env_var`` replaced by the toolset's URL."""
    if PLACEHOLDER in text:
        url = toolset_url(environment, display_name, folder)
        if url is None:
            raise InvalidApp(
                f"{path}: the schema holds {PLACEHOLDER} but environment.json gives no "
                f"toolsets.{display_name}.openApiToolset.url"
            )
        text = text.replace(PLACEHOLDER, url)
    try:
        document = json.loads(text) if path.endswith(".json") else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as error:
        raise InvalidApp(f"{path}: not a valid OpenAPI document: {error}") from None
    if not isinstance(document, dict):
        raise InvalidApp(f"{path}: an OpenAPI document must be an object")
    return document
