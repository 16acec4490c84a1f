"""One real runtime per attack module (worker processes, RPCs, broker)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from runtime import Runtime


@pytest.fixture(scope="module")
def rt() -> Iterator[Runtime]:
    with Runtime(store="memory://") as runtime:
        yield runtime
