"""Consensus rules, N_eff and its companions, shared errors and sides on hand-built rows."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from league.scoring.consensus import consensus
from league.scoring.council import n_eff_table, seat_value, shared_errors, sides
from league.scoring.frame import council_rows, load_forecasts
from league.scoring.synthetic import synthetic_season


def _row(seat: str, p: float | str, *, asset: str = "SPX", run: str = "r1", session: str = "2026-01-05",
         sealed: str = "13:00:00", up: bool = True, **kw: Any) -> dict[str, str]:
    base = {c: "" for c in synthetic_season(1, ("a",)).columns}
    base.update({"run_id": run, "session": session, "seat": seat, "status": "counted", "asset": asset,
                 "horizon": "1d", "prob_up": str(p), "ref": "100", "close": "101" if up else "99",
                 "run_role": "counted", "line_kind": "answer", "same_event": "1", "cell_status": "elicited",
                 "sealed_at": f"{session}T{sealed}Z", "event_reference_at": f"{session}T14:30:00Z",
                 "event_id_v2": f"ev2-{asset}-{session}"})
    base.update(kw)
    return base


def _cons(rows: list[dict[str, str]], families: dict[str, str] | None = None) -> pd.DataFrame:
    return consensus(council_rows(load_forecasts(rows)), families)


def test_trim_at_five_answers_drops_lowest_and_highest() -> None:
    c = _cons([_row(s, p) for s, p in zip("abcde", [10, 40, 50, 60, 99], strict=True)])
    assert c["p"].iloc[0] == pytest.approx(50.0) and c["n"].iloc[0] == 5 and c["n_used"].iloc[0] == 3


def test_four_answers_are_not_trimmed_and_clamp_applies() -> None:
    c = _cons([_row(s, 100) for s in "abcd"])
    assert c["p_mean"].iloc[0] == 100.0 and c["p"].iloc[0] == 98.0


def test_family_second_seat_weighs_a_third() -> None:
    rows = [_row("a1", 80, sealed="13:00:00"), _row("a2", 20, sealed="13:05:00"), _row("b", 50)]
    c = _cons(rows, {"a1": "lab", "a2": "lab"})
    assert c["p"].iloc[0] == pytest.approx((80 + 50 + 20 / 3) / (2 + 1 / 3))


def test_answers_after_the_reference_and_baselines_are_left_out() -> None:
    rows = [_row("a", 60), _row("b", 70), _row("late", 5, sealed="14:31:00"), _row("_coin", 50)]
    c = _cons(rows)
    assert c["p"].iloc[0] == pytest.approx(65.0) and c["n"].iloc[0] == 2


def _run_rows(probs: dict[str, list[float]], run: str = "r1") -> list[dict[str, str]]:
    assets = ["SPX", "NDX", "DJI", "SOX", "TNX", "DXY"]
    return [_row(seat, p, asset=a, run=run) for seat, ps in probs.items() for a, p in zip(assets, ps, strict=True)]


def test_n_eff_perfectly_correlated_seats_count_once() -> None:
    base = [30.0, 40.0, 55.0, 60.0, 70.0, 80.0]
    rows = _run_rows({"a": base, "b": [x + 5 for x in base], "c": [(x + 10) / 2 for x in base]})
    (rec,) = n_eff_table(council_rows(load_forecasts(rows)))
    assert rec["n"] == 3 and rec["rho"] == pytest.approx(1.0) and rec["n_eff"] == pytest.approx(1.0)
    assert rec["participation_ratio"] == pytest.approx(1.0) and rec["top_eigen_share"] == pytest.approx(1.0)


def test_n_eff_matches_numpy_corrcoef_and_one_per_group_drops_duplicates() -> None:
    rng = np.random.default_rng(5)
    probs = {s: list(rng.integers(10, 90, 6).astype(float)) for s in "abcd"}
    (rec,) = n_eff_table(council_rows(load_forecasts(_run_rows(probs))))
    m = np.corrcoef(np.array(list(probs.values())))
    rho = m[np.triu_indices(4, 1)].mean()
    assert rec["rho"] == pytest.approx(rho) and rec["n_eff"] == pytest.approx(4 / (1 + 3 * rho))
    keep = [0, 3, 4, 5]  # SPX SOX TNX DXY: NDX and DJI dropped
    m2 = np.corrcoef(np.array(list(probs.values()))[:, keep])
    assert rec["rho_one_per_group"] == pytest.approx(m2[np.triu_indices(4, 1)].mean())
    dev = np.array(list(probs.values())) - 50
    cos = (dev @ dev.T) / np.sqrt(np.outer((dev**2).sum(1), (dev**2).sum(1)))
    assert rec["rho_uncentred"] == pytest.approx(cos[np.triu_indices(4, 1)].mean())


def test_all_wrong_and_minority_right() -> None:
    rows = [_row(s, p, asset="SPX", up=False) for s, p in zip("abcd", [60, 70, 80, 65], strict=True)]
    rows += [_row(s, p, asset="NDX", up=True) for s, p in zip("abcd", [40, 45, 30, 70], strict=True)]
    rows += [_row(s, p, asset="DJI", up=False) for s, p in zip("abcd", [60, 70, 80, 50], strict=True)]
    df = council_rows(load_forecasts(rows))
    out = shared_errors(df, consensus(df))
    (h,) = out["per_horizon"]
    assert h["all_wrong"] == 1 and out["all_wrong_events"][0]["asset"] == "SPX"
    # NDX: consensus 46.25 (wrong), seat d right -> minority_right; SPX: nobody right; DJI: a 50 is neither.
    assert h["minority_right"] == 1


def test_seat_value_is_consensus_brier_without_minus_with() -> None:
    rows = [_row("a", 70), _row("b", 60), _row("c", 20)]
    df = council_rows(load_forecasts(rows))
    vals = {v["seat"]: v for v in seat_value(df, None, consensus(df))}
    with_all = (0.5 - 1) ** 2
    assert vals["c"]["brier_with"] == pytest.approx(with_all)
    assert vals["c"]["brier_without"] == pytest.approx((0.65 - 1) ** 2)
    assert vals["c"]["value"] == pytest.approx((0.65 - 1) ** 2 - with_all)


def test_sides_permutation_detects_a_real_split() -> None:
    rng = np.random.default_rng(9)
    rows = []
    for k in range(20):
        up = bool(k % 2)
        for s in ("u1", "u2", "u3", "c1", "c2", "c3"):
            shift = 30 if s.startswith("u") and k == 7 else 0
            rows.append(_row(s, float(np.clip(50 + shift + rng.normal(0, 3), 1, 99)), asset="SPX",
                             run=f"r{k}", session=f"2026-02-{k + 1:02d}", up=up))
    df = council_rows(load_forecasts(rows))
    (res,) = sides(df, {s: "us" if s.startswith("u") else "cn" for s in ("u1", "u2", "u3", "c1", "c2", "c3")})
    assert res["splits"] == 20 and abs(res["largest_gap"]) > 20
    assert res["p_value"] == pytest.approx(2 / 20)  # only the split and its mirror reach the gap
    assert res["largest_gap_cell"]["session"] == "2026-02-08" and res["gap_owner"] is None


def test_second_wave_answers_pool_with_the_first_run_of_the_session() -> None:
    rows = [_row("a", 60, run="d-r1"), _row("b", 70, run="d-r1"), _row("c", 80, run="d-r2", sealed="14:00:00")]
    rows += [_row(s, p, asset="NDX", run=r) for s, p, r in (("a", 40, "d-r1"), ("b", 45, "d-r1"), ("c", 30, "d-r2"))]
    rows += [_row(s, p, asset="DJI", run=r) for s, p, r in (("a", 55, "d-r1"), ("b", 50, "d-r1"), ("c", 65, "d-r2"))]
    df = council_rows(load_forecasts(rows))
    c = consensus(df)
    assert len(c) == 3 and set(c["n"]) == {3}
    assert c.set_index("asset").loc["SPX", "p"] == pytest.approx(70.0)
    (rec,) = n_eff_table(df)
    assert rec["n"] == 3 and rec["run_ids"] == ["d-r1", "d-r2"] and rec["run_id"] == "d-r1"
    # the descriptive all-runs series keeps the runs apart
    per_run = n_eff_table(council_rows(load_forecasts(rows), counted_only=False))
    assert sorted((r["run_id"], r["n"]) for r in per_run) == [("d-r1", 2), ("d-r2", 1)]


def _panel(n_sessions: int, seed: int = 4) -> list[dict[str, str]]:
    """Three seats sharing one view, one seat with its own: many sessions of six markets."""
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(n_sessions):
        day = f"2026-03-{k + 1:02d}" if k < 31 else f"2026-04-{k - 30:02d}"
        for a in ("SPX", "NDX", "DJI", "SOX", "TNX", "DXY"):
            view, own = rng.normal(0, 12), rng.normal(0, 12)
            up = bool(rng.random() < 0.5)
            for s in ("h1", "h2", "h3"):
                rows.append(_row(s, float(np.clip(50 + view + rng.normal(0, 2), 1, 99)), asset=a, run=day,
                                 session=day, up=up))
            rows.append(_row("solo", float(np.clip(50 - view + own, 1, 99)), asset=a, run=day, session=day, up=up))
    return rows


def test_shadow_weights_favour_the_distinct_seat_and_are_sealed() -> None:
    from league.scoring.council import check_shadow_weights, shadow_consensus, shadow_weights, window_sessions
    from league.scoring.errors import ScoringError

    df = council_rows(load_forecasts(_panel(25)))
    w = shadow_weights(df, window_sessions(df, 1, 20))
    assert w["window"]["sessions"] == 20 and w["weights"]["solo"] > 3 * w["weights"]["h1"]
    assert w["weights"]["solo"] == pytest.approx(1 / 0.05)  # its mean correlation is below the floor
    assert check_shadow_weights(w) is w
    tampered = {**w, "weights": {**w["weights"], "solo": 1.0}}
    with pytest.raises(ScoringError):
        check_shadow_weights(tampered)
    scored = shadow_consensus(df, consensus(df), w)
    assert scored["events"] == 5 * 6  # only the sessions after the freeze window


def test_distinctiveness_separates_the_contrarian() -> None:
    from league.scoring.council import distinctiveness

    df = council_rows(load_forecasts(_panel(10)))
    d = {x["seat"]: x for x in distinctiveness(df)}
    assert d["h1"]["mean_corr_with_others"] > 0.3 > d["solo"]["mean_corr_with_others"]
    assert d["h1"]["agree_with_majority"] > 0.9 and d["solo"]["agree_with_majority"] < 0.4
