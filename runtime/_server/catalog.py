"""The tools a tenant registered through the API, kept in the session store.

Every replica that shares the store sees the same catalog: an entry is a state key of one
hidden session per tenant (app ``#tools``, id ``#tools:<tenant>``), written under that
session's lock with the store's atomic commit. '#' is not allowed in tenant names, so the
catalog never collides with a tenant's own sessions, and ``list_sessions(app_name=tenant)``
never lists it.
"""

from __future__ import annotations

import uuid
from typing import Any

from runtime._state import StateDelta
from runtime.store import Store

CATALOG_APP = "#tools"


class ToolCatalog:
    """Name -> ``{"source", "name", "defer_loading", "idempotent", "read_only"}`` per tenant."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def read(self, tenant: str) -> dict[str, dict[str, Any]]:
        """The tenant's registered tools (an empty dict before the first registration)."""
        session = self.store.get_session(_session_id(tenant))
        return dict(session.state) if session else {}

    def put(self, tenant: str, name: str, entry: dict[str, Any]) -> None:
        """Add or replace one tool."""
        self._commit(tenant, StateDelta(set={name: entry}))

    def remove(self, tenant: str, name: str) -> None:
        """Remove one tool (nothing happens if it is not there)."""
        self._commit(tenant, StateDelta(deleted=[name]))

    def _commit(self, tenant: str, delta: StateDelta) -> None:
        session_id = _session_id(tenant)
        change_id = f"catalog_{uuid.uuid4().hex}"
        with self.store.lock(session_id):
            self.store.get_or_create_session(CATALOG_APP, tenant, session_id)
            self.store.begin_call(session_id, change_id, "catalog", {})
            self.store.commit_call(session_id, change_id, delta, [], {"success": True})


def _session_id(tenant: str) -> str:
    return f"{CATALOG_APP}:{tenant}"
