"""The storage contract-test fixtures: every storage test runs against SQLite AND PostgreSQL.

Import the fixtures into a ``conftest.py`` (``from league.store.testing import store, store_url,
pg_database  # noqa: F401``). The PostgreSQL leg uses the real server on 127.0.0.1:5432 (database
``test``, trust auth, user ``root``; override with ``LEAGUE_TEST_PG_URL``): one uniquely named
throwaway database is created per test session through a connection to ``test`` and dropped at the
end. When the server is unreachable the PostgreSQL legs are skipped with the reason; nothing is faked.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime
from pathlib import Path

import pytest
from sqlalchemy import create_engine, delete, text
from sqlalchemy.engine import make_url

from league.store.dispatch import open_store
from league.store.models import metadata
from league.store.sql import SqlStore

ADMIN_URL = os.environ.get("LEAGUE_TEST_PG_URL", "postgresql+psycopg://root@127.0.0.1:5432/test")
BACKENDS = ("sqlite", "postgresql")


def pg_unreachable_reason() -> str | None:
    """None when the admin database answers; otherwise why not (for the skip message)."""
    engine = create_engine(ADMIN_URL, connect_args={"connect_timeout": 3})
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception as exc:  # any failure means "skip with this reason"
        first = str(getattr(exc, "orig", exc)).strip().splitlines()
        return f"PostgreSQL at {make_url(ADMIN_URL).render_as_string(hide_password=True)} unreachable " \
               f"({first[0] if first else type(exc).__name__}); start it with `.ci/run`"
    finally:
        engine.dispose()
    return None


@contextmanager
def throwaway_pg_database(prefix: str = "league_test") -> Iterator[str]:
    """Create a uniquely named empty database via the admin connection; drop it afterwards."""
    name = f"{prefix}_{os.getpid()}_{uuid.uuid4().hex[:10]}"
    admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        yield make_url(ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(scope="session")
def pg_database() -> Iterator[str]:
    """One throwaway PostgreSQL database for the whole test session (skips when unreachable)."""
    reason = pg_unreachable_reason()
    if reason:
        pytest.skip(reason)
    with throwaway_pg_database() as url:
        yield url


def _clean(store: SqlStore) -> None:
    with store.engine.begin() as conn:
        for table in reversed(metadata.sorted_tables):
            conn.execute(delete(table))


@pytest.fixture(params=[
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres),
])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database URL with an empty, migrated schema: a tmp SQLite file or the session's PG database."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'league.db'}"
    else:
        url = request.getfixturevalue("pg_database")
    store = open_store(url)
    try:
        _clean(store)
    finally:
        store.close()
    return url


@pytest.fixture
def store(store_url: str) -> Iterator[SqlStore]:
    """An open store on each back end, emptied before the test."""
    s = open_store(store_url)
    try:
        yield s
    finally:
        s.close()


def claim_in_child(url: str, session: date, job: str, now: datetime, barrier: object, results: object) -> None:
    """Child-process body for the cross-process claim test (module level, importable by any start method).

    Every child stays alive until all have claimed: a holder that exits without finishing IS a crash,
    and its claim may rightly be taken over.
    """
    s = open_store(url, migrate=False)
    try:
        barrier.wait()  # type: ignore[attr-defined]
        results.put(s.claim_job(session, job, now))  # type: ignore[attr-defined]
        barrier.wait()  # type: ignore[attr-defined]
    finally:
        s.close()


def claim_and_die(url: str, session: date, job: str, now: datetime) -> None:
    """Child-process body: claim a job and exit without finishing it, like a crash."""
    s = open_store(url, migrate=False)
    s.claim_job(session, job, now)
    os._exit(0)
