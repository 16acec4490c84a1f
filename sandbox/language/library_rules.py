"""The rule each library class's attributes are read through (numpy, protobuf): an allowlist per class.

A library's objects hold more than tool code should reach (numpy's ``ctypes``, protobuf's
``DESCRIPTOR``), and an allowlist of the names a tool needs is shorter than a blocklist of the
ones it must not have. A library view registers a finder (``register_library_types``): given a
class, its ``LibraryRule`` or None; ``guards.guarded_getattr`` asks ``CACHED_RULES`` first (the hot
path: one dict lookup per attribute read), then the finders once per class. The cache and the
finders exist once per process, here; registering a finder empties the cache (a class looked at
before may be the new library's). ``TYPE_STAND_INS`` is what ``type(x)`` answers for a library
class whose real constructor tool code may not call.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from sandbox.language.rules import check_listed

check_listed(__name__)


@dataclasses.dataclass(frozen=True)
class LibraryRule:
    """How tool code reads the public attributes of a library's objects (and of its classes).

    ``attribute(obj, name, default)`` answers ``obj.name`` as tool code may have it, or refuses;
    ``subclassable`` says whether a tool class may derive from such a class (an allowlist of
    the library's names would refuse the subclass's own).
    """

    attribute: Callable[[Any, str, tuple[Any, ...]], Any]
    subclassable: bool = False


LibraryRuleFinder = Callable[[type], LibraryRule | None]
_RULE_FINDERS: list[LibraryRuleFinder] = []
_FALLBACK_FINDERS: list[LibraryRuleFinder] = []
NOT_LOOKED_UP = LibraryRule(attribute=lambda obj, name, default: None)  # a type not yet looked at
OWN_CLASS_RULE = LibraryRule(
    attribute=lambda obj, name, default: None
)  # a metaclass: the rule is the class's own
CACHED_RULES: dict[type, LibraryRule | None] = {}
SAFE_FORMAT_METHODS: set[object] = set()
"""Library methods named ``format`` that walk no attribute by name (logging's ``Handler.format``):
readable on the library's objects although ``format`` is on ``BLOCKED_ATTRIBUTES`` (``str.format``'s)."""
TYPE_STAND_INS: dict[type, Any] = {}
"""What ``type(x)`` answers for library classes whose real class tool code may not call (``numpy.ndarray``)."""


def words(text: str) -> tuple[str, ...]:
    """The whitespace-separated names of ``text`` (a view's allowlist, written as prose is)."""
    return tuple(text.split())


def register_library_types(finder: LibraryRuleFinder, *, fallback: bool = False) -> None:
    """Add ``finder``: given a class, the rule for it (its instances and itself), or None. A
    ``fallback`` finder (a rule for a whole family of classes, pydantic's models) is asked after every
    other, whatever order the modules registering them were imported in."""
    (_FALLBACK_FINDERS if fallback else _RULE_FINDERS).append(finder)
    CACHED_RULES.clear()


def rule_for_class(cls: type) -> LibraryRule | None:
    """The rule for ``cls`` and its instances (``OWN_CLASS_RULE`` for a metaclass or ``super``), looked up once."""
    try:
        return CACHED_RULES[cls]
    except KeyError:
        pass
    rule: LibraryRule | None = None
    if issubclass(cls, type | super):  # a subclass of super too: its lookups are the bound class's
        rule = OWN_CLASS_RULE
    else:
        for finder in (*_RULE_FINDERS, *_FALLBACK_FINDERS):
            rule = finder(cls)
            if rule is not None:
                break
    CACHED_RULES[cls] = rule
    return rule


def resolve_rule(obj: Any, rule: LibraryRule | None) -> LibraryRule | None:
    """The rule for ``obj``: its class's, a class's own when ``obj`` is one, the bound class's for ``super``."""
    found = rule_for_class(type(obj)) if rule is NOT_LOOKED_UP else rule
    if found is not OWN_CLASS_RULE:
        return found
    view: Any = obj  # typeshed's super has no __self_class__ nor __thisclass__
    own = rule_for_class(view.__self_class__ or view.__thisclass__ if isinstance(obj, super) else obj)
    return None if own is OWN_CLASS_RULE else own
