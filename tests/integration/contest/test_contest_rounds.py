"""Betting rounds with four stand-in CLIs in the REAL sandbox, talking to the league through `bench`."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from conftest import Day, with_modes

from league.contest import ledger as L
from league.contest.config import load_config
from league.contest.publish import publish
from league.contest.resolve import resolve_due
from league.contest.rounds import open_rounds

pytestmark = pytest.mark.sandbox
TRICKY = "It's \"$100\" on $HOME's team;\nsecond line with `backticks` and \\ a backslash"


def first_round(day: Day, config: object = None) -> tuple[object, object]:
    with day.ledger() as ledger:
        ctx = day.context(ledger, config)  # type: ignore[arg-type]
        assert open_rounds(ctx) == []  # first poll: records what exists, opens nothing
        day.clock.advance(timedelta(minutes=10))
        results = open_rounds(ctx)
        return results, ledger.contents()


def test_four_agents_bet_through_bench_and_cards_carry_every_argument(day: Day) -> None:
    config = with_modes(load_config(), claude={"rationale": TRICKY, "quote": "'$5' on \"Yes\""},
                        grok={"quote": "ask @everyone about it"})
    with day.ledger() as ledger:
        ctx = day.context(ledger, config)
        open_rounds(ctx)
        day.clock.advance(timedelta(minutes=10))
        [result] = open_rounds(ctx)
        assert result.state == "closed" and all(result.bets.values())
        bets = {b["agent"]: b for b in ledger.contents(L.BET)}
        assert bets["claude"]["rationale"] == TRICKY and bets["claude"]["quote"] == "'$5' on \"Yes\""
        assert bets["grok"]["quote"] is None and "@mention" in bets["grok"]["quote_note"]
        opened = ledger.contents(L.ROUND_OPEN)[0]
        for b in bets.values():  # IOC limit = best ask + 5 cents, labels matched case-insensitively
            assert b["outcome"] in opened["outcomes"] and b["spent"] <= 100.0 + 1e-9
            best_ask = min(float(a["price"]) for a in b["book"]["asks"])
            assert b["limit"] == pytest.approx(min(0.99, best_ask + 0.05))
        closed = ledger.contents(L.ROUND_CLOSED)[0]
        assert {e["model"] for e in closed["entries"]} >= {"standin/claude-fable-5-1", "standin/grok-4.7"}
        day.clock.advance(timedelta(days=3))
        resolve_due(ctx)
        publish(ctx)
    card = json.loads((day.root / "public" / "cards" / "1.json").read_text())
    claude = next(c for c in card["cards"] if c["agent"] == "claude")
    assert claude["rationale"] == TRICKY and claude["model"] == "standin/claude-fable-5-1"
    assert claude["pnl"] is not None and card["winner"] is not None


def test_an_agent_that_never_bets_forfeits(day: Day) -> None:
    results, lines = first_round(day, with_modes(load_config(), codex={"mode": "no-bet"}))
    [result] = results  # type: ignore[misc]
    assert result.bets["codex"] is None and result.bets["claude"] is not None  # type: ignore[attr-defined]
    forfeits = [ln for ln in lines if ln["kind"] == L.FORFEIT]  # type: ignore[attr-defined]
    assert [(f["agent"], f["reason"]) for f in forfeits] == [("codex", "no bet in time")]


@pytest.mark.parametrize("mode,incident", [("usage-limit", "usage_limit_incident"), ("login", "login_incident")])
def test_an_incident_voids_the_round_for_everyone_and_posts_nothing(day: Day, mode: str, incident: str) -> None:
    config = with_modes(load_config(), gemini={"mode": mode})
    with day.ledger() as ledger:
        ctx = day.context(ledger, config)
        open_rounds(ctx)
        day.clock.advance(timedelta(minutes=10))
        [result] = open_rounds(ctx)
        assert result.state == "void" and result.reason == incident
        [void] = ledger.contents(L.ROUND_VOID)
        assert void["agent"] == "gemini" and void["reason"] == "infra"
        assert ledger.contents(L.FORFEIT) == [] and ledger.contents(L.ROUND_CLOSED) == []
        day.clock.advance(timedelta(days=3))
        resolve_due(ctx)
        metrics = publish(ctx)
    public = day.root / "public"
    assert json.loads((public / "rounds.json").read_text()) == []
    assert not (public / "cards").exists() or list((public / "cards").iterdir()) == []
    assert (public / "bets.csv").read_text().count("\n") == 1  # the header only
    assert metrics["betting_record"]["rounds_excluded"] == {"infra": 1}
    assert [v["round_id"] for v in metrics["betting_record"]["voided"]] == [1]


def test_the_round_ask_carries_only_the_agents_own_results(day: Day) -> None:
    with day.ledger() as ledger:
        ctx = day.context(ledger)
        open_rounds(ctx)
        day.clock.advance(timedelta(minutes=10))
        open_rounds(ctx)
        day.clock.advance(timedelta(days=2))
        resolve_due(ctx)
        from league.contest.rounds import _round_ask, own_history

        history = own_history(ctx, "claude")
        assert len(history) == 1
        bets = {b["agent"]: b for b in ledger.contents(L.BET)}
        assert history[0].outcome == bets["claude"]["outcome"]
        opened = ledger.contents(L.ROUND_OPEN)[0]
        text = _round_ask(ctx, ctx.config.agent("claude"), opened).text
        assert "Your own record over your last 1 resolved rounds" in text and "Stake: exactly one bet of 100" in text
        assert "bench market" in text and "is refused and the round counts as forfeited" in text
        assert "codex" not in text and "Codex" not in text
