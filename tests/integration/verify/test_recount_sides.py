"""The stand-alone recount of council-sides.json and council-tertiles.json (league/verify/tools/recount_sides.py).

Written apart from league/scoring/sides.py, it must reach the same figures on a seeded random season (seven
seats, so every split is enumerated; and sixteen seats, so the seeded sample is replayed); a changed figure is
a difference (exit 1), a missing input is exit 2. Its Jacobi eigenvalues are checked on the hand case's matrix.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import math
import random
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from league.publish.sides import SIDES_JSON, TERTILES_JSON, write_sides

ROOT = Path(__file__).resolve().parents[3]
TOOL = ROOT / "league" / "verify" / "tools" / "recount_sides.py"
COLUMNS = ("run_id", "session", "seat", "status", "cell_status", "prob_up", "sealed_at", "reference_at",
           "event_reference_at", "line_kind", "run_role", "same_event", "asset", "horizon", "event_id",
           "event_id_v2", "ref", "close")
MARKETS = ("SPX", "NDX", "GOLD", "WTI", "BTC", "VIX")


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("recount_sides", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def season(folder: Path, seats: int, seed: int) -> None:
    """A random season of three runs as the league would publish it, then both files written by the league."""
    rng = random.Random(seed)
    names = [f"s{i:02d}" for i in range(seats)]
    rows, events = [], []
    for day in (2, 3, 4):
        session = f"2026-11-0{day}"
        for h in ("1d", "1w"):
            for m in MARKETS:
                ev = f"ev2-{session}-{m}-{h}"
                up = rng.random() < 0.5
                probs = []
                for s in names:
                    if rng.random() < 0.05:
                        continue  # an unanswered cell now and then
                    p = round(rng.uniform(20, 80), 1)
                    probs.append(p)
                    rows.append({"run_id": f"{session}-r1", "session": session, "seat": s, "status": "counted",
                                 "cell_status": "elicited", "prob_up": str(p), "sealed_at": f"{session}T13:00:00Z",
                                 "reference_at": f"{session}T13:30:00Z", "event_reference_at": f"{session}T13:30:00Z",
                                 "line_kind": "issue", "run_role": "session_run", "same_event": "1", "asset": m,
                                 "horizon": h, "event_id": "", "event_id_v2": ev, "ref": "100",
                                 "close": ("101" if up else "99") if h == "1d" else ""})
                if h == "1d":
                    events.append({"run_id": f"{session}-r1", "event_id": ev, "p": sum(probs) / len(probs),
                                   "outcome": float(up)})
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "council-forecasts.csv").open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    half = seats // 2
    roster = {"seats": {s: {"side": "us" if i < half else "cn"} for i, s in enumerate(names)}}
    (folder / "roster.json").write_text(json.dumps(roster), encoding="utf-8")
    (folder / "council-stats.json").write_text(json.dumps({"consensus": {"per_event": events}}), encoding="utf-8")
    write_sides(folder)


def run(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-I", str(TOOL), str(folder)], capture_output=True, text=True,
                          check=False, timeout=600)


@pytest.mark.parametrize("seats", [7, 16])
def test_recount_agrees(tmp_path: Path, seats: int) -> None:
    season(tmp_path, seats, seed=seats)
    doc = json.loads((tmp_path / SIDES_JSON).read_text(encoding="utf-8"))
    groups = [r for r in doc["runs"] if r["computed"]]
    assert groups and all(r["sampled"] is (seats == 16) for r in groups)
    proc = run(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " 0 differ" in proc.stdout


def test_changed_figure_is_a_difference(tmp_path: Path) -> None:
    season(tmp_path, 7, seed=3)
    doc = json.loads((tmp_path / SIDES_JSON).read_text(encoding="utf-8"))
    first = next(r for r in doc["runs"] if r["computed"])
    first["correlation"]["within"] += 0.001
    (tmp_path / SIDES_JSON).write_text(json.dumps(doc), encoding="utf-8")
    proc = run(tmp_path)
    assert proc.returncode == 1
    assert "MISMATCH council-sides.json.runs" in proc.stdout and ".correlation.within" in proc.stdout


def test_changed_tertile_is_a_difference(tmp_path: Path) -> None:
    season(tmp_path, 7, seed=4)
    doc = json.loads((tmp_path / TERTILES_JSON).read_text(encoding="utf-8"))
    doc["by_horizon"][0]["tertiles"][2]["brier_consensus"] += 0.01
    (tmp_path / TERTILES_JSON).write_text(json.dumps(doc), encoding="utf-8")
    assert run(tmp_path).returncode == 1


def test_missing_input_is_exit_2(tmp_path: Path) -> None:
    season(tmp_path, 7, seed=5)
    (tmp_path / "council-forecasts.csv").unlink()
    assert run(tmp_path).returncode == 2


def test_jacobi_on_the_hand_matrix() -> None:
    r = [[1, 1, -1, -0.5], [1, 1, -1, -0.5], [-1, -1, 1, 0.5], [-0.5, -0.5, 0.5, 1]]
    lam = sorted(load().jacobi_eigenvalues([[float(v) for v in row] for row in r]))
    assert lam[-1] == pytest.approx(2 + math.sqrt(7) / 2, abs=1e-9)
    assert lam[-2] == pytest.approx(2 - math.sqrt(7) / 2, abs=1e-9)
    assert lam[0] == pytest.approx(0, abs=1e-9) and lam[1] == pytest.approx(0, abs=1e-9)
