"""The contextual track's scores (seed 004, GIFT-Eval-CTX): MASE of paths and the compliance figures. Pure.

A *window* is a history ``y_0..y_{n-1}``, the realised future ``x_1..x_H`` (H = the horizon), the series' season
length m and where it is scored: a horizon bucket (short, medium, long) and an optional configuration label (data
set, frequency). An *answer* is one arm's path for one window (arms: history only, +Macro, +Micro, +both) with
what the arm was told that the compliance figures check: a stated range and the effects.

**MASE of a path** (docs/evals.md, "B. Point forecasts", the same rule as :mod:`league.evals.mase`):

- scale = mean |y_t − y_{t−m}| over t = m..n−1 (the seasonal naive's in-sample mean absolute error on the history);
  a window with n ≤ m or a zero scale cannot be scaled and is counted apart (``unscaled``);
- MASE = mean over the H steps of |ŷ_h − x_h| / scale;
- the seasonal naive path is ŷ_h = y_{n−1+h−m·⌈h/m⌉}.

**Aggregation**: a configuration is (arm, bucket, *label); its MASE is the mean over its windows, divided by the
seasonal naive's mean MASE on the SAME windows (the relative MASE); configurations are combined by their geometric
mean, overall and per bucket, so the seasonal naive scores exactly 1.0 and lower is better. With no label the
configurations are bucket × arm. The report gives this table over every arm (``configs``, ``overall``) and per arm
(``arms``: the arm's own geometric means, the figure to compare arms by).

**Length**: a path whose length equals H is ``exact``; a longer path is truncated to its first H steps, a shorter
non-empty one padded with its last value (the flat continuation a reader would draw); both are scored as
fitted and counted apart (``truncated``, ``padded``). An empty or absent path is ``missing``: not scored, counted.

**Normalised points** (the seed's "history-normalised" unit): a value v is 100·(v − min y)/(max y − min y) of the
window's history, so 0 is the history's minimum, 100 its maximum, and a value may fall outside 0..100. A flat
history has no points: its range and effects are not checked (not counted in ``*_checked``).

**Stated range**: [low, high] in points; a fitted path complies when every step lies in [low − 5, high + 5].

**Effects** (a simple shape, documented in NOTES-ctx-scores.md): a mapping of a closed interval (start, end) of
0-based future steps (0 ≤ start ≤ end ≤ H − 1) to the (low, high) bounds, in points, that the effect puts the
series in over that interval (a level shift to 60..70, a dip to 10..20). A fitted path meets an effect when its
MEAN over the interval lies in [low − 5, high + 5] (the mean, like the strength the seed computes per interval,
so one stray step does not fail an effect that the path carries). The share is pooled over every effect of every
scored path: effects met / effects checked.

The tolerance of 5 points is the seed's ("五个历史归一化点的容差"): :data:`POINT_TOLERANCE`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypedDict

from league.evals.mase import RelativeMase, Window, relative_mase, seasonal_naive, seasonal_scale

POINT_TOLERANCE = 5.0
BUCKETS = ("short", "medium", "long")
#: An effect: closed interval of 0-based future steps -> (low, high) in history-normalised points.
Effects = Mapping[tuple[int, int], tuple[float, float]]
Fit = Literal["exact", "truncated", "padded", "missing"]


@dataclass(frozen=True)
class CtxWindow:
    """One window: what was known, what happened, the season length and where it is scored."""

    history: tuple[float, ...]
    future: tuple[float, ...]
    season: int
    bucket: str
    label: tuple[str, ...] = ()

    @property
    def horizon(self) -> int:
        return len(self.future)


@dataclass(frozen=True)
class CtxAnswer:
    """One arm's path for one window, with the range and effects that arm was told (None / empty: none)."""

    window: CtxWindow
    arm: str
    path: tuple[float, ...] | None
    stated_range: tuple[float, float] | None = None
    effects: Effects = field(default_factory=dict)


class CtxCompliance(TypedDict):
    """How many paths had the horizon's length, and how many stated ranges and effects the fitted paths kept."""

    answers: int
    exact: int
    exact_share: float | None
    truncated: int
    padded: int
    missing: int
    range_checked: int
    within_range: int
    within_range_share: float | None
    effects_checked: int
    effects_met: int
    effects_met_share: float | None


class ArmReport(RelativeMase):
    """One arm's relative MASE (its own geometric means), its compliance and what could not be scaled."""

    windows: int
    unscaled: int
    compliance: CtxCompliance


class CtxReport(RelativeMase):
    """Every configuration (arm × bucket × label) and their geometric means, and the per-arm reports."""

    arms: dict[str, ArmReport]


def naive_path(history: Sequence[float], horizon: int, m: int) -> tuple[float, ...]:
    """The seasonal naive path: step h repeats the last observed value of the same season phase."""
    return tuple(seasonal_naive(history, h, m) for h in range(1, horizon + 1))


def path_mase(path: Sequence[float], window: CtxWindow) -> float | None:
    """MASE of a path of the horizon's length against its window; None when the history cannot scale it."""
    if len(path) != window.horizon or not path:
        raise ValueError(f"a path of {len(path)} steps for a horizon of {window.horizon}")
    scale = seasonal_scale(window.history, window.season)
    if scale is None:
        return None
    return sum(abs(p - x) for p, x in zip(path, window.future, strict=True)) / len(path) / scale


def fit(path: Sequence[float] | None, horizon: int) -> tuple[tuple[float, ...] | None, Fit]:
    """The path cut or padded (with its last value) to ``horizon`` steps, and which of the two it needed."""
    if not path:
        return None, "missing"
    if len(path) == horizon:
        return tuple(path), "exact"
    if len(path) > horizon:
        return tuple(path[:horizon]), "truncated"
    return (*path, *([path[-1]] * (horizon - len(path)))), "padded"


def points(values: Sequence[float], history: Sequence[float]) -> list[float] | None:
    """``values`` in history-normalised points, or None for a flat (or empty) history."""
    if not history:
        return None
    low, high = min(history), max(history)
    if high <= low:
        return None
    return [100 * (v - low) / (high - low) for v in values]


def within_range(path: Sequence[float], history: Sequence[float], stated: tuple[float, float],
                 tolerance: float = POINT_TOLERANCE) -> bool | None:
    """Every step of the path within the stated [low, high] points, to the tolerance; None when unchecked."""
    pts = points(path, history)
    if pts is None:
        return None
    low, high = stated
    return all(low - tolerance <= p <= high + tolerance for p in pts)


def effects_met(path: Sequence[float], history: Sequence[float], effects: Effects,
                tolerance: float = POINT_TOLERANCE) -> tuple[int, int] | None:
    """(effects checked, effects met): the path's mean over each interval within that effect's bounds."""
    pts = points(path, history)
    if pts is None:
        return None
    met = 0
    for (start, end), (low, high) in effects.items():
        if not 0 <= start <= end < len(pts):
            raise ValueError(f"effect interval [{start}, {end}] outside the horizon's steps 0..{len(pts) - 1}")
        mean = sum(pts[start:end + 1]) / (end + 1 - start)
        met += low - tolerance <= mean <= high + tolerance
    return len(effects), met


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


@dataclass
class _Arm:
    windows: list[Window] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))


def _compliance(c: Mapping[str, int]) -> CtxCompliance:
    return {"answers": c["answers"], "exact": c["exact"], "exact_share": _share(c["exact"], c["answers"]),
            "truncated": c["truncated"], "padded": c["padded"], "missing": c["missing"],
            "range_checked": c["range_checked"], "within_range": c["within_range"],
            "within_range_share": _share(c["within_range"], c["range_checked"]),
            "effects_checked": c["effects_checked"], "effects_met": c["effects_met"],
            "effects_met_share": _share(c["effects_met"], c["effects_checked"])}


def score(answers: Sequence[CtxAnswer]) -> CtxReport:
    """The contextual track's report: relative MASE per configuration and arm, and each arm's compliance."""
    arms: dict[str, _Arm] = defaultdict(_Arm)
    for a in answers:
        arm, w = arms[a.arm], a.window
        arm.counts["answers"] += 1
        path, how = fit(a.path, w.horizon)
        arm.counts[how] += 1
        if path is None:
            continue
        if a.stated_range is not None and (inside := within_range(path, w.history, a.stated_range)) is not None:
            arm.counts["range_checked"] += 1
            arm.counts["within_range"] += inside
        if a.effects and (kept := effects_met(path, w.history, a.effects)) is not None:
            arm.counts["effects_checked"] += kept[0]
            arm.counts["effects_met"] += kept[1]
        scale = seasonal_scale(w.history, w.season)
        if scale is None:
            arm.counts["unscaled"] += 1
            continue
        arm.windows.append(Window((a.arm, w.bucket, *w.label), w.bucket, path, w.future,
                                  naive_path(w.history, w.horizon, w.season), scale))
    every = [win for arm in arms.values() for win in arm.windows]
    per_arm: dict[str, ArmReport] = {
        name: {**relative_mase(arm.windows), "windows": len(arm.windows), "unscaled": arm.counts["unscaled"],
               "compliance": _compliance(arm.counts)}
        for name, arm in sorted(arms.items())}
    return {**relative_mase(every), "arms": per_arm}

