"""`league stamp` and `league stamp upgrade` on a data folder, with local authorities and a calendar stand-in."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from conftest import Calendar
from typer.testing import CliRunner

from league.book import Book
from league.cli import app
from league.clock import SimulatedClock


def _folder(tmp_path: Path, calendar_url: str) -> Path:
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "league.toml").write_text(
        f'[stamps]\ntsa = []\nots_calendars = ["{calendar_url}"]\nrekor_url = ""\nlocal_tsa = true\n')
    data = tmp_path / "data"
    with Book(data / "books" / "council-book.jsonl", SimulatedClock(datetime(2026, 3, 2, 13, tzinfo=UTC))) as b:
        b.append("run", {"run_id": "r1", "session": "2026-03-02"})
    return data


def test_stamp_then_upgrade(tmp_path: Path, calendar: Calendar) -> None:
    data = _folder(tmp_path, calendar.url)
    runner = CliRunner()
    result = runner.invoke(app, ["stamp", "--data", str(data)])
    assert result.exit_code == 0, result.output
    assert "trust level 2+ pending" in result.output
    assert "rfc3161 local-a: ok" in result.output and "rfc3161 local-b: ok" in result.output
    status = json.loads(next((data / "stamps").glob("*/*.status.json")).read_text())
    assert [b["name"] for b in status["backends"]] == ["local-a", "local-b", "ots"]
    assert (data / "stamps" / "local-tsa" / "local-a" / "ca.pem").is_file()
    calendar.mined = True
    try:
        up = runner.invoke(app, ["stamp", "upgrade", "--data", str(data)])
    finally:
        calendar.mined = False
    assert up.exit_code == 0 and "1 of 1 pending proofs completed" in up.output, up.output


def test_bad_book_spec_and_missing_config(tmp_path: Path, calendar: Calendar) -> None:
    data = _folder(tmp_path, calendar.url)
    runner = CliRunner()
    bad = runner.invoke(app, ["stamp", "--data", str(data), "--book", "no-equals-sign"])
    assert bad.exit_code != 0 and "expected NAME=PATH" in str(bad.exception)
    missing = runner.invoke(app, ["stamp", "--data", str(tmp_path / "elsewhere" / "data")])
    assert missing.exit_code != 0 and "league.toml" in str(missing.exception)


def test_help_works() -> None:
    runner = CliRunner()
    for argv in (["stamp", "--help"], ["stamp", "upgrade", "--help"]):
        result = runner.invoke(app, argv)
        assert result.exit_code == 0 and "--data" in result.output
