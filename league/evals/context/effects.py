"""The structured effects of one window, computed by code from its realised future (seed 004). Pure.

An effects record is a flat key → value mapping (the seed: "效应记成键值,散文不进比较"). Units: a *point* is one
hundredth of the history's range (max − min of the history), so 0 is the history's minimum, 100 its maximum and a
value may fall outside 0..100. All thresholds below are module constants, documented in NOTES-ctx-windows.md.

**Macro** (the whole future):

- ``macro.trend.count`` = 1 or 2 and, per segment i, ``macro.trend.<i>.direction`` (up / down / flat),
  ``.shape`` (linear / convex / concave) and ``.share`` of the horizon (shares sum to 1). The future, less its
  seasonal component, is fitted by one line and by the best continuous two-piece line (hinge at k, each piece
  ≥ 10 % of H); two segments are kept when they halve the squared error AND the gain is at least 2 % of the
  future's range in RMS, and the two segments' labels differ. Direction: the fitted change over the segment is
  ≥ +5 points (up), ≤ −5 (down), else flat. Shape: a quadratic fit on the segment; its curvature term c·(n/2)²
  under 5 points in magnitude is linear, else convex (c > 0) or concave (c < 0).
- ``macro.season.period``: the lag (2..H/2, so ≥ 2 full cycles) of the highest local peak of the linearly
  detrended future's autocorrelation, kept when that peak is ≥ 0.5, else ``None``; ``macro.season.waveform``:
  the mean detrended value per phase (phases counted from the first future step), less its mean, in points
  ([] when none).
- ``macro.min`` / ``macro.max``: the future's minimum and maximum in points.

**Micro** (closed intervals [start, end] of future steps, 0-based, that the reference forecast missed):
a step is missed when |actual − reference| ≥ 10 % of the future's range; runs of missed steps closer than
max(history period, ⌈5 % H⌉) steps are merged; runs shorter than max(3, ⌈2 % H⌉) steps, or in which fewer than
half the steps are missed (scattered noise spikes), are dropped. Each interval's kind:

- ``period_change`` when the residual oscillates (|mean residual| < half its mean absolute value) and the
  interval's own period (as above, on the actual values of the interval) exists and differs from the history's
  period by more than max(1, 10 %); ``micro.<i>.period`` is the new period; strength = mean |residual| in points;
- ``level_shift`` when the interval runs to the horizon's end (no recovery seen); strength = mean residual
  (signed) in points, i.e. the size of the new level against the reference;
- ``deviation`` (deviation then recovery) otherwise; strength = the residual of largest magnitude (signed) in
  points.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

import numpy as np
import numpy.typing as npt

Value = str | int | float | list[float] | None
Record = dict[str, Value]
Kind = Literal["deviation", "level_shift", "period_change"]
Array = npt.NDArray[np.float64]

FLAT_POINTS: Final = 5.0  # a segment whose fitted change is under 5 points is flat
LINEAR_POINTS: Final = 5.0  # a curvature term under 5 points is linear
MIN_SEGMENT_SHARE: Final = 0.10  # each of two trend segments covers at least 10 % of the horizon
TWO_SEGMENT_SSE_RATIO: Final = 0.5  # two segments must at least halve the squared error
TWO_SEGMENT_MIN_RMS_GAIN: Final = 0.02  # ... and gain at least 2 % of the future's range in RMS
ACF_MIN: Final = 0.5  # a seasonal period needs an autocorrelation peak of at least 0.5
MISS_SHARE: Final = 0.10  # a step is missed when |residual| >= 10 % of the future's range (the hard-window ratio)
MERGE_SHARE: Final = 0.05
MIN_RUN_SHARE: Final = 0.02
MIN_RUN: Final = 3
MIN_DENSITY: Final = 0.5  # at least half the steps of a merged run are missed (scattered noise spikes are not)
PERIOD_CHANGE_SHARE: Final = 0.10


class EffectsError(ValueError):
    """The effects of a window cannot be computed (flat history or flat future, lengths that do not match)."""


def detect_period(values: Sequence[float] | Array) -> int | None:
    """The dominant period of a series (≥ 2 full cycles), or ``None`` when no autocorrelation peak reaches 0.5."""
    x = np.asarray(values, dtype=np.float64)
    n = len(x)
    if n < 6:
        return None
    t = np.arange(n, dtype=np.float64)
    slope, icpt = np.polyfit(t, x, 1)
    d = x - (slope * t + icpt)
    denom = float(np.dot(d, d))
    if denom <= 1e-12 * max(1.0, float(np.max(np.abs(x))) ** 2) * n:
        return None
    max_lag = n // 2
    acf = np.array([float(np.dot(d[: n - lag], d[lag:])) / denom for lag in range(max_lag + 2)])
    best: int | None = None
    for lag in range(2, max_lag + 1):
        if acf[lag] >= ACF_MIN and acf[lag] >= acf[lag - 1] and acf[lag] >= acf[lag + 1]:
            if best is None or acf[lag] > acf[best] + 1e-12:
                best = lag
    return best


def _waveform(values: Array, period: int) -> Array:
    """Mean linearly-detrended value per phase (phases counted from the first step), less its mean, in raw units."""
    n = len(values)
    t = np.arange(n, dtype=np.float64)
    slope, icpt = np.polyfit(t, values, 1)
    d = values - (slope * t + icpt)
    wave = np.array([float(np.mean(d[k::period])) for k in range(period)])
    return wave - float(np.mean(wave))


@dataclass(frozen=True)
class Segment:
    """One trend segment: first step, number of steps, fitted change (raw units), curvature term (raw units)."""

    start: int
    length: int
    change: float
    curvature: float


def _curvature(z: Array) -> float:
    n = len(z)
    if n < 3:
        return 0.0
    c = float(np.polyfit(np.arange(n, dtype=np.float64), z, 2)[0])
    return c * (n / 2) ** 2


def _sse(design: Array, z: Array) -> tuple[Array, float]:
    coef, *_ = np.linalg.lstsq(design, z, rcond=None)
    resid = z - design @ coef
    return np.asarray(coef, dtype=np.float64), float(np.dot(resid, resid))


def trend_segments(z: Array, future_range: float, scale: float) -> list[Segment]:
    """One or two trend segments of a deseasonalised future (see the module docstring for the rule)."""
    h = len(z)
    t = np.arange(h, dtype=np.float64)
    one = np.column_stack([np.ones(h), t])
    coef1, sse1 = _sse(one, z)
    single = [Segment(0, h, float(coef1[1]) * h, _curvature(z))]
    min_seg = max(2, math.ceil(MIN_SEGMENT_SHARE * h))
    best: tuple[float, int, Array] | None = None
    for k in range(min_seg, h - min_seg + 1):
        design = np.column_stack([np.ones(h), t, np.maximum(0.0, t - k)])
        coef, sse = _sse(design, z)
        if best is None or sse < best[0] - 1e-12:
            best = (sse, k, coef)
    if best is None:
        return single
    sse2, k, coef2 = best
    gain_rms = math.sqrt(max(0.0, sse1 - sse2) / h)
    if not (sse2 <= TWO_SEGMENT_SSE_RATIO * sse1 and gain_rms >= TWO_SEGMENT_MIN_RMS_GAIN * future_range):
        return single
    s1, s2 = float(coef2[1]), float(coef2[1] + coef2[2])
    pair = [Segment(0, k, s1 * k, _curvature(z[:k])), Segment(k, h - k, s2 * (h - k), _curvature(z[k:]))]
    if _labels(pair[0], scale) == _labels(pair[1], scale):
        return single
    return pair


def direction(change: float, scale: float) -> str:
    pts = 100.0 * change / scale
    return "up" if pts >= FLAT_POINTS else "down" if pts <= -FLAT_POINTS else "flat"


def shape(curvature: float, scale: float) -> str:
    pts = 100.0 * curvature / scale
    return "linear" if abs(pts) < LINEAR_POINTS else "convex" if pts > 0 else "concave"


def _labels(seg: Segment, scale: float) -> tuple[str, str]:
    return direction(seg.change, scale), shape(seg.curvature, scale)


@dataclass(frozen=True)
class Micro:
    """One missed interval (closed, 0-based future steps) with its kind and strength (points)."""

    kind: Kind
    start: int
    end: int
    strength: float
    period: int | None = None


def missed_runs(residual: Array, future_range: float, history_period: int | None) -> list[tuple[int, int]]:
    """Closed runs of missed steps, merged across short gaps, short runs dropped."""
    h = len(residual)
    missed = np.abs(residual) >= MISS_SHARE * future_range
    runs: list[list[int]] = []
    gap = max(history_period or 1, math.ceil(MERGE_SHARE * h))
    for i in np.flatnonzero(missed):
        step = int(i)
        if runs and step - runs[-1][1] <= gap:
            runs[-1][1] = step
        else:
            runs.append([step, step])
    min_run = max(MIN_RUN, math.ceil(MIN_RUN_SHARE * h))
    return [
        (a, b) for a, b in runs
        if b - a + 1 >= min_run and int(np.count_nonzero(missed[a : b + 1])) >= MIN_DENSITY * (b - a + 1)
    ]


def _period_differs(local: int | None, before: int | None) -> bool:
    if local is None:
        return False
    if before is None:
        return True
    return abs(local - before) > max(1.0, PERIOD_CHANGE_SHARE * before)


def micro_effects(
    future: Array, reference: Array, future_range: float, scale: float, history_period: int | None,
) -> list[Micro]:
    """Classify each missed interval (see the module docstring)."""
    residual = future - reference
    h = len(future)
    out: list[Micro] = []
    for a, b in missed_runs(residual, future_range, history_period):
        r = residual[a : b + 1]
        mean_abs = float(np.mean(np.abs(r)))
        mean = float(np.mean(r))
        local = detect_period(future[a : b + 1]) if abs(mean) < 0.5 * mean_abs else None
        if _period_differs(local, history_period):
            out.append(Micro("period_change", a, b, 100.0 * mean_abs / scale, local))
        elif b == h - 1:
            out.append(Micro("level_shift", a, b, 100.0 * mean / scale))
        else:
            peak = float(r[int(np.argmax(np.abs(r)))])
            out.append(Micro("deviation", a, b, 100.0 * peak / scale))
    return out


@dataclass(frozen=True)
class Effects:
    """Everything computed for one window, unrounded; ``record()`` gives the published key-values."""

    scale: float  # the history's range (raw units per 100 points)
    segments: tuple[Segment, ...]
    period: int | None
    waveform: tuple[float, ...]  # points
    minimum: float  # points
    maximum: float  # points
    micro: tuple[Micro, ...]
    horizon: int

    def record(self) -> Record:
        rec: Record = {"macro.trend.count": len(self.segments)}
        shares = [seg.length / self.horizon for seg in self.segments]
        rounded = [round(s, 4) for s in shares[:-1]]
        rounded.append(round(1.0 - sum(rounded), 4))
        for i, (seg, share) in enumerate(zip(self.segments, rounded, strict=True), start=1):
            rec[f"macro.trend.{i}.direction"] = direction(seg.change, self.scale)
            rec[f"macro.trend.{i}.shape"] = shape(seg.curvature, self.scale)
            rec[f"macro.trend.{i}.share"] = share
        rec["macro.season.period"] = self.period
        rec["macro.season.waveform"] = [round(v, 2) for v in self.waveform]
        rec["macro.min"] = round(self.minimum, 2)
        rec["macro.max"] = round(self.maximum, 2)
        rec["micro.count"] = len(self.micro)
        for i, m in enumerate(self.micro, start=1):
            rec[f"micro.{i}.kind"] = m.kind
            rec[f"micro.{i}.start"] = m.start
            rec[f"micro.{i}.end"] = m.end
            rec[f"micro.{i}.strength"] = round(m.strength, 2)
            if m.kind == "period_change":
                rec[f"micro.{i}.period"] = m.period
        return rec


def compute_effects(
    history: Sequence[float], future: Sequence[float], reference: Sequence[float],
    history_period: int | None = None, detect_history_period: bool = True,
) -> Effects:
    """The Macro and Micro effects of a window, given the reference forecast its Micro intervals are measured on.

    ``history_period`` is the history's season length (None: detected from the history when
    ``detect_history_period``, else taken as no season); it sets the merge gap and the period-change test.
    """
    hist = np.asarray(history, dtype=np.float64)
    fut = np.asarray(future, dtype=np.float64)
    ref = np.asarray(reference, dtype=np.float64)
    if len(fut) != len(ref) or len(fut) < 2:
        raise EffectsError(f"future has {len(fut)} steps, the reference {len(ref)}")
    if len(hist) < 2:
        raise EffectsError("history too short")
    lo, scale = float(np.min(hist)), float(np.max(hist) - np.min(hist))
    future_range = float(np.max(fut) - np.min(fut))
    if scale <= 0 or future_range <= 0:
        raise EffectsError("a flat history or a flat future has no normalised effects")
    if history_period is None and detect_history_period:
        history_period = detect_period(hist)
    h = len(fut)
    period = detect_period(fut)
    if period is not None:
        wave = _waveform(fut, period)
        z = fut - np.resize(wave, h)
    else:
        wave = np.zeros(0)
        z = fut
    return Effects(
        scale=scale,
        segments=tuple(trend_segments(z, future_range, scale)),
        period=period,
        waveform=tuple(float(v) for v in 100.0 * wave / scale),
        minimum=100.0 * (float(np.min(fut)) - lo) / scale,
        maximum=100.0 * (float(np.max(fut)) - lo) / scale,
        micro=tuple(micro_effects(fut, ref, future_range, scale, history_period)),
        horizon=h,
    )
