"""From a series to sealed hard windows with their effects: the pieces fit together."""

from __future__ import annotations

import math

from league.evals.context.effects import compute_effects
from league.evals.context.hard import SeasonalNaive, hard_windows
from league.evals.context.validate import validate
from league.evals.context.windows import Series, make_windows, seal


def test_series_to_hard_windows_with_validated_effects() -> None:
    # 480 steps of a period-12 sine (range 40..60); a +8 level shift from step 445 on, i.e. 25 steps into the last
    # window's future (long bucket, H = 60: span 240, windows 240..479 and 0..239).
    vals = [50.0 + 10.0 * math.sin(2 * math.pi * t / 12) + (8.0 if t >= 445 else 0.0) for t in range(480)]
    s = Series("demo", tuple(str(t) for t in range(480)), tuple(vals))
    wins = make_windows(s, 60, "long")
    assert [(w.start, w.end) for w in wins] == [(240, 480), (0, 240)]
    hard = hard_windows(wins, SeasonalNaive(12))
    # the seasonal naive is exact on the older window (no shift): rMAE 0, so only the shifted one is hard.
    # Shifted window: errors 8 on 35 of 60 steps -> MAE 8·35/60; future range 60 + 8 - 40 = 28.
    assert [h.window.start for h in hard] == [240]
    assert hard[0].rmae is not None and abs(hard[0].rmae - (8 * 35 / 60) / 28) < 1e-9
    w = hard[0].window
    rec = compute_effects(w.history, w.future, hard[0].reference).record()
    assert (rec["micro.1.kind"], rec["micro.1.start"], rec["micro.1.end"]) == ("level_shift", 25, 59)
    validate(rec, w.history, w.future, hard[0].reference)
    assert len(seal([h.window for h in hard])) == 64
