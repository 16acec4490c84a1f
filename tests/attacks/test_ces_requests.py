"""ces_requests from tool code: the deadline holds, and the broker refuses internal targets
before connecting (no traffic leaves 127.0.0.0/8)."""

from __future__ import annotations

import pytest

from runtime import Runtime
from tests.attacks import attack


def test_a_resolver_that_never_answers_does_not_hold_the_call_past_its_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import socket
    import time

    from runtime import Limits

    real = socket.getaddrinfo

    def hanging(host: str, *args: object, **kwargs: object) -> object:
        if host == "hang.invalid":  # stands for a hostile name server that never answers
            time.sleep(8)
            raise socket.gaierror("no answer")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", hanging)
    source = """
        def slow_dns() -> str:
            try:
                ces_requests.get("http://hang.invalid/")
            except ces_requests.Timeout as error:
                return "timeout: " + str(error)
            return "answered"
        """
    with Runtime(store="memory://", limits=Limits(wall_time=2.0)) as runtime:
        start = time.monotonic()
        result = attack(runtime, source)
        elapsed = time.monotonic() - start
    assert elapsed < 3.5
    assert result.success and result.output.startswith("timeout:"), result


SSRF_URLS = [
    "http://127.0.0.1:8080/",
    "http://127.1/",
    "http://2130706433/",
    "http://0x7f000001/",
    "http://0/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[64:ff9b::7f00:1]/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://10.0.0.1/",
    "http://user:pw@127.0.0.1/",
    "file:///etc/passwd",
    "gopher://127.0.0.1:25/",
]


@pytest.mark.parametrize("url", SSRF_URLS)
def test_ces_requests_refuses_internal_targets_before_connecting(rt: Runtime, url: str) -> None:
    source = f"""
        def ssrf() -> str:
            try:
                ces_requests.get({url!r})
            except ces_requests.RequestDenied as error:
                return "denied: " + str(error)
            return "sent"
        """
    result = attack(rt, source)
    assert result.success and result.output.startswith("denied: refused"), result
