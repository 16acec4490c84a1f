"""Shared fixtures (a real Runtime with real worker processes) and tool sources."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from runtime import Runtime
from samples.crm_server import CrmServer

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"

COUNTER = '''
def bump(n: int) -> int:
    """Adds n to the session's counter.

    Args:
        n: How much to add.
    """
    context.state["count"] = context.state.get("count", 0) + n
    return context.state["count"]
'''
"""A tool that counts in the session's state."""

NOTE_LATER = '''
import time


def note_later(text: str) -> str:
    """Notes a text in the session's state, after a while."""
    time.sleep(0.5)
    context.state["note"] = text
    return "noted " + text
'''
"""A tool that takes its time: registered ``execution_type="ASYNCHRONOUS"``, it answers pending."""

READ_NOTE = '''
def read_note() -> str:
    """The text noted in the session's state."""
    return context.state.get("note", "")
'''


@pytest.fixture
def rt() -> Iterator[Runtime]:
    with Runtime(store="memory://") as runtime:
        yield runtime


CRM_KEY = "crm-secret-0c4d2e"
"""The key the ``crm`` stub asks for (X-CRM-Key)."""


@pytest.fixture
def crm() -> Iterator[CrmServer]:
    """The CRM stub of samples/openapi/crm_service.yaml on a free loopback port."""
    server = CrmServer(port=0, api_key=CRM_KEY)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'sessions.db'}"


def service_params(urls: list[str]) -> list[Any]:
    """PostgreSQL and Redis URLs as test parameters marked ``services``, each named by its URL."""
    return [pytest.param(url, id=url, marks=pytest.mark.services) for url in urls]


@contextmanager
def serving_app(app: Any, **options: Any) -> Iterator[str]:
    """``app`` (ASGI) on uvicorn in a thread, with uvicorn ``options``; yields its base URL."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", **options))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    server.should_exit = True
    thread.join(15)
