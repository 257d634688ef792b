"""Macro and Micro effects on synthetic windows whose trend segments, level shifts and period changes are known,
and the validator accepting the computed records and rejecting planted wrong values.

Every expected value is written out from the construction: the history is 50 + 10·sin(2πt/12) over 180 steps
(range 40..60, so one point = 0.2 raw units and "points" = 100·(v − 40)/20), the horizon is 60.
"""

from __future__ import annotations

import math

import pytest

from league.evals.context.effects import EffectsError, compute_effects, detect_period
from league.evals.context.validate import InvalidEffect, check, validate

H = 60
N = 180


def sine(t: int, period: int = 12) -> float:
    return 10.0 * math.sin(2.0 * math.pi * t / period)


HISTORY = [50.0 + sine(t) for t in range(N)]
SEASONAL_NAIVE = [HISTORY[N - 12 + (t % 12)] for t in range(H)]  # m = 12, exact continuation of the sine


def points(raw_difference: float) -> float:
    return 100.0 * raw_difference / 20.0


def test_history_period_is_detected() -> None:
    assert detect_period(HISTORY) == 12
    assert detect_period([float(t) for t in range(50)]) is None  # a line has no season


def test_two_trend_segments_up_then_down() -> None:
    # up 2/step for 24 steps (to 98), then down 1/step: hinge at 24 = 0.4 of the horizon
    future = [50.0 + 2.0 * t if t <= 24 else 98.0 - 1.0 * (t - 24) for t in range(H)]
    rec = compute_effects(HISTORY, future, SEASONAL_NAIVE).record()
    assert rec["macro.trend.count"] == 2
    assert (rec["macro.trend.1.direction"], rec["macro.trend.1.shape"], rec["macro.trend.1.share"]) == (
        "up", "linear", 0.4)
    assert (rec["macro.trend.2.direction"], rec["macro.trend.2.shape"], rec["macro.trend.2.share"]) == (
        "down", "linear", 0.6)
    assert rec["macro.season.period"] is None and rec["macro.season.waveform"] == []
    assert rec["macro.min"] == pytest.approx(points(50.0 - 40.0))  # 50
    assert rec["macro.max"] == pytest.approx(points(98.0 - 40.0))  # 290: above 100 is allowed
    validate(rec, HISTORY, future, SEASONAL_NAIVE)


def test_one_trend_with_season() -> None:
    future = [50.0 + 0.5 * t + sine(N + t) for t in range(H)]
    eff = compute_effects(HISTORY, future, SEASONAL_NAIVE)
    rec = eff.record()
    assert rec["macro.trend.count"] == 1
    assert (rec["macro.trend.1.direction"], rec["macro.trend.1.shape"], rec["macro.trend.1.share"]) == (
        "up", "linear", 1.0)
    assert rec["macro.season.period"] == 12
    wave = rec["macro.season.waveform"]
    assert isinstance(wave, list) and len(wave) == 12
    for k, got in enumerate(wave):  # phase k of the future is sin(2π(180 + k)/12) = sin(2πk/12)
        assert got == pytest.approx(points(sine(k)), abs=2.0)
    validate(rec, HISTORY, future, SEASONAL_NAIVE)


def test_level_shift_is_found_with_its_size() -> None:
    # the sine continues; from step 25 the level is 8 higher to the end; the seasonal naive misses exactly 8
    future = [50.0 + sine(N + t) + (8.0 if t >= 25 else 0.0) for t in range(H)]
    rec = compute_effects(HISTORY, future, SEASONAL_NAIVE).record()
    assert rec["micro.count"] == 1
    assert (rec["micro.1.kind"], rec["micro.1.start"], rec["micro.1.end"]) == ("level_shift", 25, 59)
    assert rec["micro.1.strength"] == pytest.approx(points(8.0))  # 40 points
    validate(rec, HISTORY, future, SEASONAL_NAIVE)


def test_deviation_then_recovery() -> None:
    future = [50.0 + sine(N + t) + (6.0 if 20 <= t <= 35 else 0.0) for t in range(H)]
    rec = compute_effects(HISTORY, future, SEASONAL_NAIVE).record()
    assert rec["micro.count"] == 1
    assert (rec["micro.1.kind"], rec["micro.1.start"], rec["micro.1.end"]) == ("deviation", 20, 35)
    assert rec["micro.1.strength"] == pytest.approx(points(6.0))  # 30 points
    validate(rec, HISTORY, future, SEASONAL_NAIVE)


def test_period_change_from_12_to_8() -> None:
    future = [50.0 + (sine(N + t) if t < 30 else sine(t - 30, 8)) for t in range(H)]
    rec = compute_effects(HISTORY, future, SEASONAL_NAIVE).record()
    assert rec["micro.count"] == 1
    assert rec["micro.1.kind"] == "period_change"
    assert rec["micro.1.period"] == 8
    start, end = rec["micro.1.start"], rec["micro.1.end"]
    assert isinstance(start, int) and abs(start - 30) <= 2 and end == 59
    validate(rec, HISTORY, future, SEASONAL_NAIVE)


def test_nothing_missed_means_no_micro() -> None:
    future = [50.0 + sine(N + t) for t in range(H)]
    rec = compute_effects(HISTORY, future, SEASONAL_NAIVE).record()
    assert rec["micro.count"] == 0
    assert rec["macro.min"] == pytest.approx(0.0, abs=1e-9) and rec["macro.max"] == pytest.approx(100.0)


def test_scattered_spikes_are_not_an_interval() -> None:
    # single-step spikes at 10, 20, 30: gaps of 10 <= the merge gap (the history period, 12) make one run 10..30,
    # but only 3 of its 21 steps are missed (< half): dropped. A solid 5-step bump at 45..49 is kept.
    spikes = {10: 6.0, 20: 6.0, 30: 6.0}
    future = [50.0 + sine(N + t) + spikes.get(t, 0.0) + (6.0 if 45 <= t <= 49 else 0.0) for t in range(H)]
    rec = compute_effects(HISTORY, future, SEASONAL_NAIVE).record()
    assert rec["micro.count"] == 1
    assert (rec["micro.1.kind"], rec["micro.1.start"], rec["micro.1.end"]) == ("deviation", 45, 49)


def test_flat_history_has_no_normalised_effects() -> None:
    with pytest.raises(EffectsError):
        compute_effects([1.0] * 10, [1.0, 2.0, 3.0], [1.0, 1.0, 1.0])


# --- the validator -------------------------------------------------------------------------------------------

SHIFT_FUTURE = [50.0 + sine(N + t) + (8.0 if t >= 25 else 0.0) for t in range(H)]
TREND_FUTURE = [50.0 + 2.0 * t if t <= 24 else 98.0 - 1.0 * (t - 24) for t in range(H)]
SEASON_FUTURE = [50.0 + 0.5 * t + sine(N + t) for t in range(H)]


def _record(future: list[float]) -> dict[str, object]:
    return dict(compute_effects(HISTORY, future, SEASONAL_NAIVE).record())


def test_validator_accepts_values_within_tolerance() -> None:
    rec = _record(SHIFT_FUTURE)
    rec["macro.min"] = float(rec["macro.min"]) + 4.9  # type: ignore[arg-type]
    rec["micro.1.strength"] = 36.0  # 40 - 4
    rec["micro.1.start"] = 27  # ±max(2, ⌈5 % of 60⌉ = 3) steps
    validate(rec, HISTORY, SHIFT_FUTURE, SEASONAL_NAIVE)


@pytest.mark.parametrize(("future", "key", "value"), [
    (SHIFT_FUTURE, "macro.min", 5.1),  # true 0 ± 5
    (SHIFT_FUTURE, "macro.max", 150.0),  # true 140
    (SHIFT_FUTURE, "micro.1.kind", "deviation"),
    (SHIFT_FUTURE, "micro.1.strength", 46.0),  # true 40
    (SHIFT_FUTURE, "micro.1.start", 20),  # true 25, tolerance 3 steps
    (SHIFT_FUTURE, "micro.1.end", 60),  # outside the horizon
    (SHIFT_FUTURE, "micro.count", 2),
    (TREND_FUTURE, "macro.trend.1.direction", "down"),
    (TREND_FUTURE, "macro.trend.2.shape", "convex"),
    (SEASON_FUTURE, "macro.season.period", 8),
    (SEASON_FUTURE, "macro.trend.count", 2),
])
def test_validator_rejects_a_planted_wrong_value(future: list[float], key: str, value: object) -> None:
    rec = _record(future)
    assert key in rec
    validate(rec, HISTORY, future, SEASONAL_NAIVE)  # the computed record holds
    rec[key] = value
    with pytest.raises(InvalidEffect) as err:
        validate(rec, HISTORY, future, SEASONAL_NAIVE)
    assert err.value.key == key and key in str(err.value)


def test_validator_rejects_shares_that_are_off_even_if_they_sum_to_one() -> None:
    rec = _record(TREND_FUTURE)  # true 0.4 / 0.6
    rec["macro.trend.1.share"], rec["macro.trend.2.share"] = 0.5, 0.5
    with pytest.raises(InvalidEffect) as err:
        validate(rec, HISTORY, TREND_FUTURE, SEASONAL_NAIVE)
    assert err.value.key == "macro.trend.1.share"
    rec["macro.trend.1.share"], rec["macro.trend.2.share"] = 0.42, 0.6  # each close, sum 1.02
    with pytest.raises(InvalidEffect, match="sum"):
        validate(rec, HISTORY, TREND_FUTURE, SEASONAL_NAIVE)


def test_validator_rejects_a_wrong_waveform_entry_unknown_and_missing_keys() -> None:
    rec = _record(SEASON_FUTURE)
    wave = list(rec["macro.season.waveform"])  # type: ignore[call-overload]
    wave[3] = wave[3] + 8.0  # 8 points off at the fourth phase
    rec["macro.season.waveform"] = wave
    with pytest.raises(InvalidEffect) as err:
        validate(rec, HISTORY, SEASON_FUTURE, SEASONAL_NAIVE)
    assert err.value.key == "macro.season.waveform[3]"
    rec = _record(SEASON_FUTURE)
    rec["macro.mood"] = "sunny"
    with pytest.raises(InvalidEffect, match="unknown key"):
        validate(rec, HISTORY, SEASON_FUTURE, SEASONAL_NAIVE)
    rec = _record(SEASON_FUTURE)
    del rec["macro.max"]
    with pytest.raises(InvalidEffect) as err:
        validate(rec, HISTORY, SEASON_FUTURE, SEASONAL_NAIVE)
    assert err.value.key == "macro.max"


def test_a_record_claiming_two_segments_is_rejected_on_the_count() -> None:
    rec = _record(SEASON_FUTURE)  # one segment, up
    rec.update({"macro.trend.count": 2, "macro.trend.1.share": 0.5, "macro.trend.2.direction": "down",
                "macro.trend.2.shape": "linear", "macro.trend.2.share": 0.5})
    with pytest.raises(InvalidEffect) as err:
        validate(rec, HISTORY, SEASON_FUTURE, SEASONAL_NAIVE)
    assert err.value.key == "macro.trend.count" and "recomputed 1" in str(err.value)


def test_check_returns_the_recomputed_record() -> None:
    rec = _record(SHIFT_FUTURE)
    assert check(rec, HISTORY, SHIFT_FUTURE, SEASONAL_NAIVE) == rec
