"""What `toolpen run` and `toolpen turn` share: options, JSON inputs, and the runtime they build."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from runtime.egress import EgressPolicy
from runtime.errors import InvalidArguments, InvalidSource
from runtime.runtime import Runtime

UNUSABLE = frozenset({"invalid_source", "policy", "invalid_arguments"})
"""Error kinds that mean the source or the arguments are unusable (exit 2)."""

ToolsOption = Annotated[
    list[Path] | None, typer.Option("--tools", help="Python tool file or folder (repeatable).")
]
OpenApiOption = Annotated[
    list[str] | None, typer.Option("--openapi", help="OpenAPI toolset NAME=SPEC (repeatable).")
]
AuthOption = Annotated[
    list[str] | None, typer.Option("--auth", help="Secret for an OpenAPI security scheme, SCHEME=SECRET.")
]
AllowHostOption = Annotated[
    list[str] | None, typer.Option("--allow-host", help="Let ces_requests reach HOST[:PORT] (repeatable).")
]
CallbacksOption = Annotated[
    list[Path] | None, typer.Option("--callbacks", help="Callback file (repeatable).")
]
FakesOption = Annotated[
    list[Path] | None, typer.Option("--fakes", help="Fake tool calls for local testing (repeatable).")
]


@dataclass
class Extras:
    """Everything a tool may reach besides itself, and the hooks around it."""

    tools: list[Path] = field(default_factory=list)
    openapi: dict[str, str] = field(default_factory=dict)
    auth: dict[str, str] = field(default_factory=dict)
    allow_hosts: list[str] = field(default_factory=list)
    callbacks: list[Path] = field(default_factory=list)
    fakes: list[Path] = field(default_factory=list)

    @classmethod
    def from_options(
        cls,
        tools: list[Path] | None,
        openapi: list[str] | None,
        auth: list[str] | None,
        allow_host: list[str] | None,
        callbacks: list[Path] | None,
        fakes: list[Path] | None,
    ) -> Extras:
        return cls(
            tools=list(tools or []),
            openapi=_pairs(openapi or [], "--openapi", "NAME=SPEC"),
            auth=_pairs(auth or [], "--auth", "SCHEME=SECRET"),
            allow_hosts=list(allow_host or []),
            callbacks=list(callbacks or []),
            fakes=list(fakes or []),
        )


def _pairs(items: list[str], option: str, form: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InvalidArguments(f"{option} takes {form}, not {item!r}")
        pairs[key] = value
    return pairs


def read_json_option(text: str | None, what: str) -> dict[str, Any]:
    """A JSON object given inline or as ``@path``."""
    if not text:
        return {}
    try:
        raw = Path(text[1:]).read_text(encoding="utf-8") if text.startswith("@") else text
        value = json.loads(raw)
    except OSError as error:
        raise InvalidArguments(f"{what}: cannot read {text[1:]}: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise InvalidArguments(f"{what} is not valid JSON: {error}") from None
    if not isinstance(value, dict):
        raise InvalidArguments(f"{what} must be a JSON object")
    return value


def read_source(path: Path) -> str:
    """A tool, callback or fake file's text; ``InvalidSource`` when it cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError as error:
        raise InvalidSource(f"cannot read {path}: {error.strerror}") from None


def build_runtime(store: str, extras: Extras) -> Runtime:
    """A runtime with the extras registered; the caller closes it."""
    rt = Runtime(
        store=store,
        egress=EgressPolicy(allow_hosts=extras.allow_hosts),
        pool_size=1,
        enable_fakes=bool(extras.fakes),
    )
    try:
        for path in extras.tools:
            for file in sorted(path.glob("*.py")) if path.is_dir() else [path]:
                rt.add_tool(read_source(file), replace=True)
        for toolset, spec in extras.openapi.items():
            rt.add_openapi(toolset, spec, auth=extras.auth or None, replace=True)
        for path in extras.callbacks:
            rt.add_callback(read_source(path))
        for path in extras.fakes:
            rt.add_fakes(read_source(path))
    except BaseException:
        rt.close()
        raise
    return rt
