"""Running the probes of ``sandbox.process.probes`` as tests: one test per probe, judged by the host."""

from __future__ import annotations

from typing import Any

import pytest

from sandbox.common.limits import Limits
from sandbox.messages import Call
from sandbox.process.pool import WorkerPool
from sandbox.process.probes import PROBES, Probe, Targets, run_probe

ORDINARY = 'def probe(t):\n    return sum(range(t["n"]))\n'


def probes() -> list[Any]:
    """Every probe as a test parameter named ``subject: name``."""
    return [pytest.param(probe, id=f"{probe.subject}: {probe.name}") for probe in PROBES]


def assert_refused(pool: WorkerPool, targets: Targets, probe: Probe) -> None:
    """The attack failed, nothing outside changed, and the pool still runs an ordinary call."""
    result = run_probe(pool, probe, targets)
    assert result.refused, f"{probe.name}: {result.detail}"
    job = {"source": ORDINARY, "entry": "probe", "args": {"t": {"n": 10}}, "context": {}, "walls": "process"}
    assert pool.run(Call.from_dict(job), Limits(wall_time=10.0), _no_rpc).output == 45


def _no_rpc(target: str, method: str, params: dict[str, Any]) -> Any:
    raise AssertionError("no RPC expected")
