"""The reference figures written in scoring.md, pinned as literal numbers."""

from __future__ import annotations

import numpy as np
import pytest

from league.scoring.brier import brier, brier3, bss, mean_brier
from league.scoring.intervals import design_effect, n_eff, power_brier


@pytest.mark.parametrize(("n", "rho", "expected"), [(7, 0.505, 1.74), (8, 0.64, 1.46), (9, 0.379, 2.23)])
def test_n_eff_reference_readings(n: int, rho: float, expected: float) -> None:
    assert round(n_eff(n, rho), 2) == expected


def test_design_effect_twelve_markets() -> None:
    assert design_effect(12, 0.2) == pytest.approx(3.75, abs=1e-12)


def test_momentum_expected_score_independent_even_outcomes() -> None:
    # 55% on yesterday's side; the outcome is up or down with probability 1/2 each, independently.
    expected = 0.5 * brier([55.0], [1.0])[0] + 0.5 * brier([55.0], [0.0])[0]
    assert expected == pytest.approx(0.2525, abs=1e-12)


def test_uniform_three_outcome_scores_one_third_whatever_happens() -> None:
    scores = brier3(np.full((3, 3), 1 / 3), [0, 1, 2])
    assert scores == pytest.approx([1 / 3, 1 / 3, 1 / 3], abs=1e-12)


def test_three_outcome_certain_and_wrong_is_one() -> None:
    assert brier3([[1.0, 0.0, 0.0]], [2])[0] == pytest.approx(1.0)


@pytest.mark.parametrize("outcome", [0.0, 1.0])
def test_a_stated_50_scores_quarter(outcome: float) -> None:
    assert brier([50.0], [outcome])[0] == 0.25


def test_brier_extremes_and_mean_ignores_unresolved() -> None:
    assert list(brier([100.0, 0.0, 100.0], [1.0, 0.0, 0.0])) == [0.0, 0.0, 1.0]
    assert mean_brier([80.0, 80.0], [1.0, np.nan]) == pytest.approx(0.04)


def test_bss_against_coin() -> None:
    assert bss(0.2, 0.25) == pytest.approx(0.2)
    assert np.isnan(bss(0.2, 0.0))


def test_power_brier_formula() -> None:
    # n = 7.85 sigma^2 / delta^2: sigma 0.05, delta 0.01 -> 196.25 sessions.
    assert power_brier(0.05, 0.01) == pytest.approx(196.25)
