"""MASE of point and path forecasts, relative to the seasonal naive forecast (docs/evals.md, track B). Pure.

For one forecast window with history y_0..y_{n-1}:

- scale = mean |y_t − y_{t−m}| over t = m..n−1: the in-sample error of the seasonal naive forecast on the
  history (m = season length; m = 1 is "no change"); a window without at least one such difference, or with a
  zero scale, cannot be scaled and is counted apart;
- the window's error = mean over its steps |ŷ − y| / scale (a point target is a path of one step);
- the seasonal naive forecast of step h (h ≥ 1 steps after the last observation) is y_{n−1+h−m·⌈h/m⌉}.

Aggregation: within one configuration (market × horizon, or data set × frequency × horizon bucket) the MASE is
the mean over its windows; it is divided by the seasonal naive's MASE on the SAME windows; the relative figures
are combined across configurations by their geometric mean. Seasonal naive therefore scores exactly 1.0 and
lower is better. Buckets (short, medium, long) are the geometric mean over their configurations.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypedDict


def seasonal_scale(history: Sequence[float], m: int = 1) -> float | None:
    """In-sample mean absolute seasonal difference, or ``None`` when the history is too short or flat."""
    if m < 1 or len(history) <= m:
        return None
    diffs = [abs(history[t] - history[t - m]) for t in range(m, len(history))]
    scale = sum(diffs) / len(diffs)
    return scale if scale > 0 else None


def seasonal_naive(history: Sequence[float], h: int, m: int = 1) -> float:
    """The seasonal naive forecast ``h`` steps after the last observation."""
    if h < 1 or m < 1 or len(history) < m:
        raise ValueError(f"seasonal naive needs h >= 1 and at least m = {m} observations")
    n = len(history)
    return history[n - 1 + h - m * math.ceil(h / m)]


@dataclass(frozen=True)
class Window:
    """One forecast window: what was forecast, what happened, the seasonal naive, the scale."""

    config: tuple[str, ...]
    bucket: str
    forecast: tuple[float, ...]
    actual: tuple[float, ...]
    naive: tuple[float, ...]
    scale: float

    def error(self, path: Sequence[float]) -> float:
        return sum(abs(f - a) for f, a in zip(path, self.actual, strict=True)) / len(self.actual) / self.scale


def geometric_mean(values: Iterable[float]) -> float | None:
    vals = list(values)
    if not vals:
        return None
    if any(v == 0 for v in vals):
        return 0.0
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


class ConfigRow(TypedDict):
    """One configuration's figures (``relative`` None when the naive makes no error there)."""

    config: list[str]
    bucket: str
    windows: int
    mase: float
    mase_naive: float
    relative: float | None


class RelativeMase(TypedDict):
    """The configurations and their geometric means, overall and per bucket."""

    configs: list[ConfigRow]
    overall: float | None
    buckets: dict[str, float | None]
    configs_without_naive_error: int


class Compliance(TypedDict):
    """How many asked cells carry a forecast of the expected length, and how many of those lie in range."""

    asked: int
    with_forecast: int
    with_forecast_share: float | None
    wrong_length: int
    range_checked: int
    within_range: int
    within_range_share: float | None


def config_table(windows: Sequence[Window]) -> list[ConfigRow]:
    """Per configuration: windows, MASE, the naive's MASE on the same windows, and their ratio."""
    groups: dict[tuple[str, ...], list[Window]] = defaultdict(list)
    for w in windows:
        groups[w.config].append(w)
    rows: list[ConfigRow] = []
    for config, ws in sorted(groups.items()):
        mase = sum(w.error(w.forecast) for w in ws) / len(ws)
        naive = sum(w.error(w.naive) for w in ws) / len(ws)
        rows.append({"config": list(config), "bucket": ws[0].bucket, "windows": len(ws), "mase": mase,
                     "mase_naive": naive, "relative": mase / naive if naive > 0 else None})
    return rows


def relative_mase(windows: Sequence[Window]) -> RelativeMase:
    """The configurations, the overall geometric mean and one per bucket."""
    rows = config_table(windows)
    usable = [(r, relative) for r in rows if (relative := r["relative"]) is not None]
    buckets: dict[str, list[float]] = defaultdict(list)
    for r, relative in usable:
        buckets[r["bucket"]].append(relative)
    return {"configs": rows, "overall": geometric_mean(relative for _, relative in usable),
            "buckets": {b: geometric_mean(v) for b, v in sorted(buckets.items())},
            "configs_without_naive_error": len(rows) - len(usable)}


@dataclass(frozen=True)
class Stated:
    """One asked cell for compliance: was a forecast given, of which length, and inside the stated range?"""

    length: int
    expected: int
    in_range: bool | None = None


def compliance(cells: Sequence[Stated]) -> Compliance:
    """Share of asked cells with a forecast of the expected length, and share of those within the range."""
    given = [c for c in cells if c.length > 0]
    right = [c for c in given if c.length == c.expected]
    ranged = [c for c in right if c.in_range is not None]
    inside = sum(bool(c.in_range) for c in ranged)
    return {"asked": len(cells), "with_forecast": len(right),
            "with_forecast_share": len(right) / len(cells) if cells else None,
            "wrong_length": len(given) - len(right), "range_checked": len(ranged), "within_range": inside,
            "within_range_share": inside / len(ranged) if ranged else None}

