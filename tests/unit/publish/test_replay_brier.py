"""tools/replay_brier.py: stand-alone recount of every published Brier figure."""

from __future__ import annotations

import csv
import functools
import http.server
import json
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from season_fixture import Season

SCRIPT = Path(__file__).resolve().parents[3] / "league" / "verify" / "tools" / "replay_brier.py"
HEADER = ["run_id", "session", "seat", "horizon", "status", "cell_status", "prob_up", "ref", "close",
          "run_role", "same_event", "line_kind", "methodology_version"]


def run(data: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-I", str(SCRIPT), "--data", data], capture_output=True, text=True,
                          timeout=60, check=False)


def copy_public(season: Season, tmp_path: Path) -> Path:
    target = tmp_path / "public"
    shutil.copytree(season.public, target)
    return target


def test_every_published_figure_is_reproduced(season: Season) -> None:
    result = run(str(season.public))
    assert result.returncode == 0, result.stdout + result.stderr
    total = len(season.models)
    assert f"{total} of {total} published Brier figures reproduced, 0 differ" in result.stdout


def test_hand_computed_case(tmp_path: Path) -> None:
    """0.70 on a rise scores 0.09, 0.20 on a rise 0.64: mean 0.365; skipped rows must not count."""
    rows = [
        ["r1", "2026-01-05", "a", "1d", "counted", "elicited", "70", "100", "101", "counted", "true", "answer", "m1"],
        ["r2", "2026-01-06", "a", "1d", "counted", "elicited", "20", "101", "102", "counted", "true", "answer", "m1"],
        ["r3", "2026-01-07", "a", "1d", "no_answer", "", "", "102", "101", "counted", "true", "answer", "m1"],
        ["r4", "2026-01-07", "a", "1d", "counted", "elicited", "90", "102", "101", "earlier_run", "true", "answer",
         "m1"],
        ["r5", "2026-01-07", "a", "1d", "counted", "elicited", "90", "102", "101", "counted", "false", "answer", "m1"],
        ["r6", "2026-01-08", "a", "1d", "counted", "elicited", "40", "102", "", "counted", "true", "answer", "m1"],
    ]
    with open(tmp_path / "council-forecasts.csv", "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows([HEADER, *rows])
    league = {"models": [{"seat": "a", "horizon": "1d", "brier": 0.365, "n": 2, "sessions": 2}]}
    (tmp_path / "council-league.json").write_text(json.dumps(league), encoding="utf-8")
    result = run(str(tmp_path))
    assert result.returncode == 0, result.stdout
    assert "1 of 1 published Brier figures reproduced" in result.stdout
    league["models"][0]["brier"] = 0.366
    (tmp_path / "council-league.json").write_text(json.dumps(league), encoding="utf-8")
    assert run(str(tmp_path)).returncode == 1


def test_a_changed_figure_is_reported(season: Season, tmp_path: Path) -> None:
    public = copy_public(season, tmp_path)
    league = json.loads((public / "council-league.json").read_text(encoding="utf-8"))
    league["models"][1]["brier"] = round(league["models"][1]["brier"] + 0.01, 6)
    (public / "council-league.json").write_text(json.dumps(league), encoding="utf-8")
    result = run(str(public))
    assert result.returncode == 1
    seat, horizon = league["models"][1]["seat"], league["models"][1]["horizon"]
    assert f"MISMATCH {seat} {horizon}" in result.stdout
    assert f"{len(league['models']) - 1} of {len(league['models'])} published Brier figures reproduced, 1 differ" \
        in result.stdout


def test_a_changed_forecast_row_is_reported(season: Season, tmp_path: Path) -> None:
    public = copy_public(season, tmp_path)
    path = public / "council-forecasts.csv"
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    row = next(r for r in rows if r["status"] == "counted" and r["seat"] == "alpha")
    row["prob_up"] = str(100 - int(row["prob_up"]) if row["prob_up"] != "50" else 10)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    result = run(str(public))
    assert result.returncode == 1
    assert f"MISMATCH alpha {row['horizon']}" in result.stdout


def test_unreadable_input_exits_2(tmp_path: Path) -> None:
    result = run(str(tmp_path / "nowhere"))
    assert result.returncode == 2
    assert "cannot read" in result.stderr


@pytest.fixture()
def http_folder(season: Season) -> Iterator[str]:
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(season.public))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_reads_a_url(http_folder: str, season: Season) -> None:
    result = run(http_folder)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{len(season.models)} of {len(season.models)} published Brier figures reproduced" in result.stdout
