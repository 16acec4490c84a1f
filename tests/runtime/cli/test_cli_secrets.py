"""Secrets off the command line: `--auth NAME=@FILE|env:VAR` and `serve --api-key @FILE|env:VAR`, through the real CLI."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from samples.crm_server import CrmServer
from tests.conftest import SAMPLES

CRM_KEY = "crm-secret-7f3a91c2"
API_KEY = "serve-secret-5be04d8e71"
TOOLPEN = [sys.executable, "-c", "from runtime._cli import main; main()"]


@pytest.fixture(scope="module")
def crm() -> Iterator[CrmServer]:
    server = CrmServer(port=0, api_key=CRM_KEY)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def run_cart(tmp_path: Path, crm: CrmServer, auth: str, **env: str) -> subprocess.CompletedProcess[str]:
    spec = (SAMPLES / "openapi" / "crm_service.yaml").read_text()
    local = tmp_path / "crm.yaml"
    local.write_text(spec.replace('default: "8765"', f'default: "{crm.port}"'))
    command = [*TOOLPEN, "run", str(SAMPLES / "summarize_cart.py"), "--openapi", f"crm_service={local}"]
    command += ["--auth", auth, "--allow-host", f"127.0.0.1:{crm.port}", "--json"]
    command += ["--store", f"sqlite:///{tmp_path / 's.db'}"]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=120, env={**os.environ, **env}, cwd=tmp_path
    )


def test_auth_from_a_file_reaches_the_service_without_a_warning(tmp_path: Path, crm: CrmServer) -> None:
    secret = tmp_path / "crm.key"
    secret.write_text(CRM_KEY + "\n")
    done = run_cart(tmp_path, crm, f"crm_key=@{secret}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["success"] is True
    assert "warning" not in done.stderr


def test_auth_from_the_environment(tmp_path: Path, crm: CrmServer) -> None:
    done = run_cart(tmp_path, crm, "crm_key=env:TOOLPEN_TEST_CRM_KEY", TOOLPEN_TEST_CRM_KEY=CRM_KEY)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "warning" not in done.stderr


def test_a_plain_secret_still_works_but_warns_without_echoing_it(tmp_path: Path, crm: CrmServer) -> None:
    done = run_cart(tmp_path, crm, f"crm_key={CRM_KEY}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "warning: a secret given to --auth is visible to every user of this machine" in done.stderr
    assert "--auth crm_key=@FILE or --auth crm_key=env:VAR" in done.stderr
    assert CRM_KEY not in done.stderr


@pytest.mark.parametrize(
    ("auth", "message"),
    [
        ("crm_key=env:TOOLPEN_TEST_UNSET_VARIABLE", "'TOOLPEN_TEST_UNSET_VARIABLE' is not set"),
        ("crm_key=@/nonexistent/crm.key", "cannot read the secret file /nonexistent/crm.key"),
    ],
)
def test_a_secret_that_cannot_be_read_is_unusable(
    tmp_path: Path, crm: CrmServer, auth: str, message: str
) -> None:
    done = run_cart(tmp_path, crm, auth)
    assert done.returncode == 2
    error = json.loads(done.stdout)["error"]
    assert error["kind"] == "invalid_arguments" and message in error["message"]


def test_an_auth_item_without_its_scheme_is_refused_without_echoing_it(
    tmp_path: Path, crm: CrmServer
) -> None:
    done = run_cart(tmp_path, crm, CRM_KEY)
    assert done.returncode == 2
    error = json.loads(done.stdout)["error"]
    assert error["kind"] == "invalid_arguments" and "--auth takes SCHEME=@FILE" in error["message"]
    assert CRM_KEY not in done.stdout + done.stderr


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve_with(tmp_path: Path, api_key: str, **env: str) -> tuple[int, str]:
    """Start `toolpen serve --api-key ...`, make one authenticated request; the status and stderr."""
    port = _free_port()
    command = [*TOOLPEN, "serve", "--port", str(port), "--api-key", api_key, "--workers", "1"]
    command += ["--store", f"sqlite:///{tmp_path / 'serve.db'}"]
    log = tmp_path / f"serve-{port}.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, cwd=tmp_path, env={**os.environ, **env}
        )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and process.poll() is None:
            try:
                response = requests.get(
                    f"http://127.0.0.1:{port}/v1/tools",
                    headers={"Authorization": f"Bearer {API_KEY}"},
                    timeout=2,
                )
                return response.status_code, log.read_text()
            except requests.ConnectionError:
                time.sleep(0.1)
        raise AssertionError(f"serve did not start: {log.read_text()}")
    finally:
        process.terminate()
        process.wait(20)


def test_serve_api_key_from_a_file_and_from_the_environment(tmp_path: Path) -> None:
    secret = tmp_path / "api.key"
    secret.write_text(API_KEY + "\n")
    status, log = serve_with(tmp_path, f"@{secret}=acme")
    assert status == 200 and "warning" not in log
    status, log = serve_with(tmp_path, "env:TOOLPEN_TEST_API_KEY=acme", TOOLPEN_TEST_API_KEY=API_KEY)
    assert status == 200 and "warning" not in log


def test_serve_plain_api_key_warns(tmp_path: Path) -> None:
    status, log = serve_with(tmp_path, f"{API_KEY}=acme")
    assert status == 200
    assert "--api-key @FILE[=TENANT] or --api-key env:VAR[=TENANT]" in log and API_KEY not in log
