"""Backup then restore onto an empty machine state: the league verifies and continues.

A real league plays a session (real sandbox, scripted seats) with its index in SQLite, and once with
PostgreSQL; `league backup` copies it while its book holds a torn last line; `league restore` puts it
into empty folders (and an empty database); the restored league verifies, keeps its job ledger, and
plays the next session. Restoring a shorter book over a longer one is refused and changes nothing."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from typer.testing import CliRunner

from league.calendar import default_calendar
from league.cli import app
from league.clock import SimulatedClock
from league.compose import build_league
from league.config import load_config
from league.demo import demo_sessions
from league.jobs.context import Stages
from league.jobs.scheduler import run_session, session_start
from league.ops.backup import BackupError, restore
from league.store import open_store
from league.store.testing import pg_unreachable_reason, throwaway_pg_database
from league.verify.chain import verify

DAYS = demo_sessions(default_calendar(), date(2026, 11, 23), 2)
pytestmark = pytest.mark.sandbox


def _play(config_dir: Path, day: date, db: str | None) -> None:
    config = load_config(config_dir)
    clock = SimulatedClock(session_start(day))
    store = open_store(db or config.database_url)
    with build_league(config, clock, anchor=DAYS[0], stages=Stages(publish=False, stamps=False),
                      store=store) as lg:
        run_session(lg, day, ledger=store)
    store.close()


def _league(root: Path, db: str | None) -> Path:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    from league.folder import init_folder

    config_dir, _ = init_folder(root, demo=True, seed=5, clock=SimulatedClock(session_start(DAYS[0])))
    if db:
        toml = config_dir / "league.toml"
        text = toml.read_text()
        assert 'url = ""' in text
        toml.write_text(text.replace('url = ""', f'url = "{db}"', 1))
    _play(config_dir, DAYS[0], db)
    return config_dir


def _cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(params=["sqlite", "postgresql"])
def db_pair(request: pytest.FixtureRequest) -> Iterator[tuple[str | None, str | None]]:
    if request.param == "sqlite":
        yield None, None
        return
    reason = pg_unreachable_reason()
    if reason:
        pytest.skip(reason)
    with throwaway_pg_database("league_live") as live, throwaway_pg_database("league_restored") as empty:
        yield live, empty


def test_backup_restore_on_an_empty_machine_verifies_and_continues(
        tmp_path: Path, db_pair: tuple[str | None, str | None]) -> None:
    live_db, empty_db = db_pair
    config_dir = _league(tmp_path / "live", live_db)
    data = config_dir.parent / "data"
    book = data / "books" / "council-book.jsonl"
    lines = book.read_bytes().count(b"\n")
    with book.open("ab") as fh:
        fh.write(b'{"kind":"torn')  # a crash mid-append: not a line yet
    _cli("backup", str(tmp_path / "backup"), "--config", str(config_dir))
    manifest = json.loads((tmp_path / "backup" / "MANIFEST.json").read_text())
    assert {b["name"]: b["lines"] for b in manifest["books"]}["council-book.jsonl"] == lines
    assert not (tmp_path / "backup" / "data" / "public").exists()

    new = tmp_path / "new-machine"
    args = ["restore", str(tmp_path / "backup"), "--config", str(new / "config")]
    _cli(*(args + (["--db", empty_db] if empty_db else [])))
    restored = new / "data" / "books" / "council-book.jsonl"
    assert restored.read_bytes() == book.read_bytes()[: len(restored.read_bytes())]
    assert verify(restored).ok and restored.read_bytes().count(b"\n") == lines
    if empty_db:  # the restored league reads its index from the new database
        toml = new / "config" / "league.toml"
        toml.write_text(toml.read_text().replace(live_db or "", empty_db))
    store = open_store(load_config(new / "config").database_url)
    try:
        done = {(str(j.session), j.job) for j in store.job_history(limit=100) if j.status == "done"}
    finally:
        store.close()
    assert (DAYS[0].isoformat(), "score") in done  # the job ledger came back: nothing is re-run
    _play(new / "config", DAYS[1], load_config(new / "config").database_url if empty_db else None)
    assert verify(restored).ok
    runs = [json.loads(x) for x in restored.read_text().splitlines() if '"kind":"run"' in x]
    assert sorted({r["session"] for r in runs}) == [d.isoformat() for d in DAYS]
    assert len(runs) == len({(r["session"], r["run_id"]) for r in runs})


def test_a_shorter_book_is_never_restored_over_a_longer_one(tmp_path: Path) -> None:
    config_dir = _league(tmp_path / "live", None)
    _cli("backup", str(tmp_path / "backup"), "--config", str(config_dir))
    data = config_dir.parent / "data"
    _play(config_dir, DAYS[1], None)  # the live league goes on after the backup
    before = (data / "books" / "council-book.jsonl").read_bytes()
    with pytest.raises(BackupError, match="a book only grows"):
        restore(tmp_path / "backup", config_dir, data)
    assert (data / "books" / "council-book.jsonl").read_bytes() == before
