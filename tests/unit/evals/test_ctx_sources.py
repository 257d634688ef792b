"""The contextual track's series sources: a user's CSV (or Parquet) file, its frequency, the league's own closes."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
from test_evals_points import CLOSES, SESSIONS, write_book

from league.evals.context.sources import (
    Frequency,
    SeriesFileError,
    parse_freq,
    read_book_series,
    read_series_file,
    shipped_series,
)


def write(tmp_path: Path, text: str, name: str = "s.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_long_csv_is_split_by_id_sorted_by_time_with_its_frequency(tmp_path: Path) -> None:
    rows = ["id,timestamp,value"]
    rows += [f"b,2026-01-01T{h:02d}:00:00Z,{h}" for h in (3, 1, 2, 0)]  # out of order on purpose
    rows += ["a,2026-01-01,1", "a,2026-01-02,", "a,2026-01-03,NA", "a,2026-01-04,4"]
    src = read_series_file(write(tmp_path, "\n".join(rows) + "\n"))
    a, b = src.series
    assert a.series.series_id == "a" and a.freq == Frequency("D") and a.season == 1
    assert a.series.values[0] == 1.0 and math.isnan(a.series.values[1]) and math.isnan(a.series.values[2])
    assert b.series.values == (0.0, 1.0, 2.0, 3.0) and b.freq.name == "H" and b.season == 24
    assert src.kind == "file" and len(src.sha256) == 64


@pytest.mark.parametrize(("stamps", "name", "season"), [
    ([f"2026-01-0{d}" for d in range(1, 8)], "D", 1),
    (["2026-01-05", "2026-01-06", "2026-01-07", "2026-01-08", "2026-01-09", "2026-01-12", "2026-01-13"], "B", 5),
    (["2026-01-05", "2026-01-12", "2026-01-19"], "W", 1),
    (["2025-01-31", "2025-02-28", "2025-03-31", "2025-04-30"], "M", 12),
    (["2025-01-01", "2025-04-01", "2025-07-01"], "Q", 4),
    (["2023-01-01", "2024-01-01", "2025-01-01"], "Y", 1),
    (["2026-01-01T00:00", "2026-01-01T00:15", "2026-01-01T00:30"], "15T", 96),
    (["2026-01-01T00:00", "2026-01-01T00:07", "2026-01-01T00:14"], "7T", 1),  # 1440 / 7 is not whole: m = 1
])
def test_the_frequency_is_inferred_and_gives_the_season(tmp_path: Path, stamps: list[str], name: str,
                                                        season: int) -> None:
    text = "id,timestamp,value\n" + "".join(f"x,{s},{k}\n" for k, s in enumerate(stamps))
    (only,) = read_series_file(write(tmp_path, text)).series
    assert (only.freq.name, only.season) == (name, season)


def test_a_stated_frequency_wins_and_a_bad_one_names_the_fix(tmp_path: Path) -> None:
    path = write(tmp_path, "id,timestamp,value\nx,2026-01-01,1\nx,2026-01-02,2\n")
    (only,) = read_series_file(path, freq="H").series
    assert only.season == 24
    assert parse_freq("15min") == Frequency("T", 15) and parse_freq("A").base == "Y"
    with pytest.raises(SeriesFileError, match="frequency 'fortnight'") as err:
        read_series_file(path, freq="fortnight")
    assert "--freq" in (err.value.fix or "")


@pytest.mark.parametrize(("text", "message"), [
    ("name,timestamp,value\nx,2026-01-01,1\n", "no column id"),
    ("id,timestamp,value\nx,2026-01-01,abc\n", "line 2: value 'abc' is not a number"),
    ("id,timestamp,value\nx,yesterday,1\n", "timestamp 'yesterday' is not ISO 8601"),
    ("id,timestamp,value\nx,2026-01-01,1\nx,2026-01-01,2\n", "timestamp '2026-01-01' twice"),
    ("id,timestamp,value\n", "no rows"),
    ("id,timestamp,value\nx,2026-01-01T00:00:00,1\nx,2026-01-01T00:00:01.5,2\nx,2026-01-01T00:00:03,3\n",
     "no frequency fits"),
])
def test_bad_files_are_clear_errors_naming_the_file(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(SeriesFileError, match=message) as err:
        read_series_file(path)
    assert str(path) in str(err.value) and err.value.fix
    with pytest.raises(SeriesFileError, match="unknown suffix"):
        read_series_file(write(tmp_path, "x", "s.txt"))
    with pytest.raises(SeriesFileError, match="no such file"):
        read_series_file(tmp_path / "absent.csv")


def test_the_shipped_series_is_what_its_script_writes() -> None:
    src = read_series_file(shipped_series())
    assert [(s.series.series_id, len(s.series.values), s.freq.name, s.season) for s in src.series] == [
        ("load", 720, "H", 24), ("sales", 720, "H", 24), ("traffic", 720, "H", 24)]
    script = Path(__file__).resolve().parents[3] / "benchmarks" / "make_ctx_series.py"
    check = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stdout


def test_the_league_closes_are_read_as_points_reads_them(tmp_path: Path) -> None:
    write_book(tmp_path / "books" / "council-book.jsonl")
    src = read_book_series(tmp_path)
    (spx,) = src.series
    assert src.kind == "book" and spx.series.series_id == "SPX" and spx.freq.name == "B" and spx.season == 5
    assert spx.series.timestamps == tuple(SESSIONS) and spx.series.values == tuple(CLOSES)
