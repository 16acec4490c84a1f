"""Option groups: options several commands take, declared once as a dataclass and given as one object.

A group is a dataclass whose fields are ``option_field``s. A command decorated with
``with_option_groups`` declares a parameter typed by the group; Typer sees the group's options
in that parameter's place, and the command receives the group built from them.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from typing import Annotated, Any, TypeVar, cast, get_type_hints

from typer.models import OptionInfo

Command = TypeVar("Command", bound=Callable[..., None])


def option_field(option: OptionInfo, default: Any = None) -> Any:
    """A group's field: the command-line option ``option`` (a ``typer.Option``), ``default`` when not given."""
    return dataclasses.field(default=default, metadata={"option": option})


def _is_group(annotation: Any) -> bool:
    return isinstance(annotation, type) and dataclasses.is_dataclass(annotation)


def _group_parameters(name: str, group: type, kind: Any) -> list[inspect.Parameter]:
    types = get_type_hints(group)
    parameters = []
    for field in dataclasses.fields(group):
        if "option" not in field.metadata:
            raise TypeError(f"{group.__name__}.{field.name} (for {name}) is no option_field")
        default = inspect.Parameter.empty if field.default is dataclasses.MISSING else field.default
        parameters.append(
            inspect.Parameter(
                field.name,
                kind,
                default=default,
                annotation=Annotated[types[field.name], field.metadata["option"]],
            )
        )
    return parameters


def with_option_groups(command: Command) -> Command:
    """``command`` with each parameter typed by a group replaced by the group's options, in its place.

    Typer reads the signature made here; the command is called with each group built.
    """
    parameters: list[inspect.Parameter] = []
    groups: dict[str, type] = {}
    for parameter in inspect.signature(command, eval_str=True).parameters.values():
        if _is_group(parameter.annotation):
            groups[parameter.name] = parameter.annotation
            parameters += _group_parameters(parameter.name, parameter.annotation, parameter.kind)
        else:
            parameters.append(parameter)

    @functools.wraps(command)
    def with_groups(**values: Any) -> None:
        built = {
            name: group(**{field.name: values.pop(field.name) for field in dataclasses.fields(group)})
            for name, group in groups.items()
        }
        command(**values, **built)

    with_groups.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    return cast(Command, with_groups)
