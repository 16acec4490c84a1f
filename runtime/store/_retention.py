"""How long an idle session is kept: the store's ``idle_timeout``, given in the store URL or by the host.

A store URL may end in ``?idle_timeout=30d`` (any store: ``memory://?idle_timeout=1h``,
``sqlite:///s.db?idle_timeout=7d``): a session not updated for that long is expired. Durations
are a number with an optional unit: ``s`` (the default), ``m``, ``h``, ``d``.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit

from sandbox.common.errors import InvalidArguments

IDLE_PARAMETER = "idle_timeout"
_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_DURATION = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*", re.IGNORECASE)

SWEEP_EVERY = 60.0
"""At most how often (seconds) a store with an idle timeout sweeps expired sessions by itself."""


def parse_duration(text: str, what: str = "idle_timeout") -> float:
    """Seconds from ``90``, ``90s``, ``15m``, ``12h`` or ``30d``; ``InvalidArguments`` otherwise."""
    found = _DURATION.fullmatch(text)
    if found is None or float(found.group(1)) <= 0:
        raise InvalidArguments(
            f"{what} {text!r} is not a duration: a positive number with an optional unit s, m, h or d (such as 30d)"
        )
    return float(found.group(1)) * _UNITS[found.group(2).lower()]


def split_idle_timeout(url: str) -> tuple[str, float | None]:
    """The URL without its ``idle_timeout`` query parameter, and that timeout in seconds (or None)."""
    if "?" not in url:
        return url, None
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    given = [value for name, value in query if name == IDLE_PARAMETER]
    if not given:
        return url, None
    rest = urlencode([(name, value) for name, value in query if name != IDLE_PARAMETER])
    base = url.split("?", 1)[0] + (
        f"?{rest}" if rest else ""
    )  # urlunsplit would turn sqlite:/// into sqlite:/
    return base, parse_duration(given[-1])


def sweep_interval(idle_timeout: float) -> float:
    """How long a store waits between two sweeps of its own: a tenth of the timeout, at most a minute."""
    return min(idle_timeout / 10, SWEEP_EVERY)
