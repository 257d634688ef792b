"""A daemon killed in the middle of a week's council talk resumes it: the chair's ask or the critiqued seats' asks
in flight are re-sent identically and sealed once, never asked a second time; the arms' book and its ask chain of
the killed and restarted day are byte-identical to an uninterrupted day's (real sandboxed scripted seats)."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from collections import Counter
from datetime import date, datetime, time, timedelta
from pathlib import Path

import pytest
from arms_helpers import enable_talk
from day_helpers import league_dir, roster, seat
from test_arms_resume import _lock_free, _stopped_at

from league.calendar import et_time
from league.clock import SimulatedClock
from league.compose import build_league
from league.config import load_config
from league.jobs.context import BARE
from league.jobs.scheduler import catch_up
from league.jobs.seal import pump
from league.verify.chain import verify

SESSION = date(2026, 11, 24)  # a Tuesday: the talk day here
HERE = Path(__file__).resolve().parent
#: Every seat answers at least ten minutes after it is asked, so a kill five minutes after an ask finds it in flight.
SEATS = roster(seat("aurora", "scripted", seed=1, latency_s=600), seat("basalt", "scripted", seed=2, latency_s=1500),
               seat("cobalt", "scripted", seed=3, latency_s=900), seat("_coin", "coin"))
BOOKS = ("council-book.jsonl", "asks.jsonl", "arms-book.jsonl", "arm-asks.jsonl")


@pytest.fixture(autouse=True)
def _bwrap() -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")


def _league(root: Path, name: str) -> Path:
    config_dir, _, _ = league_dir(root / name, SEATS, et_time(SESSION, time(7, 0)))
    enable_talk(config_dir, weekday="tue")
    return config_dir


def _day(config_dir: Path, start: datetime) -> None:
    config = load_config(config_dir)
    with build_league(config, SimulatedClock(start), stages=BARE) as lg:
        catch_up(lg, et_time(SESSION, time(3, 0)), et_time(SESSION + timedelta(days=1), time(3, 0)),
                 before_each=lambda f: pump(lg, f.at))
        pump(lg, et_time(SESSION + timedelta(days=1), time(3, 0)))


@pytest.fixture(scope="module")
def calm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    config_dir = _league(tmp_path_factory.mktemp("talkcalm"), "calm")
    _day(config_dir, et_time(SESSION, time(8, 0)))
    return load_config(config_dir).data_dir / "books"


def _talk(books: Path) -> list[dict[str, object]]:
    return [x for x in (json.loads(y) for y in (books / "arms-book.jsonl").read_bytes().splitlines())
            if str(x["kind"]).startswith("talk_")]


@pytest.mark.parametrize(("stop", "in_flight"), [("16:35", "chair"), ("18:05", "replies")])
def test_killed_in_the_middle_of_the_talk_the_restart_asks_nobody_twice(calm: Path, tmp_path: Path, stop: str,
                                                                        in_flight: str) -> None:
    killed = _league(tmp_path, "killed")
    proc = subprocess.run([sys.executable, str(HERE / "child_daemon.py"), str(killed), SESSION.isoformat(), stop],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    books = load_config(killed).data_dir / "books"
    kinds = [x["kind"] for x in _talk(books)]
    if in_flight == "chair":  # the week opened, the chair asked, no reply yet
        assert kinds == ["talk_schedule", "talk_week"]
    else:  # the chair answered, the critiqued seats asked, none answered yet
        assert kinds == ["talk_schedule", "talk_week", "talk_chair", "talk_round"]
    _lock_free(books)
    for _ in range(2):  # the second restart finds nothing left to do
        _day(killed, _stopped_at(books))
    for name in BOOKS:
        assert (calm / name).read_bytes() == (books / name).read_bytes(), name
    talk = _talk(books)
    assert Counter(x["kind"] for x in talk)["talk_chair"] == 1
    [round_] = [x for x in talk if x["kind"] == "talk_round"]
    replies = Counter(x["seat"] for x in talk if x["kind"] == "talk_reply")
    assert replies and set(replies.values()) == {1} and set(replies) == set(round_["asked"])  # type: ignore[arg-type]
    asks = [json.loads(x) for x in (books / "arm-asks.jsonl").read_bytes().splitlines()]
    chair_asks = [x for x in asks if x["kind"] == "ask" and str(x["run_id"]).endswith("-talk-chair")]
    reply_asks = Counter(x["seat"] for x in asks if x["kind"] == "ask" and str(x["run_id"]).endswith("-talk-replies"))
    assert len(chair_asks) == 1 and set(reply_asks.values()) == {1}
    assert all("lost" not in str(x.get("failure", "")) for x in talk)
    assert verify(books / "arms-book.jsonl").ok and verify(books / "arm-asks.jsonl").ok
