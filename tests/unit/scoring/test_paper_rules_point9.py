"""The paper's council rules that need a test of their own: the §5.2 table per run and horizon
(K, share of probabilities in 40-60, spread across seats), the N_eff interval from five counted runs
(§5.1) and the best earlier single seat (§4.5). Every expected value is worked in a comment.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import pytest

from league.scoring.council import run_horizon_table
from league.scoring.endpoint import best_earlier_seat
from league.scoring.frame import council_rows, load_forecasts
from league.scoring.publish import _n_eff_summary
from league.scoring.synthetic import synthetic_season


def _row(seat: str, p: float, asset: str) -> dict[str, str]:
    session = "2026-06-01"
    base = {c: "" for c in synthetic_season(1, ("a",)).columns}
    base.update({"run_id": f"{session}-r1", "session": session, "seat": seat, "status": "counted", "asset": asset,
                 "horizon": "1d", "prob_up": str(p), "ref": "100", "close": "101", "run_role": "session_run",
                 "line_kind": "issue", "same_event": "1", "cell_status": "elicited",
                 "sealed_at": f"{session}T13:00:00Z", "event_reference_at": f"{session}T14:30:00Z",
                 "event_id_v2": f"ev2-{asset}-{session}", "methodology_version": "m1"})
    return base


def test_the_run_horizon_table_by_hand() -> None:
    # SPX: a 70, b 60, c 50; NDX: a 30, b 40, c 55.
    probs = {"a": (70, 30), "b": (60, 40), "c": (50, 55)}
    rows = [_row(s, p, m) for s, ps in probs.items() for m, p in zip(("SPX", "NDX"), ps, strict=True)]
    (rec,) = run_horizon_table(council_rows(load_forecasts(rows)), [])
    assert (rec["n"], rec["cells"]) == (3, 6)
    # K = (2/6)(20 + 20 + 10 + 10 + 0 + 5) = 65/3
    assert rec["K"] == pytest.approx(65 / 3)
    # in [40, 60]: 60, 40, 50, 55 -> 4 of 6
    assert rec["share_40_60"] == pytest.approx(4 / 6)
    # population SD per market: SPX sqrt((100 + 0 + 100)/3); NDX mean 125/3, squares (35/3)² (5/3)² (40/3)²
    spx = math.sqrt(200 / 3)
    ndx = math.sqrt(((35 / 3) ** 2 + (5 / 3) ** 2 + (40 / 3) ** 2) / 3)
    assert rec["spread"] == pytest.approx((spx + ndx) / 2)


def test_the_n_eff_interval_needs_five_counted_runs() -> None:
    runs = [{"horizon": "1d", "n": 7, "rho": 0.5, "n_eff": float(v)} for v in (1, 2, 3, 4, 5)]
    (four,) = _n_eff_summary(runs[:4])
    assert four["interval"]["lo"] is None and four["interval"]["reason"] == "fewer than 5 counted runs"
    (five,) = _n_eff_summary(runs)
    # mean 3, SD sqrt(2.5), SE sqrt(2.5)/sqrt(5) = sqrt(0.5); t(0.975, 4) = 2.776445 (tables)
    half = 2.776445 * math.sqrt(0.5)
    assert five["interval"]["lo"] == pytest.approx(3 - half, abs=1e-5)
    assert five["interval"]["hi"] == pytest.approx(3 + half, abs=1e-5)
    assert five["interval"]["runs"] == 5 and five["mean_n_eff"] == 3.0


def _sessions(n: int) -> list[str]:
    return [d.date().isoformat() for d in pd.bdate_range("2026-06-01", periods=n)]


def test_the_best_earlier_seat_is_chosen_on_sessions_1_to_10_and_compared_on_11_on() -> None:
    days = _sessions(12)
    scored: list[dict[str, Any]] = []
    for i, day in enumerate(days):
        later = i >= 10
        # design window: A 0.10, B 0.20 (A is chosen); later sessions: A 0.30, B 0.01 (B is never re-picked)
        for seat, early_b, late_b in (("A", 0.10, 0.30), ("B", 0.20, 0.01)):
            scored.append({"horizon": "1d", "is_baseline": False, "session": day, "seat": seat,
                           "b": late_b if later else early_b, "event_key": f"SPX-{day}"})
        scored.append({"horizon": "1d", "is_baseline": True, "session": day, "seat": "_coin", "b": 0.0,
                       "event_key": f"SPX-{day}"})  # a baseline is never the best seat
    # the consensus says 60 on each later session; outcomes up then down: (0.4)² and (0.6)², mean 0.26
    cons = pd.DataFrame([{"horizon": "1d", "session": d, "event_key": f"SPX-{d}", "p": 60.0, "outcome": o}
                         for d, o in zip(days, [1.0] * 11 + [0.0], strict=True)])
    out = best_earlier_seat(pd.DataFrame(scored), cons, "1d", days)
    assert out["seat"] == "A" and out["events"] == 2
    assert out["choice_window"] == {"first": days[0], "last": days[9]}
    assert out["comparison_window"] == {"first": days[10], "last": days[11]}
    assert out["brier_seat"] == pytest.approx(0.30)
    assert out["brier_consensus"] == pytest.approx((0.16 + 0.36) / 2)
