"""Driver errors leave the storage port as StoreError with a message a person can act on."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from league.errors import LeagueError
from league.store import StoreError, open_store
from league.store.engine import redact
from league.store.sql import SqlStore


def test_unreachable_postgresql_names_url_without_password_and_how_to_start_it() -> None:
    url = "postgresql+psycopg://league:s3cret-pw@127.0.0.1:1/league"
    with pytest.raises(StoreError) as info:
        open_store(url)
    text = info.value.diagnostics()
    assert "cannot reach PostgreSQL at postgresql+psycopg://league:***@127.0.0.1:1/league" in text
    assert "s3cret-pw" not in text
    assert "systemctl start postgresql" in text
    assert isinstance(info.value, LeagueError)


def test_unreachable_postgresql_later_is_translated_too() -> None:
    store = SqlStore("postgresql+psycopg://root@127.0.0.1:1/test")
    with pytest.raises(StoreError, match="cannot reach PostgreSQL"):
        store.claim_job(date(2026, 11, 27), "ask", datetime(2026, 11, 27, tzinfo=UTC))
    store.close()


def test_missing_postgresql_database_says_so() -> None:
    with pytest.raises(StoreError, match="cannot reach PostgreSQL.*does not exist") as info:
        open_store("postgresql+psycopg://root@127.0.0.1:5432/no_such_db_league_test")
    assert "createdb" in (info.value.fix or "")


def test_unopenable_sqlite_file_is_a_store_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(StoreError):
        open_store(f"sqlite:///{blocker}/sub/league.db")


def test_sqlite_file_that_is_not_a_database(tmp_path: Path) -> None:
    bogus = tmp_path / "league.db"
    bogus.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="league.db"):
        open_store(f"sqlite:///{bogus}")


@pytest.mark.parametrize("url", ["not a url", "nosuchdb+driver://x/y"])
def test_bad_url_is_a_store_error(url: str) -> None:
    with pytest.raises(StoreError) as info:
        open_store(url)
    assert info.value.fix


def test_redact_hides_only_the_password() -> None:
    assert redact("postgresql+psycopg://u:p@h:5432/d") == "postgresql+psycopg://u:***@h:5432/d"
    assert redact("sqlite:////tmp/x.db") == "sqlite:////tmp/x.db"


def test_a_database_no_store_serves_names_the_registered_stores() -> None:
    """The store is chosen by the URL's scheme among the registered ones (group ``forecast_league.stores``); a
    scheme none serves is one error naming them, with the password hidden."""
    with pytest.raises(StoreError) as info:
        open_store("mysql://league:s3cret-pw@127.0.0.1/league")
    text = info.value.diagnostics()
    assert "database URL mysql://league:***@127.0.0.1/league: unknown database store 'mysql'" in text
    assert "registered: postgresql, sqlite" in text and "s3cret-pw" not in text
