"""An Agents API sessions host on toolpen: follow a session, run its function calls, send results.

    python samples/hosts/agents_host.py                     # offline: a local scripted session
    python samples/hosts/agents_host.py --base-url URL --session SESSION_ID --input "..."

Results are stored in the SQLite store (sessions.db) before they are sent: kill this host at
any point and run it again, and no tool runs twice for the same (session, turn, call).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
from pathlib import Path

from openai import OpenAI
from servers.agents_api import AgentsApiServer, call

from runtime import Runtime
from runtime.protocols.agents import agent_tools, drive_session

ROOT = Path(__file__).resolve().parents[2]


def scripted_session() -> contextlib.AbstractContextManager:
    """A local agents sessions server (servers/, also used by the tests), with one scripted session."""
    server = AgentsApiServer()
    server.add_session(
        "sess_demo",
        [
            [call("get_customer", customer_id="123")],
            [call("update_customer_loyalty_points", points_to_add=100)],
            lambda results: f"Done: {results[-1]['output']}",
        ],
    )
    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url")
    parser.add_argument("--session", default="sess_demo")
    parser.add_argument("--input", default="Give customer 123 a hundred loyalty points.")
    parser.add_argument("--store", default="sqlite:///sessions.db")
    options = parser.parse_args()
    with contextlib.ExitStack() as stack:
        server = None if options.base_url else stack.enter_context(scripted_session())
        base_url = options.base_url or server.base_url
        client = OpenAI(base_url=base_url, api_key=os.environ.get("OPENAI_API_KEY", "local"))
        runtime = stack.enter_context(Runtime(store=options.store, pool_size=1))
        runtime.add_tool((ROOT / "samples" / "get_customer.py").read_text(), read_only=True)
        runtime.add_tool((ROOT / "samples" / "update_customer_loyalty_points.py").read_text())
        print("agent.tools:", json.dumps(agent_tools(runtime))[:200], "...")
        session = drive_session(client, options.session, runtime, input=options.input)
        print("status:", session.status)
        if server is not None:
            for result in server.tool_results(options.session):
                print("sent:", json.dumps(result))
            print("agent:", server.sessions[options.session].messages[-1])


if __name__ == "__main__":
    main()
