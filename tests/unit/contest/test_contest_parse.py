"""The strict sweep parser: every rule of bench.md, and what it reports."""

from __future__ import annotations

import json

import pytest

from league.contest.asks import SweptMarket
from league.contest.parse import last_forecasts_object, parse_sweep

BIN = SweptMarket("m1", "Will it rain?", ("Yes", "No"), (0.4, 0.6), "2026-12-08T00:00:00Z")
TRI = SweptMarket("m2", "Who wins?", ("Aster", "Borealis", "Cobalt"), (0.5, 0.3, 0.2), "2026-12-09T00:00:00Z")
MARKETS = [BIN, TRI]


def answer(*rows: dict[str, object]) -> str:
    return json.dumps({"forecasts": list(rows)})


def test_last_valid_object_wins_over_drafts_and_broken_tails() -> None:
    draft = answer({"id": "m1", "probabilities": {"Yes": 0.9, "No": 0.1}})
    final = answer({"id": "m1", "probabilities": {"Yes": 0.2, "No": 0.8}})
    text = f"thinking... {draft}\nmore thought\n{final}\n and then a broken one: {{\"forecasts\": [{{\"id\""
    got = parse_sweep(text, MARKETS, 0.05)
    assert got.found_object and got.forecasts["m1"] == {"Yes": 0.2, "No": 0.8}
    assert got.missing == ["m2"]


def test_no_object_is_reported_not_guessed() -> None:
    got = parse_sweep("I think Yes is 70%.", MARKETS, 0.05)
    assert not got.found_object and got.forecasts == {} and got.missing == ["m1", "m2"]
    assert last_forecasts_object('{"forecasts": {"not": "a list"}}') is None


def test_labels_case_insensitive_and_percent() -> None:
    text = answer({"id": "m2", "probabilities": {"aster": 50, " BOREALIS ": 30, "cobalt": 20}})
    got = parse_sweep(text, MARKETS, 0.05)
    assert got.forecasts["m2"] == {"Aster": 0.5, "Borealis": 0.3, "Cobalt": 0.2}


def test_one_means_certainty_not_one_percent() -> None:
    got = parse_sweep(answer({"id": "m1", "probabilities": {"Yes": 1, "No": 0}}), MARKETS, 0.05)
    assert got.forecasts["m1"] == {"Yes": 0.99, "No": 0.01}  # clamped, then renormalised (sum already 1)


def test_binary_complement_from_one_side() -> None:
    got = parse_sweep(answer({"id": "m1", "probabilities": {"no": "35"}}), MARKETS, 0.05)
    assert got.forecasts["m1"] == {"Yes": 0.65, "No": 0.35}


def test_missing_outcome_of_a_multi_outcome_market_drops_it() -> None:
    got = parse_sweep(answer({"id": "m2", "probabilities": {"Aster": 0.6, "Borealis": 0.4}}), MARKETS, 0.05)
    assert "m2" not in got.forecasts and "missing outcomes ['Cobalt']" in got.dropped["m2"]


def test_renormalise_within_tolerance_refuse_beyond() -> None:
    near = parse_sweep(answer({"id": "m1", "probabilities": {"Yes": 0.52, "No": 0.52}}), MARKETS, 0.05)
    assert near.forecasts["m1"] == {"Yes": 0.5, "No": 0.5}
    far = parse_sweep(answer({"id": "m1", "probabilities": {"Yes": 0.7, "No": 0.7}}), MARKETS, 0.05)
    assert "m1" not in far.forecasts and "sum to 1.4000" in far.dropped["m1"]


def test_clamp_applies_after_the_sum_check() -> None:
    got = parse_sweep(answer({"id": "m2", "probabilities": {"Aster": 1.0, "Borealis": 0, "Cobalt": 0}}), MARKETS, 0.05)
    assert got.forecasts["m2"] == pytest.approx({"Aster": 0.99 / 1.01, "Borealis": 0.01 / 1.01,
                                                 "Cobalt": 0.01 / 1.01}, abs=1e-6)


@pytest.mark.parametrize("probs,reason", [
    ({"Yes": 0.5, "Maybe": 0.5}, "unknown outcome 'Maybe'"),
    ({"Yes": 0.5, "yes": 0.5}, "given twice"),
    ({"Yes": -0.1, "No": 1.1}, "not a number in [0, 1]"),
    ({"Yes": 150, "No": 0}, "not a number in [0, 1]"),
    ({"Yes": True, "No": False}, "not a number"),
    ({"Yes": "high", "No": 0.2}, "not a number"),
    ({"Yes": None, "No": 0.2}, "not a number"),
])
def test_bad_values_drop_the_market_with_a_reason(probs: dict[str, object], reason: str) -> None:
    got = parse_sweep(answer({"id": "m1", "probabilities": probs}), MARKETS, 0.05)
    assert "m1" not in got.forecasts and reason in got.dropped["m1"]


def test_unknown_ids_and_malformed_entries_are_ignored_and_listed() -> None:
    text = answer({"id": "zzz", "probabilities": {"Yes": 1}}, "junk", {"id": "m1"},
                  {"id": 1, "probabilities": {}})
    got = parse_sweep(text, MARKETS, 0.05)
    assert got.forecasts == {} and len(got.ignored) == 4 and got.missing == ["m1", "m2"]


def test_a_market_given_twice_is_refused() -> None:
    row = {"id": "m1", "probabilities": {"Yes": 0.5, "No": 0.5}}
    got = parse_sweep(answer(row, row), MARKETS, 0.05)
    assert got.dropped == {"m1": "market given twice"}
