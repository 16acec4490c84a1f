"""One pool and one set of targets for the raw attacks (each probe runs in a fresh worker)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sandbox.process.pool import WorkerPool
from sandbox.process.probes import Targets


@pytest.fixture(scope="package")
def pool() -> Iterator[WorkerPool]:
    with WorkerPool(size=2) as workers:  # size 2: a sibling worker is alive while each probe runs
        yield workers


@pytest.fixture(scope="package")
def targets() -> Iterator[Targets]:
    with Targets() as made:
        yield made
