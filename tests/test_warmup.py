"""After the zygote's warm-up a worker imports nothing and reads no code from disk.

The zygote's preparation (``install_process_hooks``, ``warmup.preload``, ``rehearse``) runs in a
fresh interpreter; then every tool of the compatibility corpus runs there as a worker runs it,
under an audit hook that records each module import and each file opened (code, or data such
as a time zone).
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.compat.reference import DEFAULT_USER_CONTENT, INVOCATION_ID, corpus, run_in_cpython

SCRIPT = """
import json, sys
from sandbox.language.namespace import install_process_hooks
from sandbox.process.warmup import preload
from sandbox.process.worker import rehearse

jobs = json.loads(sys.stdin.read())
install_process_hooks()
preload()
rehearse()
before = set(sys.modules)
seen = []

def audit(event, args):
    if event in ("import", "open"):
        seen.append(f"{event} {args[0]}")

sys.addaudithook(audit)
failed = []
for job in jobs:
    try:
        rehearse(job)
    except Exception as error:
        failed.append(f"{job['entry']}: {type(error).__name__}: {error}")
print(json.dumps({"new_modules": sorted(set(sys.modules) - before), "seen": seen, "failed": failed}))
"""


def test_a_worker_imports_nothing_after_the_warm_up() -> None:
    tools = corpus()
    jobs = [
        {
            "source": tool.source,
            "entry": tool.name,
            "args": tool.args,
            "context": {
                "state": {},
                "user_content": DEFAULT_USER_CONTENT,
                "invocation_id": INVOCATION_ID,
                **tool.context,
            },
        }
        for tool in tools
    ]
    # the tools that raise in plain CPython too, and those that call other tools (no host here)
    expected = {tool.name for tool in tools if tool.tools or run_in_cpython(tool).error}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], input=json.dumps(jobs), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert {failure.partition(":")[0] for failure in report["failed"]} == expected
    assert report["new_modules"] == []
    assert report["seen"] == []
