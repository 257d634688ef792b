"""Directional calibration bins and logistic calibration with session-clustered errors (§3).

The logistic fit's variance is left to statsmodels (cluster-robust by session) rather than written
by hand: the twelve markets of one session are not independent and a hand-rolled sandwich is an
easy place for a quiet mistake.
"""

from __future__ import annotations

import warnings
from typing import Protocol

import numpy as np
import numpy.typing as npt
import pandas as pd
import statsmodels.api as sm
from statsmodels.tools.sm_exceptions import PerfectSeparationError, PerfectSeparationWarning

from league.jsonvalue import Json, JsonObject
from league.scoring.constants import CALIB_EDGES, CALIB_MIN

LOGIT_CLIP = 0.5  # percent: 0 and 100 are legal answers but have no finite logit


class _Fit(Protocol):
    """What the calibration reads of statsmodels' fitted logit: the coefficients and their standard errors."""

    @property
    def params(self) -> npt.NDArray[np.float64]: ...

    @property
    def bse(self) -> npt.NDArray[np.float64]: ...


def fold(p_pct: npt.ArrayLike, outcome: npt.ArrayLike) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Fold to the side supported: p < 50 becomes 100 - p with the outcome flipped; 50 is dropped."""
    p = np.asarray(p_pct, dtype=float)
    o = np.asarray(outcome, dtype=float)
    keep = p != 50.0
    p, o = p[keep], o[keep]
    low = p < 50.0
    return np.where(low, 100.0 - p, p), np.where(low, 1.0 - o, o)


def calibration_bins(p_pct: npt.ArrayLike, outcome: npt.ArrayLike, min_count: int = CALIB_MIN) -> list[Json]:
    """Bins [50,60) [60,70) [70,80) [80,100]; mean stated and realised share shown from ``min_count``."""
    fp, fo = fold(p_pct, outcome)
    edges = np.asarray(CALIB_EDGES)
    which = np.clip(np.searchsorted(edges, fp, side="right") - 1, 0, len(edges) - 2)
    out: list[Json] = []
    for b in range(len(edges) - 1):
        sel = which == b
        n = int(sel.sum())
        shown = n >= min_count
        out.append({
            "bin": [float(edges[b]), float(edges[b + 1])],
            "closed_right": b == len(edges) - 2,
            "n": n,
            "shown": shown,
            "mean_stated": float(fp[sel].mean()) if shown else None,
            "realised": float(100.0 * fo[sel].mean()) if shown else None,
        })
    return out


def _logit(p_pct: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    q = np.clip(p_pct, LOGIT_CLIP, 100.0 - LOGIT_CLIP) / 100.0
    return np.asarray(np.log(q / (1.0 - q)), dtype=float)


def logistic_calibration(p_pct: npt.ArrayLike, outcome: npt.ArrayLike, sessions: npt.ArrayLike) -> JsonObject:
    """Fit ``logit P(Y=1) = a + b logit(p)``; standard errors clustered by session (statsmodels)."""
    p = np.asarray(p_pct, dtype=float)
    y = np.asarray(outcome, dtype=float)
    groups = pd.factorize(pd.Series(np.asarray(sessions)))[0]
    base: JsonObject = {"n": int(p.size), "n_sessions": int(np.unique(groups).size), "logit_clip_pct": LOGIT_CLIP}
    if p.size < 10 or np.unique(groups).size < 2 or np.unique(y).size < 2 or np.unique(p).size < 2:
        return {**base, "a": None, "b": None, "reason": "too few or degenerate forecasts for a fit"}
    try:
        fit = _fit(p, y, groups)
    except (PerfectSeparationError, np.linalg.LinAlgError, ValueError) as exc:
        return {**base, "a": None, "b": None, "reason": f"fit failed: {type(exc).__name__}"}
    a, b = (float(v) for v in fit.params)
    se_a, se_b = (float(v) for v in fit.bse)
    return {**base, "a": a, "b": b, "se_a": se_a, "se_b": se_b, "cov_type": "cluster(session)",
            "reading": "overconfident" if b < 1 else "underconfident" if b > 1 else "calibrated"}


def _fit(p: npt.NDArray[np.float64], y: npt.NDArray[np.float64], groups: npt.NDArray[np.int64]) -> _Fit:
    x = sm.add_constant(_logit(p), has_constant="add")
    with warnings.catch_warnings():
        warnings.simplefilter("error", PerfectSeparationWarning)
        fitted: _Fit = sm.Logit(y, x).fit(disp=0, cov_type="cluster", cov_kwds={"groups": groups})
    return fitted
