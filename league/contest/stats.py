"""The contest's statistics, pure: no I/O, no clock (bench.md "Statistics").

- Multi-outcome Brier ``½ Σ_k (p_k − y_k)²``: 0 is perfect, 1 is a certain wrong answer; for two
  outcomes it equals the classic ``(p − y)²`` of either side.
- Probabilities (an agent's and the crowd's alike) are clamped to [0.01, 0.99] and renormalised, so
  no forecast is scored on a 0 or a 1 the market itself would never quote.
- The unit of every statistic is one resolved forecast. Intervals are 95% percentile bootstraps
  with a fixed seed: resample indices are drawn by ``numpy.random.Generator(PCG64(seed))`` where
  the seed is ``[config seed, crc32(label)]``, so each agent's interval does not depend on which
  other agents are in the table and a reader with numpy gets the same numbers.
- Against the crowd the paired differences (agent − crowd, per market) are resampled together;
  the verdict comes from that interval; the exact two-sided sign test (ties dropped) is beside it.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

CLAMP_LO, CLAMP_HI = 0.01, 0.99
Verdict = Literal["better", "worse", "inconclusive"]


def clamp_normalise(probs: Mapping[str, float]) -> dict[str, float]:
    """Clamp each probability to [0.01, 0.99], then divide by the sum (same rule as the reference)."""
    clamped = {k: min(CLAMP_HI, max(CLAMP_LO, float(v))) for k, v in probs.items()}
    total = sum(clamped.values())
    return {k: v / total for k, v in clamped.items()}


def crowd_forecast(outcomes: Sequence[str], prices: Sequence[float]) -> dict[str, float]:
    """The crowd's forecast: the market prices at sweep time, treated exactly like an agent's."""
    if len(outcomes) != len(prices) or not outcomes:
        raise ValueError(f"outcomes {list(outcomes)} and prices {list(prices)} do not line up")
    return clamp_normalise(dict(zip(outcomes, prices, strict=True)))


def brier(probs: Mapping[str, float], winner: str) -> float:
    """``½ Σ (p_k − y_k)²`` over the forecast's outcomes; the winner must be one of them."""
    if winner not in probs:
        raise ValueError(f"winner {winner!r} is not an outcome of the forecast {sorted(probs)}")
    return 0.5 * sum((p - (1.0 if k == winner else 0.0)) ** 2 for k, p in probs.items())


def mean(xs: Sequence[float]) -> float:
    return float(math.fsum(xs) / len(xs))


def _rng(seed: int, label: str) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64([seed, zlib.crc32(label.encode("utf-8"))]))


def resample_means(xs: Sequence[float], *, resamples: int, seed: int, label: str) -> np.ndarray:
    """Means of ``resamples`` bootstrap samples (with replacement, same size as ``xs``)."""
    values = np.asarray(xs, dtype=float)
    rng = _rng(seed, label)
    out = np.empty(resamples, dtype=float)
    chunk = max(1, 2_000_000 // max(1, len(values)))  # bounded memory for long seasons
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        idx = rng.integers(0, len(values), size=(size, len(values)))
        out[start : start + size] = values[idx].mean(axis=1)
    return out


def percentile_ci(means: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """The percentile interval: the (1−level)/2 and (1+level)/2 empirical quantiles
    (``numpy.quantile`` with ``method="inverted_cdf"``, i.e. actual resample means, no interpolation)."""
    lo, hi = np.quantile(means, [(1 - level) / 2, (1 + level) / 2], method="inverted_cdf")
    return float(lo), float(hi)


def bootstrap_ci(xs: Sequence[float], *, resamples: int, seed: int, label: str) -> tuple[float, float]:
    """95% percentile bootstrap interval of the mean; one value gives a zero-width interval."""
    if not xs:
        raise ValueError("a bootstrap interval needs at least one value")
    if len(xs) == 1:
        return float(xs[0]), float(xs[0])
    return percentile_ci(resample_means(xs, resamples=resamples, seed=seed, label=label))


def sign_test_p(diffs: Sequence[float]) -> float:
    """Exact two-sided sign test of "median difference is 0": ties (0) dropped, ``2·P(X ≤ min)``
    under Binomial(n, ½), capped at 1. No differences at all give 1."""
    pos = sum(1 for d in diffs if d > 0)
    neg = sum(1 for d in diffs if d < 0)
    n = pos + neg
    if n == 0:
        return 1.0
    k = min(pos, neg)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / (1 << n)
    return min(1.0, 2.0 * tail)


def verdict(ci: tuple[float, float]) -> Verdict:
    """Better only when the whole interval of (agent − crowd) is below 0, worse when above."""
    lo, hi = ci
    if hi < 0:
        return "better"
    if lo > 0:
        return "worse"
    return "inconclusive"


@dataclass(frozen=True)
class VsCrowd:
    mean_diff: float
    ci: tuple[float, float]
    sign_test_p: float
    verdict: Verdict


def versus_crowd(agent: Sequence[float], crowd: Sequence[float], *, resamples: int, seed: int,
                 label: str) -> VsCrowd:
    """Paired comparison on the same markets: differences resampled as one vector."""
    if len(agent) != len(crowd) or not agent:
        raise ValueError("paired scores must be non-empty and of equal length")
    diffs = [a - c for a, c in zip(agent, crowd, strict=True)]
    ci = bootstrap_ci(diffs, resamples=resamples, seed=seed, label=f"{label}|vs-crowd")
    return VsCrowd(mean(diffs), ci, sign_test_p(diffs), verdict(ci))
