"""Store schema versions, and the one explicit way between them: `toolpen store migrate URL`.

A store opens a schema of its own version as it is, and creates its schema in an empty
database. It refuses any other version instead of changing it behind the operator's back: an
older one names the command that upgrades it, a newer one asks for a newer toolpen. The upgrade
(``open_store(url, migrate=True)``) applies each store's steps from the version found to the
current one in one transaction, so a failing step leaves the database as it was; every replica
can then open it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

from sandbox.common.errors import StoreError

T = TypeVar("T")


@dataclass(frozen=True)
class SchemaVersion:
    """What opening a store found and left: ``found`` is None for an empty database."""

    found: int | None
    current: int

    def describe(self) -> str:
        if self.found is None:
            return f"created the schema at version {self.current}"
        if self.found == self.current:
            return f"already at version {self.current}: nothing to do"
        return f"migrated from version {self.found} to version {self.current}"


def check_version(name: str, found: int, current: int, *, migrate: bool) -> None:
    """Refuse a schema this toolpen does not open: newer, or older without ``migrate``."""
    if found > current:
        raise StoreError(
            f"{name} has store schema version {found}; this toolpen reads version {current}: "
            "upgrade toolpen (a newer one migrated it)"
        )
    if found < current and not migrate:
        raise StoreError(
            f"{name} has store schema version {found}; this toolpen reads version {current}: "
            "upgrade it with `toolpen store migrate URL` (all replicas stopped or on the old version)"
        )


def steps_between(name: str, found: int, current: int, steps: Mapping[int, T]) -> list[T]:
    """The steps from version ``found`` to ``current`` (``steps[v]`` leads from v to v + 1)."""
    missing = [version for version in range(found, current) if version not in steps]
    if missing:
        raise StoreError(f"{name}: no migration from store schema version {missing[0]}")
    return [steps[version] for version in range(found, current)]
