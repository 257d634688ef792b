"""The growth curve (benchmarks/growth_plot.py) draws what the records hold, later records over earlier ones.

Hand-written records of two sizes: the daemon-start panel's points sit where their CPU seconds put them, a
later record's figure replaces an earlier one's for that figure only, a JSONL file reads like a JSON one, and
the "before" records are drawn as their own dashed series.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"


@pytest.fixture(scope="module")
def plot() -> ModuleType:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        return importlib.import_module("growth_plot")
    finally:
        sys.path.remove(str(BENCHMARKS))


def record(sizes: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A growth_bench record: each size's start runs (raw) and their median, as --json-out writes them."""
    out = {}
    for key, cpu in sizes.items():
        runs = [{"cpu_s": c, "hwm_mb": 500.0} for c in cpu]
        out[key] = {"label": key, "raw": {"start": runs},
                    "start": {"cpu_s": sorted(cpu)[len(cpu) // 2], "peak_mb": 500.0}}
    return {"bench": "growth", "sizes": out}


def start_points(svg: str) -> list[tuple[float, float]]:
    """The circles of the first panel (daemon start, CPU s): after its three labels, before the next frame."""
    first = svg.split("</text>", 3)[-1].split('<rect x="', 1)[0]
    return [(float(x), float(y)) for x, y in re.findall(r'<circle cx="([\d.]+)" cy="([\d.]+)"', first)]


def test_later_records_replace_a_figure_and_jsonl_reads_like_json(plot: ModuleType, tmp_path: Path) -> None:
    early = tmp_path / "early.json"
    early.write_text(json.dumps(record({"s252-w14-seed7": [9.0, 9.0, 9.0], "s1260-w14-seed7": [2.0]})))
    late = tmp_path / "late.jsonl"
    late.write_text(json.dumps(record({"s252-w14-seed7": [1.0, 3.0, 2.0]})) + "\n")
    recs = plot.load([early, late])
    assert recs["s252-w14-seed7"]["start"]["cpu_s"] == 2.0  # the later record's median
    assert recs["s1260-w14-seed7"]["start"]["cpu_s"] == 2.0  # kept from the earlier one
    assert plot.load([late])["s252-w14-seed7"]["raw"]["start"][1]["cpu_s"] == 3.0


def test_points_are_placed_by_sessions_and_value(plot: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(record({"s252-w14-seed7": [1.0], "s1260-w14-seed7": [2.0]})))
    svg = plot.svg(plot.load([path]))
    (x1, y1), (x5, y5) = start_points(svg)
    left = 5 + plot.PAD
    assert (x5 - left) == pytest.approx(5 * (x1 - left), abs=0.2)  # x is proportional to sessions
    bottom = 5 + plot.H - 18
    assert (bottom - y5) == pytest.approx(2 * (bottom - y1), abs=0.2)  # y to the value, from zero


def test_before_records_are_a_dashed_series_of_their_own(plot: ModuleType, tmp_path: Path) -> None:
    now, old = tmp_path / "now.json", tmp_path / "old.jsonl"
    now.write_text(json.dumps(record({"s252-w14-seed7": [1.0], "s504-w14-seed7": [1.1]})))
    old.write_text(json.dumps(record({"s252-w14-seed7": [10.0], "s504-w14-seed7": [20.0]})) + "\n")
    plain, both = plot.svg(plot.load([now])), plot.svg(plot.load([now]), plot.load([old]))
    assert "stroke-dasharray" not in plain
    assert both.count("stroke-dasharray") == 2  # the start panels (CPU s, MB) alone have "before" figures
    assert "before" in both.splitlines()[-2]
