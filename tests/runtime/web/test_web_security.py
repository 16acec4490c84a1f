"""`toolpen web` attacked as a local server that runs code: from a second local origin in a real
Chromium (the token, framing), and by plain HTTP (headers, malformed tokens, --public, links
leading out of the given folder, websockets).
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import pytest
import requests

from runtime._web.guard import Guard
from tests.httpd import Handler, serve
from tests.runtime.web.test_web import TOOL, Server, browsing, get, serving, start

pytestmark = pytest.mark.slow  # `toolpen web` processes and a browser


@pytest.fixture
def tool_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "tools"
    folder.mkdir()
    (folder / "add_points.py").write_text(TOOL, encoding="utf-8")
    return folder


def page_of(html: str) -> Any:
    """A route answering ``html``."""

    def route(handler: Handler) -> None:
        handler.send(200, html, {"Content-Type": "text/html"})

    return route


def test_another_local_server_never_receives_the_token_and_two_pages_work_side_by_side(
    tool_folder: Path, tmp_path: Path
) -> None:
    other_folder = tmp_path / "other"
    other_folder.mkdir()
    (other_folder / "other_tool.py").write_text(TOOL.replace("add_points", "other_tool"), encoding="utf-8")
    with (
        serving(str(tool_folder)) as first,
        serving(str(other_folder)) as second,
        serve({"/": page_of("<p>another local server</p>")}) as bystander,
        browsing(first, keep_csp=True) as tab,
    ):
        assert "#token=" in first.url and "token" not in tab.url, "the fragment is dropped once read"
        other = tab.context.new_page()
        other.goto(second.url)
        other.wait_for_selector("#groups button.active")
        for page, name in ((tab, "add_points"), (other, "other_tool")):  # each keeps its own token
            page.reload()
            page.wait_for_selector(f"#schema:has-text('{name}')")
        tab.goto(bystander.url + "/")
        tab.wait_for_selector("text=another local server")
    received = " ".join(f"{k}: {v}" for hit in bystander.hits for k, v in hit.headers.items())
    assert bystander.hits and first.token not in received and second.token not in received
    assert "toolpen" not in received.lower()


def test_the_page_cannot_be_framed_by_another_local_origin(tool_folder: Path) -> None:
    with serving(str(tool_folder)) as server:
        attacker = f'<iframe id="victim" src="{server.base}/" width="800" height="600"></iframe>'
        with serve({"/": page_of(attacker)}) as evil, browsing(server, keep_csp=True) as tab:
            tab.goto(evil.url + "/")
            tab.wait_for_timeout(1500)
            framed = [frame for frame in tab.frames if frame is not tab.main_frame]
            assert framed, "the attacker page has its iframe"
            assert all("toolpen web" not in (frame.content() or "") for frame in framed)


def test_every_response_forbids_framing_sniffing_and_referrers(tool_folder: Path) -> None:
    with serving(str(tool_folder)) as server:
        for path, headers in (
            ("/", {}),
            ("/api/tools", {}),
            ("/api/tools", {"X-Toolpen-Token": server.token}),
        ):
            answer = get(server, path, **headers)
            assert answer.headers["X-Frame-Options"] == "DENY"
            assert "frame-ancestors 'none'" in answer.headers["Content-Security-Policy"]
            assert "script-src 'self'" in answer.headers["Content-Security-Policy"]
            assert answer.headers["X-Content-Type-Options"] == "nosniff"
            assert answer.headers["Referrer-Policy"] == "no-referrer"


def _raw_get(server: Server, token: bytes) -> bytes:
    """A GET of /api/tools with the token header's raw bytes (requests refuses non-latin-1 text)."""
    host, port = server.base.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=30) as connection:
        connection.sendall(
            b"GET /api/tools HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-Toolpen-Token: "
            + token
            + b"\r\n\r\n"
        )
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    return answer


def test_a_malformed_token_is_a_403_never_a_500(tool_folder: Path) -> None:
    with serving(str(tool_folder)) as server:
        for token in (
            "é".encode(),
            "é".encode("latin-1"),
            b"\xff\xfe",
            b"",
            b"x" * 20_000,
            b"\xf0\x9f\x94\x91",
        ):
            answer = _raw_get(server, token)
            status = answer.split(b"\r\n", 1)[0]
            assert b" 403 " in status or b" 431 " in status or b" 400 " in status, (token[:10], status)
            assert b" 500 " not in status
        assert get(server, "/api/tools", **{"X-Toolpen-Token": server.token}).status_code == 200
        server.process.terminate()
        _, err = server.process.communicate(timeout=10)
    assert "Traceback" not in err


def test_public_on_a_wildcard_accepts_the_address_a_request_arrived_on_and_warns(tool_folder: Path) -> None:
    process = start("--store", "memory://", "--public", "--host", "0.0.0.0", str(tool_folder))
    try:
        assert process.stderr is not None
        url = process.stderr.readline().split("open ", 1)[1].strip()
        warning = process.stderr.readline()
        assert "plain HTTP" in warning and "token" in warning
        port, token = url.split(":")[2].split("/")[0], url.split("#token=")[1]
        # 127.0.0.2 is loopback but not a name the guard knows: only "the address it arrived on" lets it in
        answer = requests.get(
            f"http://127.0.0.2:{port}/api/tools", headers={"X-Toolpen-Token": token}, timeout=30
        )
        assert answer.status_code == 200, answer.text
        assert answer.json()["public"] is True
        rebound = requests.get(
            f"http://127.0.0.2:{port}/api/tools",
            headers={"X-Toolpen-Token": token, "Host": f"attacker.example:{port}"},
            timeout=30,
        )
        assert rebound.status_code == 403 and rebound.json()["error"]["kind"] == "bad_host"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_a_link_leading_out_of_the_given_folder_is_neither_listed_served_run_nor_written(
    tool_folder: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text(TOOL.replace("add_points", "outside_secret"), encoding="utf-8")
    (tool_folder / "linked").mkdir()
    (tool_folder / "linked" / "leak.py").symlink_to(outside)
    (tool_folder / "leak.py").symlink_to(outside)
    with serving(str(tool_folder)) as server:
        token = {"X-Toolpen-Token": server.token}
        listed = get(server, "/api/tools", **token).json()["tools"]
        assert [Path(item["path"]).name for item in listed] == ["add_points.py"]
        assert "outside_secret" not in get(server, "/api/tools", **token).text
        for path in (str(tool_folder / "leak.py"), str(tool_folder / "linked" / "leak.py")):
            read = requests.get(server.base + "/api/file", params={"path": path}, headers=token, timeout=30)
            assert read.status_code == 422 and "outside_secret" not in read.text
            saved = requests.post(
                server.base + "/api/save", json={"path": path, "source": "x = 1\n"}, headers=token, timeout=30
            )
            assert saved.status_code == 422
        leak = str(tool_folder / "leak.py")
        turn = {"tools": [leak], "calls": [{"tool": "outside_secret", "args": {"customer": "c"}}]}
        answer = requests.post(
            server.base + "/api/turn",
            json={"script": json.dumps(turn)},
            headers=token,
            timeout=60,
        ).json()
        assert answer["error"]["kind"] == "invalid_arguments", answer
        assert "not a file of the paths" in answer["error"]["message"]
        # a listed file turned into a link afterwards is not written through
        listed_file = tool_folder / "add_points.py"
        listed_file.unlink()
        listed_file.symlink_to(outside)
        saved = requests.post(
            server.base + "/api/save",
            json={"path": listed[0]["path"], "source": "x = 1\n"},
            headers=token,
            timeout=30,
        )
        assert saved.status_code == 422 and "somewhere else" in saved.json()["error"]["message"]
    assert "outside_secret" in outside.read_text(encoding="utf-8")


def test_a_websocket_is_closed_before_the_app_sees_it() -> None:
    reached: list[str] = []

    async def app(scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        reached.append(scope["type"])

    sent: list[MutableMapping[str, Any]] = []

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    async def receive() -> MutableMapping[str, Any]:
        return {"type": "websocket.connect"}

    guard = Guard(app, token=base64.b64encode(os.urandom(9)).decode(), bound_host="127.0.0.1")
    scope = {"type": "websocket", "path": "/api/run", "headers": [(b"host", b"127.0.0.1")]}
    asyncio.run(guard(scope, receive, send))
    assert reached == [] and sent == [{"type": "websocket.close", "code": 1008}]
