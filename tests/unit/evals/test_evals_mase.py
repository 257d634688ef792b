"""MASE pinned on hand-computed series; the geometric mean gives exactly 1.0 for the seasonal naive."""

from __future__ import annotations

import math

import pytest

from league.evals.mase import (
    Stated,
    Window,
    compliance,
    config_table,
    geometric_mean,
    relative_mase,
    seasonal_naive,
    seasonal_scale,
)


def test_scale_by_hand() -> None:
    assert seasonal_scale([10, 12, 11, 13], 1) == pytest.approx((2 + 1 + 2) / 3)
    assert seasonal_scale([10, 12, 11, 13, 12], 2) == pytest.approx((1 + 1 + 1) / 3)  # |11-10| |13-12| |12-11|
    assert seasonal_scale([10], 1) is None  # no difference
    assert seasonal_scale([10, 12], 2) is None
    assert seasonal_scale([5, 5, 5], 1) is None  # a flat history cannot scale


def test_seasonal_naive_index_by_hand() -> None:
    y = [1, 2, 3, 4, 5, 6, 7]
    assert seasonal_naive(y, 1, 1) == 7 and seasonal_naive(y, 21, 1) == 7  # no change
    assert seasonal_naive(y, 1, 5) == 3  # one step ahead repeats five back: y[6+1-5]
    assert seasonal_naive(y, 5, 5) == 7
    assert seasonal_naive(y, 6, 5) == 3  # ⌈6/5⌉ = 2 seasons back: y[6+6-10]
    with pytest.raises(ValueError):
        seasonal_naive([1, 2], 1, 5)


def window(config: str, forecast: float, actual: float, naive: float, scale: float, bucket: str = "short") -> Window:
    return Window((config, "1d"), bucket, (forecast,), (actual,), (naive,), scale)


def test_one_window_by_hand() -> None:
    # history 10 12 11 13 → scale 5/3; forecast 14, actual 15, naive 13
    w = window("m", 14, 15, seasonal_naive([10, 12, 11, 13], 1), seasonal_scale([10, 12, 11, 13]) or 0)
    assert w.error(w.forecast) == pytest.approx(1 / (5 / 3))  # 0.6
    assert w.error(w.naive) == pytest.approx(2 / (5 / 3))  # 1.2
    [row] = config_table([w])
    assert row["mase"] == pytest.approx(0.6) and row["mase_naive"] == pytest.approx(1.2)
    assert row["relative"] == pytest.approx(0.5)


def test_a_path_window_averages_its_steps() -> None:
    w = Window(("m", "3d"), "medium", (1.0, 2.0, 3.0), (2.0, 2.0, 5.0), (1.0, 1.0, 1.0), 2.0)
    assert w.error(w.forecast) == pytest.approx((1 + 0 + 2) / 3 / 2)
    assert w.error(w.naive) == pytest.approx((1 + 1 + 4) / 3 / 2)


def test_relative_within_a_configuration_then_geometric_mean_across() -> None:
    windows = [
        window("a", 11, 12, 10, 1.0), window("a", 13, 12, 14, 2.0),  # MASE (1 + .5)/2 = .75; naive (2 + 1)/2 = 1.5
        window("b", 100, 104, 100, 4.0, "long"),  # MASE 1, naive 1 → 1.0
    ]
    report = relative_mase(windows)
    rel = {tuple(r["config"]): r["relative"] for r in report["configs"]}
    assert rel == {("a", "1d"): pytest.approx(0.5), ("b", "1d"): pytest.approx(1.0)}
    assert report["overall"] == pytest.approx(math.sqrt(0.5 * 1.0))
    assert report["buckets"] == {"long": pytest.approx(1.0), "short": pytest.approx(0.5)}


def test_the_seasonal_naive_itself_is_exactly_one() -> None:
    histories = [[10.0, 12.5, 11.25, 13.0], [100.0, 98.0, 101.5, 97.25, 99.0], [1.5, 1.75, 1.25]]
    actuals = [12.0, 103.0, 2.0]
    windows = []
    for i, (hist, actual) in enumerate(zip(histories, actuals, strict=True)):
        scale = seasonal_scale(hist)
        assert scale is not None
        naive = seasonal_naive(hist, 1)
        for config in (f"m{i}", f"m{i}b"):
            windows.append(Window((config, "1d"), "short", (naive,), (actual,), (naive,), scale))
    report = relative_mase(windows)
    assert all(r["relative"] == 1.0 for r in report["configs"])
    assert report["overall"] == 1.0  # exactly, not approximately
    assert report["buckets"] == {"short": 1.0}


def test_geometric_mean_edges() -> None:
    assert geometric_mean([]) is None
    assert geometric_mean([0.0, 2.0]) == 0.0
    assert geometric_mean([4.0, 1.0]) == pytest.approx(2.0)


def test_a_configuration_whose_naive_is_perfect_has_no_ratio() -> None:
    report = relative_mase([window("a", 11, 10, 10, 1.0)])
    assert report["configs"][0]["relative"] is None and report["overall"] is None
    assert report["configs_without_naive_error"] == 1


def test_compliance_shares_by_hand() -> None:
    cells = [Stated(1, 1, True), Stated(1, 1, False), Stated(1, 1, None), Stated(0, 1), Stated(3, 1, True)]
    c = compliance(cells)
    assert (c["asked"], c["with_forecast"], c["wrong_length"]) == (5, 3, 1)
    assert c["with_forecast_share"] == pytest.approx(3 / 5)
    assert (c["range_checked"], c["within_range"]) == (2, 1) and c["within_range_share"] == pytest.approx(0.5)
    assert compliance([])["with_forecast_share"] is None
