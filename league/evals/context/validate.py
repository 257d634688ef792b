"""The effects validator (seed 004: "校验器重算取值范围,不通过就退回证据"). Pure.

It recomputes every value of an effects record from the window (history, future, the reference forecast) and
rejects a value that does not hold, naming the key and giving the recomputed value as evidence.

Tolerances (the seed scores compliance within "five history-normalised points"):

- numbers in points (``macro.min``, ``macro.max``, each ``macro.season.waveform`` entry, ``micro.<i>.strength``):
  ±``POINT_TOLERANCE`` = 5 points;
- ``macro.trend.<i>.share``: ±0.05 of the horizon each, and the shares must sum to 1 (±1e-6);
- periods (``macro.season.period``, ``micro.<i>.period``): ±max(1, 5 %) of the recomputed period;
- interval bounds (``micro.<i>.start`` / ``.end``): ±max(2, ⌈5 % H⌉) steps, and 0 ≤ start ≤ end ≤ H − 1;
- labels and counts (direction, shape, kind, ``macro.trend.count``, ``micro.count``, the waveform's length): exact;
- a missing key or an unknown key is rejected.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Final

from league.evals.context.effects import Record, Value, compute_effects

POINT_TOLERANCE: Final = 5.0
SHARE_TOLERANCE: Final = 0.05
PERIOD_SHARE: Final = 0.05
BOUND_SHARE: Final = 0.05


class InvalidEffect(ValueError):
    """A value of an effects record that the series does not support; ``key`` names it."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key


def _number(key: str, value: Value | object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidEffect(key, f"expected a finite number, got {value!r}")
    return float(value)


def _integer(key: str, value: Value | object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidEffect(key, f"expected an integer, got {value!r}")
    return value


def _close(key: str, claimed: Value | object, truth: float, tol: float, unit: str) -> None:
    got = _number(key, claimed)
    if abs(got - truth) > tol:
        raise InvalidEffect(key, f"{got} does not hold: recomputed {truth:.4g} (tolerance ±{tol:g} {unit})")


def _exact(key: str, claimed: Value | object, truth: Value) -> None:
    if isinstance(claimed, bool) or claimed != truth or type(claimed) is not type(truth):
        raise InvalidEffect(key, f"{claimed!r} does not hold: recomputed {truth!r}")


def _period(key: str, claimed: Value | object, truth: int | None) -> None:
    if truth is None or claimed is None:
        _exact(key, claimed, truth)
        return
    got = _integer(key, claimed)
    tol = max(1.0, PERIOD_SHARE * truth)
    if abs(got - truth) > tol:
        raise InvalidEffect(key, f"{got} does not hold: recomputed {truth} (tolerance ±{tol:g} steps)")


def check(
    record: Mapping[str, object], history: Sequence[float], future: Sequence[float], reference: Sequence[float],
    history_period: int | None = None,
) -> Record:
    """Validate ``record``; return the recomputed record when every value holds, else raise ``InvalidEffect``.

    ``history_period`` must be the one the record was computed with (None: detected from the history).
    """
    eff = compute_effects(history, future, reference, history_period)
    truth = eff.record()
    h = eff.horizon
    for key in ("macro.trend.count", "micro.count"):  # counts first: a wrong count explains the keys that follow
        if key not in record:
            raise InvalidEffect(key, f"missing (recomputed {truth[key]!r})")
        _exact(key, record[key], truth[key])
    for key in record:
        if key not in truth:
            raise InvalidEffect(key, "unknown key (not in the recomputed record)")
    for key in truth:
        if key not in record:
            raise InvalidEffect(key, f"missing (recomputed {truth[key]!r})")
    shares = []
    for i, seg in enumerate(eff.segments, start=1):
        for label in ("direction", "shape"):
            key = f"macro.trend.{i}.{label}"
            _exact(key, record[key], truth[key])
        key = f"macro.trend.{i}.share"
        _close(key, record[key], seg.length / h, SHARE_TOLERANCE, "of the horizon")
        shares.append(_number(key, record[key]))
    if abs(sum(shares) - 1.0) > 1e-6:
        raise InvalidEffect(f"macro.trend.{len(shares)}.share", f"shares sum to {sum(shares)}, not 1")
    _period("macro.season.period", record["macro.season.period"], eff.period)
    wave = record["macro.season.waveform"]
    if not isinstance(wave, list) or len(wave) != len(eff.waveform):
        raise InvalidEffect("macro.season.waveform", f"expected {len(eff.waveform)} values, got {wave!r}")
    for k, (got, want) in enumerate(zip(wave, eff.waveform, strict=True)):
        _close(f"macro.season.waveform[{k}]", got, want, POINT_TOLERANCE, "points")
    _close("macro.min", record["macro.min"], eff.minimum, POINT_TOLERANCE, "points")
    _close("macro.max", record["macro.max"], eff.maximum, POINT_TOLERANCE, "points")
    bound = max(2.0, math.ceil(BOUND_SHARE * h))
    for i, m in enumerate(eff.micro, start=1):
        _exact(f"micro.{i}.kind", record[f"micro.{i}.kind"], m.kind)
        start = _integer(f"micro.{i}.start", record[f"micro.{i}.start"])
        end = _integer(f"micro.{i}.end", record[f"micro.{i}.end"])
        if not 0 <= start <= end <= h - 1:
            raise InvalidEffect(f"micro.{i}.end", f"[{start}, {end}] is not a closed interval inside 0..{h - 1}")
        _close(f"micro.{i}.start", start, m.start, bound, "steps")
        _close(f"micro.{i}.end", end, m.end, bound, "steps")
        _close(f"micro.{i}.strength", record[f"micro.{i}.strength"], m.strength, POINT_TOLERANCE, "points")
        if m.kind == "period_change":
            _period(f"micro.{i}.period", record[f"micro.{i}.period"], m.period)
    return truth


def validate(
    record: Mapping[str, object], history: Sequence[float], future: Sequence[float], reference: Sequence[float],
    history_period: int | None = None,
) -> None:
    """Raise ``InvalidEffect`` (naming the key) unless every value of ``record`` holds for the window."""
    check(record, history, future, reference, history_period)
