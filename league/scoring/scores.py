"""Per-seat scores with their baselines, intervals, calibration and gains (scoring.md §1-§4).

Everything is computed on the rows that enter the stated-probability score
(:func:`league.scoring.frame.scored_rows`); baselines are recomputed on exactly those rows so that
every skill score compares like with like.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

import numpy as np
import pandas as pd

from league.jsonvalue import JsonObject
from league.scoring import baselines, brier, calibration, intervals
from league.scoring.constants import BOOTSTRAP_SEED, CALIB_MIN, EQUIV_MARGIN, RANK_MIN_FORECASTS, RANK_MIN_SESSIONS
from league.scoring.intervals import Box, Gain


class SeatScore(TypedDict):
    """One seat's scores at one horizon, as published in ``council-stats.json`` ``scores`` (read again
    by the league table, the equivalence rows and the power figures)."""

    seat: str
    horizon: str
    baseline_seat: bool
    brier: float
    n: int
    sessions: int
    in_table: bool
    interval: Box
    brier_ex_draw: float
    n_ex_draw: int
    dropped_draw: int
    bss_ex_draw: dict[str, float | None]
    bss: dict[str, float | int | None]
    references: dict[str, float | None]
    murphy: dict[str, float]
    sharpness: dict[str, float]
    hit_rate: float | None
    gain_vs_climatology: Gain
    power_brier: float | None


def with_references(rows: pd.DataFrame, df: pd.DataFrame, clim: Mapping[tuple[str, str], float],
                    clim_ex_draw: Mapping[tuple[str, str], float] | None = None) -> pd.DataFrame:
    """Attach each reference's probability and every per-row Brier to the scored rows (a shallow copy:
    copy-on-write keeps the new columns off ``rows``, and no column of it is copied)."""
    r = rows.copy(deep=False)
    r["q_coin"] = baselines.coin(r)
    r["q_clim"] = baselines.climatology(r, clim)
    r["q_clim_ex"] = baselines.climatology(r, clim_ex_draw if clim_ex_draw is not None else clim)
    r["b_clim_ex"] = brier.brier(r["q_clim_ex"], r["outcome"])
    r["q_mom"] = baselines.momentum(r, df)
    r["b"] = brier.brier(r["p"], r["outcome"])
    for name in ("coin", "clim", "mom"):
        r[f"b_{name}"] = brier.brier(r[f"q_{name}"], r["outcome"])
    return r


def eligible(n: int, sessions: int) -> bool:
    """The 30/10 rule: >= 30 resolved forecasts over >= 10 sessions (each with at least one)."""
    return n >= RANK_MIN_FORECASTS and sessions >= RANK_MIN_SESSIONS


def session_sums(g: pd.DataFrame, column: str) -> tuple[np.ndarray, np.ndarray]:
    """Per session (in date order): sum of ``column`` and its row count."""
    agg = g.groupby("session", sort=True)[column].agg(["sum", "count"])
    return agg["sum"].to_numpy(dtype=float), agg["count"].to_numpy(dtype=float)


def seat_horizon(seat: str, horizon: str, g: pd.DataFrame, h_sessions: int,
                 seed: int = BOOTSTRAP_SEED) -> SeatScore:
    """Every score of one seat at one horizon."""
    n, sessions = len(g), int(g["session"].nunique())
    b = float(g["b"].mean())
    ex, kept, dropped = brier.brier_ex_draw(g["p"], g["outcome"], g["draw_flag"])
    no_draw = g.loc[g["draw_flag"] != 1.0]
    mom = g.loc[g["q_mom"].notna()]
    s, c = session_sums(g, "b")
    gain = _gain(g, h_sessions, seed)
    return {
        "seat": seat, "horizon": horizon, "baseline_seat": seat.startswith("_"),
        "brier": b, "n": n, "sessions": sessions, "in_table": eligible(n, sessions),
        "interval": intervals.score_interval(s, c, h_sessions),
        "brier_ex_draw": ex, "n_ex_draw": kept, "dropped_draw": dropped,
        "bss_ex_draw": {"coin": brier.bss(ex, float(no_draw["b_coin"].mean())) if kept else None,
                        "climatology_ex_draw": brier.bss(ex, float(no_draw["b_clim_ex"].mean())) if kept else None},
        "bss": {"coin": brier.bss(b, float(g["b_coin"].mean())), "climatology": brier.bss(b, float(g["b_clim"].mean())),
                "momentum": brier.bss(float(mom["b"].mean()), float(mom["b_mom"].mean())) if len(mom) else None,
                "momentum_rows": len(mom)},
        "references": {"coin": float(g["b_coin"].mean()), "climatology": float(g["b_clim"].mean()),
                       "momentum": float(mom["b_mom"].mean()) if len(mom) else None},
        "murphy": brier.murphy(g["p"], g["outcome"]),
        "sharpness": {"K": brier.sharpness(g["p"]), "K_clim": brier.sharpness(g["p"], g["q_clim"])},
        "hit_rate": hit_rate(g["p"], g["outcome"]),
        "gain_vs_climatology": gain,
        "power_brier": intervals.power_brier(gain["sd"]) if gain["sd"] else None,
    }


def hit_rate(p: pd.Series, outcome: pd.Series) -> float | None:
    """Share right among directional forecasts; a stated 50 supports neither side."""
    d = p != 50
    if not d.any():
        return None
    return float((((p > 50) & (outcome == 1)) | ((p < 50) & (outcome == 0)))[d].mean())


def _gain(g: pd.DataFrame, h_sessions: int, seed: int = BOOTSTRAP_SEED) -> Gain:
    """Paired per-session gain over climatology: ``G_s = mean_e[(q-y)^2 - (p-y)^2]``."""
    per = (g["b_clim"] - g["b"]).groupby(g["session"], sort=True).mean()
    return intervals.paired_gain(per.to_numpy(dtype=float), h_sessions, seed=seed)


def seat_scores(r: pd.DataFrame, seed: int = BOOTSTRAP_SEED) -> list[SeatScore]:
    """One record per seat and horizon, in horizon then seat order."""
    return [seat_horizon(str(seat), str(horizon), g, int(g["h_sessions"].iloc[0]), seed)
            for (horizon, seat), g in r.groupby(["horizon", "seat"], sort=True)]


def reference_scores(r: pd.DataFrame) -> list[JsonObject]:
    """Coin, climatology and momentum recomputed on every scored event (one row per event)."""
    ev = r.drop_duplicates("event_key")
    out: list[JsonObject] = []
    for horizon, g in ev.groupby("horizon", sort=True):
        mom = g.loc[g["q_mom"].notna()]
        out.append({"horizon": str(horizon), "events": len(g), "coin": float(g["b_coin"].mean()),
                    "climatology": float(g["b_clim"].mean()),
                    "momentum": float(mom["b_mom"].mean()) if len(mom) else None, "momentum_events": len(mom)})
    return out


def equivalence_rows(scores: list[SeatScore]) -> list[JsonObject]:
    """The equivalence findings (margin +-0.01 Brier) of each seat's gain over climatology."""
    out: list[JsonObject] = []
    for s in scores:
        gain = s["gain_vs_climatology"]
        i90 = gain["interval90"]
        out.append({"seat": s["seat"], "horizon": s["horizon"], "reference": "climatology", "margin": EQUIV_MARGIN,
                    "estimate": gain["mean"], "lo90": i90["lo"] if i90 else None, "hi90": i90["hi"] if i90 else None,
                    "lo95": gain["interval"]["lo"], "hi95": gain["interval"]["hi"],
                    "finding": gain["finding"] or "no_interval",
                    "smaller_than_margin": gain.get("smaller_than_margin")})
    return out


def calibration_tables(r: pd.DataFrame, who: str = "seat",
                       min_count: int = CALIB_MIN) -> tuple[list[JsonObject], list[JsonObject]]:
    """Folded bins and logistic fits per ``who`` (seat or consensus) and horizon."""
    bins: list[JsonObject] = []
    fits: list[JsonObject] = []
    for (horizon, name), g in r.groupby(["horizon", who], sort=True):
        binned = calibration.calibration_bins(g["p"], g["outcome"], min_count)
        bins.append({who: str(name), "horizon": str(horizon), "bins": binned})
        fits.append({who: str(name), "horizon": str(horizon),
                     **calibration.logistic_calibration(g["p"], g["outcome"], g["session"])})
    return bins, fits


def design_effects(r: pd.DataFrame) -> list[JsonObject]:
    """Per horizon: within-session correlation of council Brier scores (one-way ICC by seat-session)."""
    out: list[JsonObject] = []
    council = r.loc[~r["is_baseline"]]
    for horizon, g in council.groupby("horizon", sort=True):
        rho, k = icc(g["b"].to_numpy(dtype=float), (g["seat"] + "|" + g["session"]).to_numpy())
        out.append({"horizon": str(horizon), "k": k, "rho": rho,
                    "design_effect": intervals.design_effect(round(k), rho) if rho is not None else None})
    return out


def icc(values: np.ndarray, groups: np.ndarray) -> tuple[float | None, float]:
    """One-way ANOVA intraclass correlation and mean group size."""
    codes, inv = np.unique(groups, return_inverse=True)
    counts = np.bincount(inv).astype(float)
    if codes.size < 2 or values.size <= codes.size:
        return None, float(counts.mean()) if counts.size else 0.0
    means = np.bincount(inv, weights=values) / counts
    grand = values.mean()
    msb = (counts * (means - grand) ** 2).sum() / (codes.size - 1)
    msw = ((values - means[inv]) ** 2).sum() / (values.size - codes.size)
    k0 = (values.size - (counts**2).sum() / values.size) / (codes.size - 1)
    denom = msb + (k0 - 1) * msw
    return (float((msb - msw) / denom) if denom > 0 else None), float(counts.mean())
