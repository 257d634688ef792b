"""The stand-alone recount of F22 and the critiques' resolutions (league/verify/tools/recount_talk.py).

It is written apart from league/talk and must agree with the report it writes on the hand-made weeks of
talk_helpers.py; a changed critique row or a changed published figure is a difference (exit 1), a missing
file exit 2.
"""

from __future__ import annotations

import ast
import csv
import json
import subprocess
import sys
from pathlib import Path

from talk_helpers import weeks

from league.talk.report import CRITIQUE_COLUMNS, CRITIQUES_CSV, TALK_JSON, critique_rows, talk_report

ROOT = Path(__file__).resolve().parents[3]
TOOL = ROOT / "league" / "verify" / "tools" / "recount_talk.py"


def publish(folder: Path) -> None:
    (folder / TALK_JSON).write_text(json.dumps(talk_report(weeks()), indent=1), encoding="utf-8")
    write_rows(folder, critique_rows(weeks()))


def write_rows(folder: Path, rows: list[dict[str, str]]) -> None:
    with (folder / CRITIQUES_CSV).open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=CRITIQUE_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def run(folder: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-I", str(TOOL), str(folder), *extra], capture_output=True, text=True,
                          check=False)


def test_the_tool_imports_the_standard_library_only() -> None:
    tree = ast.parse(TOOL.read_text(encoding="utf-8"))
    names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {str(n.module).split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert names - {"__future__"} <= set(sys.stdlib_module_names)


def test_the_recount_agrees_with_the_published_report(tmp_path: Path) -> None:
    publish(tmp_path)
    done = run(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    # 5 critiques + 4 F22 fields for each of 2 weeks + 4 season F22 fields = 17
    assert done.stdout.strip() == "recount_talk: 17 figures compared, 0 differ"
    recounted = json.loads(run(tmp_path, "--json").stdout)
    # 4 resolved (true, false, true / true), 3 hits: Wilson of 3/4 = [0.300642, 0.954413]
    assert recounted["season"]["f22"] == {"n": 4, "hits": 3, "share": 0.75, "ci95": [0.300642, 0.954413]}
    assert recounted["weeks"]["2026-W50"]["critiques"] == {"B/SPX": None, "C/NDX": True}


def test_a_changed_critique_row_is_caught(tmp_path: Path) -> None:
    publish(tmp_path)
    rows = critique_rows(weeks())
    rows[0] = {**rows[0], "direction": "up"}  # B's SPX fell 100 -> 99: "up" did not come true
    write_rows(tmp_path, rows)
    done = run(tmp_path)
    assert done.returncode == 1
    assert ("MISMATCH council-talk-critiques.csv line 2 (2026-W49 B/SPX): resolution column says true, "
            "recounted false") in done.stdout
    assert "MISMATCH council-talk.json.weeks.2026-W49.critiques.B/SPX.resolution: published true, recounted false" \
        in done.stdout
    assert "MISMATCH council-talk.json.season.f22.hits: published 3, recounted 2" in done.stdout


def test_a_forged_but_consistent_row_still_differs_from_the_report(tmp_path: Path) -> None:
    publish(tmp_path)
    rows = critique_rows(weeks())
    rows[4] = {**rows[4], "close_5": "201.0", "resolution": "false"}  # NDX now ends above 200: "down" false
    write_rows(tmp_path, rows)
    done = run(tmp_path)
    assert done.returncode == 1
    assert "2026-W50.critiques.C/NDX.resolution: published true, recounted false" in done.stdout
    assert "resolution column" not in done.stdout


def test_a_changed_published_figure_is_caught(tmp_path: Path) -> None:
    publish(tmp_path)
    report = json.loads((tmp_path / TALK_JSON).read_text(encoding="utf-8"))
    report["season"]["f22"]["ci95"] = [0.300642, 0.954414]
    (tmp_path / TALK_JSON).write_text(json.dumps(report), encoding="utf-8")
    done = run(tmp_path)
    assert done.returncode == 1
    assert "season.f22.ci95: published [0.300642, 0.954414], recounted [0.300642, 0.954413]" in done.stdout


def test_a_missing_file_is_exit_2(tmp_path: Path) -> None:
    publish(tmp_path)
    (tmp_path / TALK_JSON).unlink()
    done = run(tmp_path)
    assert done.returncode == 2 and "cannot read" in done.stderr
