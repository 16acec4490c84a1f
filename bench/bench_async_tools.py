"""Issue 20 item 4: do calls started through ``async_tools`` overlap, and do PARALLEL calls?

A local HTTP server holds every request for ``HOLD`` seconds. A tool ``fetch`` asks it once.
Timed (p50 of ``ROUNDS``), for ``N`` fetches:

- ``tools``: a tool calling ``tools.fetch`` ``N`` times (one after the other: about N x HOLD);
- ``async_tools``: a tool starting ``N`` ``async_tools.fetch`` calls, then collecting them;
- ``call_many SEQUENTIAL`` and ``call_many PARALLEL``: ``N`` fetches as one model turn's calls.

Run: ``.venv/bin/python bench/bench_async_tools.py``. To measure another checkout's code, put it
first on the path: ``PYTHONPATH=/path/to/checkout``.
"""

from __future__ import annotations

import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread

sys.path.append(str(Path(__file__).resolve().parent.parent))  # after PYTHONPATH: it picks the code measured

from runtime import EgressPolicy, Runtime  # noqa: E402
from runtime._calls import ToolCall  # noqa: E402

HOLD = 0.5
N = 2
ROUNDS = 5


class Slow(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        time.sleep(HOLD)
        body = b'{"held": true}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


def p50(samples: list[float]) -> float:
    return sorted(samples)[len(samples) // 2]


def timed(run: object) -> float:
    samples = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        run()  # type: ignore[operator]
        samples.append(time.perf_counter() - start)
    return p50(samples)


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    Thread(target=server.serve_forever, daemon=True).start()
    allow = f"127.0.0.1:{server.server_address[1]}"
    with Runtime(egress=EgressPolicy(allow_hosts=[allow]), pool_size=N + 1) as rt:
        rt.add_tool(
            f'def fetch() -> dict:\n    """Asks the slow service."""\n'
            f'    return ces_requests.get("http://{allow}/").json()\n'
        )
        rt.add_tool(
            f'def in_turn() -> list:\n    """Calls fetch {N} times."""\n'
            f"    return [tools.fetch({{}}) for _ in range({N})]\n"
        )
        rt.add_tool(
            f'def started() -> list:\n    """Starts fetch {N} times."""\n'
            f"    futures = [async_tools.fetch({{}}) for _ in range({N})]\n"
            "    return [future() for future in futures]\n"
        )
        for name in ("in_turn", "started"):  # warm up
            assert rt.call(name, {}).success
        calls = [ToolCall("fetch") for _ in range(N)]
        figures = {
            "tools (one after the other)": timed(lambda: rt.call("in_turn", {})),
            "async_tools (started together)": timed(lambda: rt.call("started", {})),
            "call_many SEQUENTIAL": timed(lambda: rt.call_many(calls, mode="SEQUENTIAL", session_id="b")),
            "call_many PARALLEL": timed(lambda: rt.call_many(calls, mode="PARALLEL", session_id="b")),
        }
    server.shutdown()
    print(f"{N} calls of a tool whose service holds each request {HOLD} s; p50 of {ROUNDS} rounds")
    for label, seconds in figures.items():
        print(f"  {label:32s} {seconds:6.2f} s")


if __name__ == "__main__":
    main()
