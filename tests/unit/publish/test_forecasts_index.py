"""``council-forecasts-index.json`` (paper Appendix C): per-run and per-session slices of the forecasts CSV.

The hand case below is a CSV whose byte offsets are counted by hand: a header of 27 bytes, then rows of
14 bytes each except the second, whose quoted ``why_missing`` holds a comma and a newline (23 bytes).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from season_fixture import Season

import league.publish.files as publish_files
from league.publish import publish
from league.publish.forecasts_index import forecasts_index, records

HEADER = b"run_id,session,why_missing\n"          # 27 bytes
ROWS = [b"r1,2026-06-01,\n",                       # 15 bytes: rows 1-2 run r1 (session 06-01)
        b'r1,2026-06-01,"a,\nb"\n',                 # 21 bytes: a quoted comma and newline
        b"r2,2026-06-01,\n",                       # 15 bytes: run r2, same session
        b"r3,2026-06-02,\n",                       # 15 bytes: run r3 (session 06-02)
        b"r1,2026-06-02,\n"]                       # 15 bytes: r1 again, a second block
DATA = HEADER + b"".join(ROWS)


def test_record_boundaries_respect_quoted_newlines() -> None:
    assert [len(HEADER), *map(len, ROWS)] == [27, 15, 21, 15, 15, 15]
    assert [e - s for s, e in records(DATA)] == [27, 15, 21, 15, 15, 15]


def test_slices_by_hand() -> None:
    index = forecasts_index(DATA, "2026-06-02T22:00:00Z")
    assert (index["bytes"], index["rows"], index["header"]) == (108, 5, {"offset": 0, "length": 27})
    assert index["sha256"] == hashlib.sha256(DATA).hexdigest()
    runs = [(r["run_id"], r["block"], r["first_row"], r["last_row"], r["offset"], r["length"]) for r in index["runs"]]
    assert runs == [("r1", 1, 1, 2, 27, 36), ("r2", 1, 3, 3, 63, 15), ("r3", 1, 4, 4, 78, 15), ("r1", 2, 5, 5, 93, 15)]
    assert index["runs"][0]["sha256"] == hashlib.sha256(ROWS[0] + ROWS[1]).hexdigest()
    sessions = [(s["session"], s["first_row"], s["last_row"], s["offset"], s["length"], s["runs"])
                for s in index["sessions"]]
    assert sessions == [("2026-06-01", 1, 3, 27, 51, ["r1", "r2"]), ("2026-06-02", 4, 5, 78, 30, ["r1", "r3"])]


def test_a_published_folder_has_the_index_and_each_slice_reads_alone(season: Season, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The season's own CSV is kept (no config folder here for the book-to-CSV writer) and indexed."""
    data_dir = tmp_path / "data"
    shutil.copytree(season.data, data_dir)
    monkeypatch.setattr(publish_files, "PRODUCERS", {**publish_files.PRODUCERS, "forecasts": None})
    report = publish(data_dir)
    assert report.file("council-forecasts-index.json") is not None, report.skipped
    public = data_dir / "public"
    data = (public / "council-forecasts.csv").read_bytes()
    index: dict[str, Any] = json.loads((public / "council-forecasts-index.json").read_text())
    assert index["sha256"] == hashlib.sha256(data).hexdigest()
    every = list(csv.DictReader(io.StringIO(data.decode("utf-8"))))
    assert index["rows"] == len(every) and sum(r["rows"] for r in index["runs"]) == len(every)
    head = data[:index["header"]["length"]]
    for run in index["runs"]:
        body = data[run["offset"]:run["offset"] + run["length"]]
        assert hashlib.sha256(body).hexdigest() == run["sha256"]
        got = list(csv.DictReader(io.StringIO((head + body).decode("utf-8"))))
        assert got == every[run["first_row"] - 1:run["last_row"]]
        assert {r["run_id"] for r in got} == {run["run_id"]}
    assert {r["run_id"] for r in every} == {r["run_id"] for r in index["runs"]}
    assert "council-forecasts-index.json" in (public / "index.html").read_text()
    assert "council-forecasts-index.json" in json.loads((public / "arena-dataset.json").read_text())["files"]
