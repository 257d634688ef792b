"""Interval methods by number of sessions and horizon; equivalence findings; block draws."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats

from league.scoring.intervals import block_indices, equivalence_finding, paired_gain, score_interval


def test_t_from_5_sessions_matches_textbook_formula() -> None:
    means = np.array([0.20, 0.25, 0.22, 0.30, 0.18, 0.24])
    box = score_interval(means * 12, np.full(6, 12.0), 1)
    half = stats.t.ppf(0.975, 5) * means.std(ddof=1) / np.sqrt(6)
    assert box["method"] == "student_t_session_means"
    assert (box["lo"], box["hi"]) == pytest.approx((means.mean() - half, means.mean() + half))


def test_bootstrap_from_20_sessions_and_repeatable() -> None:
    rng = np.random.default_rng(0)
    sums = rng.uniform(2, 4, 30)
    a = score_interval(sums, np.full(30, 12.0), 1)
    b = score_interval(sums, np.full(30, 12.0), 1)
    assert a["method"] == "session_cluster_bootstrap" and a == b
    assert a["lo"] < sums.sum() / 360 < a["hi"]


def test_weekly_horizon_uses_hac_lag_4_from_25_sessions() -> None:
    rng = np.random.default_rng(1)
    means = rng.uniform(0.2, 0.3, 25)
    box = score_interval(means, np.ones(25), 5)
    fit = sm.OLS(means, np.ones(25)).fit(cov_type="HAC", cov_kwds={"maxlags": 4})
    assert box["method"] == "hac_newey_west" and box["lag"] == 4
    assert (box["lo"], box["hi"]) == pytest.approx(tuple(fit.conf_int(0.05)[0]))
    assert score_interval(means[:24], np.ones(24), 5)["method"] is None


@pytest.mark.parametrize(("estimate", "lo", "hi", "finding"), [
    (0.001, -0.005, 0.006, "no_material_difference"),
    (0.004, -0.02, 0.03, "small_estimate"),
    (0.03, -0.01, 0.07, "interval_too_wide"),
    (0.02, 0.005, 0.035, "difference"),
])
def test_equivalence_findings_are_kept_apart(estimate: float, lo: float, hi: float, finding: str) -> None:
    assert equivalence_finding(estimate, lo, hi) == finding


def test_block_draws_are_contiguous_blocks_of_five() -> None:
    idx = block_indices(40, 5, reps=50, seed=3)
    assert idx.shape == (50, 40)
    starts = idx[:, ::5]
    assert np.array_equal(idx.reshape(50, 8, 5), (starts[:, :, None] + np.arange(5)) % 40)


def test_paired_gain_moving_block_bootstrap() -> None:
    g = np.random.default_rng(2).normal(0.02, 0.01, 60)
    out = paired_gain(g, 1)
    assert out["interval"]["method"] == "moving_block_bootstrap" and out["interval"]["block"] == 5
    assert out["interval"]["reps"] == 10_000
    assert out["interval"]["lo"] < out["interval90"]["lo"] < g.mean() < out["interval90"]["hi"] < out["interval"]["hi"]
    assert out["finding"] == "difference"
