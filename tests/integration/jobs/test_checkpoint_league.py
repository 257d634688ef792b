"""A league opened from its sealed checkpoint, with only the memory window in memory.

Reopened from the checkpoint, a league seals the same next day, byte for byte, as a copy of it
verified from scratch; a line tampered before the checkpoint is not re-hashed at open but the nightly
full check catches it (health degraded, metric, checkpoint not moved), as does `league verify`; an old
session dropped from memory is still read back when its six-month score comes due.
"""

from __future__ import annotations

import shutil
import threading
from datetime import date, time, timedelta
from pathlib import Path

import pytest
from day_helpers import BASELINES, league_dir
from sqlalchemy import delete
from typer.testing import CliRunner

from league.calendar import default_calendar, et_time
from league.cli import app
from league.clock import SimulatedClock
from league.compose import build_league
from league.config import Config, load_config
from league.demo import demo_sessions
from league.jobs.books import COUNCIL_BOOK
from league.jobs.context import BARE
from league.jobs.scheduler import run_session
from league.jobs.score import job_score
from league.jobs.verify_book import HEALTH_KEY, nightly, start_nightly
from league.ops import metrics
from league.ops.health import Health
from league.records import as_json
from league.store import open_store
from league.store.models import metadata

DAYS = demo_sessions(default_calendar(), date(2026, 11, 16), 3)


def _league(tmp: Path, days: list[date]) -> tuple[Config, SimulatedClock]:
    """A league with ``days`` run and a nightly check done (the checkpoint at its head); closed."""
    config_dir, _, clock = league_dir(tmp, BASELINES, et_time(days[0], time(7, 0)))
    config = load_config(config_dir)
    with build_league(config, clock, stages=BARE, store=open_store(config.database_url)) as lg:
        assert lg.books.opened.mode == "full"
        for day in days:
            run_session(lg, day)
        assert nightly(lg, Health())
    return config, clock


def _book(config: Config) -> Path:
    return config.data_dir / "books" / "council-book.jsonl"


def test_reopened_from_the_checkpoint_seals_the_same_next_day(tmp_path: Path) -> None:
    config, _ = _league(tmp_path / "a", DAYS[:2])
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    copy = load_config(tmp_path / "b" / "config")
    store = open_store(copy.database_url)
    with store.engine.begin() as conn:  # the copy has no checkpoint: it is verified from scratch
        conn.execute(delete(metadata.tables["book_checkpoints"]))
    store.close()
    sealed: dict[str, bytes] = {}
    for name, cfg in (("checkpoint", config), ("full", copy)):
        size = _book(cfg).stat().st_size
        clock = SimulatedClock(et_time(DAYS[2], time(7, 0)))
        with build_league(cfg, clock, stages=BARE, store=open_store(cfg.database_url)) as lg:
            assert lg.books.opened.mode == name
            cp = lg.books.opened.checkpoint  # the writer counted only the lines after it (Book ``counted``)
            if name == "checkpoint":
                assert cp is not None and lg.books.book._counted == (cp.offset, cp.lines)
            else:
                assert lg.books.book._counted is None
            run_session(lg, DAYS[2])  # the momentum seat reads yesterday's score line through the index
        sealed[name] = _book(cfg).read_bytes()[size:]
    assert sealed["checkpoint"].count(b"\n") > 3
    assert sealed["checkpoint"] == sealed["full"]


def _tamper(path: Path, n: int) -> None:
    lines = path.read_bytes().split(b"\n")
    i = lines[n - 1].index(b'"at":"2026') + len(b'"at":"202')
    lines[n - 1] = lines[n - 1][:i] + b"7" + lines[n - 1][i + 1:]
    path.write_bytes(b"\n".join(lines))


def test_a_line_tampered_before_the_checkpoint_is_caught_by_the_nightly_check_and_verify(tmp_path: Path) -> None:
    config, _ = _league(tmp_path, DAYS[:1])
    store = open_store(config.database_url)
    before = store.checkpoint(COUNCIL_BOOK)
    store.close()
    assert before is not None and before.lines > 5
    _tamper(_book(config), 4)
    failed = metrics.BOOK_CHECKS.labels(outcome="failed")._value.get()
    health = Health()
    clock = SimulatedClock(et_time(DAYS[1], time(7, 0)))
    with build_league(config, clock, stages=BARE, store=open_store(config.database_url)) as lg:
        assert lg.books.opened.mode == "checkpoint"  # lines 1..N are not re-hashed at open (docs/book.md)
        done = threading.Event()
        assert start_nightly(lg, health, done) is not None  # as the daemon runs it: on a thread of its own
        assert done.wait(120)
        assert lg.books.store is not None
        assert lg.books.store.checkpoint(COUNCIL_BOOK) == before  # not moved
    assert "line 4" in health.degraded[HEALTH_KEY]
    assert health.report()[1]["status"] == "degraded"
    assert metrics.BOOK_CHECKS.labels(outcome="failed")._value.get() == failed + 1
    for argv in (["verify", str(_book(config))], ["check-book", "--data", str(config.data_dir)]):
        result = CliRunner().invoke(app, argv)
        assert result.exit_code != 0 and "line 4" in f"{result.output} {result.exception}", argv


def test_a_tampered_ask_line_is_caught_by_the_nightly_check_and_verify(tmp_path: Path) -> None:
    """No job reads the ask chain from line 1 any more (its index resumes from the end of the file, the
    asks in flight are read back from the end: tests/unit/book/test_book_tail.py): the nightly check
    verifies it in full, and a bad line there leaves the council book's checkpoint where it was."""
    config, _ = _league(tmp_path, DAYS[:1])
    asks = config.data_dir / "books" / "asks.jsonl"
    store = open_store(config.database_url)
    before = store.checkpoint(COUNCIL_BOOK)
    store.close()
    _tamper(asks, 2)
    health = Health()
    clock = SimulatedClock(et_time(DAYS[1], time(7, 0)))
    with build_league(config, clock, stages=BARE, store=open_store(config.database_url)) as lg:
        assert not nightly(lg, health)
        assert lg.books.store is not None
        assert lg.books.store.checkpoint(COUNCIL_BOOK) == before  # not moved
    assert "asks.jsonl: line 2" in health.degraded[HEALTH_KEY]
    result = CliRunner().invoke(app, ["verify", str(asks)])
    assert result.exit_code != 0 and "line 2" in f"{result.output} {result.exception}"


def test_an_old_session_leaves_memory_but_its_six_month_score_still_reads_it(tmp_path: Path) -> None:
    config, _ = _league(tmp_path, DAYS[:1])
    day0 = DAYS[0].isoformat()
    cal = default_calendar()
    closes = cal.session_on_or_after(max(cal.horizon_end_session(DAYS[0], "6m") + timedelta(days=1),
                                         cal.horizon_end_day(DAYS[0], "6m") + timedelta(days=1)))
    later = SimulatedClock(et_time(closes + timedelta(days=60), time(7, 0)))
    with build_league(config, later, stages=BARE, store=open_store(config.database_url)) as lg:
        assert lg.books.opened.mode == "checkpoint"
        in_memory = {getattr(b, "session", None) for b in lg.books.index.lines.values()}
        assert day0 not in in_memory and lg.books.index.partial  # the window dropped it ...
        day_score = [as_json(x) for x in lg.books.index.of_kind("score", day0)]  # ... but the index still reads it back
        assert len(day_score) == 1
        sealed = job_score(lg, closes.isoformat())
        six = [x for x in map(as_json, lg.books.index.of_kind("score_h", day0)) if x["horizon"] == "6m"]
    assert sealed and six
    refs = {m["market"]: m["reference"] for m in day_score[0]["markets"] if not m.get("late_ref")}
    events = {m["market"]: m for x in six for m in x["markets"]}
    assert events["SPX"]["reference"] == refs["SPX"] is not None  # the sealed day's reference, read back
    assert any(r["status"] == "counted" for x in six for r in x["seats"])


@pytest.mark.parametrize("store", [False, True])
def test_a_league_without_database_keeps_the_window_and_streams_the_rest(tmp_path: Path, store: bool) -> None:
    config, _ = _league(tmp_path, DAYS[:1])
    later = SimulatedClock(et_time(DAYS[0] + timedelta(days=400), time(7, 0)))
    db = open_store(config.database_url) if store else None
    with build_league(config, later, stages=BARE, store=db) as lg:
        assert lg.books.opened.mode == ("checkpoint" if store else "full")
        assert not any(getattr(b, "session", None) == DAYS[0].isoformat() for b in lg.books.index.lines.values())
        assert lg.books.index.runs(DAYS[0].isoformat())[0].session == DAYS[0].isoformat()
        assert lg.books.index.of_kind("opening")  # sticky


def test_a_running_league_moves_its_window_as_days_pass(tmp_path: Path) -> None:
    config_dir, _, clock = league_dir(tmp_path, BASELINES, et_time(DAYS[0], time(7, 0)))
    config = load_config(config_dir)
    with build_league(config, clock, stages=BARE, store=open_store(config.database_url)) as lg:
        run_session(lg, DAYS[0])
        held = lg.books.index
        runs = lg.books.index.runs(DAYS[0].isoformat())
        assert lg.books.refresh_window() == 0 and lg.books.index is held  # a day later: nothing leaves
        clock.advance(timedelta(days=300))
        assert lg.books.refresh_window() > 0
        assert lg.books.index is not held and held.runs(DAYS[0].isoformat()) == runs  # a reader's old view stays whole
        assert not any(getattr(b, "session", None) == DAYS[0].isoformat() for b in lg.books.index.lines.values())
        assert lg.books.index.runs(DAYS[0].isoformat()) == runs  # read back from the database
        assert lg.books.index.of_kind("opening")
