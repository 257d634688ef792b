"""The API's book index seeded from the database (league.api.dbseed) serves exactly what the index read
from the whole book serves: during a session's embargo (answers and a corrected cell sealed, no score
line) and after the score line; a database of another book is not used."""

from __future__ import annotations

import shutil
from datetime import date, time, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from test_api_embargo import everything

from league.api.app import create_app
from league.api.dbseed import line_offsets
from league.calendar import et_time
from league.clock import SimulatedClock
from league.compose import build_league
from league.config import load_config
from league.folder import init_folder
from league.jobs.context import League, Stages
from league.jobs.correct import cell_correction, seal_correction
from league.jobs.scheduler import catch_up
from league.jobs.seal import pump
from league.store import open_store

SESSION = date(2026, 11, 24)
DAY = SESSION.isoformat()


def _both(data: Path) -> tuple[TestClient, TestClient, int]:
    seeded = create_app(data)
    return TestClient(seeded), TestClient(create_app(data, db_url="")), seeded.state.store.seeded


def _demo_league(tmp_path: Path) -> tuple[League, Path]:
    """The demo folder's league on SESSION with its database index (what the seeded app reads)."""
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    clock = SimulatedClock(et_time(SESSION, time(3, 0)))
    config_dir, data = init_folder(tmp_path, demo=True, clock=clock)
    config = load_config(config_dir)
    return build_league(config, clock, anchor=SESSION - timedelta(days=1), stages=Stages(publish=False),
                        store=open_store(config.database_url)), data


def test_seeded_index_serves_what_the_whole_book_serves(tmp_path: Path) -> None:
    lg, data = _demo_league(tmp_path)
    with lg:
        catch_up(lg, et_time(SESSION, time(3, 0)), et_time(SESSION, time(10, 0)), before_each=lambda f: pump(lg, f.at))
        pump(lg, et_time(SESSION, time(10, 0)))
        answers = lg.books.index.of_kind("answer", DAY)
        fix = cell_correction(lg, of=answers[-1].n, market="SPX", horizon="1d", reason="restored from receipt",
                              cell={"prob_up": 42.0, "cell_status": "elicited"}, source="receipt")
        seal_correction(lg, fix)
        seeded, whole, lines = _both(data)
        assert lines > len(answers)
        during = everything(seeded, data)
        assert any("embargoed" in text for text in during.values())
        assert during == everything(whole, data)
        reply = next(iter((data / "replies").iterdir()))
        assert seeded.get(f"/replies/{reply.name}").status_code == 404
        catch_up(lg, et_time(SESSION, time(10, 0)), et_time(SESSION, time(16, 30)),
                 before_each=lambda f: pump(lg, f.at))
        after_seeded, after_whole, _ = _both(data)
        after = everything(after_seeded, data)
        assert after == everything(after_whole, data)
        assert after == everything(seeded, data)  # the app seeded before the score line follows the book on


def test_a_database_of_another_book_is_not_used(tmp_path: Path) -> None:
    lg, data = _demo_league(tmp_path)
    with lg:
        catch_up(lg, et_time(SESSION, time(3, 0)), et_time(SESSION, time(9, 0)), before_each=lambda f: pump(lg, f.at))
    assert create_app(data).state.store.seeded > 0
    book = data / "books" / "council-book.jsonl"
    lines = book.read_bytes().splitlines(keepends=True)
    book.write_bytes(b"".join(lines[:-1]) + lines[-1].replace(b'"link":"', b'"link":"0'))  # line N's link differs
    app = create_app(data)
    assert app.state.store.seeded == 0
    assert TestClient(app).get("/healthz").json()["book_lines"] == len(lines)


def test_line_offsets_finds_each_line_start(tmp_path: Path) -> None:
    path = tmp_path / "b.jsonl"
    path.write_bytes(b'{"a":1}\n{"b":22}\n{"c":333}\npartial')
    assert line_offsets(path, 3) == ([0, 8, 17], 27)
    assert line_offsets(path, 2) == ([0, 8], 17)
    assert line_offsets(path, 4) is None
