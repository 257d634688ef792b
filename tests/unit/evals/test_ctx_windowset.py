"""The sealed window set: season per window, the bridge from effects to bounds, what an arm is shown."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from league.evals.context.effects import compute_effects
from league.evals.context.hard import HARD_THRESHOLD, SeasonalNaive
from league.evals.context.scores import effects_met, points
from league.evals.context.sources import Frequency, Source, SourceSeries
from league.evals.context.windows import Series
from league.evals.context.windowset import (
    build_window_set,
    effect_bounds,
    record_sha256,
    shown_effects,
    window_season,
)
from league.evals.errors import EvalError


def shifted() -> Series:
    """480 steps of a period-12 sine (40..60) with +8 from step 445 on (the last long window's future)."""
    vals = [50.0 + 10.0 * math.sin(2 * math.pi * t / 12) + (8.0 if t >= 445 else 0.0) for t in range(480)]
    return Series("demo", tuple(f"t{t:04d}" for t in range(480)), tuple(vals))


def test_the_season_is_kept_only_when_the_history_holds_more_than_two() -> None:
    assert window_season(300, 24) == 24
    assert window_season(48, 24) == 1 and window_season(49, 24) == 24
    assert window_season(300, 1) == 1


def test_the_bounds_of_the_effects_by_arm_and_the_future_meets_them_all() -> None:
    s = shifted()
    hist, fut = s.values[240:420], s.values[420:480]
    ref = SeasonalNaive(12).forecast(hist, 60)
    rec = compute_effects(hist, fut, ref, 12).record()
    both = effect_bounds(rec, hist, fut)
    assert effect_bounds(rec, hist, fut, "history") == {}
    macro = effect_bounds(rec, hist, fut, "macro")
    assert macro == {(0, 59): (rec["macro.min"], rec["macro.max"])}
    micro = effect_bounds(rec, hist, fut, "micro")
    # the level shift runs 25..59: its bounds are the future's min and max there, in points of the history
    pts = points(fut[25:60], hist)
    assert pts is not None and micro == {(25, 59): (min(pts), max(pts))}
    assert both == {**macro, **micro}
    assert effects_met(fut, hist, both) == (2, 2)  # the realised future meets every effect
    flat = tuple([min(hist)] * 60)  # the history's minimum (0 points): below the shifted level (40..140)
    checked, met = effects_met(flat, hist, micro) or (0, 0)
    assert (checked, met) == (1, 0)
    with pytest.raises(ValueError, match="unknown arm"):
        effect_bounds(rec, hist, fut, "everything")


def test_what_each_arm_is_shown() -> None:
    rec = {"macro.min": 1.0, "macro.trend.count": 1, "micro.count": 0}
    assert shown_effects(rec, "history") is None
    assert shown_effects(rec, "macro") == {"macro.min": 1.0, "macro.trend.count": 1}
    assert shown_effects(rec, "micro") == {"micro.count": 0}
    assert shown_effects(rec, "both") == rec
    assert record_sha256(rec) == record_sha256(dict(reversed(list(rec.items()))))  # key order does not matter


def test_the_window_set_keeps_the_hard_windows_with_validated_effects() -> None:
    src = Source("file", Path("demo.csv"), "0" * 64,
                 (SourceSeries(shifted(), Frequency("H", 2)),))  # 2H: m = 12
    ws = build_window_set(src, [60], ["long"], reference=SeasonalNaive)
    # the older window is forecast exactly by the seasonal naive (rMAE 0), the shifted one is hard
    assert ws.candidates == 2 and ws.dropped == {"not hard": 1}
    (e,) = ws.entries
    assert e.window_id == "demo:long:60:240" and e.season == 12 and e.rmae >= HARD_THRESHOLD
    assert e.stated_range == (min(e.window.future), max(e.window.future))
    doc = e.as_json()
    assert doc["sha256"] == e.window.sha256 and doc["effects_sha256"] == record_sha256(e.effects)
    assert doc["macro_bounds"] == [0, 59, e.effects["macro.min"], e.effects["macro.max"]]
    assert ws.as_json()["set_sha256"] == ws.seal
    with pytest.raises(EvalError, match="unknown bucket"):
        build_window_set(src, [60], ["huge"])
    with pytest.raises(EvalError, match="horizon"):
        build_window_set(src, [10], ["long"])
