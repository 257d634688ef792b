"""The council statistics exactly as the paper defines them, each pinned to a hand computation.

Every expected value below is worked out by hand in the comment beside it (or taken from the paper's
text), never computed with the code under test.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import pytest

from league.scoring.consensus import Rules, consensus
from league.scoring.constants import BOOTSTRAP_SEED
from league.scoring.council import applied_weights, shadow_weights, shared_errors
from league.scoring.endpoint import primary_endpoint
from league.scoring.frame import council_rows, load_forecasts, scored_rows
from league.scoring.intervals import design_effect, equivalence_finding, n_eff, paired_gain, primary_verdict
from league.scoring.synthetic import synthetic_season


def _row(seat: str, p: float | str, *, asset: str = "SPX", session: str = "2026-01-05", up: bool = True,
         sealed: str = "13:00:00", horizon: str = "1d", **kw: Any) -> dict[str, str]:
    base = {c: "" for c in synthetic_season(1, ("a",)).columns}
    base.update({"run_id": f"{session}-r1", "session": session, "seat": seat, "status": "counted", "asset": asset,
                 "horizon": horizon, "prob_up": str(p), "ref": "100", "close": "101" if up else "99",
                 "run_role": "session_run", "line_kind": "issue", "same_event": "1", "cell_status": "elicited",
                 "sealed_at": f"{session}T{sealed}Z", "event_reference_at": f"{session}T14:30:00Z",
                 "event_id_v2": f"ev2-{asset}-{horizon}-{session}", "methodology_version": "m1"})
    base.update({k: str(v) for k, v in kw.items()})
    return base


# ------------------------------------------------------------------ design effect (the known bug)
def test_design_effect_is_total_at_the_exchangeable_bound() -> None:
    # k = 12, rho = -1/11: the denominator 1 + 11 * (-1/11) is 0; it used to raise ZeroDivisionError.
    assert design_effect(12, -1 / 11) == 12.0  # a negative ICC counts as none: 12 forecasts stay 12
    assert design_effect(12, -0.5) == 12.0
    assert design_effect(12, 0.2) == pytest.approx(3.75)  # paper §4.6: k = 12, rho = 0.2
    assert math.isnan(design_effect(12, float("nan")))


def test_n_eff_keeps_the_paper_formula_and_is_total() -> None:
    assert [round(n_eff(n, r), 2) for n, r in ((7, 0.505), (8, 0.64), (9, 0.379))] == [1.74, 1.46, 2.23]
    assert n_eff(2, -1.0) == math.inf  # two opposite seats: 1 + 1 * (-1) = 0, no finite count
    assert n_eff(3, -0.2) == pytest.approx(3 / 0.6)  # above the bound: the formula as written


# ------------------------------------------------------------------ all_wrong (§5.3)
def test_a_stated_50_does_not_answer_and_the_independent_expectation() -> None:
    # Event SPX (up): a 40, b 30, c 45, d 20 wrong; e says 50 -> 4 answering, all wrong -> all_wrong 1.
    # Event GOLD (up): a 60 right, b 30, c 45, d 20 wrong, e 70 right -> 5 answering, not all wrong.
    rows = [_row(s, p, asset="SPX") for s, p in zip("abcde", (40, 30, 45, 20, 50), strict=True)]
    rows += [_row(s, p, asset="GOLD") for s, p in zip("abcde", (60, 30, 45, 20, 70), strict=True)]
    council = council_rows(load_forecasts(rows))
    out = shared_errors(council, consensus(council))
    (day,) = out["per_horizon"]
    assert day["all_wrong"] == 1 and day["eligible"] == 2
    # Error rates on those two rows where each answered: a 1/2, b 1, c 1, d 1, e 0 (it answered GOLD only).
    # Expected all-wrong count = SPX: .5*1*1*1 + GOLD: .5*1*1*1*0 = 0.5.
    assert day["all_wrong_expected"] == pytest.approx(0.5)
    assert out["all_wrong_events"] == [{"session": "2026-01-05", "asset": "SPX", "horizon": "1d", "n": 4}]


# ------------------------------------------------------------------ verdicts (§4.6, §8)
def test_a_difference_needs_the_95_interval_to_exclude_zero() -> None:
    # The 90% interval excludes 0 but the 95% one does not: not a difference; |0.009| < 0.01 -> small estimate.
    assert equivalence_finding(0.009, 0.001, 0.018, lo95=-0.0005, hi95=0.02) == "small_estimate"
    assert equivalence_finding(0.02, 0.012, 0.03, lo95=0.005, hi95=0.035) == "difference"
    # No material difference only when the 90% interval lies inside +-0.01 (and the 95% one covers 0).
    assert equivalence_finding(0.001, -0.004, 0.006, lo95=-0.006, hi95=0.008) == "no_material_difference"
    assert equivalence_finding(0.03, -0.01, 0.07, lo95=-0.02, hi95=0.08) == "interval_too_wide"


def test_primary_verdicts_in_the_registered_order() -> None:
    confirmed_small = {"interval": {"lo": 0.002, "hi": 0.009}, "interval90": {"lo": 0.003, "hi": 0.008}}
    assert primary_verdict(confirmed_small) == "confirmed"  # keeps "confirmed", below the margin
    assert primary_verdict({"interval": {"lo": -0.001, "hi": 0.009}, "interval90": {"lo": -0.0005, "hi": 0.008}}) \
        == "no_material_difference"
    assert primary_verdict({"interval": {"lo": -0.02, "hi": 0.03}, "interval90": {"lo": -0.015, "hi": 0.025}}) \
        == "inconclusive"
    assert primary_verdict({"interval": {"lo": None}, "interval90": None}) is None


def test_the_registered_seed_and_a_confirmed_gain_below_the_margin() -> None:
    assert BOOTSTRAP_SEED == 20261102  # paper §8 and Appendix D
    gains = [0.004 + 0.001 * ((i % 3) - 1) for i in range(30)]  # mean 0.004, every value 0.003..0.005
    out = paired_gain(gains)
    assert out["interval"]["seed"] == 20261102
    assert out["finding"] == "difference" and out["smaller_than_margin"] is True


# ------------------------------------------------------------------ shadow consensus (§5.3)
def test_shadow_members_are_renormalised_with_trim_family_and_clamp() -> None:
    # p = 10 40 50 60 99 with seat weights 1 2 3 4 5; trim drops 10 and 99 -> b 40 (w 2), c 50 (w 3), d 60;
    # d is the family's second seat after b (sealed later) -> 4 * 1/3. Mean = (80 + 150 + 80) / (2 + 3 + 4/3)
    # = 310 * 3 / 19 = 48.947...
    rows = [_row(s, p, sealed=t) for s, p, t in zip("abcde", (10, 40, 50, 60, 99),
                                                      ("13:00:00", "13:01:00", "13:02:00", "13:03:00", "13:04:00"),
                                                      strict=True)]
    c = consensus(council_rows(load_forecasts(rows)), {"b": "lab", "d": "lab"}, Rules(),
                  {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5})
    assert c["p"].iloc[0] == pytest.approx(310 * 3 / 19)
    clamped = consensus(council_rows(load_forecasts([_row("a", 99), _row("b", 100)])), None, Rules(), {"a": 1, "b": 9})
    assert clamped["p"].iloc[0] == 98.0  # (99 + 900) / 10 = 99.9 -> clamp 98


def test_shadow_weights_floor_one_day_window_and_median_for_a_newcomer() -> None:
    # Window: one session, 1d, four markets. a and b move together (r = 1), c is their mirror (r = -1).
    # Mean correlation with the others: a (1 - 1)/2 = 0 -> floor 0.05 -> 20; b the same; c (-1 - 1)/2 = -1 -> 20.
    # x rises with a on three markets and falls on one: corr(a, x) computed by hand below.
    a = [20.0, 40.0, 60.0, 80.0]
    probs = {"a": a, "b": [x + 5 for x in a], "c": [100 - x for x in a]}
    markets = ["SPX", "NDX", "DJI", "SOX"]
    rows = [_row(s, p, asset=m) for s, ps in probs.items() for m, p in zip(markets, ps, strict=True)]
    rows += [_row("a", 50, asset="SPX", horizon="1w")]  # another horizon: not in the window's weights
    w = shadow_weights(council_rows(load_forecasts(rows)), ["2026-01-05"])
    assert w["weights"] == {"a": 20.0, "b": 20.0, "c": 20.0} and w["horizon"] == "1d"
    assert applied_weights(w["weights"], ["a", "z"]) == {"a": 20.0, "z": 20.0}  # z: median of 20, 20, 20
    assert applied_weights({"a": 2.0, "b": 4.0, "c": 10.0}, ["z"]) == {"z": 4.0}


# ------------------------------------------------------------------ primary endpoint (§8)
def _endpoint_cons(sessions: int) -> pd.DataFrame:
    days = [d.date().isoformat() for d in pd.bdate_range("2026-01-05", periods=sessions)]
    return pd.DataFrame([{"session": d, "asset": a, "horizon": "1d", "p": 70.0, "outcome": 1.0}
                         for d in days for a in ("SPX", "GOLD")])


def test_primary_endpoint_gain_window_and_sensitivity_by_hand() -> None:
    cons = _endpoint_cons(32)
    clim = {("SPX", "1d"): 55.0, ("GOLD", "1d"): 50.0}
    out = primary_endpoint(cons, clim, sorted(cons["session"].unique()))
    # SPX: (0.55 - 1)^2 - (0.70 - 1)^2 = 0.2025 - 0.09 = 0.1125; GOLD: 0.25 - 0.09 = 0.16; G_s = 0.13625.
    assert out["estimate"] == pytest.approx(0.13625) and out["sessions"] == 22  # sessions 11..32
    assert out["window"]["first_session"] == "2026-01-19"  # the 11th business day from 2026-01-05
    assert out["verdict"] == "confirmed" and out["smaller_than_margin"] is False
    assert out["bootstrap"] == {"method": "moving_block_bootstrap", "block": 5, "reps": 10000, "seed": 20261102,
                                "interval": "percentile"}
    assert out["sensitivity_exact_window"]["estimate"] == pytest.approx(0.1125)  # SPX alone


def test_primary_endpoint_needs_its_window() -> None:
    out = primary_endpoint(_endpoint_cons(10), {}, sorted(_endpoint_cons(10)["session"].unique()))
    assert out["sessions"] == 0 and out["verdict"] is None and "fewer than 11" in out["reason"]


# ------------------------------------------------------------------ new column names (Appendix C)
def test_appendix_c_values_and_the_earlier_names_read_alike() -> None:
    new = [_row("a", 70), _row("b", 40, run_role="earlier_run"), _row("c", 60, line_kind="correction")]
    old = [_row("a", 70, run_role="counted", line_kind="answer")]
    assert list(scored_rows(load_forecasts(new))["seat"]) == ["a"]  # b: another run; c: a correction row
    assert list(scored_rows(load_forecasts(old))["seat"]) == ["a"]


# ------------------------------------------------------------------ methodology segments (requirement 15)
def test_sealed_rules_are_read_and_segments_never_pool(clim_table: dict[str, Any]) -> None:
    from league.scoring.publish import build_all

    rows = [_row(s, p) for s, p in zip("abcd", (99, 97, 96, 95), strict=True)]
    rows += [_row(s, p, session="2026-01-06", methodology_version="m2") for s, p in zip("ab", (60, 80), strict=True)]
    files = build_all(load_forecasts(rows), clim_table,
                      methodologies={"m1": {"version": "m1", "consensus_clamp": [10, 90]}})
    stats = files["council-stats.json"]
    events = {e["session"]: e for e in stats["consensus"]["per_event"]}
    # m1 sealed a clamp of [10, 90]: the mean 96.75 is clamped to 90, not to the default 98.
    assert events["2026-01-05"]["p"] == 90.0 and events["2026-01-05"]["methodology_version"] == "m1"
    assert events["2026-01-06"]["p"] == 70.0 and events["2026-01-06"]["methodology_version"] == "m2"
    a_scores = [(s["methodology_version"], s["n"]) for s in stats["scores"] if s["seat"] == "a"]
    assert sorted(a_scores) == [("m1", 1), ("m2", 1)]  # one record per segment, never one of 2 rows
    assert [s["methodology_version"] for s in stats["segments"]] == ["m1", "m2"]
    assert stats["segments"][0]["clamp"] == [10.0, 90.0] and stats["segments"][1]["clamp"] == [2.0, 98.0]
