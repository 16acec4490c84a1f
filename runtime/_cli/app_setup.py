"""What the `toolpen app` commands (and `mcp`, `serve`, `web` given an app) share: the app's argument
and options, loading it, the runtime they build, the model endpoint, and the exit when unusable.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from runtime._cli.option_groups import option_field
from sandbox.common.errors import InvalidArguments, ToolpenError

if TYPE_CHECKING:
    from runtime._runtime import Runtime
    from runtime.app import App
    from sandbox.common.walls import WallsMode

EXIT_UNUSABLE = 2
DEFAULT_TIMEOUT = 60.0

FAKES = typer.Option(
    "--fakes", help="Given an app: let the tools' fakes answer (toolFakeConfig.enableFakeMode)."
)
ALLOW_HOST = typer.Option("--allow-host", help="Let HTTP reach HOST[:PORT] (repeatable).")
AUTH = typer.Option("--auth", help="Secret for an OpenAPI security scheme: SCHEME=@FILE or SCHEME=env:VAR.")

AGENT = typer.Option(
    "--agent", help="Given an app: whose callbacks run (display name; default: the root agent)."
)

AppArgument = Annotated[Path, typer.Argument(help="The exported app: its zip, or the unpacked folder.")]
AgentOption = Annotated[str | None, AGENT]
FakesOption = Annotated[bool, FAKES]
ModelOption = Annotated[
    str, typer.Option("--model", help="The model's name on the endpoint (it picks the model's profile).")
]


def exit_unusable(error: ToolpenError | OSError, hint: str = "") -> NoReturn:
    """Say ``error: <kind>: <message><hint>`` on stderr and exit 2 (an OS error's kind is ``os``)."""
    if isinstance(error, ToolpenError):
        typer.echo(f"error: {error.kind}: {error.message}{hint}", err=True)
    else:
        typer.echo(f"error: os: {error}{hint}", err=True)
    raise typer.Exit(EXIT_UNUSABLE) from None


def load_or_exit(path: Path) -> App:
    """The app, or exit 2 after saying what is wrong with it."""
    from runtime.app import load_app

    try:
        return load_app(path)
    except ToolpenError as error:
        exit_unusable(error)


def read_auth(items: list[str] | None) -> dict[str, str]:
    """``--auth SCHEME=@FILE|env:VAR`` items as scheme name -> secret."""
    from runtime._cli.secrets import read_secret

    secrets: dict[str, str] = {}
    for item in items or []:
        scheme, sep, given = item.partition("=")
        if not sep or not scheme:
            # the item is not echoed: without "SCHEME=" it may be the secret itself
            raise InvalidArguments("--auth takes SCHEME=@FILE or SCHEME=env:VAR: an item has no SCHEME=")
        secrets[scheme] = read_secret(given, option="--auth", prefix=f"{scheme}=")
    return secrets


@dataclass(frozen=True)
class ToolOptions:
    """An option group: how the app's tools answer and what they reach (fakes, hosts, OpenAPI secrets)."""

    fakes: bool = option_field(FAKES, default=False)
    allow_host: list[str] | None = option_field(ALLOW_HOST)
    auth: list[str] | None = option_field(AUTH)

    def runtime(self, loaded: App, *, store: str, agent: str | None, walls: WallsMode) -> Runtime:
        """A runtime running ``loaded`` with ``agent``'s callbacks; the caller closes it."""
        from runtime._egress import EgressPolicy
        from runtime.app import app_runtime

        return app_runtime(
            loaded,
            agent=agent,
            store=store,
            fakes=self.fakes,
            egress=EgressPolicy(allow_hosts=list(self.allow_host or [])),
            auth=read_auth(self.auth) or None,
            walls=walls,
        )


@dataclass(frozen=True)
class ServedAppOptions:
    """An option group: the exported app a server serves, whose callbacks run, its fakes, secrets, hosts."""

    app_path: Path | None = option_field(
        typer.Option(
            "--app", help="An exported CES app (zip or folder): its tools, toolsets, callbacks, defaults."
        )
    )
    agent: str | None = option_field(AGENT)
    fakes: bool = option_field(FAKES, default=False)
    auth: list[str] | None = option_field(AUTH)
    allow_host: list[str] | None = option_field(ALLOW_HOST)


@dataclass(frozen=True)
class EndpointOptions:
    """An option group: the OpenAI-compatible endpoint a model answers on, its key, timeout and retries."""

    base_url: str | None = option_field(
        typer.Option(
            "--base-url", help="The OpenAI-compatible endpoint (default: OPENAI_BASE_URL, else OpenAI's)."
        )
    )
    api_key: str | None = option_field(
        typer.Option("--api-key", help="The endpoint's key: @FILE or env:VAR (default: OPENAI_API_KEY).")
    )
    timeout: float = option_field(
        typer.Option("--timeout", help="Seconds to wait for each model response.", min=0.1),
        default=DEFAULT_TIMEOUT,
    )
    retries: int = option_field(
        typer.Option("--retries", help="Retries of a model request that failed (429, 5xx, timeouts).", min=0),
        default=2,
    )

    def client(self) -> Any:
        """An ``openai.OpenAI`` client for the endpoint; ``InvalidArguments`` without a key."""
        import openai

        from runtime._cli.secrets import read_secret

        key = (
            read_secret(self.api_key, option="--api-key")
            if self.api_key
            else os.environ.get("OPENAI_API_KEY", "")
        )
        if not key:
            raise InvalidArguments(
                "give the endpoint's key: --api-key @FILE or env:VAR, or set OPENAI_API_KEY"
            )
        url = self.base_url or os.environ.get("OPENAI_BASE_URL") or None
        return openai.OpenAI(base_url=url, api_key=key, timeout=self.timeout, max_retries=self.retries)
