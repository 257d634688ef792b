"""The sweep with stand-in CLIs in the REAL sandbox: strict parsing, incidents, the sealed file."""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta

import pytest
from conftest import Day, with_modes

from league.book import iter_lines
from league.contest import ledger as L
from league.contest.config import load_config
from league.contest.sweep import run_sweep

pytestmark = pytest.mark.sandbox


def test_sweep_seals_the_file_before_any_market_closes(day: Day) -> None:
    config = with_modes(load_config(), codex={"mode": "percent"}, gemini={"mode": "partial"},
                        grok={"mode": "usage-limit"})
    with day.ledger() as ledger:
        result = run_sweep(day.context(ledger, config))
        replies = {r["agent"]: r for r in ledger.contents(L.SWEEP_REPLY)}
        [opened] = ledger.contents(L.SWEEP_OPEN)
        [sealed] = ledger.contents(L.SWEEP_SEALED)
    assert result.status == {"claude": "ok", "codex": "ok", "gemini": "ok", "grok": "infra"}
    assert result.markets == len(opened["markets"]) == 12
    # percent answers read as percent; the partial agent's gaps are reported, never filled
    assert len(replies["codex"]["forecasts"]) == 12
    gemini = replies["gemini"]["report"]
    assert len(replies["gemini"]["forecasts"]) + len(gemini["missing"]) + len(gemini["dropped"]) == 12
    assert gemini["missing"] and gemini["dropped"]
    assert all("missing outcomes" in why or "outside 1 ± 0.05" in why for why in gemini["dropped"].values())
    assert replies["grok"]["failure"] == "usage_limit_incident" and replies["grok"]["forecasts"] == {}
    assert replies["claude"]["raw"].startswith("model: standin/claude-fable-5-1")  # sealed as received
    path = day.root / "public" / "forecasts" / f"{result.date}.json"
    data = path.read_bytes()
    doc = json.loads(data)
    assert data == json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False).encode("utf-8")
    assert hashlib.sha256(data).hexdigest() == sealed["sha256"] == result.sha256
    assert sorted(doc) == ["benchmark", "date", "forecasts", "kind", "markets", "methodology_version"]
    assert doc["kind"] == "forecast sweep" and len(doc["forecasts"]) == sealed["forecasts"] == result.forecasts
    assert {f["agent"] for f in doc["forecasts"]} == {"claude", "codex", "gemini"}
    assert sorted(doc["markets"][0]) == ["closes", "id", "outcomes", "prices_at_sweep", "question"]
    sealed_at = day.clock.now()
    assert all(m["closes"] > sealed_at.strftime("%Y-%m-%dT%H:%M:%SZ") for m in doc["markets"])
    listed = json.loads((day.root / "public" / "sealed.json").read_text())
    assert listed == [{"date": "2026-12-07", "sha256": result.sha256, "file": "forecasts/2026-12-07.json",
                       "forecasts": result.forecasts, "sealed_at": sealed_at.timestamp()}]
    kinds = [ln.kind for ln in iter_lines(day.root / "contest-book.jsonl")]
    assert kinds.index(L.SWEEP_SEALED) > max(i for i, k in enumerate(kinds) if k == L.SWEEP_REPLY)


def test_sweep_prices_are_real_book_midpoints_and_refusals_are_kept(day: Day) -> None:
    with day.ledger() as ledger:
        run_sweep(day.context(ledger))
        [opened] = ledger.contents(L.SWEEP_OPEN)
    assert all(0 < p < 1 for m in opened["markets"] for p in m["prices_at_sweep"])
    assert not any(m["prices_at_sweep"] == [0.5, 0.5] for m in opened["markets"])
    reasons = " | ".join(r["reason"] for r in opened["refused"])
    for expected in ("placeholder price", "no sellers", "spread", "favourite priced", "excluded topic",
                     "less than 30 minutes"):
        assert expected in reasons
    assert "Finish" not in opened["ask"] and "exactly one JSON object" in opened["ask"]


def test_a_day_is_swept_once(day: Day) -> None:
    with day.ledger() as ledger:
        first = run_sweep(day.context(ledger))
        day.clock.advance(timedelta(hours=2))
        again = run_sweep(day.context(ledger))
        assert len(ledger.contents(L.SWEEP_OPEN)) == 1
    assert again.sha256 == first.sha256 and again.forecasts == first.forecasts


def test_a_silent_agent_is_a_missing_forecast_not_an_incident(day: Day) -> None:
    with day.ledger() as ledger:
        result = run_sweep(day.context(ledger, with_modes(load_config(), claude={"mode": "silent"})))
        claude = next(r for r in ledger.contents(L.SWEEP_REPLY) if r["agent"] == "claude")
    assert result.status["claude"] == "failed" and claude["detail"] == "no valid forecasts"
    assert claude["report"]["found_object"] is False
