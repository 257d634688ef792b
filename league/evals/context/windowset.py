"""The sealed window set of a contextual run: hard windows, their effects, stated ranges and effect bounds.

From the series of a :class:`~league.evals.context.sources.Source`, for every requested horizon and bucket:

1. the candidate windows (league.evals.context.windows: newest first, disjoint per series, at most
   ``max_windows`` per series, horizon and bucket);
2. the season length m of the window: the series' (league.evals.context.sources), or 1 when the history holds
   no more than two seasons (the seasonal naive and the MASE scale need one full season before the first use);
3. the hard-window filter with the NAMED reference forecaster, statsmodels' ``ExponentialSmoothing``
   (league.evals.context.hard.HoltWinters: additive damped trend, additive season of length m) — a window is
   kept when the reference's rMAE is at least 0.10 of the future's range;
4. the effects, computed from the realised future with the Micro intervals measured against that reference
   forecast (league.evals.context.effects, history period = m when m ≥ 2, else detected), then validated by
   recomputation (league.evals.context.validate); a window whose effects cannot be computed (flat history or
   future) is dropped and counted;
5. what the direct mode states: the range the future will lie in, in raw units — the effects' ``macro.min`` /
   ``macro.max`` (the realised future's minimum and maximum) given in the series' own units, i.e. exactly
   ``min(future)``, ``max(future)``. The prompt therefore TELLS the seat the range the future lies in;
6. the effect bounds the compliance figures check (:func:`effect_bounds`).

The set is written as ``context-windows.json`` and sealed by the SHA-256 of those bytes; each window by its own
SHA-256 (league.evals.context.windows.Window.sha256) and its effects record by the SHA-256 of the record's
canonical JSON (sorted keys, compact).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from league.evals.context.effects import EffectsError, Record, Value, compute_effects
from league.evals.context.hard import HARD_THRESHOLD, Forecaster, HoltWinters, score
from league.evals.context.report import ARMS
from league.evals.context.scores import Effects, points
from league.evals.context.sources import Source
from league.evals.context.validate import InvalidEffect, validate
from league.evals.context.windows import Bucket, Window, make_windows, seal
from league.evals.errors import EvalError
from league.jsonvalue import Json, JsonObject

BUCKET_NAMES: Final[tuple[Bucket, ...]] = ("short", "medium", "long")
REFERENCE_FAMILY: Final = "statsmodels.tsa.holtwinters.ExponentialSmoothing"


def window_season(history_length: int, season: int) -> int:
    """The season length a window is scored with: the series' m, or 1 when the history holds ≤ 2 seasons."""
    return season if season >= 2 and history_length > 2 * season else 1


def record_sha256(record: Mapping[str, Value]) -> str:
    """SHA-256 of an effects record's canonical JSON (sorted keys, compact, ASCII)."""
    text = json.dumps(dict(record), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _int(record: Mapping[str, Value], key: str) -> int:
    value = record[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidEffect(key, f"expected an integer, got {value!r}")
    return value


def _float(record: Mapping[str, Value], key: str) -> float:
    value = record[key]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidEffect(key, f"expected a number, got {value!r}")
    return float(value)


def effect_bounds(record: Mapping[str, Value], history: Sequence[float], future: Sequence[float],
                  arm: str = "both") -> Effects:
    """The effects an arm was shown, as scores.py's mapping {(start, end): (low, high)} in history points.

    Macro (arms ``macro`` and ``both``): the whole horizon (0, H − 1) within ``macro.min`` .. ``macro.max``.
    Micro (arms ``micro`` and ``both``): each interval ``micro.<i>.start`` .. ``micro.<i>.end`` within the
    realised future's minimum .. maximum over that interval (the record states where the effect is, its kind and
    strength; the bounds are what the series did there). The realised future meets every bound (its mean over an
    interval lies between its minimum and maximum there); arm ``history`` gets none.
    """
    if arm not in ARMS:
        raise ValueError(f"unknown arm {arm!r} ({', '.join(ARMS)})")
    out: dict[tuple[int, int], tuple[float, float]] = {}
    h = len(future)
    if arm in ("macro", "both"):
        out[(0, h - 1)] = (_float(record, "macro.min"), _float(record, "macro.max"))
    if arm in ("micro", "both"):
        for i in range(1, _int(record, "micro.count") + 1):
            start, end = _int(record, f"micro.{i}.start"), _int(record, f"micro.{i}.end")
            pts = points(future[start:end + 1], history)
            if pts is None:
                raise InvalidEffect(f"micro.{i}.start", "a flat history has no points")
            low, high = min(pts), max(pts)
            if (start, end) in out:  # the same interval twice: both bounds hold, keep their intersection
                low, high = max(low, out[(start, end)][0]), min(high, out[(start, end)][1])
            out[(start, end)] = (low, high)
    return out


def shown_effects(record: Mapping[str, Value], arm: str) -> dict[str, Value] | None:
    """The key-values an arm's prompt shows: none (history), ``macro.*``, ``micro.*`` or all (both)."""
    if arm == "history":
        return None
    prefixes = {"macro": ("macro.",), "micro": ("micro.",), "both": ("macro.", "micro.")}[arm]
    return {k: v for k, v in record.items() if k.startswith(prefixes)}


@dataclass(frozen=True)
class CtxEntry:
    """One sealed window with all that was computed for it."""

    window_id: str
    window: Window
    freq: str
    season: int
    reference_name: str
    reference: tuple[float, ...]
    rmae: float
    effects: Record

    @property
    def effects_sha256(self) -> str:
        return record_sha256(self.effects)

    @property
    def stated_range(self) -> tuple[float, float]:
        """Raw units: the realised future's minimum and maximum (the effects' macro.min / macro.max)."""
        return min(self.window.future), max(self.window.future)

    def as_json(self) -> JsonObject:
        w = self.window
        (macro, (lo, hi)), = effect_bounds(self.effects, w.history, w.future, "macro").items()
        micro: list[Json] = [[a, b, low, high] for (a, b), (low, high) in
                             effect_bounds(self.effects, w.history, w.future, "micro").items()]
        effects: JsonObject = {k: list(v) if isinstance(v, list) else v for k, v in self.effects.items()}
        return {"id": self.window_id, "sha256": w.sha256, "effects_sha256": self.effects_sha256,
                "series_id": w.series_id, "bucket": w.bucket, "horizon": w.horizon, "start": w.start,
                "freq": self.freq, "season": self.season,
                "history_timestamps": list(w.history_timestamps), "history": list(w.history),
                "future_timestamps": list(w.future_timestamps), "future": list(w.future),
                "reference": {"name": self.reference_name, "path": list(self.reference), "rmae": self.rmae},
                "effects": effects, "stated_range": list(self.stated_range),
                "macro_bounds": [macro[0], macro[1], lo, hi], "micro_bounds": micro}


@dataclass(frozen=True)
class WindowSet:
    """The hard windows of a run, in order, and what was dropped (and why)."""

    source: Source
    horizons: tuple[int, ...]
    buckets: tuple[str, ...]
    max_windows: int | None
    entries: tuple[CtxEntry, ...]
    candidates: int
    dropped: dict[str, int]

    @property
    def seal(self) -> str:
        """SHA-256 of the windows' digests joined by newlines (league.evals.context.windows.seal)."""
        return seal([e.window for e in self.entries])

    def as_json(self) -> JsonObject:
        dropped: JsonObject = {k: v for k, v in sorted(self.dropped.items())}
        return {"track": "gift-eval-ctx", "source": self.source.as_json(), "horizons": list(self.horizons),
                "buckets": list(self.buckets), "max_windows": self.max_windows,
                "reference": {"family": REFERENCE_FAMILY, "hard_threshold": HARD_THRESHOLD},
                "candidates": self.candidates, "dropped": dropped, "set_sha256": self.seal,
                "windows": [e.as_json() for e in self.entries]}


def build_window_set(source: Source, horizons: Sequence[int], buckets: Sequence[str], *,
                     max_windows: int | None = None,
                     reference: Callable[[int], Forecaster] = HoltWinters) -> WindowSet:
    """The hard windows of every series × horizon × bucket, with their validated effects (module docstring)."""
    unknown = [b for b in buckets if b not in BUCKET_NAMES]
    if unknown or not buckets:
        raise EvalError(f"unknown bucket(s) {unknown}", fix="--buckets takes short, medium, long")
    entries: list[CtxEntry] = []
    dropped: Counter[str] = Counter()
    candidates = 0
    for src in source.series:
        for horizon in horizons:
            for bucket in BUCKET_NAMES:
                if bucket not in buckets:
                    continue
                try:
                    windows = make_windows(src.series, horizon, bucket, max_windows)
                except ValueError as exc:
                    raise EvalError(str(exc), fix="--horizon takes 30..900 steps; --max-windows at least 1") from None
                for w in windows:
                    candidates += 1
                    m = window_season(len(w.history), src.season)
                    ref = reference(m)
                    scored = score(w, ref)
                    if scored.rmae is None:
                        dropped["flat future"] += 1
                        continue
                    if not scored.hard:
                        dropped["not hard"] += 1
                        continue
                    period = m if m >= 2 else None
                    try:
                        record = compute_effects(w.history, w.future, scored.reference, period).record()
                        validate(record, w.history, w.future, scored.reference, period)
                    except EffectsError:
                        dropped["flat history"] += 1
                        continue
                    except InvalidEffect:
                        dropped["effects not validated"] += 1
                        continue
                    wid = f"{w.series_id}:{bucket}:{horizon}:{w.start}"
                    entries.append(CtxEntry(wid, w, src.freq.name, m, ref.name, scored.reference, scored.rmae,
                                            record))
    return WindowSet(source, tuple(horizons), tuple(b for b in BUCKET_NAMES if b in buckets), max_windows,
                     tuple(entries), candidates, dict(dropped))
