"""PostgreSQL pool sizes from the store URL (``pool_size``, ``lock_connections``), real server."""

from __future__ import annotations

import pytest

from runtime.store import open_store
from runtime.store._postgres import PostgresStore, split_pool_options
from sandbox.common.errors import Busy, InvalidArguments
from tests.runtime.store.test_store import postgres_url  # noqa: F401  (the fixture: a fresh schema)


def with_options(url: str, options: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}{options}"


def test_lock_connections_bound_the_sessions_locked_at_once(postgres_url: str) -> None:  # noqa: F811
    with open_store(with_options(postgres_url, "pool_size=2&lock_connections=1")) as store:
        assert isinstance(store, PostgresStore)
        with store.lock("a"), pytest.raises(Busy), store.lock("b", timeout=0.3):
            pass  # the one lock connection is taken
        with store.lock("b", timeout=1.0):  # free again
            store.create_session("app", "ana", "b")
        assert store.require_session("b").user_id == "ana"


@pytest.mark.parametrize(
    "options", ["pool_size=0", "lock_connections=x", "pool_size=-1", "prepared_statements=no"]
)
def test_bad_pool_options_are_refused(options: str) -> None:
    with pytest.raises(InvalidArguments, match="positive integer|on or off"):
        split_pool_options(with_options("postgresql://u:p@127.0.0.1:1/db", options))


def test_the_options_never_reach_libpq() -> None:
    url = "postgresql://u:p@h:5432/db?options=-csearch_path%3Dx&pool_size=3&lock_connections=7"
    rest, options = split_pool_options(url)
    assert (options.pool_size, options.lock_connections, options.prepared_statements) == (3, 7, True)
    assert rest == "postgresql://u:p@h:5432/db?options=-csearch_path%3Dx"
