"""The stand-alone recount's rules (docs/protocol.md §6) against hand computations, and the league's own."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pandas as pd
import pytest

from league.scoring.consensus import Rules, consensus

TOOL = Path(__file__).parents[3] / "league" / "verify" / "tools" / "recount_consensus.py"
RULE = {"clamp": (2.0, 98.0), "trim_from": 5, "family_weight": 1.0 / 3.0}
# seal order A, B, C, D, E; families X, X, Y, Z, W; two tied lows (40) and two tied highs (70)
ANSWERS = [("A", 60.0, "X"), ("B", 70.0, "X"), ("C", 40.0, "Y"), ("D", 70.0, "Z"), ("E", 40.0, "W")]


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("recount_consensus", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_trim_ties_and_family_weight_by_hand(tool: ModuleType) -> None:
    """Trim drops C (first of the tied 40s) and D (last of the tied 70s); B is X's second seat (1/3):
    (60 + 70/3 + 40) / (1 + 1/3 + 1) = 370/7."""
    answers = [{"seat": s, "p": p} for s, p, _ in ANSWERS]
    got = tool.consensus(answers, {s: f for s, _, f in ANSWERS}, RULE)
    assert got["p"] == pytest.approx(370 / 7, abs=1e-12)
    assert (got["n"], got["n_used"]) == (5, 3)
    mean = 370 / 7
    disp = (((60 - mean) / 100) ** 2 + ((70 - mean) / 100) ** 2 / 3 + ((40 - mean) / 100) ** 2) / (7 / 3)
    assert got["dispersion"] == pytest.approx(disp, abs=1e-15)


def test_the_league_consensus_gives_the_same_hand_value() -> None:
    rows = pd.DataFrame([{"run_id": "r1", "unit": "s1", "event_key": "e1", "seat": s, "p": p,
                          "sealed_at": f"2026-06-01T12:3{i}:00Z", "asset": "SPX", "horizon": "1d",
                          "session": "s1", "outcome": 1.0, "h_sessions": 1} for i, (s, p, _) in enumerate(ANSWERS)])
    out = consensus(rows, {s: f for s, _, f in ANSWERS}, Rules())
    assert float(out["p"].iloc[0]) == pytest.approx(370 / 7, abs=1e-12)


def test_clamp_and_fewer_than_five_answers_keep_all(tool: ModuleType) -> None:
    got = tool.consensus([{"seat": "a", "p": 99.0}, {"seat": "b", "p": 100.0}], {}, RULE)
    assert (got["p"], got["p_mean"], got["n_used"]) == (98.0, 99.5, 2)


def test_n_eff_by_hand(tool: ModuleType) -> None:
    """r(A,B) = 1, r(A,C) = r(B,C) = -1: rho = -1/3, N_eff = 3 / (1 + 2(-1/3)) = 9."""
    cells = {"A": {"m1": 60.0, "m2": 70.0, "m3": 80.0}, "B": {"m1": 60.0, "m2": 70.0, "m3": 80.0},
             "C": {"m1": 80.0, "m2": 70.0, "m3": 60.0}}
    got = tool.n_eff(cells)
    assert got["n"] == 3 and got["rho"] == pytest.approx(-1 / 3) and got["n_eff"] == pytest.approx(9.0)
    two_markets = {"A": {"m1": 60.0, "m2": 70.0}, "B": {"m1": 61.0, "m2": 72.0}}
    assert tool.n_eff(two_markets) == {"n": 2, "rho": None, "n_eff": None}  # fewer than 3 common markets
