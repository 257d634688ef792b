"""The scheduled contest jobs on a recorded day with four stand-in CLIs in the REAL sandbox (simulated clock)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from conftest import Day

from league.contest import ledger as L
from league.contest import schedule as S
from league.contest.publish import publish
from league.contest.resolve import resolve_due
from league.contest.verify import verify_folder

pytestmark = pytest.mark.sandbox


def test_sweep_poll_and_nightly_as_the_scheduler_runs_them(day: Day) -> None:
    notes: list[str] = []
    with day.ledger() as ledger:
        rt = S.ContestRuntime(day.context(ledger), sweep_utc="06:00", calls=day.root / "calls",
                              after_seal=notes.append)
        first = S.job_sweep(rt)
        assert first.markets > 0 and first.sha256 is not None
        again = S.job_sweep(rt)  # idempotent per UTC date: nothing asked, nothing sealed twice
        assert again.sha256 == first.sha256 and ledger.count(L.SWEEP_OPEN) == 1
        assert notes == [f"contest sweep {first.date}"]  # the stamp follows the new seal only
        assert S.job_poll(rt) == []  # the first poll records what is listed
        day.clock.advance(timedelta(minutes=10))
        opened = S.job_poll(rt)
        assert opened, "a new market should open a round"
        results = rt.wait_rounds(120)
        assert {r.round_id for r in results} == set(opened) and all(r.state == "closed" for r in results)
        flags = ledger.contents(L.ROUND_OPEN)[0]["flags"]
        assert flags["high_stakes"] is False and flags["follower_called"] is False
        day.clock.advance(timedelta(days=8))
        assert S.run_job(rt, S.NIGHTLY) == "done"
        assert notes[-1] == "contest nightly"
        rt.shutdown()
    metrics = json.loads((day.root / "public" / "metrics.json").read_text())
    assert metrics["forecast_accuracy"]["agents"] and (day.root / "public" / "rounds.json").is_file()


def test_a_failed_pre_batch_self_check_voids_the_sweep_and_the_round(day: Day) -> None:
    asked: list[str] = []
    with day.ledger() as ledger:
        ctx = day.context(ledger)
        ctx.selfcheck = lambda: ["contest-codex: trivial ask: usage_limit"]
        real_factory = ctx.seat_factory
        ctx.seat_factory = lambda spec, box: asked.append(spec.name) or real_factory(spec, box)  # type: ignore[func-returns-value]
        rt = S.ContestRuntime(ctx)
        swept = S.job_sweep(rt)
        assert swept.markets == 0 and swept.sha256 is None and asked == []
        [void] = ledger.contents(L.SWEEP_VOID)
        assert void["reason"] == "infra" and "usage_limit" in void["failed_checks"][0]
        assert ledger.count(L.SWEEP_OPEN) == 0 and not (day.root / "public" / "forecasts").exists()
        S.job_poll(rt)
        day.clock.advance(timedelta(minutes=10))
        assert S.job_poll(rt)
        [result] = rt.wait_rounds(60)
        assert result.state == "void" and asked == []  # no agent was asked: nothing of the round is posted
        [round_void] = ledger.contents(L.ROUND_VOID)
        assert round_void["incident"] == "selfcheck" and "usage_limit" in round_void["detail"]
        ctx.selfcheck = lambda: []
        assert S.job_sweep(rt).sha256 is not None  # the check passes later the same day: the sweep runs
        rt.shutdown()
        day.clock.advance(timedelta(days=8))
        resolve_due(ctx)
        publish(ctx)
    sweeps = json.loads((day.root / "public" / "sweeps.json").read_text())
    assert [(s["void"] if "void" in s else "swept") for s in sweeps] == ["swept", "infra"]
    agents = json.loads((day.root / "public" / "metrics.json").read_text())["forecast_accuracy"]["agents"]
    assert all(a["offered"] > 0 and a["coverage"] == 1.0 for a in agents)  # the void of that date does not count
    assert [c for c in verify_folder(day.root / "public") if c.failed] == []


def test_a_sweep_interrupted_after_its_ask_is_finished_not_repeated(day: Day) -> None:
    class Stop(Exception):
        pass

    def stopping(spec: object, box: object) -> object:
        raise Stop("the league stopped")

    with day.ledger() as ledger:
        ctx = day.context(ledger)
        ctx.seat_factory = stopping  # type: ignore[assignment]
        with pytest.raises(Stop):
            S.job_sweep(S.ContestRuntime(ctx))
        [opened] = ledger.contents(L.SWEEP_OPEN)
        assert ledger.count(L.SWEEP_SEALED) == 0
    asked: list[str] = []
    day.clock.advance(timedelta(minutes=2))
    with day.ledger() as ledger:  # the restart two minutes later: a new process, the same book
        ctx = day.context(ledger)
        ctx.seat_factory = lambda spec, box: asked.append(spec.name)  # type: ignore[assignment, func-returns-value]
        assert S.catch_up(S.ContestRuntime(ctx))[-1][1] == "done"
        assert asked == [] and ledger.count(L.SWEEP_OPEN) == 1  # nobody asked again, no second ask sealed
        replies = ledger.contents(L.SWEEP_REPLY)
        assert {r["status"] for r in replies} == {"infra"} and len(replies) == 4
        [sealed] = ledger.contents(L.SWEEP_SEALED)
    doc = json.loads((day.root / "public" / "forecasts" / f"{sealed['date']}.json").read_text())
    assert sorted(m["id"] for m in doc["markets"]) == sorted(m["id"] for m in opened["markets"])
    assert doc["forecasts"] == []
