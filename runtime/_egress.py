"""The egress policy: which addresses ``ces_requests`` and OpenAPI tools may reach.

This file is the whole network decision, for a reviewer to audit in one read:

1. The URL's scheme must be one of ``schemes`` (http and https by default).
2. The host is resolved ONCE with ``getaddrinfo`` (which also reads decimal, hex, octal and short
   IPv4 spellings); every resolved address is checked, and the first one is pinned: the broker
   connects to that address and nothing else, so a second DNS answer cannot rebind the name.
3. An address is refused when it is not globally routable: unspecified, loopback, private,
   link-local, multicast, reserved, CGNAT (100.64.0.0/10), cloud metadata; IPv4 addresses
   embedded in IPv6 (mapped, 6to4, NAT64, Teredo) are unwrapped and checked too. Metadata host
   names are refused before resolving. If any resolved address is refused, the request is.
4. ``deny_hosts`` always wins; ``allow_hosts`` entries (``HOST[:PORT]``, an IP, ``[IPv6]:PORT``
   or a CIDR network) let a refused host or address through; ``allow_private`` lets every
   non-global class through except cloud metadata, which needs an explicit entry.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from sandbox.common.errors import HttpDenied, HttpFailed

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

DEFAULT_PORTS = {"http": 80, "https": 443}
METADATA_HOSTS = frozenset({"metadata.google.internal", "metadata.goog", "metadata", "instance-data"})
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a)
    for a in ("169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254", "fd00:ec2::23")
)
CGNAT = ipaddress.ip_network("100.64.0.0/10")
NAT64_PREFIXES = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


@dataclass(frozen=True)
class PinnedTarget:
    """Where one request goes: the URL's scheme, host name and port, and the checked address."""

    scheme: str
    host: str
    port: int
    ip: str

    @property
    def origin(self) -> tuple[str, str, int]:
        """(scheme, host, port): requests to another origin lose their credentials."""
        return (self.scheme, self.host, self.port)


@dataclass(frozen=True)
class HostRule:
    """One ``allow_hosts``/``deny_hosts`` entry: a host name, an address or a network; any port or one."""

    host: str | None = None
    network: IPNetwork | None = None
    port: int | None = None

    @classmethod
    def parse(cls, entry: str) -> HostRule:
        """Read ``HOST[:PORT]``, ``IP``, ``[IPv6][:PORT]`` or ``CIDR``; raise ValueError when malformed."""
        text = entry.strip().lower()
        port: str | None = None
        if text.startswith("["):
            host, _, rest = text[1:].partition("]")
            if rest:
                if not rest.startswith(":"):
                    raise ValueError(f"malformed host entry: {entry!r}")
                port = rest[1:]
        elif text.count(":") == 1:
            host, port = text.split(":")
        else:
            host = text
        host = host.rstrip(".")
        if not host:
            raise ValueError(f"malformed host entry: {entry!r}")
        port_number = None
        if port is not None:
            if not port.isdigit() or not 0 < int(port) < 65536:
                raise ValueError(f"malformed port in host entry: {entry!r}")
            port_number = int(port)
        try:
            network = ipaddress.ip_network(host, strict=False)
        except ValueError:
            return cls(host=host, port=port_number)
        return cls(network=network, port=port_number)

    def matches(self, host: str, port: int, ip: IPAddress | None = None) -> bool:
        """Whether this rule covers the host name, or the resolved address, at this port."""
        if self.port is not None and self.port != port:
            return False
        if self.host is not None:
            return self.host == host
        assert self.network is not None
        return ip is not None and ip.version == self.network.version and ip in self.network


def embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, 6to4, NAT64, Teredo client), if any."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if any(ip in prefix for prefix in NAT64_PREFIXES):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def address_class(ip: IPAddress) -> str | None:
    """Why this address is refused by default (e.g. ``"a private"``), or None for a global address."""
    if ip in METADATA_ADDRESSES:
        return "a cloud-metadata"
    if isinstance(ip, ipaddress.IPv6Address):
        inner = embedded_ipv4(ip)
        if inner is not None:
            reason = address_class(inner)
            return f"{reason} (embedded in IPv6)" if reason else None
    checks = (
        (ip.is_unspecified, "an unspecified"),
        (ip.is_loopback, "a loopback"),
        (ip.is_link_local, "a link-local"),
        (ip.is_multicast, "a multicast"),
        (ip in CGNAT, "a CGNAT (shared)"),
        (ip.is_reserved, "a reserved"),
        (ip.is_private, "a private"),
        (not ip.is_global, "a non-global"),
    )
    return next((reason for refused, reason in checks if refused), None)


def split_url(url: str, schemes: Iterable[str]) -> tuple[str, str, int]:
    """(scheme, normalized host, port) of a URL; refuse other schemes and hosts that cannot be read."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise HttpFailed(f"invalid url: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in schemes:
        raise HttpDenied(f"refused: scheme {scheme or '(none)'!r} is not allowed ({', '.join(schemes)} only)")
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise HttpFailed("invalid url: no host")
    try:
        host = host.encode("idna").decode("ascii") if not host.isascii() else host
    except UnicodeError:
        raise HttpFailed(f"invalid url: host {host!r} is not a valid name") from None
    return scheme, host.lower(), port or DEFAULT_PORTS.get(scheme, 80)


def _getaddrinfo(host: str, port: int, deadline: float | None) -> list[tuple]:  # type: ignore[type-arg]
    """``getaddrinfo``, given up on at ``deadline``: a resolver that never answers (a hostile
    name server) would otherwise hold the host's thread, and the call, past its wall time."""
    if deadline is None:
        return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    left = deadline - time.monotonic()
    if left <= 0:
        raise HttpFailed("timeout: the call's deadline passed before the request was sent")
    answer: dict[str, object] = {}
    finished = threading.Event()

    def lookup() -> None:
        try:
            answer["infos"] = socket.getaddrinfo(
                host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
            )
        except BaseException as exc:  # handed to the waiting thread
            answer["error"] = exc
        finally:
            finished.set()

    threading.Thread(target=lookup, name="toolpen-resolve", daemon=True).start()
    if not finished.wait(left):
        raise HttpFailed(f"timeout: resolving {host} took longer than the {left:.1f}s left to the call")
    if "error" in answer:
        raise answer["error"]  # type: ignore[misc]
    return answer["infos"]  # type: ignore[return-value]


def resolve(host: str, port: int, deadline: float | None = None) -> list[IPAddress]:
    """Every address ``host`` resolves to, in the resolver's order (IPv6 zone ids dropped)."""
    try:
        infos = _getaddrinfo(host, port, deadline)
    except (OSError, UnicodeError) as exc:
        raise HttpFailed(f"connection error: cannot resolve {host}: {exc}") from None
    addresses: list[IPAddress] = []
    for _family, _type, _proto, _name, sockaddr in infos:
        ip = ipaddress.ip_address(str(sockaddr[0]).split("%")[0])
        if ip not in addresses:
            addresses.append(ip)
    if not addresses:
        raise HttpFailed(f"connection error: {host} has no address")
    return addresses


class EgressPolicy:
    """Where outgoing HTTP may go. Explicit configuration, immutable after construction."""

    def __init__(
        self,
        allow_hosts: Iterable[str] = (),
        deny_hosts: Iterable[str] = (),
        *,
        allow_private: bool = False,
        schemes: Iterable[str] = ("http", "https"),
    ) -> None:
        self.allow_hosts = tuple(allow_hosts)
        self.deny_hosts = tuple(deny_hosts)
        self.allow_private = allow_private
        self.schemes = tuple(s.lower() for s in schemes)
        self._allow = tuple(HostRule.parse(entry) for entry in self.allow_hosts)
        self._deny = tuple(HostRule.parse(entry) for entry in self.deny_hosts)

    def __repr__(self) -> str:
        return (
            f"EgressPolicy(allow_hosts={list(self.allow_hosts)!r}, deny_hosts={list(self.deny_hosts)!r}, "
            f"allow_private={self.allow_private!r}, schemes={self.schemes!r})"
        )

    def resolve_and_check(self, url: str, deadline: float | None = None) -> PinnedTarget:
        """Resolve the URL's host once (by ``deadline``), check every address, pin the first; raise ``HttpDenied``."""
        scheme, host, port = split_url(url, self.schemes)
        where = f"{host}:{port}"
        if any(rule.matches(host, port) for rule in self._deny):
            raise HttpDenied(f"refused: {where} is a denied host")
        name_allowed = any(rule.matches(host, port) for rule in self._allow)
        if host in METADATA_HOSTS and not name_allowed:
            raise HttpDenied(f"refused: {host} is a cloud-metadata host")
        addresses = resolve(host, port, deadline)
        for ip in addresses:
            self._check_address(host, port, ip, name_allowed)
        return PinnedTarget(scheme=scheme, host=host, port=port, ip=str(addresses[0]))

    def _check_address(self, host: str, port: int, ip: IPAddress, name_allowed: bool) -> None:
        """Raise ``HttpDenied`` unless this resolved address may be reached."""
        if any(rule.matches(host, port, ip) for rule in self._deny):
            raise HttpDenied(f"refused: {ip} is a denied address")
        if name_allowed or any(rule.matches(host, port, ip) for rule in self._allow):
            return
        reason = address_class(ip)
        if reason is None:
            return
        if self.allow_private and not reason.startswith("a cloud-metadata"):
            return
        subject = str(ip) if _is_literal(host, ip) else f"{host} resolves to {ip}, which"
        raise HttpDenied(f"refused: {subject} is {reason} address")


def _is_literal(host: str, ip: IPAddress) -> bool:
    """Whether the URL spelled the address itself (in its canonical form) rather than a name."""
    try:
        return ipaddress.ip_address(host) == ip
    except ValueError:
        return False


LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


def is_loopback_host(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (IPv4 or IPv6, bracketed or not): where a
    surface (``toolpen serve``, ``mcp``, ``web``) may listen without a key or token."""
    if host.strip("[]") in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
