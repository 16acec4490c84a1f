"""Tenants: API keys name them; each has its own Runtime (``app_name`` = tenant) on the shared store.

A tenant's sessions are stored as ``<tenant>:<session id>`` in app ``<tenant>``, so two tenants
may use the same session id without meeting, and ``app:`` state is per tenant. The tools of
``--tools`` and of ``--app`` (an exported CES app: its tools, toolsets, one agent's callbacks,
its fakes if asked, new sessions from its declared defaults) are registered for every tenant
(shared); tools registered through the API belong to
one tenant and live in the :class:`ToolCatalog`, which each replica re-reads at most every
``tool_refresh`` seconds, and at once when a call names a tool it does not know.
"""

from __future__ import annotations

import functools
import hmac
import threading
import time
from collections.abc import Callable
from typing import Any

from runtime._egress import EgressPolicy
from runtime._registry import Tool
from runtime._runtime import Runtime
from runtime._schema import derive_spec
from runtime._server.catalog import ToolCatalog
from runtime._server.config import LOCAL_TENANT, ServerConfig
from runtime._server.responses import ApiError
from runtime.app import App, app_runtime
from runtime.store import Store
from sandbox.common.errors import NotFound, ToolpenError

OPTION_NAMES = ("defer_loading", "idempotent", "read_only")


class Tenant:
    """One tenant's runtime, and which of its tools came from the catalog."""

    def __init__(self, name: str, runtime: Runtime, catalog: ToolCatalog, refresh: float) -> None:
        self.name = name
        self.runtime = runtime
        self.shared: set[str] = set()
        self._catalog = catalog
        self._refresh = refresh
        self._own: dict[str, dict[str, Any]] = {}
        self._synced_at = float("-inf")
        self._lock = threading.Lock()

    # -- sessions ---------------------------------------------------------------------------

    def stored_id(self, session_id: str) -> str:
        """The store's id of this tenant's session ``session_id``."""
        return f"{self.name}:{session_id}"

    def public_id(self, stored_id: str) -> str:
        """The inverse of :meth:`stored_id`."""
        return stored_id.removeprefix(f"{self.name}:")

    # -- tools ------------------------------------------------------------------------------

    def sync(self, *, force: bool = False) -> None:
        """Bring this replica's registry in line with the catalog (if ``refresh`` has passed)."""
        with self._lock:
            if force or time.monotonic() - self._synced_at >= self._refresh:
                self._sync_locked()

    def find_tool(self, name: str) -> Tool:
        """The tool ``name``, re-reading the catalog once if this replica does not know it."""
        self.sync()
        try:
            return self.runtime.get_tool(name)
        except NotFound:
            self.sync(force=True)
            return self.runtime.get_tool(name)

    def register(self, source: str, name: str | None, options: dict[str, bool], replace: bool) -> Tool:
        """Register a tool for this tenant on every replica; ``InvalidSource`` if it is unusable."""
        tool_name = derive_spec(source, name).name
        with self._lock:
            self._sync_locked()
            if tool_name in self.shared:
                raise ApiError(409, "conflict", f"{tool_name!r} is a shared tool of this service")
            if tool_name in self._own and not replace:
                raise ApiError(409, "conflict", f"a tool named {tool_name!r} exists; send replace: true")
            tool = self._add(source, name, options)
            entry = {"source": source, "name": name, **options}
            try:
                self._catalog.put(self.name, tool.name, entry)
            except BaseException:
                self._forget(tool.name)
                raise
            self._own[tool.name] = entry
            return tool

    def unregister(self, name: str) -> None:
        """Remove a tool this tenant registered, on every replica."""
        with self._lock:
            self._sync_locked()
            if name in self.shared:
                raise ApiError(409, "conflict", f"{name!r} is a shared tool of this service")
            if name not in self._own:
                raise NotFound(f"no tool named {name!r} is registered")
            self._catalog.remove(self.name, name)
            self._forget(name)

    def _sync_locked(self) -> None:
        entries = self._catalog.read(self.name)
        for name, entry in entries.items():
            if self._own.get(name) != entry and name not in self.shared:
                self._add(
                    entry["source"], entry.get("name"), {key: bool(entry.get(key)) for key in OPTION_NAMES}
                )
                self._own[name] = entry
        for name in set(self._own) - set(entries):
            self._forget(name)
        self._synced_at = time.monotonic()

    def _add(self, source: str, name: str | None, options: dict[str, bool]) -> Tool:
        return self.runtime.add_tool(
            source,
            name,
            defer_loading=options["defer_loading"],
            idempotent=options["idempotent"],
            read_only=options["read_only"],
            replace=True,
        )

    def _forget(self, name: str) -> None:
        self.runtime.remove_tool(name)
        self._own.pop(name, None)


class Tenants:
    """Every tenant of the service, their keys, and the store they share."""

    def __init__(
        self, config: ServerConfig, store: Store, shared_sources: dict[str, str], app: App | None = None
    ) -> None:
        """Start a runtime per tenant with ``app`` and the ``shared_sources`` tools (file name -> source)."""
        self.store = store
        self.catalog = ToolCatalog(store)
        self._keys = dict(config.api_keys)
        self._tenants: dict[str, Tenant] = {}
        names = sorted(set(self._keys.values())) or [LOCAL_TENANT]
        try:
            for name in names:
                runtime = _runtime(config, store, name, app)
                self._tenants[name] = tenant = Tenant(name, runtime, self.catalog, config.tool_refresh)
                tenant.shared.update(tool.name for tool in runtime.tools())
                for label, source in shared_sources.items():
                    tenant.shared.add(_add_shared(runtime, label, source))
                tenant.sync(force=True)
        except BaseException:
            self.close()
            raise

    @property
    def open(self) -> bool:
        """True when no API key is configured (a loopback service with one local tenant)."""
        return not self._keys

    def authenticate(self, key: str | None) -> Tenant | None:
        """The tenant of ``key`` (compared in constant time), or None."""
        if self.open:
            return self._tenants[LOCAL_TENANT]
        found = None
        for known, tenant in self._keys.items():
            if key is not None and hmac.compare_digest(known.encode(), key.encode()):
                found = self._tenants[tenant]
        return found

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._tenants.values())

    def close(self) -> None:
        """Stop every tenant's workers, then close the shared store."""
        for tenant in self._tenants.values():
            tenant.runtime.close(close_store=False)
        self.store.close()


def _runtime(config: ServerConfig, store: Store, tenant: str, app: App | None) -> Runtime:
    """The tenant's runtime: empty, or holding ``app`` (a problem names the app's file)."""
    make: Callable[..., Runtime] = Runtime
    if app is not None:
        make = functools.partial(
            app_runtime, app, agent=config.app_agent, fakes=config.app_fakes, auth=config.app_auth or None
        )
    return make(
        store=store,
        egress=EgressPolicy(allow_hosts=list(config.allow_hosts)),
        app_name=tenant,
        pool_size=config.workers,
        walls=config.walls,
        allow_weak_isolation=config.allow_weak_isolation,
    )


def _add_shared(runtime: Runtime, label: str, source: str) -> str:
    try:
        return runtime.add_tool(source).name
    except ToolpenError as error:
        raise type(error)(f"{label}: {error.message}", line=error.line, col=error.col) from None
