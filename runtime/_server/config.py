"""The service's configuration: one explicit object, no global settings."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from runtime._egress import is_loopback_host
from runtime._server.access_log import ACCESS_LOG_FORMATS, AccessLogFormat
from runtime.store import DEFAULT_STORE_URL, LOCK_TIMEOUT
from sandbox.common.errors import InvalidArguments
from sandbox.common.walls import WallsMode

TENANT_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
LOCAL_TENANT = "local"
"""The one tenant of a loopback service started without API keys."""


@dataclass(frozen=True)
class ServerConfig:
    """How `toolpen serve` runs. ``api_keys`` maps a key to its tenant."""

    host: str = "127.0.0.1"
    port: int = 8080
    store: str = DEFAULT_STORE_URL
    tool_paths: tuple[Path, ...] = ()
    app_path: Path | None = None
    """An exported CES app (zip or folder) every tenant serves: its tools, toolsets, callbacks, defaults."""
    app_agent: str | None = None
    """Whose callbacks run (the app's agent's display name; default: its root agent)."""
    app_fakes: bool = False
    """Let the app's tool fakes answer (``toolFakeConfig.enableFakeMode``); for test deployments."""
    app_auth: dict[str, str] = field(default_factory=dict)
    """Secrets for the app's OpenAPI security schemes (scheme name -> secret)."""
    allow_hosts: tuple[str, ...] = ()
    """``HOST[:PORT]`` entries tool code and OpenAPI tools may reach beyond the public internet."""
    api_keys: dict[str, str] = field(default_factory=dict)
    max_body: int = 1024 * 1024
    rate: float = 50.0
    burst: int = 100
    workers: int = 2
    tool_refresh: float = 1.0
    walls: WallsMode = "all"
    allow_weak_isolation: bool = False
    lock_wait: float = LOCK_TIMEOUT
    """Seconds a call may wait for its session (in the replica's queue and the store's lock)."""
    max_queued: int = 64
    """Calls that may wait for one session in one replica; more are refused as ``busy``."""
    call_threads: int = 32
    """Threads running calls (one per session at most); other requests use their own."""
    header_timeout: float = 10.0
    """Seconds for a request's line and headers to arrive (then the connection is closed)."""
    body_timeout: float = 30.0
    """Seconds for a request's body to arrive (then 408)."""
    request_deadline: float = 120.0
    """Seconds to answer a request (then 504 ``deadline``); above ``lock_wait`` plus a call's wall time."""
    access_log: AccessLogFormat = "text"
    """Access log lines (with request ids) as ``text``, ``json`` lines, or ``off``."""

    def check(self) -> None:
        """Refuse a configuration that would expose an open service; raises ``InvalidArguments``."""
        if not self.api_keys and not is_loopback_host(self.host):
            raise InvalidArguments(
                f"refusing to serve on {self.host!r} without API keys: give --api-key @FILE[=TENANT] "
                "(or TOOLPEN_API_KEYS), or bind to a loopback address such as 127.0.0.1"
            )
        numbers = (self.max_body, self.rate, self.burst, self.workers, self.lock_wait, self.max_queued)
        timeouts = (self.header_timeout, self.body_timeout, self.request_deadline)
        if min(*numbers, *timeouts) <= 0 or self.call_threads < 1:
            raise InvalidArguments(
                "max_body, rate, burst, workers, lock_wait, max_queued, call_threads and the timeouts "
                "must be positive"
            )
        if self.app_path is None and (self.app_agent is not None or self.app_fakes or self.app_auth):
            raise InvalidArguments("--agent, --fakes and --auth go with --app")
        if self.access_log not in ACCESS_LOG_FORMATS:
            raise InvalidArguments(f"access_log is one of {', '.join(ACCESS_LOG_FORMATS)}")


def parse_api_keys(items: list[str]) -> dict[str, str]:
    """``KEY=TENANT`` or ``KEY`` items (a bare key's tenant is named from a hash of the key)."""
    keys: dict[str, str] = {}
    for item in items:
        key, _, tenant = item.strip().partition("=")
        tenant = tenant or "t-" + hashlib.sha256(key.encode()).hexdigest()[:12]
        if len(key) < 16:
            raise InvalidArguments("an API key must be at least 16 characters long")
        if not TENANT_NAME.fullmatch(tenant):
            raise InvalidArguments(f"tenant name {tenant!r} must match {TENANT_NAME.pattern}")
        if keys.get(key, tenant) != tenant:
            raise InvalidArguments("one API key is given for two tenants")
        keys[key] = tenant
    return keys
