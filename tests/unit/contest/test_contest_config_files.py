"""Configuration (rules frozen from season 2), the sealed files' bytes, sealed.json and metrics by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from league.contest.asks import SweptMarket
from league.contest.config import load_config, parse_config
from league.contest.errors import RulesFrozen
from league.contest.files import add_sealed, sealed_entry, sweep_document
from league.contest.metrics import betting_record, crowd_pick
from league.errors import ConfigError
from league.seatcore.files import dump_bytes


def test_default_config_is_the_four_agent_stand_in_roster() -> None:
    config = load_config()
    assert [a.agent for a in config.agents] == ["claude", "codex", "gemini", "grok"]
    assert config.stats.resamples == 2000 and config.rounds.stake == 100.0 and config.sweep.markets == 30
    assert config.eligibility.max_favourite == 0.85 and config.eligibility.rounds_per_day == 5


def test_season_one_may_change_rules_season_two_may_not() -> None:
    base = load_config().model_dump(mode="json")
    changed = {**base, "eligibility": {**base["eligibility"], "max_favourite": 0.9}}
    assert parse_config(changed, "x").eligibility.max_favourite == 0.9
    frozen = load_config().rules_sha256()
    ok = parse_config({**base, "season": 2, "frozen_rules_sha256": frozen}, "x")
    assert ok.season == 2
    with pytest.raises(RulesFrozen, match="the rules changed"):
        parse_config({**changed, "season": 2, "frozen_rules_sha256": frozen}, "x")
    with pytest.raises(RulesFrozen, match="no frozen_rules_sha256"):
        parse_config({**base, "season": 2}, "x")


def test_a_bad_key_names_file_and_key(tmp_path: Path) -> None:
    path = tmp_path / "contest.toml"
    path.write_text("[rounds]\nstake = -5\n")
    with pytest.raises(ConfigError, match=r"contest.toml: rounds.stake"):
        load_config(path)
    path.write_text("[rounds\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(path)


def test_sweep_document_has_the_reference_keys_and_bytes() -> None:
    m = SweptMarket("7", "Café ½?", ("Yes", "No"), (0.4, 0.6), "2026-12-08T00:00:00Z")
    doc = sweep_document(benchmark="b", date="2026-12-07", methodology_version="1.0", markets=[m],
                         forecasts=[{"agent": "z", "market_id": "7", "model": "m", "probabilities": {"Yes": 0.5}},
                                    {"agent": "a", "market_id": "7", "model": "m", "probabilities": {"No": 0.5}}])
    data = dump_bytes(doc)
    assert data == json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False).encode("utf-8")
    assert "Café ½?".encode() in data and not data.endswith(b"\n")
    assert [f["agent"] for f in doc["forecasts"]] == ["a", "z"]
    assert doc["markets"] == [{"id": "7", "question": "Café ½?", "outcomes": ["Yes", "No"],
                               "prices_at_sweep": [0.4, 0.6], "closes": "2026-12-08T00:00:00Z"}]


def test_sealed_list_is_newest_first_and_never_overwritten(tmp_path: Path) -> None:
    add_sealed(tmp_path, sealed_entry("2026-12-06", "a" * 64, 3, 1.0))
    add_sealed(tmp_path, sealed_entry("2026-12-07", "b" * 64, 4, 2.0))
    listed = add_sealed(tmp_path, sealed_entry("2026-12-07", "c" * 64, 9, 3.0))
    assert [(e["date"], e["sha256"][0]) for e in listed] == [("2026-12-07", "b"), ("2026-12-06", "a")]
    assert json.loads((tmp_path / "sealed.json").read_text()) == listed
    assert set(listed[0]) == {"date", "sha256", "file", "forecasts", "sealed_at"}


def test_crowd_pick_is_the_favourite_at_its_price() -> None:
    assert crowd_pick(["A", "B"], [0.625, 0.375], "A", 100.0) == {"outcome": "A", "price": 0.625, "won": True,
                                                                   "pnl": 60.0}
    assert crowd_pick(["A", "B"], [0.625, 0.375], "B", 100.0)["pnl"] == -100.0
    assert crowd_pick(["A", "B"], [0.5, 0.5], "B", 100.0)["outcome"] is None  # a tie: no pick


def _round(rid: int, winner: str | None, entries: list[dict[str, object]], excluded: list[str]) -> dict[str, object]:
    return {"round_id": rid, "state": "resolved" if winner else "running", "winner": winner, "excluded": excluded,
            "entries": entries, "crowd": crowd_pick(["Y", "N"], [0.6, 0.4], winner, 100.0)}


def _e(agent: str, outcome: str | None, price: float = 0.5, spent: float = 100.0,
       pnl: float = 0.0) -> dict[str, object]:
    return {"agent": agent, "outcome": outcome, "avg_price": price, "stake_filled": spent if outcome else None,
            "pnl": pnl if outcome else 0.0}


def test_betting_record_by_hand() -> None:
    rounds = [
        _round(1, "Y", [_e("a", "Y", 0.5, 100, 100.0), _e("b", "N", 0.4, 100, -100.0)], []),
        _round(2, "N", [_e("a", "Y", 0.6, 50, -50.0), _e("b", None)], []),
        _round(3, "N", [_e("a", "N", 0.4, 100, 150.0), _e("b", "N", 0.4, 100, 150.0)], ["debut"]),
        _round(4, None, [_e("a", "N"), _e("b", "N")], []),
        _round(5, "Y", [_e("a", "Y", 0.5, 100, 100.0)], ["pre-season", "high-stakes"]),
    ]
    record = betting_record(rounds, [{"round_id": 6, "reason": "infra"}], [("a", "A"), ("b", "B")])
    assert record["rounds_counted"] == 2
    assert record["rounds_excluded"] == {"debut": 1, "infra": 1, "pre-season": 1}
    a, b = record["agents"]
    assert (a["agent"], a["played"], a["wins"], a["losses"], a["net_pnl"], a["staked"]) == ("a", 2, 1, 1, 50.0, 150.0)
    assert a["roi"] == pytest.approx(0.3333) and a["avg_entry"] == 0.55 and a["rank"] == 1
    assert (b["played"], b["wins"], b["losses"], b["no_bets"], b["net_pnl"], b["rank"]) == (2, 0, 1, 1, -100.0, 2)
    # crowd: round 1 favourite Y at 0.6 wins 66.67; round 2 Y loses 100
    assert record["crowd"] == {"name": "The Crowd", "played": 2, "wins": 1, "losses": 1, "net_pnl": -33.33}
