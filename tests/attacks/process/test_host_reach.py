"""What a tool under walls="process" (the real builtins, os, ctypes, socket) could reach of the host
beyond the probes' own targets (red team 4, issue 31), each judged by the host as well:

- the host's file system: the jail's mount table, read from inside, is the policy's entries;
- the host's environment: a secret exported in the host is in no process of the jail
  (``os.environ``, ``/proc/*/environ``, ``/proc/*/cmdline``);
- the host's own services on loopback (the test stores' PostgreSQL and Redis): neither a socket
  nor the egress broker, in four spellings of the address, reaches them, and Redis counts no
  connection;
- a fork bomb (fork, a raw ``clone``, threads, ``posix_spawn``, ``subprocess``): no process of the
  jail is left beyond the pool's own afterwards;
- forged frames naming another session: a ``done`` whose extra fields name session ``a`` (inside
  its state delta: a ``protocol`` error), and a nested ``tools.call`` given a ``session_id`` and a
  state of its own, change only the caller's own session.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from runtime import Runtime
from sandbox.common.limits import Limits
from sandbox.messages import Call
from sandbox.process.pool import WorkerPool
from tests.jail_processes import jail_pids

LIMITS = Limits(wall_time=20.0, cpu_time=10.0)

SCAN = """
import os


def scan() -> dict:
    found = {"os.environ": repr(dict(os.environ))}
    for name in ["self", *sorted(n for n in os.listdir("/proc") if n.isdigit())]:
        for part in ("environ", "cmdline"):
            try:
                with open(f"/proc/{name}/{part}", "rb") as f:
                    found[f"{name}/{part}"] = f.read().decode("latin-1")
            except OSError as error:
                found[f"{name}/{part}"] = type(error).__name__
    return found
"""


def test_the_hosts_environment_is_in_no_process_of_the_jail(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = f"toolpen-rt4-{os.urandom(8).hex()}"
    monkeypatch.setenv("TOOLPEN_RT4_SECRET", secret)
    with WorkerPool(size=2) as pool:  # started with the secret in the host's environment
        call = Call(SCAN, "scan", args={}, context={"state": {}}, walls="process")
        reply = pool.run(call, LIMITS, _no_rpc)
    assert reply.error is None, reply.error
    assert "self/environ" in reply.output and "1/environ" in reply.output  # the zygote's, as pid 1
    assert not [where for where, text in reply.output.items() if secret in text]


MOUNTS = """
import os


def mounts() -> dict:
    with open("/proc/self/mountinfo") as info:
        points = [line.split()[4] for line in info]
    return {"mounts": points, "root": sorted(os.listdir("/"))}
"""


def test_the_jails_file_system_is_the_policys_mounts_and_nothing_else() -> None:
    """What a tool can open is what the jail policy lists (the repository's other folders, the
    venv's bin and every host path outside them do not exist there): its mount table, read from
    inside, is the policy's entries, no more."""
    from sandbox.process.jail import mounts
    from sandbox.process.zygote_link import PACKAGE_ROOT

    policy = mounts(PACKAGE_ROOT)
    listed = {"/", *(m.dest for m in policy if m.kind in ("ro-bind", "dev-bind", "tmpfs", "proc"))}
    with WorkerPool(size=1) as pool:
        reply = pool.run(
            Call(MOUNTS, "mounts", args={}, context={"state": {}}, walls="process"), LIMITS, _no_rpc
        )
    assert reply.error is None, reply.error
    assert set(reply.output["mounts"]) <= listed, set(reply.output["mounts"]) - listed
    tops = {m.dest.split("/")[1] for m in policy if m.dest != "/"}
    assert set(reply.output["root"]) <= tops, set(reply.output["root"]) - tops


def _no_rpc(target: str, method: str, params: dict[str, Any]) -> Any:
    raise AssertionError("no RPC expected")


def _service_ports() -> dict[str, int]:
    urls = os.environ.get("TOOLPEN_TEST_STORE_URLS", "").split()
    return {urlsplit(url).scheme: urlsplit(url).port or 0 for url in urls if urlsplit(url).port}


REACH = """
import socket


def reach(port: int) -> dict:
    results = {}
    for family, address in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
        try:
            with socket.socket(family, socket.SOCK_STREAM) as s:
                s.settimeout(2)
                s.connect((address, port))
            results["socket " + address] = "ok"
        except OSError as error:
            results["socket " + address] = type(error).__name__
    for url in ("http://127.0.0.1:%d/", "http://localhost:%d/", "http://[::ffff:127.0.0.1]:%d/",
                "http://2130706433:%d/"):
        try:
            ces_requests.get(url % port)
            results[url] = "ok"
        except Exception as error:
            results[url] = str(error)[:200]
    return results
"""


@pytest.fixture(scope="module")
def plain_rt() -> Iterator[Runtime]:
    with Runtime(store="memory://", walls="process") as runtime:
        yield runtime


def _redis_connections(port: int) -> int | None:
    try:
        import redis
    except ImportError:
        return None
    client = redis.Redis(host="127.0.0.1", port=port, socket_timeout=2)
    try:
        return int(client.info("stats")["total_connections_received"])
    finally:
        client.close()


@pytest.mark.parametrize("service", ["postgresql", "redis"])
def test_no_socket_and_no_broker_request_reaches_the_hosts_own_services(
    plain_rt: Runtime, service: str
) -> None:
    port = _service_ports().get(service)
    if not port:
        pytest.skip("TOOLPEN_TEST_STORE_URLS names no such service (source /tmp/services.env)")
    before = _redis_connections(_service_ports()["redis"]) if "redis" in _service_ports() else None
    tool = plain_rt.add_tool(REACH, replace=True)
    result = plain_rt.call(tool.name, {"port": port})
    assert result.success, result.error
    assert (
        result.output["socket 127.0.0.1"] == "PermissionError"
        and result.output["socket ::1"] == "PermissionError"
    )
    for url, outcome in result.output.items():
        if url.startswith("http"):
            assert outcome != "ok" and ("not allowed" in outcome or "refused" in outcome.lower()), (
                url,
                outcome,
            )
    if before is not None:  # the one connection counted is the check's own second one
        assert _redis_connections(_service_ports()["redis"]) == before + 1


BOMB = """
import ctypes
import os
import subprocess
import threading


def bomb() -> dict:
    results = {}
    libc = ctypes.CDLL(None, use_errno=True)
    for label, action in (
        ("fork", os.fork),
        ("clone(SIGCHLD)", lambda: libc.syscall(56, 17, 0, 0, 0, 0) or os._exit(0)),
        ("posix_spawn", lambda: os.posix_spawn("/proc/self/exe", ["python", "-c", "import time; time.sleep(60)"], {})),
        ("subprocess", lambda: subprocess.Popen(["/proc/self/exe", "-c", "import time; time.sleep(60)"])),
        ("thread", lambda: threading.Thread(target=lambda: __import__("time").sleep(60), daemon=True).start()),
    ):
        outcome = "refused"
        for _ in range(50):
            try:
                value = action()
            except (OSError, RuntimeError) as error:
                outcome = type(error).__name__
                break
            if value == 0:  # the child of a fork that got through
                os._exit(0)
            if isinstance(value, int) and value < 0:
                break
            outcome = "ok"
        results[label] = outcome
    return results
"""


def _settled(pool: WorkerPool) -> set[int]:
    """The jail's processes once the pool has forked its replacements (no change for half a second)."""
    seen, since = jail_pids(pool.zygote_pid), time.monotonic()
    deadline = since + 10
    while time.monotonic() < deadline and time.monotonic() - since < 0.5:
        time.sleep(0.05)
        now = jail_pids(pool.zygote_pid)
        if now != seen:
            seen, since = now, time.monotonic()
    return seen


def test_a_fork_bomb_leaves_no_process_in_the_jail() -> None:
    with WorkerPool(size=2) as pool:
        call = Call(BOMB, "bomb", args={}, context={"state": {}}, walls="process")
        assert pool.run(Call("def ok():\n    return 1\n", "ok", walls="process"), LIMITS, _no_rpc).output == 1
        before = _settled(pool)
        reply = pool.run(call, LIMITS, _no_rpc)
        assert reply.error is None, reply.error
        assert "ok" not in reply.output.values(), reply.output
        after = _settled(pool)
        assert len(after) <= len(before), (before, after)


FORGER = '''
import json
import os
import stat
import struct
import time


def forge(value: int, inside: bool) -> int:
    """Sends its own done (its delta sets x), with fields naming session a, then sleeps."""
    fd = next(fd for fd in range(3, 256) if _is_socket(fd))
    delta = {"set": {"x": value}, "deleted": [], **({"session_id": "a"} if inside else {})}
    done = {"op": "done", "success": True, "output": value, "session_id": "a", "app_name": "other",
            "user_id": "other", "state_delta": delta, "logs": ""}
    body = json.dumps(done).encode()
    os.write(fd, struct.pack(">I", len(body)) + body)
    time.sleep(30)
    return 0


def _is_socket(fd):
    try:
        return stat.S_ISSOCK(os.fstat(fd).st_mode)
    except OSError:
        return False
'''
NESTED = '''
def nest(value: int) -> dict:
    """Calls keep through the raw rpc, with a state of its choosing and a session_id."""
    context.state["y"] = value
    params = {"name": "keep", "args": {"value": value}, "state": {"x": -1}, "session_id": "a"}
    return object.__getattribute__(tools, "_rpc")("tools", "call", params)
'''
KEEP = """
def keep(value: int) -> dict:
    context.state["x"] = value
    return dict(context.state)
"""
READ = "def read() -> dict:\n    return dict(context.state)\n"


def test_frames_naming_another_session_change_only_the_callers_own() -> None:
    with Runtime(store="memory://", walls="process") as rt:
        for source in (KEEP, READ, FORGER, NESTED):
            rt.add_tool(source)
        assert rt.call("keep", {"value": 1}, session_id="a").state == {"x": 1}
        refused = rt.call("forge", {"value": 5, "inside": True}, session_id="b")
        assert refused.error is not None and refused.error.kind == "protocol", refused.error
        forged = rt.call("forge", {"value": 2, "inside": False}, session_id="b")
        assert forged.success and forged.state == {"x": 2}, forged.error
        nested = rt.call("nest", {"value": 3}, session_id="b")
        assert nested.success, nested.error
        assert nested.output["output"] == {"x": 3}  # the nested call saw the state handed over, set x
        assert nested.state == {"x": 2, "y": 3}  # its delta was the caller's to apply; it did not
        assert rt.call("read", {}, session_id="a").output == {"x": 1}
        assert rt.call("read", {}, session_id="b").output == {"x": 2, "y": 3}
