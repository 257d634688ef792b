"""The contest's statistics pinned against hand-computed cases and against scipy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest

from league.contest.stats import (
    bootstrap_ci,
    brier,
    clamp_normalise,
    crowd_forecast,
    sign_test_p,
    verdict,
    versus_crowd,
)


def test_brier_binary_equals_squared_error_of_either_side() -> None:
    # p(Yes) = 0.7, Yes wins: ½((0.3)² + (0.3)²) = 0.09 = (1 − 0.7)²
    assert brier({"Yes": 0.7, "No": 0.3}, "Yes") == pytest.approx(0.09)
    assert brier({"Yes": 0.7, "No": 0.3}, "No") == pytest.approx(0.49)


def test_brier_three_outcomes_by_hand() -> None:
    # ½((0.5−1)² + 0.3² + 0.2²) = ½(0.25 + 0.09 + 0.04) = 0.19
    assert brier({"A": 0.5, "B": 0.3, "C": 0.2}, "A") == pytest.approx(0.19)
    assert brier({"A": 1.0, "B": 0.0}, "B") == pytest.approx(1.0)


def test_brier_refuses_a_winner_outside_the_forecast() -> None:
    with pytest.raises(ValueError, match="winner"):
        brier({"Yes": 0.5, "No": 0.5}, "Maybe")


def test_clamp_then_renormalise() -> None:
    # 1.0 -> 0.99, 0.0 -> 0.01, sum 1.0: unchanged after dividing
    assert clamp_normalise({"Yes": 1.0, "No": 0.0}) == pytest.approx({"Yes": 0.99, "No": 0.01})
    # 0.995, 0.995, 0.005 -> 0.99, 0.99, 0.01 -> /1.99
    out = clamp_normalise({"A": 0.995, "B": 0.995, "C": 0.005})
    assert out == pytest.approx({"A": 0.99 / 1.99, "B": 0.99 / 1.99, "C": 0.01 / 1.99})


def test_crowd_is_the_price_under_the_same_rule() -> None:
    assert crowd_forecast(["Yes", "No"], [0.62, 0.40]) == pytest.approx({"Yes": 0.62 / 1.02, "No": 0.40 / 1.02})
    with pytest.raises(ValueError):
        crowd_forecast(["Yes", "No"], [0.5])


@pytest.mark.parametrize("pos,neg,ties", [(0, 0, 3), (1, 0, 0), (5, 5, 2), (12, 4, 1), (2, 14, 0), (30, 10, 5),
                                          (0, 9, 0), (100, 70, 3)])
def test_sign_test_matches_scipy_exact_binomial(pos: int, neg: int, ties: int) -> None:
    diffs = [0.1] * pos + [-0.2] * neg + [0.0] * ties
    expected = 1.0 if pos + neg == 0 else binomtest(pos, pos + neg, 0.5, alternative="two-sided").pvalue
    assert sign_test_p(diffs) == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_sign_test_by_hand() -> None:
    # 3 of 3 positive: 2 · (1/8) = 0.25
    assert sign_test_p([0.3, 0.1, 0.2]) == pytest.approx(0.25)


def test_bootstrap_of_two_points_spans_both() -> None:
    # Resample means of [0, 1] are 0, ½, 1 with probabilities ¼, ½, ¼: the 2.5% and 97.5% quantiles of
    # 2,000 such means are 0 and 1 for any seed (P(no zero-mean among 50 lowest) is negligible).
    assert bootstrap_ci([0.0, 1.0], resamples=2000, seed=1, label="x") == (0.0, 1.0)


def test_bootstrap_degenerate_cases() -> None:
    assert bootstrap_ci([0.25], resamples=2000, seed=1, label="x") == (0.25, 0.25)
    assert bootstrap_ci([0.3, 0.3, 0.3], resamples=2000, seed=1, label="x") == pytest.approx((0.3, 0.3))
    with pytest.raises(ValueError):
        bootstrap_ci([], resamples=2000, seed=1, label="x")


def _reference_bootstrap(xs: list[float], seed: int, label: str, b: int) -> tuple[float, float]:
    """The documented algorithm written out independently (one resample at a time)."""
    import zlib

    rng = np.random.Generator(np.random.PCG64([seed, zlib.crc32(label.encode())]))
    means = []
    for _ in range(b):
        idx = rng.integers(0, len(xs), size=(1, len(xs)))[0]
        means.append(sum(xs[i] for i in idx) / len(xs))
    means.sort()
    # inverted_cdf: the smallest value whose empirical CDF reaches q
    lo = means[math.ceil(0.025 * b) - 1]
    hi = means[math.ceil(0.975 * b) - 1]
    return lo, hi


def test_bootstrap_is_the_documented_algorithm_with_a_fixed_seed() -> None:
    xs = [0.01, 0.25, 0.04, 0.64, 0.09, 0.16, 0.36, 0.0025]
    got = bootstrap_ci(xs, resamples=2000, seed=20261009, label="codex")
    assert got == pytest.approx(_reference_bootstrap(xs, 20261009, "codex", 2000), abs=1e-12)
    assert got == bootstrap_ci(xs, resamples=2000, seed=20261009, label="codex")  # reproducible
    assert got != bootstrap_ci(xs, resamples=2000, seed=20261010, label="codex")  # the seed matters


def test_verdict_only_when_the_interval_excludes_zero() -> None:
    assert verdict((-0.2, -0.01)) == "better"
    assert verdict((0.01, 0.3)) == "worse"
    assert verdict((-0.1, 0.0)) == "inconclusive"
    assert verdict((-0.1, 0.2)) == "inconclusive"


def test_versus_crowd_pairs_by_market() -> None:
    agent = [0.01, 0.04, 0.09, 0.01]
    crowd = [0.25, 0.25, 0.25, 0.25]
    vs = versus_crowd(agent, crowd, resamples=2000, seed=3, label="a")
    assert vs.mean_diff == pytest.approx((-0.24 - 0.21 - 0.16 - 0.24) / 4)
    assert vs.sign_test_p == pytest.approx(0.125)  # 4 of 4 negative: 2/16
    assert vs.verdict == "better" and vs.ci[1] < 0
    with pytest.raises(ValueError):
        versus_crowd([0.1], [0.1, 0.2], resamples=2000, seed=3, label="a")
