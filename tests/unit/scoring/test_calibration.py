"""Calibration bins and the logistic calibration fit against a direct statsmodels fit."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm

from league.scoring.calibration import calibration_bins, fold, logistic_calibration


def _sample(n_sessions: int = 60, per: int = 12, seed: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.integers(5, 96, n_sessions * per).astype(float)
    shock = np.repeat(rng.normal(0, 0.8, n_sessions), per)  # a session-wide shock: clustering matters
    logit = 0.7 * np.log(p / (100 - p)) + shock
    y = (rng.random(p.size) < 1 / (1 + np.exp(-logit))).astype(float)
    return p, y, np.repeat(np.arange(n_sessions), per)


def test_fit_and_clustered_errors_match_a_direct_statsmodels_fit() -> None:
    p, y, sessions = _sample()
    got = logistic_calibration(p, y, sessions.astype(str))
    x = sm.add_constant(np.log((p / 100) / (1 - p / 100)))
    direct = sm.Logit(y, x).fit(disp=0, cov_type="cluster", cov_kwds={"groups": sessions})
    assert [got["a"], got["b"]] == pytest.approx(list(direct.params), abs=1e-8)
    assert [got["se_a"], got["se_b"]] == pytest.approx(list(direct.bse), abs=1e-8)
    plain = sm.Logit(y, x).fit(disp=0)
    assert abs(got["se_b"] - plain.bse[1]) > 1e-4  # the clustering is really applied
    assert got["b"] < 1 and got["reading"] == "overconfident"


def test_degenerate_input_gives_no_fit() -> None:
    out = logistic_calibration([60.0] * 30, [1.0] * 30, ["a"] * 30)
    assert out["a"] is None and "reason" in out


def test_fold_flips_low_side_and_drops_50() -> None:
    fp, fo = fold([30.0, 50.0, 70.0], [0.0, 1.0, 1.0])
    assert list(fp) == [70.0, 70.0] and list(fo) == [1.0, 1.0]


def test_bins_shown_only_from_20() -> None:
    p = [55.0] * 20 + [65.0] * 19 + [85.0, 100.0] * 10
    o = [1.0] * 10 + [0.0] * 10 + [1.0] * 19 + [1.0] * 20
    bins = calibration_bins(p, o)
    assert [b["n"] for b in bins] == [20, 19, 0, 20]
    assert [b["shown"] for b in bins] == [True, False, False, True]
    assert bins[0]["mean_stated"] == 55.0 and bins[0]["realised"] == 50.0
    assert bins[1]["realised"] is None
    assert bins[3]["mean_stated"] == pytest.approx(92.5)  # 100 falls in the closed last bin
