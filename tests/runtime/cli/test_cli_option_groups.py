"""Option groups: a dataclass of options stands in its parameter's place and reaches the command built."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import pytest
import typer
from typer.testing import CliRunner

from runtime._cli.option_groups import option_field, with_option_groups


@dataclass(frozen=True)
class Reach:
    host: list[str] | None = option_field(typer.Option("--host", help="A host."))
    quick: bool = option_field(typer.Option("--quick", help="Quickly."), default=False)


def _app() -> tuple[typer.Typer, list[object]]:
    seen: list[object] = []
    cli = typer.Typer()

    @cli.command()
    @with_option_groups
    def go(
        name: Annotated[str, typer.Argument()],
        first: Annotated[int, typer.Option("--first")] = 1,
        *,
        reach: Reach,
        last: Annotated[str, typer.Option("--last")] = "z",
    ) -> None:
        seen.append((name, first, reach, last))

    return cli, seen


def test_the_group_is_built_from_its_options_and_stands_in_its_place() -> None:
    cli, seen = _app()
    done = CliRunner().invoke(cli, ["n", "--host", "a", "--host", "b", "--quick", "--last", "y"])
    assert done.exit_code == 0, done.output
    assert seen == [("n", 1, Reach(host=["a", "b"], quick=True), "y")]
    shown = CliRunner().invoke(cli, ["--help"], env={"COLUMNS": "100", "NO_COLOR": "1"}).output
    order = [shown.index(flag) for flag in ("--first", "--host", "--quick", "--last")]
    assert order == sorted(order), shown


def test_the_defaults_are_the_fields_defaults() -> None:
    cli, seen = _app()
    assert CliRunner().invoke(cli, ["n"]).exit_code == 0
    assert seen == [("n", 1, Reach(), "z")]


@dataclass
class Loose:
    plain: int = 0


def test_a_field_that_is_no_option_is_refused() -> None:
    def command(*, loose: Loose) -> None: ...

    with pytest.raises(TypeError, match="Loose.plain"):
        with_option_groups(command)
