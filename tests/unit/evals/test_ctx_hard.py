"""rMAE and the hard-window filter, by hand on tiny cases."""

from __future__ import annotations

import pytest

from league.evals.context.hard import HoltWinters, SeasonalNaive, hard_windows, rmae, score
from league.evals.context.windows import Series, make_windows


def test_rmae_by_hand() -> None:
    # errors 1, 0, 2, 1 -> MAE 1.0; future range 4 - 0 = 4 -> rMAE 0.25
    assert rmae([1.0, 2.0, 2.0, 3.0], [0.0, 2.0, 4.0, 2.0]) == pytest.approx(0.25)
    assert rmae([1.0, 1.0], [3.0, 3.0]) is None  # flat future
    with pytest.raises(ValueError):
        rmae([1.0], [1.0, 2.0])


def test_seasonal_naive_reference_and_threshold() -> None:
    # history 0..89, future 90..119 (H = 30, long bucket). Naive m=1 forecasts 89 everywhere.
    s = Series("s", tuple(str(i) for i in range(120)), tuple(float(i) for i in range(120)))
    (w,) = make_windows(s, 30, "long")
    scored = score(w, SeasonalNaive(1))
    assert scored.reference == (89.0,) * 30
    # errors 1..30, MAE 15.5; range 119 - 90 = 29 -> 15.5 / 29
    assert scored.rmae == pytest.approx(15.5 / 29)
    assert scored.hard and hard_windows([w], SeasonalNaive(1)) == [scored]


def test_a_window_the_reference_gets_right_is_not_hard() -> None:
    # a period-4 pattern repeated: the seasonal naive with m = 4 is exact, rMAE 0 -> dropped
    pattern = [0.0, 5.0, 10.0, 5.0]
    s = Series("s", tuple(str(i) for i in range(120)), tuple(pattern[i % 4] for i in range(120)))
    (w,) = make_windows(s, 30, "long")
    assert score(w, SeasonalNaive(4)).rmae == 0.0
    assert hard_windows([w], SeasonalNaive(4)) == []


def test_statsmodels_reference_follows_a_clean_line() -> None:
    # a straight line: Holt's damped trend follows it closely, so the window is not hard
    s = Series("s", tuple(str(i) for i in range(120)), tuple(10.0 + 2.0 * i for i in range(120)))
    (w,) = make_windows(s, 30, "long")
    scored = score(w, HoltWinters(1))
    assert scored.rmae is not None and scored.rmae < 0.10
    assert "statsmodels" in HoltWinters(1).name
