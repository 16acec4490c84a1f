"""What `toolpen run` and `toolpen turn` share: options, JSON inputs, and the runtime they build."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from runtime._cli.app_setup import read_auth
from runtime._cli.option_groups import option_field
from sandbox.common.errors import InvalidArguments, InvalidSource
from sandbox.common.walls import WallsMode

if TYPE_CHECKING:
    from runtime._runtime import Runtime

UNUSABLE = frozenset({"invalid_source", "policy", "invalid_arguments", "missing_extra"})
"""Error kinds that mean the source, the arguments or the installation are unusable (exit 2)."""

StoreOption = Annotated[str, typer.Option("--store", help="Session store URL.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print exactly one JSON object on stdout.")]
WeakIsolationOption = Annotated[
    bool,
    typer.Option(
        "--allow-weak-isolation",
        help="Run where the machine lacks a wall of the process sandbox (the jail, seccomp); warns once.",
    ),
]
WallsOption = Annotated[
    WallsMode,
    typer.Option(
        "--walls",
        help="all: the language wall inside the process wall; process: plain CPython, the process wall alone.",
    ),
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


def _option(flag: str, text: str) -> Any:
    return option_field(typer.Option(flag, help=text))


@dataclass
class ExtraOptions:
    """The options for the extras, as given on the command line: an option group `run` and `turn` take."""

    tools: list[Path] | None = _option("--tools", "Python tool file or folder (repeatable).")
    openapi: list[str] | None = _option("--openapi", "OpenAPI toolset NAME=SPEC (repeatable).")
    auth: list[str] | None = _option(
        "--auth",
        "Secret for an OpenAPI security scheme: SCHEME=@FILE or SCHEME=env:VAR (SCHEME=SECRET warns).",
    )
    allow_host: list[str] | None = _option("--allow-host", "Let ces_requests reach HOST[:PORT] (repeatable).")
    callbacks: list[Path] | None = _option("--callbacks", "Callback file (repeatable).")
    fakes: list[Path] | None = _option("--fakes", "Fake tool calls for local testing (repeatable).")

    def extras(self) -> Extras:
        """The extras they name; ``InvalidArguments`` for a malformed NAME=VALUE pair."""
        return Extras(
            tools=list(self.tools or []),
            openapi=_pairs(self.openapi or [], "--openapi", "NAME=SPEC"),
            auth=read_auth(self.auth),
            allow_hosts=list(self.allow_host or []),
            callbacks=list(self.callbacks or []),
            fakes=list(self.fakes or []),
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


def build_runtime(
    store: str, extras: Extras, walls: WallsMode = "all", allow_weak_isolation: bool = False
) -> Runtime:
    """A runtime with the extras registered; the caller closes it."""
    from runtime._egress import EgressPolicy
    from runtime._runtime import Runtime

    rt = Runtime(
        store=store,
        egress=EgressPolicy(allow_hosts=extras.allow_hosts),
        pool_size=1,
        enable_fakes=bool(extras.fakes),
        walls=walls,
        allow_weak_isolation=allow_weak_isolation,
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
