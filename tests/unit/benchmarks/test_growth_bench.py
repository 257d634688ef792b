"""benchmarks/growth_bench.py reports a publish's peak memory as the largest of its steps' peaks.

publish_steps.py resets the kernel's high-water mark between steps, which is also the mark ``getrusage``
hands back for an ended child: the child's ``ru_maxrss`` then holds only the last step's peak (or the forking
parent's mark, carried over at exec). A real child here allocates in its first step, resets the mark and ends, as
publish_steps.py does."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"

# A child shaped like publish_steps.py: a step that holds ~300 MB, the mark reset, a light step, its RESULT (here
# without the largest step peak publish_steps.py adds to it, so the figure must come from the STEP lines, as it
# does for a run stopped before its RESULT).
CHILD = """
import json, re
from pathlib import Path

def hwm():
    return int(re.search(r"^VmHWM:\\s+(\\d+)", Path("/proc/self/status").read_text(), re.M).group(1)) / 1024

block = bytearray(300 * 2**20)
block[::4096] = b"x" * len(block[::4096])
peak = hwm()
del block
print("STEP", "heavy", 0.1, round(peak), round(peak), 0.1, flush=True)
Path("/proc/self/clear_refs").write_text("5")
print("STEP", "light", 0.0, round(hwm()), round(hwm()), 0.0, flush=True)
print("RESULT", json.dumps({"cpu": 0.1, "wall": 0.1, "ok": True}), flush=True)
"""


@pytest.fixture(scope="module")
def growth_bench() -> ModuleType:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import growth_bench
    finally:
        sys.path.remove(str(BENCHMARKS))
    module: ModuleType = growth_bench
    return module


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux's /proc/self/clear_refs")
def test_a_publish_peak_is_its_largest_step_not_the_childs_maxrss(growth_bench: ModuleType) -> None:
    row = growth_bench.run_child([sys.executable, "-c", CHILD], max_rss_mb=4000, timeout_s=120)
    assert "error" not in row, row
    assert row["step_peak_max"] >= 300
    # ru_maxrss is no measure here: after the reset it keeps only the light step's peak, or, when the parent is
    # large (a pytest worker), the parent's own mark, which the kernel carries over to the child at its exec
    results: dict[str, list[dict[str, Any]]] = {op: [] for op in growth_bench.OPS}
    results["publish"] = [row]
    assert growth_bench.figures(results)["publish"]["peak_mb"] == row["step_peak_max"]


def test_a_child_without_steps_keeps_its_maxrss(growth_bench: ModuleType) -> None:
    assert growth_bench.child_peak_mb({"maxrss_mb": 512.0}) == 512.0
    assert growth_bench.child_peak_mb({"maxrss_mb": 512.0, "step_peak_max": 900}) == 900.0
