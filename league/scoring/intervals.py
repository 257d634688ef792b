"""Intervals, design effect, power and equivalence (scoring.md §4).

The twelve markets of one session move together, so rows are never treated as independent: every
interval resamples or models whole sessions, and an h-session horizon (whose windows overlap) needs
h-session blocks or a HAC variance with lag h-1. Below the minimum number of sessions no interval is
published at all, because a number there would look more certain than it is.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NotRequired, TypedDict

import numpy as np
import numpy.typing as npt
import statsmodels.api as sm
from arch.bootstrap import MovingBlockBootstrap
from scipy import stats

from league.scoring.constants import (
    BOOTSTRAP_MIN_SESSIONS,
    BOOTSTRAP_REPS,
    BOOTSTRAP_SEED,
    EQUIV_MARGIN,
    GAIN_BLOCK,
    INTERVAL_MIN_SESSIONS,
    POWER_FACTOR,
)

#: Bootstrap draws are stored as int32 (half the memory of int64): the values are drawn as int64, exactly
#: as before, and every one is a position below the number of sessions, so indexing with them gives the same
#: numbers. A season of more than 2**31 sessions is not a concern.
IndexArray = npt.NDArray[np.int32]


class Box(TypedDict):
    """A published interval: its method and bounds, or (``method`` None) the reason there is none."""

    method: str | None
    lo: float | None
    hi: float | None
    level: float | None
    n_sessions: int
    reason: NotRequired[str]
    lag: NotRequired[int]
    block: NotRequired[int]
    reps: NotRequired[int]
    seed: NotRequired[int]


class Bounds(TypedDict):
    """The 90% interval of a paired gain (the equivalence test)."""

    lo: float
    hi: float
    level: float


class Gain(TypedDict):
    """A paired per-session gain: its mean, both intervals and the equivalence finding (None before them)."""

    mean: float | None
    n_sessions: int
    sd: float | None
    interval: Box
    interval90: Bounds | None
    finding: str | None
    smaller_than_margin: bool | None


def design_effect(k: int, rho: float) -> float:
    """Independent forecasts carried by k forecasts with correlation rho: ``k / (1 + (k-1) rho)``.

    Total for every input. A negative intraclass correlation is read as none (the usual truncation
    at 0: k forecasts of one session never count as more than k). Without it an estimate at the
    exchangeable bound ``-1/(k-1)`` (a one-way ICC of identical group means, as identical stand-in
    replies give) divided by zero, and one just above it made a session worth hundreds of forecasts.
    An undefined rho (NaN) stays undefined.
    """
    if k <= 1:
        return float(max(k, 0))
    if rho != rho:  # NaN
        return float("nan")
    return float(k / (1.0 + (k - 1) * min(max(rho, 0.0), 1.0)))


def n_eff(n: int, rho: float) -> float:
    """Effective voices ``n / (1 + (n-1) rho)`` (paper §5), exactly, for every rho above the bound
    ``-1/(n-1)``; at or below it (two seats with opposite pictures) the count has no finite value and
    is ``inf`` (published as null), never a division error."""
    if n <= 1:
        return float(max(n, 0))
    denominator = 1.0 + (n - 1) * rho
    if rho != rho:
        return float("nan")
    return float(n / denominator) if denominator > 0 else float("inf")


def power_brier(sigma_g: float, delta: float = EQUIV_MARGIN) -> float:
    """Independent sessions for 80% power, two-sided 5%: ``7.85 sigma_G^2 / delta^2``."""
    return float(POWER_FACTOR * sigma_g**2 / delta**2)


def min_sessions(h_sessions: int) -> int:
    """No interval before 5 sessions, or before 5h sessions for an h-session horizon."""
    return INTERVAL_MIN_SESSIONS * max(1, h_sessions)


def _none(reason: str, n_sessions: int) -> Box:
    return {"method": None, "lo": None, "hi": None, "level": None, "n_sessions": n_sessions, "reason": reason}


def _box(method: str, lo: float, hi: float, level: float, n_sessions: int, *, lag: int | None = None,
         block: int | None = None, reps: int | None = None, seed: int | None = None) -> Box:
    """A box whose extras (those given, in this order) follow the five keys every box has."""
    box: Box = {"method": method, "lo": float(lo), "hi": float(hi), "level": level, "n_sessions": n_sessions}
    if lag is not None:
        box["lag"] = lag
    if block is not None:
        box["block"] = block
    if reps is not None:
        box["reps"] = reps
    if seed is not None:
        box["seed"] = seed
    return box


def t_interval(session_means: npt.ArrayLike, level: float = 0.95) -> tuple[float, float]:
    """Student t interval on session means."""
    x = np.asarray(session_means, dtype=float)
    half = stats.t.ppf(0.5 + level / 2, x.size - 1) * x.std(ddof=1) / np.sqrt(x.size)
    return float(x.mean() - half), float(x.mean() + half)


def hac_interval(session_means: npt.ArrayLike, lag: int, level: float = 0.95) -> tuple[float, float]:
    """Newey-West (HAC, Bartlett kernel, ``maxlags = lag``) interval for the mean, via statsmodels."""
    x = np.asarray(session_means, dtype=float)
    fit = sm.OLS(x, np.ones((x.size, 1))).fit(cov_type="HAC", cov_kwds={"maxlags": lag})
    lo, hi = fit.conf_int(alpha=1 - level)[0]
    return float(lo), float(hi)


@lru_cache(maxsize=64)
def iid_indices(n: int, reps: int = BOOTSTRAP_REPS, seed: int = BOOTSTRAP_SEED) -> IndexArray:
    """Session-cluster bootstrap draws (reps x n), fixed seed so that published intervals repeat."""
    rng = np.random.default_rng(seed)
    drawn = rng.integers(0, n, size=(reps, n), dtype=np.int64)  # int64 draws: the registered stream
    out: IndexArray = drawn.astype(np.int32)
    out.flags.writeable = False
    return out


@lru_cache(maxsize=64)
def block_indices(n: int, block: int, reps: int = BOOTSTRAP_REPS, seed: int = BOOTSTRAP_SEED) -> IndexArray:
    """Moving-block bootstrap draws (reps x n) from ``arch``'s MovingBlockBootstrap, fixed seed, stored as
    int32 (see :data:`IndexArray`)."""
    bs = MovingBlockBootstrap(block, np.zeros(n), seed=np.random.default_rng(seed))
    out: IndexArray = np.empty((reps, n), dtype=np.int32)
    for r in range(reps):
        out[r] = bs.update_indices()
    out.flags.writeable = False
    return out


def forget_draws() -> None:
    """Release the cached bootstrap draws (:func:`iid_indices`, :func:`block_indices`).

    They are reused seat after seat within one computation of the statistics and cost little to draw
    again, but held they grow with the season (reps x sessions each); the steps after the statistics
    (``league stats``'s points, crowd and portfolio tables) should not carry them."""
    iid_indices.cache_clear()
    block_indices.cache_clear()


def cluster_bootstrap_interval(
    session_sums: npt.ArrayLike, session_counts: npt.ArrayLike, level: float = 0.95, reps: int = BOOTSTRAP_REPS
) -> tuple[float, float]:
    """Percentile interval of the row mean, resampling whole sessions (the cluster)."""
    s = np.asarray(session_sums, dtype=float)
    c = np.asarray(session_counts, dtype=float)
    idx = iid_indices(s.size, reps)
    means = s[idx].sum(axis=1) / c[idx].sum(axis=1)
    return _percentiles(means, level)


def _percentiles(draws: npt.NDArray[np.float64], level: float) -> tuple[float, float]:
    lo, hi = np.percentile(draws, [50 * (1 - level), 50 * (1 + level)])
    return float(lo), float(hi)


def score_interval(
    session_sums: npt.ArrayLike, session_counts: npt.ArrayLike, h_sessions: int, level: float = 0.95
) -> Box:
    """The interval scoring.md §4 prescribes for a mean score with these sessions at this horizon."""
    s = np.asarray(session_sums, dtype=float)
    c = np.asarray(session_counts, dtype=float)
    n = int(s.size)
    if n < min_sessions(h_sessions):
        return _none(f"fewer than {min_sessions(h_sessions)} scored sessions", n)
    means = s / c
    if h_sessions > 1:
        lo, hi = hac_interval(means, h_sessions - 1, level)
        return _box("hac_newey_west", lo, hi, level, n, lag=h_sessions - 1)
    if n < BOOTSTRAP_MIN_SESSIONS:
        lo, hi = t_interval(means, level)
        return _box("student_t_session_means", lo, hi, level, n)
    lo, hi = cluster_bootstrap_interval(s, c, level)
    return _box("session_cluster_bootstrap", lo, hi, level, n, reps=BOOTSTRAP_REPS, seed=BOOTSTRAP_SEED)


def paired_gain(gains: npt.ArrayLike, h_sessions: int = 1, *, seed: int = BOOTSTRAP_SEED,
                min_n: int = BOOTSTRAP_MIN_SESSIONS) -> Gain:
    """Mean per-session gain with a moving-block bootstrap (block >= max(5, h)) percentile interval.

    Both the 95% interval (a difference) and the 90% interval (the equivalence test) come from the
    same draws; the seed is the registered one (paper §8: 20261102) unless one sealed before the
    season is passed.
    """
    g = np.asarray(gains, dtype=float)
    n = int(g.size)
    mean, sd = float(g.mean()) if n else None, float(g.std(ddof=1)) if n > 1 else None
    need = max(min_n, min_sessions(h_sessions))
    block = max(GAIN_BLOCK, h_sessions)
    if n < need or n <= block:
        return {"mean": mean, "n_sessions": n, "sd": sd, "interval": _none(f"fewer than {need} sessions", n),
                "interval90": None, "finding": None, "smaller_than_margin": None}
    draws = g[block_indices(n, block, BOOTSTRAP_REPS, seed)].mean(axis=1)
    lo, hi = _percentiles(draws, 0.95)
    lo90, hi90 = _percentiles(draws, 0.90)
    finding = equivalence_finding(float(g.mean()), lo90, hi90, lo95=lo, hi95=hi)
    return {"mean": mean, "n_sessions": n, "sd": sd,
            "interval": _box("moving_block_bootstrap", lo, hi, 0.95, n, block=block, reps=BOOTSTRAP_REPS, seed=seed),
            "interval90": {"lo": lo90, "hi": hi90, "level": 0.90}, "finding": finding,
            "smaller_than_margin": finding == "difference" and inside_margin(lo90, hi90)}


def inside_margin(lo90: float, hi90: float, margin: float = EQUIV_MARGIN) -> bool:
    """The two one-sided 5% tests: the 90% interval lies inside ``(-margin, +margin)``."""
    return -margin < lo90 and hi90 < margin


def equivalence_finding(estimate: float, lo90: float, hi90: float, margin: float = EQUIV_MARGIN, *,
                        lo95: float | None = None, hi95: float | None = None) -> str:
    """Label the paired difference (paper §4.6, §8); the findings are kept apart, in this order:

    - ``difference``: the 95% interval excludes zero. A difference whose 90% interval also lies
      inside the margin keeps this label (the caller reports it as smaller than the margin);
    - ``no_material_difference``: the 90% interval (two one-sided 5% tests) lies inside +-margin;
    - ``small_estimate``: |estimate| < margin but the interval reaches beyond the margin;
    - ``interval_too_wide``: |estimate| >= margin and the interval is too wide to decide.

    Without a 95% interval (``lo95``/``hi95`` None) the 90% one stands in for it (older callers).
    """
    lo_d, hi_d = (lo90, hi90) if lo95 is None or hi95 is None else (lo95, hi95)
    if lo_d > 0 or hi_d < 0:
        return "difference"
    if inside_margin(lo90, hi90, margin):
        return "no_material_difference"
    if abs(estimate) < margin:
        return "small_estimate"
    return "interval_too_wide"


def primary_verdict(gain: Gain) -> str | None:
    """The registered reading of the primary endpoint (paper §8), in order: ``confirmed`` when the 95%
    interval lies entirely above zero; else ``no_material_difference`` when the 90% interval lies
    inside +-0.01; else ``inconclusive`` (a gain that is not significant is never read as
    equivalence). ``None`` before the interval exists."""
    lo, i90 = gain["interval"]["lo"], gain["interval90"]
    if lo is None or not i90:
        return None
    if lo > 0:
        return "confirmed"
    if inside_margin(i90["lo"], i90["hi"]):
        return "no_material_difference"
    return "inconclusive"
