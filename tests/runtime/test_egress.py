"""The egress decision: every refused spelling is refused by resolving and checking, never by connecting."""

from __future__ import annotations

import pytest

from runtime._egress import EgressPolicy, HostRule, PinnedTarget
from sandbox.common.errors import HttpDenied

REFUSED = {
    "http://2130706433/": "loopback",
    "http://0x7f000001/": "loopback",
    "http://0177.0.0.1/": "loopback",
    "http://127.1/": "loopback",
    "http://0/": "unspecified",
    "http://[::1]/": "loopback",
    "http://[::ffff:127.0.0.1]/": "loopback",
    "http://[::ffff:7f00:1]/": "loopback",
    "http://0.0.0.0/": "unspecified",
    "http://[::]/": "unspecified",
    "http://10.0.0.1/": "private",
    "http://172.16.0.1/": "private",
    "http://192.168.1.1/": "private",
    "http://169.254.169.254/": "cloud-metadata",
    "http://[fd00:ec2::254]/": "cloud-metadata",
    "http://[::ffff:169.254.169.254]/": "cloud-metadata",
    "http://169.254.1.1/": "link-local",
    "http://100.64.0.1/": "CGNAT",
    "http://224.0.0.1/": "multicast",
    "http://240.0.0.1/": "reserved",
    "http://[fe80::1]/": "link-local",
    "http://[fc00::1]/": "private",
    "http://[64:ff9b::a00:1]/": "private",
    "http://[2002:a00:1::]/": "private",
    "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/": "embedded",
    "http://localhost/": "loopback",
    "http://LOCALHOST./": "loopback",
    "https://localhost:8443/x": "loopback",
    "http://metadata.google.internal/computeMetadata/v1/": "cloud-metadata",
    "ftp://example.com/file": "scheme 'ftp'",
    "file:///etc/passwd": "scheme 'file'",
    "gopher://example.com/": "scheme 'gopher'",
}


@pytest.mark.parametrize("url", sorted(REFUSED))
def test_refused_by_default(url: str) -> None:
    with pytest.raises(HttpDenied) as info:
        EgressPolicy().resolve_and_check(url)
    assert REFUSED[url] in info.value.message
    assert info.value.message.startswith("refused: ")


def test_names_that_resolve_to_loopback_say_so() -> None:
    with pytest.raises(HttpDenied, match=r"localhost resolves to (127\.0\.0\.1|::1), which is a loopback"):
        EgressPolicy().resolve_and_check("http://localhost/")


def test_global_addresses_are_pinned() -> None:
    assert EgressPolicy().resolve_and_check("http://8.8.8.8/") == PinnedTarget(
        "http", "8.8.8.8", 80, "8.8.8.8"
    )
    target = EgressPolicy().resolve_and_check("https://[2606:4700::1111]:8443/q")
    assert (target.scheme, target.port, target.ip) == ("https", 8443, "2606:4700::1111")


def test_allowed_address_and_port() -> None:
    policy = EgressPolicy(allow_hosts=["127.0.0.1:8080"])
    assert policy.resolve_and_check("http://127.0.0.1:8080/").ip == "127.0.0.1"
    with pytest.raises(HttpDenied, match="loopback"):
        policy.resolve_and_check("http://127.0.0.1:8081/")
    with pytest.raises(HttpDenied, match="loopback"):
        policy.resolve_and_check("http://127.0.0.2:8080/")


def test_allowed_host_name_and_cidr() -> None:
    policy = EgressPolicy(allow_hosts=["LocalHost", "10.0.0.0/8", "[::1]:9000"])
    assert policy.resolve_and_check("http://localhost:1234/").host == "localhost"
    assert policy.resolve_and_check("http://10.200.0.1/").ip == "10.200.0.1"
    assert policy.resolve_and_check("http://[::1]:9000/").ip == "::1"
    with pytest.raises(HttpDenied, match="private"):
        policy.resolve_and_check("http://192.168.1.1/")
    with pytest.raises(HttpDenied, match="loopback"):
        policy.resolve_and_check("http://[::1]:9001/")


def test_deny_wins_over_allow_and_over_global() -> None:
    policy = EgressPolicy(allow_hosts=["10.0.0.0/8"], deny_hosts=["10.0.0.5", "8.8.8.8", "evil.example"])
    assert policy.resolve_and_check("http://10.0.0.4/").ip == "10.0.0.4"
    for url in ("http://10.0.0.5/", "http://8.8.8.8/", "http://evil.example/"):
        with pytest.raises(HttpDenied, match="denied"):
            policy.resolve_and_check(url)


def test_allow_private_keeps_metadata_refused() -> None:
    policy = EgressPolicy(allow_private=True)
    assert policy.resolve_and_check("http://192.168.1.1/").ip == "192.168.1.1"
    assert policy.resolve_and_check("http://127.1/").ip == "127.0.0.1"
    for url in ("http://169.254.169.254/", "http://metadata.google.internal/", "http://[::ffff:a9fe:a9fe]/"):
        with pytest.raises(HttpDenied, match="cloud-metadata"):
            policy.resolve_and_check(url)
    explicit = EgressPolicy(allow_hosts=["169.254.169.254"])
    assert explicit.resolve_and_check("http://169.254.169.254/").ip == "169.254.169.254"


def test_schemes_are_configurable() -> None:
    with pytest.raises(HttpDenied, match="scheme 'http'"):
        EgressPolicy(schemes=["https"]).resolve_and_check("http://8.8.8.8/")


@pytest.mark.parametrize(
    ("entry", "rule"),
    [
        ("api.example.com", HostRule(host="api.example.com")),
        ("API.example.com.:8443", HostRule(host="api.example.com", port=8443)),
        ("[::1]:80", HostRule(network=HostRule.parse("::1").network, port=80)),
    ],
)
def test_host_rules_parse(entry: str, rule: HostRule) -> None:
    assert HostRule.parse(entry) == rule


@pytest.mark.parametrize("entry", ["", "host:", "host:0", "host:http", "host:70000", "[::1]x", ":80"])
def test_malformed_host_rules_are_refused(entry: str) -> None:
    with pytest.raises(ValueError):
        EgressPolicy(allow_hosts=[entry])
