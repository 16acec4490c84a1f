"""What the framework views hand out: toolpen's own inert stand-ins, never a framework's objects.

A tool file written for a framework builds more than its tools at the top level: an agent that
lists them, a server that registers them, a tool wrapper around one. toolpen runs the tool
function, so those objects only have to let the module's code run: each stand-in takes the
arguments its framework's constructor takes, keeps the few a file reads back (``name``, a
wrapper's ``func``), and tool code reads nothing else of it (``STAND_IN_RULE``: an allowlist per
class, as for the library views). A framework's decorator hands back the tool function itself.
"""

from __future__ import annotations

from typing import Any

from sandbox.language.library_rules import LibraryRule, register_library_types
from sandbox.language.rules import class_name, refuse


class StandIn:
    """Base of the inert stand-ins; ``readable`` lists the attributes tool code may read."""

    __slots__ = ()
    readable: frozenset[str] = frozenset()


class Subscriptable(StandIn):
    """A stand-in for a framework's generic class: ``Agent[State]`` is the class itself."""

    __slots__ = ()

    def __class_getitem__(cls, item: Any) -> type:
        """The class itself: as good as the framework's generic for running the module."""
        return cls


class InertAgent(Subscriptable):
    """An agent (or runner's agent) a file defines around its tools: it keeps its ``name``, runs nothing."""

    __slots__ = ("name",)
    readable = frozenset({"name"})

    def __init__(self, *args: Any, **options: Any) -> None:
        self.name = options.get("name", args[0] if args else None)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} (toolpen stand-in: toolpen runs the tool function)>"


class InertToolWrapper(StandIn):
    """A framework's tool object built from a function (ADK's ``FunctionTool(func)``): its ``func``,
    ``name`` and ``description``."""

    __slots__ = ("func", "name", "description")
    readable = frozenset({"func", "name", "description"})

    def __init__(self, func: Any, **options: Any) -> None:
        if not callable(func):
            raise TypeError(f"{type(self).__name__} wraps a function, not {type(func).__name__}")
        self.func = func
        self.name = getattr(func, "__name__", "")
        self.description = getattr(func, "__doc__", None) or ""


class NotInToolpen(StandIn):
    """A framework class whose work (running an agent, a server) has no place in a tool call."""

    __slots__ = ()
    doing = "this"

    def __init__(self, *args: Any, **options: Any) -> None:
        raise_not_in_toolpen(type(self).__name__, self.doing)


def by_name(*members: Any) -> dict[str, Any]:
    """A view's members, each under its own ``__name__``."""
    return {member.__name__: member for member in members}


def raise_not_in_toolpen(name: str, doing: str) -> None:
    """The error of a stand-in asked to do its framework's work."""
    raise NotImplementedError(
        f"{name} {doing}: not inside a toolpen tool call; toolpen runs the tool function itself"
    )


def _stand_in_rule(cls: type) -> LibraryRule | None:
    if not issubclass(cls, StandIn) or cls.__module__.partition(".framework_views")[1] == "":
        return None
    names = cls.readable

    def attribute(obj: Any, name: str, default: tuple[Any, ...]) -> Any:
        if name not in names:
            refuse(
                f"attribute {name!r} of {class_name(obj)} is not available in toolpen: it is an inert"
                " stand-in for the framework's class (docs/security.md, framework views)"
            )
        return getattr(obj, name, *default)

    return LibraryRule(attribute)


register_library_types(_stand_in_rule)
