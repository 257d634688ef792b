"""Proper scores, their decomposition and sharpness (scoring.md §1-§3), vectorised over arrays.

Probabilities are in percent (0-100) everywhere because that is how seats state them and how the
forecasts file stores them; the conversion to [0, 1] happens inside each function, once.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


def brier(p_pct: npt.ArrayLike, outcome: npt.ArrayLike) -> FloatArray:
    """Per-forecast Brier ``(p/100 - o)^2``; a stated 50 scores 0.25 whatever happens."""
    p = np.asarray(p_pct, dtype=float) / 100.0
    return np.asarray((p - np.asarray(outcome, dtype=float)) ** 2, dtype=float)


def mean_brier(p_pct: npt.ArrayLike, outcome: npt.ArrayLike) -> float:
    """Mean Brier over resolved forecasts (0 perfect, 1 worst); NaN when there are none."""
    scores = brier(p_pct, outcome)
    scores = scores[~np.isnan(scores)]
    return float(scores.mean()) if scores.size else float("nan")


def brier_ex_draw(p_pct: npt.ArrayLike, outcome: npt.ArrayLike, draw: npt.ArrayLike) -> tuple[float, int, int]:
    """Secondary score without draw-band rows: (mean Brier, rows kept, rows dropped as draws)."""
    is_draw = np.asarray(draw, dtype=float) == 1.0
    p = np.asarray(p_pct, dtype=float)[~is_draw]
    o = np.asarray(outcome, dtype=float)[~is_draw]
    return mean_brier(p, o), int(p.size), int(is_draw.sum())


def brier3(probs: npt.ArrayLike, outcome_index: npt.ArrayLike) -> FloatArray:
    """Three-outcome Brier ``1/2 sum_k (p_k - 1{Y=k})^2`` for rows of (up, draw, down) shares in [0, 1].

    The halving keeps it on the two-outcome scale at the extremes; uniform thirds score 1/3,
    so a three-outcome league needs its own uniform baseline.
    """
    p = np.atleast_2d(np.asarray(probs, dtype=float))
    hit = np.zeros_like(p)
    hit[np.arange(p.shape[0]), np.asarray(outcome_index, dtype=int)] = 1.0
    return np.asarray(0.5 * ((p - hit) ** 2).sum(axis=1), dtype=float)


def bss(score: float, reference: float) -> float:
    """Brier skill score ``1 - B/B_ref`` on the same rows; NaN when the reference is 0 or missing."""
    if not np.isfinite(reference) or reference == 0.0:
        return float("nan")
    return float(1.0 - score / reference)


def murphy(p_pct: npt.ArrayLike, outcome: npt.ArrayLike) -> dict[str, float]:
    """Murphy's decomposition by distinct stated probability, so that B = REL - RES + UNC exactly."""
    p = np.asarray(p_pct, dtype=float) / 100.0
    o = np.asarray(outcome, dtype=float)
    n = p.size
    if n == 0:
        return {"reliability": float("nan"), "resolution": float("nan"), "uncertainty": float("nan"), "n": 0}
    values, inverse, counts = np.unique(p, return_inverse=True, return_counts=True)
    share = np.bincount(inverse, weights=o) / counts
    base = o.mean()
    rel = float((counts * (values - share) ** 2).sum() / n)
    res = float((counts * (share - base) ** 2).sum() / n)
    return {"reliability": rel, "resolution": res, "uncertainty": float(base * (1 - base)), "n": int(n)}


def sharpness(p_pct: npt.ArrayLike, centre_pct: npt.ArrayLike | float = 50.0) -> float:
    """``K = (2/n) sum |p - centre|``: 0 always at the centre, 100 always certain (from 50)."""
    p = np.asarray(p_pct, dtype=float)
    if p.size == 0:
        return float("nan")
    return float(2.0 * np.abs(p - np.asarray(centre_pct, dtype=float)).mean())
