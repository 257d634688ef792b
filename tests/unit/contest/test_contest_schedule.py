"""The contest's schedule on a simulated clock: the plan, catch-up, Big Bet Friday, follower calls, the
rounds' pool and the persisted UTC triggers (no real waiting: the jobs are stand-ins that record)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from league.clock import SimulatedClock
from league.contest import schedule as S
from league.contest.config import load_config
from league.contest.context import ContestContext
from league.contest.ledger import Ledger
from league.contest.rounds import RoundResult

MONDAY = datetime(2026, 12, 7, 7, 0, tzinfo=UTC)  # 2026-12-07 is a Monday; 2026-12-11 a Friday


@pytest.fixture()
def rt(tmp_path: Path) -> Iterator[S.ContestRuntime]:
    clock = SimulatedClock(MONDAY)
    with Ledger(tmp_path / "contest-book.jsonl", clock) as ledger:
        ctx = ContestContext(load_config(), clock, ledger, source=None, public=tmp_path / "public")  # type: ignore[arg-type]
        runtime = S.ContestRuntime(ctx, sweep_utc="06:00", calls=tmp_path / "calls")
        yield runtime
        runtime.shutdown()


def _record(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    ran: list[str] = []
    monkeypatch.setattr(S, "JOBS", {job: (lambda _rt, j=job: ran.append(j)) for job in S.CONTEST_JOBS})
    return ran


def test_the_plan_lists_the_daily_utc_fires_in_order(rt: S.ContestRuntime) -> None:
    fires = S.planned(rt, datetime(2026, 12, 7, 0, 0, tzinfo=UTC), datetime(2026, 12, 8, 6, 0, tzinfo=UTC))
    assert [(f.at.isoformat(), f.job) for f in fires] == [
        ("2026-12-07T06:00:00+00:00", S.SWEEP),
        ("2026-12-07T23:30:00+00:00", S.NIGHTLY),
    ]  # [start, end): 2026-12-08 06:00 is the end itself, not inside


def test_catch_up_runs_todays_missed_sweep_and_the_last_nightly_once(rt: S.ContestRuntime,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    ran = _record(monkeypatch)
    result = S.catch_up(rt, datetime(2026, 12, 8, 7, 0, tzinfo=UTC))
    assert [(f.job, r) for f, r in result] == [(S.NIGHTLY, "done"), (S.SWEEP, "done")]
    assert ran == [S.NIGHTLY, S.SWEEP]


def test_catch_up_reports_an_earlier_days_sweep_late_and_never_makes_it_up(rt: S.ContestRuntime,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    ran = _record(monkeypatch)
    result = S.catch_up(rt, datetime(2026, 12, 8, 5, 0, tzinfo=UTC))  # restart before today's 06:00
    assert [(f.at.date().isoformat(), f.job, r) for f, r in result] == [
        ("2026-12-07", S.SWEEP, "late"), ("2026-12-07", S.NIGHTLY, "done")]
    assert ran == [S.NIGHTLY]


def test_a_failing_job_is_reported_and_does_not_escape(rt: S.ContestRuntime, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(_rt: object) -> None:
        raise RuntimeError("venue down")

    monkeypatch.setattr(S, "JOBS", {**S.JOBS, S.NIGHTLY: boom})
    assert S.run_job(rt, S.NIGHTLY) == "failed"


class _Rounds:
    """Stand-ins for pick/open/play: every candidate opens a round; plays wait until released."""

    def __init__(self, picks: dict[tuple[str, ...], list[str]]) -> None:
        self.picks = picks
        self.opened: list[dict[str, Any]] = []
        self.release = threading.Event()
        self.playing = threading.Barrier(3, timeout=30)

    def pick(self, ctx: object, *, market_ids: tuple[str, ...] = ()) -> list[str]:
        return list(self.picks.get(market_ids, []))

    def open(self, ctx: object, c: str, *, high_stakes: bool, follower_called: bool) -> Any:
        self.opened.append({"market": c, "high_stakes": high_stakes, "follower_called": follower_called})
        return type("Opened", (), {"round_id": len(self.opened), "market_id": c})()

    def play(self, ctx: object, r: Any) -> RoundResult:
        self.playing.wait()
        self.release.wait(30)
        return RoundResult(r.round_id, r.market_id, "closed", {})


def _stub_rounds(monkeypatch: pytest.MonkeyPatch, picks: dict[tuple[str, ...], list[str]]) -> _Rounds:
    stub = _Rounds(picks)
    monkeypatch.setattr(S, "pick_rounds", stub.pick)
    monkeypatch.setattr(S, "open_round", stub.open)
    monkeypatch.setattr(S, "play_opened", stub.play)
    return stub


def test_rounds_opened_on_friday_are_big_bet_rounds(rt: S.ContestRuntime, monkeypatch: pytest.MonkeyPatch) -> None:
    stub = _stub_rounds(monkeypatch, {(): ["m1"]})
    stub.playing = threading.Barrier(1)
    stub.release.set()
    assert load_config().rounds.big_bet_weekday == 4
    S.job_poll(rt)
    rt.ctx.clock.set(MONDAY + timedelta(days=4))  # type: ignore[attr-defined]
    S.job_poll(rt)
    rt.wait_rounds(30)
    assert [o["high_stakes"] for o in stub.opened] == [False, True]


def test_a_follower_call_opens_its_round_flagged_and_is_taken_once(rt: S.ContestRuntime,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    stub = _stub_rounds(monkeypatch, {("m9",): ["m9"]})
    stub.playing = threading.Barrier(1)
    stub.release.set()
    assert rt.calls is not None
    S.call_market(rt.calls, "m9", "a follower", MONDAY)
    S.call_market(rt.calls, "m9", "another follower", MONDAY + timedelta(seconds=1))
    assert S.job_poll(rt) == [1]
    assert S.job_poll(rt) == []  # the calls were taken (moved to done/), not replayed
    assert stub.opened == [{"market": "m9", "high_stakes": False, "follower_called": True}]
    assert len(list((rt.calls / "done").glob("*.json"))) == 2


def test_rounds_play_at_once_on_the_pool_while_the_poll_returns(rt: S.ContestRuntime,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    stub = _stub_rounds(monkeypatch, {(): ["a", "b", "c"]})
    assert S.job_poll(rt) == [1, 2, 3]  # returned while all three rounds are still in play
    stub.release.set()  # the barrier of 3 only passes when the three plays run at the same time
    results = rt.wait_rounds(30)
    assert sorted(r.market_id for r in results) == ["a", "b", "c"]


def test_the_jobs_are_persisted_with_utc_triggers(rt: S.ContestRuntime, tmp_path: Path) -> None:
    from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
    from apscheduler.schedulers.background import BackgroundScheduler

    sched = BackgroundScheduler(jobstores={"default": SQLAlchemyJobStore(url=f"sqlite:///{tmp_path / 'j.db'}")})
    S.add_jobs(sched, rt)
    sched.start(paused=True)
    try:
        jobs = {j.id: j for j in sched.get_jobs()}
        assert set(jobs) == {"league-contest_sweep", "league-contest_poll", "league-contest_nightly"}
        assert all(j.func_ref == "league.contest.schedule:scheduled_entry" for j in jobs.values())
        at = datetime(2026, 12, 7, 5, 59, tzinfo=UTC)
        sweep = jobs["league-contest_sweep"].trigger.get_next_fire_time(None, at)
        nightly = jobs["league-contest_nightly"].trigger.get_next_fire_time(None, at)
        assert sweep == datetime(2026, 12, 7, 6, 0, tzinfo=UTC)
        assert nightly == datetime(2026, 12, 7, 23, 30, tzinfo=UTC)
        assert jobs["league-contest_poll"].trigger.interval == timedelta(minutes=5)
    finally:
        sched.shutdown(wait=False)


def test_league_contest_call_queues_what_the_next_poll_takes(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from league.cli import app

    out = CliRunner().invoke(app, ["contest", "call", "m7", "--data", str(tmp_path), "--by", "a follower"])
    assert out.exit_code == 0, out.output
    assert S.take_calls(tmp_path / "contest-calls") == ("m7",)


def test_the_self_check_runs_once_per_poll_before_any_round_opens(rt: S.ContestRuntime,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    stub = _stub_rounds(monkeypatch, {(): ["a", "b"]})
    stub.playing = threading.Barrier(1)
    stub.release.set()
    events: list[str] = []
    real_open = stub.open

    def open_round(ctx: object, c: str, **kw: bool) -> Any:
        events.append(f"open {c}")
        return real_open(ctx, c, **kw)

    monkeypatch.setattr(S, "open_round", open_round)
    rt.ctx.selfcheck = lambda: events.append("check") or []  # type: ignore[func-returns-value]
    S.job_poll(rt)
    assert events == ["check", "open a", "open b"]  # the agents' clocks start after the check
    stub.picks = {}
    S.job_poll(rt)
    assert events == ["check", "open a", "open b"]  # nothing to open: no check
    rt.wait_rounds(30)
