"""Forecast windows for the contextual track (seed 004, GIFT-Eval-CTX), each sealed by a SHA-256.

The seed's rules, as implemented here:

- multivariate series are split into univariate ones before they arrive here (one ``Series`` per variable);
- a series shorter than ``MIN_SERIES_LENGTH`` = 24 steps is dropped;
- the horizon H must lie in 30..900 steps (``MIN_HORIZON``..``MAX_HORIZON``);
- the history is cut to a multiple of the horizon that depends on the bucket: short = 10·H, medium = 5·H,
  long = 3·H (``HISTORY_MULTIPLE``; the seed: "短、中、长历史截到预测步数的 10、5、3 倍");
- on one series, the windows' spans (history + future) never overlap.

Choices the seed leaves open (documented in NOTES-ctx-windows.md):

- windows are laid from the END of the series backwards (the held-out test part is the series' tail), each
  span of (k+1)·H steps directly before the previous one, so spans are disjoint and adjacent; at most
  ``max_windows`` per series (newest first);
- a window needs its full k·H history (no shorter history is padded or accepted);
- a window with a non-finite value (NaN, ±inf) in its span is skipped; the next span ends just before that value;
- the SHA-256 is taken over the canonical JSON of the window (sorted keys, no spaces, floats by ``repr``, so it is
  exact and stable); a window SET is sealed by the SHA-256 of its windows' digests joined by newlines in order.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from league.extras import extra

Bucket = Literal["short", "medium", "long"]

MIN_SERIES_LENGTH: Final = 24
MIN_HORIZON: Final = 30
MAX_HORIZON: Final = 900
HISTORY_MULTIPLE: Final[dict[str, int]] = {"short": 10, "medium": 5, "long": 3}


class WindowError(ValueError):
    """A window request that breaks the track's rules (horizon out of range, unknown bucket, bad series)."""


@dataclass(frozen=True)
class Series:
    """One univariate series: its id, its timestamps (ISO strings, as read) and its values."""

    series_id: str
    timestamps: tuple[str, ...]
    values: tuple[float, ...]

    def __post_init__(self) -> None:
        if len(self.timestamps) != len(self.values):
            n_ts, n_vals = len(self.timestamps), len(self.values)
            raise WindowError(f"series {self.series_id!r}: {n_ts} timestamps, {n_vals} values")


@dataclass(frozen=True)
class Window:
    """One window: the history the forecaster sees and the future it is scored on, plus where it sits."""

    series_id: str
    bucket: Bucket
    horizon: int
    start: int  # index of the first history step in the series
    history_timestamps: tuple[str, ...]
    history: tuple[float, ...]
    future_timestamps: tuple[str, ...]
    future: tuple[float, ...]

    @property
    def end(self) -> int:
        """Index one past the last future step (the span is ``start .. end-1``)."""
        return self.start + len(self.history) + len(self.future)

    def canonical(self) -> dict[str, object]:
        """The content the digest seals: everything a reader needs to rebuild the window."""
        return {
            "bucket": self.bucket,
            "future": [repr(float(v)) for v in self.future],
            "future_timestamps": list(self.future_timestamps),
            "history": [repr(float(v)) for v in self.history],
            "history_timestamps": list(self.history_timestamps),
            "horizon": self.horizon,
            "series_id": self.series_id,
            "start": self.start,
        }

    @property
    def sha256(self) -> str:
        """SHA-256 of the canonical JSON (sorted keys, compact separators, floats as their exact ``repr``)."""
        text = json.dumps(self.canonical(), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        return hashlib.sha256(text.encode("ascii")).hexdigest()


def history_length(horizon: int, bucket: str) -> int:
    """The history length for a horizon in a bucket (10·H short, 5·H medium, 3·H long)."""
    if bucket not in HISTORY_MULTIPLE:
        raise WindowError(f"unknown bucket {bucket!r} (short, medium, long)")
    if not MIN_HORIZON <= horizon <= MAX_HORIZON:
        raise WindowError(f"horizon {horizon} outside {MIN_HORIZON}..{MAX_HORIZON} steps")
    return HISTORY_MULTIPLE[bucket] * horizon


def make_windows(series: Series, horizon: int, bucket: Bucket, max_windows: int | None = None) -> list[Window]:
    """The series' windows, newest first, disjoint spans laid backwards from the series' end.

    A series shorter than 24 steps yields nothing (the seed drops it); so does one too short for a full span.
    """
    hist = history_length(horizon, bucket)
    if max_windows is not None and max_windows < 1:
        raise WindowError("max_windows must be >= 1")
    n = len(series.values)
    if n < MIN_SERIES_LENGTH:
        return []
    span = hist + horizon
    out: list[Window] = []
    end = n
    while end - span >= 0 and (max_windows is None or len(out) < max_windows):
        start = end - span
        values = series.values[start:end]
        bad = [j for j, v in enumerate(values) if not math.isfinite(v)]
        if bad:
            end = start + bad[-1]  # the next span ends just before the last bad value, still disjoint
            continue
        cut = start + hist
        out.append(Window(
            series_id=series.series_id, bucket=bucket, horizon=horizon, start=start,
            history_timestamps=series.timestamps[start:cut], history=series.values[start:cut],
            future_timestamps=series.timestamps[cut:end], future=series.values[cut:end],
        ))
        end = start
    return out


def seal(windows: Sequence[Window]) -> str:
    """SHA-256 of a window set: its windows' digests, in order, one per line (each followed by a newline)."""
    return hashlib.sha256("".join(w.sha256 + "\n" for w in windows).encode("ascii")).hexdigest()


def _group(rows: Iterable[tuple[str, str, float]]) -> list[Series]:
    by_id: dict[str, list[tuple[str, float]]] = {}
    for sid, ts, value in rows:
        by_id.setdefault(sid, []).append((ts, value))
    out = []
    for sid in sorted(by_id):
        pts = sorted(by_id[sid], key=lambda p: p[0])
        out.append(Series(sid, tuple(p[0] for p in pts), tuple(p[1] for p in pts)))
    return out


def _float(text: str) -> float:
    return float(text) if text.strip() not in ("", "NA", "NaN", "nan", "null") else math.nan


def read_series_csv(
    path: Path, id_col: str = "id", time_col: str = "timestamp", value_col: str = "value",
) -> list[Series]:
    """Long-format CSV (one row per id, timestamp, value) to series sorted by id, each sorted by timestamp.

    Timestamps are kept as text and sorted as text: ISO 8601 in one zone sorts correctly that way. An empty or
    ``NA`` value reads as NaN (a window over it is skipped).
    """
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = {id_col, time_col, value_col} - set(reader.fieldnames or ())
        if missing:
            raise WindowError(f"{path}: missing column(s) {sorted(missing)}")
        rows = [(r[id_col], r[time_col], _float(r[value_col])) for r in reader]
    return _group(rows)


def read_series_parquet(
    path: Path, id_col: str = "id", time_col: str = "timestamp", value_col: str = "value",
) -> list[Series]:
    """Long-format Parquet, as the CSV reader; needs pandas with a Parquet engine (pyarrow or fastparquet)."""
    with extra("stats"):  # imported here so the CSV path needs nothing beyond the stdlib
        import pandas as pd

    try:
        frame = pd.read_parquet(path, columns=[id_col, time_col, value_col])
    except ImportError as exc:
        raise WindowError(f"{path}: reading Parquet needs pyarrow or fastparquet ({exc})") from exc
    ts_text = [t.isoformat() if hasattr(t, "isoformat") else str(t) for t in frame[time_col]]
    rows = [(str(s), t, float(v)) for s, t, v in zip(frame[id_col], ts_text, frame[value_col], strict=True)]
    return _group(rows)
