"""Asks in flight when the daemon died are resumed at catch-up, identically and once.

A simulated day is run once uninterrupted and once killed (SIGKILL, or an in-process death in the
fan-out) and restarted with its clock where the books stopped: both books must be byte-identical
(same run, same attempt, same ask hashes, replies sealed at the same simulated instants; no second
wave caused by the restart). Live, an ask whose deadline passed while the daemon was down gets a
``no_answer`` silence line, once.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from collections import Counter
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

import pytest
from day_helpers import league_dir as make_league_dir
from day_helpers import roster, seat
from fault_helpers import books_stopped_at, raw_lines

from league.book.chain import Book, BookLine
from league.calendar import et_time
from league.clock import SimulatedClock
from league.compose import build_league
from league.config import load_config
from league.jobs.context import BARE, League
from league.jobs.scheduler import catch_up
from league.jobs.seal import pump
from league.store import open_store
from league.verify.chain import verify

SESSION = date(2026, 11, 24)
HERE = Path(__file__).resolve().parent


@pytest.fixture(autouse=True)
def _bwrap() -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")


SEATS = roster(seat("aurora", "scripted", seed=1, latency_s=60), seat("basalt", "scripted", seed=2, latency_s=1500),
               seat("_coin", "coin"))


def _league(tmp_path: Path, name: str) -> Path:
    config_dir, _, _ = make_league_dir(tmp_path / name, SEATS, et_time(SESSION, time(7, 0)))
    return config_dir


def _day(lg: League, *, ledger: bool = True) -> None:
    store = open_store(lg.config.database_url) if ledger else None
    try:
        catch_up(lg, et_time(SESSION, time(3, 0)), et_time(SESSION + timedelta(days=1), time(3, 0)), ledger=store,
                 before_each=lambda f: pump(lg, f.at))
    finally:
        if store is not None:
            store.close()


def _uninterrupted(tmp_path: Path) -> Path:
    config_dir = _league(tmp_path, "calm")
    config = load_config(config_dir)
    with build_league(config, SimulatedClock(et_time(SESSION, time(8, 0))), stages=BARE) as lg:
        _day(lg)
    return config.data_dir / "books"


def _restart(config_dir: Path) -> None:
    config = load_config(config_dir)
    books = config.data_dir / "books"
    at = books_stopped_at(books) or et_time(SESSION, time(8, 0))
    with build_league(config, SimulatedClock(at), stages=BARE) as lg:
        _day(lg)


def _same_books(a: Path, b: Path) -> None:
    for name in ("council-book.jsonl", "asks.jsonl"):
        assert raw_lines(a / name) == raw_lines(b / name), name


def test_killed_with_asks_in_flight_the_restart_resends_them_identically(tmp_path: Path) -> None:
    calm = _uninterrupted(tmp_path)
    config_dir = _league(tmp_path, "killed")
    proc = subprocess.run([sys.executable, str(HERE / "child_daemon.py"), str(config_dir), SESSION.isoformat(),
                           "08:45"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    books = load_config(config_dir).data_dir / "books"
    before = [json.loads(x) for x in raw_lines(books / "council-book.jsonl")]
    assert any(x["kind"] == "run" for x in before)
    assert not any(x["kind"] in ("answer", "silence") for x in before)  # every reply was in flight
    for _ in range(2):  # the second restart finds nothing left to do
        _restart(config_dir)
    _same_books(calm, books)
    lines = [json.loads(x) for x in raw_lines(books / "council-book.jsonl")]
    assert [x["attempt"] for x in lines if x["kind"] == "run"] == [1]  # no second wave caused by the restart
    replies = Counter((x["run_id"], x["seat"], x["attempt"]) for x in lines if x["kind"] in ("answer", "silence"))
    assert sorted(replies.values()) == [1, 1, 1]
    assert verify(books / "council-book.jsonl").ok


class _Died(BaseException):
    """The daemon dying in the middle of the fan-out (not an Exception: nothing catches it)."""


def test_killed_in_the_fan_out_the_restart_asks_the_rest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calm = _uninterrupted(tmp_path)
    config_dir = _league(tmp_path, "torn")
    config = load_config(config_dir)
    put = Book._put  # the run's asks are sealed with one fsync: die between the first line and the second
    count = {"n": 0}

    def put_then_die(self: Book, line: BookLine) -> None:
        if self.path.name == "asks.jsonl" and line.content.get("kind") == "ask":
            if count["n"] == 1:
                raise _Died
            count["n"] += 1
        put(self, line)

    monkeypatch.setattr(Book, "_put", put_then_die)
    lg = build_league(config, SimulatedClock(et_time(SESSION, time(8, 0))), stages=BARE)
    with pytest.raises(_Died):
        _day(lg, ledger=False)
    lg.asking.pending.clear()  # its memory dies with it
    lg.close()
    monkeypatch.setattr(Book, "_put", put)
    asks = [json.loads(x) for x in raw_lines(config.data_dir / "books" / "asks.jsonl")]
    assert [x["kind"] for x in asks].count("ask") == 1
    _restart(config_dir)
    _same_books(calm, config.data_dir / "books")


def test_a_restart_seals_no_second_roster_for_a_run(tmp_path: Path) -> None:
    config_dir = _league(tmp_path, "roster")
    config = load_config(config_dir)
    clock = SimulatedClock(et_time(SESSION, time(8, 30)))
    with build_league(config, clock, stages=BARE) as lg:
        specs = list(config.roster.seat)
        first = lg.books.asks.seal_roster("2026-11-24-r1", "2026-11-24", specs, {"SPX": ["1d"]}, clock.now(),
                                          clock.now(), "once", "counted")
    with build_league(config, clock, stages=BARE) as lg:
        again = lg.books.asks.seal_roster("2026-11-24-r1", "2026-11-24", specs, {"SPX": ["1d"]}, clock.now(),
                                          clock.now(), "once", "counted")
    assert again == first
    kinds = [json.loads(x)["kind"] for x in raw_lines(config.data_dir / "books" / "asks.jsonl")]
    assert kinds.count("roster") == 1


class _Wall:
    """A live (not simulated) clock standing at one instant."""

    def __init__(self, at: datetime) -> None:
        self.at = at

    def now(self) -> datetime:
        return self.at

    def sleep_until(self, when: datetime) -> None:
        return None


def _asked_then_died(tmp_path: Path) -> Path:
    config_dir = _league(tmp_path, "live")
    config = load_config(config_dir)
    lg = build_league(config, SimulatedClock(et_time(SESSION, time(8, 0))), stages=BARE)
    catch_up(lg, et_time(SESSION, time(3, 0)), et_time(SESSION, time(8, 31)), before_each=lambda f: pump(lg, f.at))
    lg.asking.pending.clear()
    lg.close()
    return config_dir


def _replies(config_dir: Path) -> list[dict[str, object]]:
    path = load_config(config_dir).data_dir / "books" / "council-book.jsonl"
    return [x for x in map(json.loads, raw_lines(path)) if x["kind"] in ("answer", "silence", "incident")]


def test_live_past_the_deadline_an_ask_lost_with_the_daemon_is_sealed_as_no_answer(tmp_path: Path) -> None:
    config_dir = _asked_then_died(tmp_path)
    config = load_config(config_dir)
    for _ in range(2):
        with build_league(config, _Wall(et_time(SESSION, time(10, 0))), stages=BARE) as lg:
            catch_up(lg, et_time(SESSION, time(3, 0)), et_time(SESSION, time(8, 31)))
    replies = _replies(config_dir)
    assert sorted(x["seat"] for x in replies) == ["_coin", "aurora", "basalt"]
    assert {x["kind"] for x in replies} == {"silence"} and {x["failure"] for x in replies} == {"no_answer"}
    assert all("lost with the daemon" in str(x["detail"]) for x in replies)


def test_live_before_the_deadline_the_ask_is_resent_with_its_sealed_hash(tmp_path: Path) -> None:
    config_dir = _asked_then_died(tmp_path)
    config = load_config(config_dir)
    asks = [x for x in map(json.loads, raw_lines(config.data_dir / "books" / "asks.jsonl")) if x["kind"] == "ask"]
    with build_league(config, _Wall(datetime(2026, 11, 24, 13, 40, tzinfo=UTC)), stages=BARE) as lg:
        catch_up(lg, et_time(SESSION, time(3, 0)), et_time(SESSION, time(8, 31)))
    replies = _replies(config_dir)
    assert sorted((x["seat"], x["run_id"], x["attempt"]) for x in replies) == sorted(
        (x["seat"], x["run_id"], x["attempt"]) for x in asks)
    by_seat = {x["seat"]: x["ask_sha256"] for x in asks}
    assert all(x["kind"] == "answer" and x["seat_ask_sha256"] == by_seat[x["seat"]] for x in replies)
    after = [x for x in map(json.loads, raw_lines(config.data_dir / "books" / "asks.jsonl")) if x["kind"] == "ask"]
    assert after == asks  # re-sent, not re-sealed


def test_one_opened_league_resumes_once_not_at_every_catch_up(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A simulated season runs a catch-up per session; re-reading the whole ask chain each time made it
    quadratic. Only a dead process leaves asks in flight, so one League resumes once, at its first one."""
    import league.jobs.resume as resume

    reads: list[Path] = []
    real = resume._recent_asks
    monkeypatch.setattr(resume, "_recent_asks", lambda lg, runs: reads.append(lg.books.asks.path) or real(lg, runs))
    config = load_config(_league(tmp_path, "twice"))
    with build_league(config, SimulatedClock(et_time(SESSION, time(8, 0))), stages=BARE) as lg:
        _day(lg, ledger=False)
        _day(lg, ledger=False)
    assert [p.name for p in reads] == ["asks.jsonl"]
