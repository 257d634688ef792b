"""Window rules of the contextual track, checked by hand: lengths, buckets, disjoint spans, digests, the reader."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
from pathlib import Path

import pandas as pd
import pytest

from league.evals.context.windows import (
    Series,
    WindowError,
    history_length,
    make_windows,
    read_series_csv,
    read_series_parquet,
    seal,
)


def _series(n: int, sid: str = "s") -> Series:
    return Series(sid, tuple(f"t{i:05d}" for i in range(n)), tuple(float(i) for i in range(n)))


def test_history_multiples_follow_the_seed() -> None:
    # seed 004: short, medium, long histories are cut to 10, 5, 3 times the horizon
    assert history_length(30, "short") == 300
    assert history_length(48, "medium") == 240
    assert history_length(900, "long") == 2700


@pytest.mark.parametrize("horizon", [29, 901, 0])
def test_horizon_outside_30_to_900_is_refused(horizon: int) -> None:
    with pytest.raises(WindowError, match="horizon"):
        history_length(horizon, "short")


def test_unknown_bucket_is_refused() -> None:
    with pytest.raises(WindowError, match="bucket"):
        history_length(30, "huge")


def test_series_shorter_than_24_steps_is_dropped() -> None:
    assert make_windows(_series(23), 30, "long") == []


def test_windows_laid_backwards_disjoint_and_exact() -> None:
    # long bucket, H = 30: history 90, span 120; a series of 370 holds 3 spans (360), 10 steps left at the start
    wins = make_windows(_series(370), 30, "long")
    assert [(w.start, w.end) for w in wins] == [(250, 370), (130, 250), (10, 130)]
    for w in wins:
        assert len(w.history) == 90 and len(w.future) == 30
        assert w.history[0] == float(w.start) and w.future[0] == float(w.start + 90)
        assert w.future_timestamps[-1] == f"t{w.end - 1:05d}"
    spans = [set(range(w.start, w.end)) for w in wins]
    assert all(not (spans[i] & spans[j]) for i in range(3) for j in range(i + 1, 3))
    assert len(make_windows(_series(370), 30, "long", max_windows=2)) == 2
    # short bucket: span 330, one window only
    assert [(w.start, w.end) for w in make_windows(_series(370), 30, "short")] == [(40, 370)]


def test_a_nan_skips_its_span_and_the_next_ends_before_it() -> None:
    vals = [float(i) for i in range(370)]
    vals[300] = math.nan
    s = Series("s", tuple(str(i) for i in range(370)), tuple(vals))
    wins = make_windows(s, 30, "long")
    # the span 250..369 holds the NaN at 300: the next span ends at 300 (exclusive) -> 180..299, then 60..179
    assert [(w.start, w.end) for w in wins] == [(180, 300), (60, 180)]


def test_digest_is_sha256_of_the_canonical_json() -> None:
    w = make_windows(_series(120), 30, "long")[0]
    text = json.dumps({
        "bucket": "long", "future": [repr(float(v)) for v in range(90, 120)],
        "future_timestamps": [f"t{i:05d}" for i in range(90, 120)],
        "history": [repr(float(v)) for v in range(90)], "history_timestamps": [f"t{i:05d}" for i in range(90)],
        "horizon": 30, "series_id": "s", "start": 0,
    }, sort_keys=True, separators=(",", ":"))
    assert w.sha256 == hashlib.sha256(text.encode()).hexdigest()
    assert seal([w]) == hashlib.sha256((w.sha256 + "\n").encode()).hexdigest()
    other = make_windows(Series("s", w.history_timestamps + w.future_timestamps, (0.5,) + tuple(range(1, 120))),
                         30, "long")[0]
    assert other.sha256 != w.sha256


def test_csv_reader_groups_and_sorts(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text("id,timestamp,value\nb,2024-01-02,2\na,2024-01-02,5\nb,2024-01-01,1\na,2024-01-01,NA\n")
    got = read_series_csv(path)
    assert [s.series_id for s in got] == ["a", "b"]
    assert got[1].values == (1.0, 2.0) and got[1].timestamps == ("2024-01-01", "2024-01-02")
    assert math.isnan(got[0].values[0])
    with pytest.raises(WindowError, match="missing column"):
        read_series_csv(path, value_col="target")


def test_parquet_reader_reads_or_names_the_missing_engine(tmp_path: Path) -> None:
    path = tmp_path / "s.parquet"
    has_engine = any(importlib.util.find_spec(m) is not None for m in ("pyarrow", "fastparquet"))
    if not has_engine:
        with pytest.raises(WindowError, match="pyarrow"):
            read_series_parquet(path)
        return
    pd.DataFrame({"id": ["a", "a"], "timestamp": ["2024-01-02", "2024-01-01"], "value": [2.0, 1.0]}).to_parquet(path)
    (s,) = read_series_parquet(path)
    assert s.values == (1.0, 2.0)
