"""``environment.json`` applied to an OpenAPI toolset, as the console does on import.

On export the console moves a toolset's server URL into ``environment.json``
(``{"toolsets": {"<toolset>": {"openApiToolset": {"url": ...}}}}``) and leaves the placeholder
``$env_var`` in the schema; on import it puts the URL back. A placeholder with no URL for it
(an export whose ``environment.json`` is still a Terraform template, ``environment.json.tftpl``)
is left in place: the app loads with a warning naming the schema file and the member to set, and
a call of that toolset's operations fails for want of a server URL.
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


def missing_url(text: str, display_name: str, folder: str, environment: dict[str, Any]) -> str | None:
    """Why the schema's ``$env_var`` stays unreplaced, if it does (a warning of the loader)."""
    if PLACEHOLDER not in text or toolset_url(environment, display_name, folder) is not None:
        return None
    return (
        f"the schema holds {PLACEHOLDER} but environment.json gives no "
        f"toolsets.{display_name}.openApiToolset.url (CES puts that URL in place of {PLACEHOLDER} on "
        "import); the toolset's operations cannot be called until it does"
    )


def apply_environment(
    text: str, display_name: str, folder: str, environment: dict[str, Any], path: str
) -> dict[str, Any]:
    """The OpenAPI document of ``text`` with ``$env_var`` replaced by the toolset's URL (when it has one)."""
    url = toolset_url(environment, display_name, folder)
    if PLACEHOLDER in text and url is not None:
        text = text.replace(PLACEHOLDER, url)
    try:
        document = json.loads(text) if path.endswith(".json") else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as error:
        raise InvalidApp(
            f"{path}: not a valid OpenAPI document: {error} (CES expects the toolset's OpenAPI 3 schema, JSON or YAML)"
        ) from None
    if not isinstance(document, dict):
        raise InvalidApp(f"{path}: an OpenAPI document must be an object (openapi, info, paths, ...)")
    return document
