"""The stand-alone recount of the council talk's figures (league/verify/tools/recount_talk.py).

It is written apart from league/talk and must agree with the report it writes on the hand-made weeks of
talk_helpers.py; a changed critique row, a changed input of the report (a weight, a close, the letters) or a
changed published figure is a difference (exit 1), a missing file exit 2. Expected figures are worked by hand
in talk_helpers.py's docstring and in the comments here.
"""

from __future__ import annotations

import ast
import csv
import hashlib
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

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
    # From the CSV: 5 critiques + 4 F22 fields for each of 2 weeks + 4 season F22 fields = 17.
    # From the report's inputs: W49 10 returns + F23 (1 + 3 letters x 3) + letters (commitment, 4 seats,
    # chair) = 26; W50 no returns + F23 (1 + 2 letters x 3) + 1 (not revealed) = 8; season F23 4 x (n, mean) = 8.
    assert done.stdout.strip() == "recount_talk: 59 figures compared, 0 differ"
    recounted = json.loads(run(tmp_path, "--json").stdout)
    # 4 resolved (true, false, true / true), 3 hits: Wilson of 3/4 = [0.300642, 0.954413]
    assert recounted["season"]["f22"] == {"n": 4, "hits": 3, "share": 0.75, "ci95": [0.300642, 0.954413]}
    assert recounted["weeks"]["2026-W50"]["critiques"] == {"B/SPX": None, "C/NDX": True}
    w49 = recounted["report"]["weeks"]["2026-W49"]
    assert w49["shadow_returns"] == {"council": -0.003, "sealed:A": 0.03, "critiqued:A": 0.015, "stated:A": 0.005,
                                     "sealed:B": 0.015, "critiqued:B": 0.0175, "stated:B": -0.003,
                                     "sealed:C": 0.0, "sealed:D": 0.01, "critiqued:D": 0.01}
    # sealed mean 0.055 / 4 = 0.01375; -0.003 - 0.01375 = -0.01675
    assert w49["f23"]["council_vs_sealed_mean"] == -0.01675
    assert w49["f23"]["seats"][1] == {"letter": "B", "critiqued_vs_sealed": 0.0025, "stated_vs_sealed": -0.018,
                                      "stated_vs_critiqued": -0.0205}
    assert w49["letters"]["letter_map"] == {"delta": "A", "alpha": "B", "bravo": "C", "charlie": "D"}
    assert w49["letters"]["chair_letter"] == "C"
    assert recounted["report"]["weeks"]["2026-W50"]["letters"] is None
    # (-0.015 + 0.0025 + 0) / 3 = -0.0041666.. -> -0.004167
    assert recounted["report"]["season"]["f23"]["critiqued_vs_sealed"] == {"n": 3, "mean": -0.004167}


def edit_report(folder: Path, week: str, change: Callable[[dict[str, Any]], None]) -> None:
    report = json.loads((folder / TALK_JSON).read_text(encoding="utf-8"))
    change(next(w for w in report["weeks"] if w["week"] == week))
    (folder / TALK_JSON).write_text(json.dumps(report), encoding="utf-8")


def test_a_changed_weight_is_caught(tmp_path: Path) -> None:
    publish(tmp_path)
    edit_report(tmp_path, "2026-W49", lambda w: w["accounts"]["sealed:A"].update(QQQ=20.0))
    done = run(tmp_path)
    assert done.returncode == 1
    # sealed:A now 20% x 5% + 10% x 10% = 0.02; A critiqued_vs_sealed 0.015 - 0.02 = -0.005;
    # sealed mean (0.02 + 0.015 + 0 + 0.01) / 4 = 0.01125, council -0.003 - 0.01125 = -0.01425
    assert "MISMATCH council-talk.json.weeks.2026-W49.shadow_returns.sealed:A: published 0.03, recounted 0.02" \
        in done.stdout
    assert "2026-W49.f23.seats.A.critiqued_vs_sealed: published -0.015, recounted -0.005" in done.stdout
    assert "2026-W49.f23.council_vs_sealed_mean: published -0.01675, recounted -0.01425" in done.stdout
    # season critiqued_vs_sealed (-0.005 + 0.0025 + 0) / 3 = -0.000833..
    assert "season.f23.critiqued_vs_sealed.mean: published -0.004167, recounted -0.000833" in done.stdout


def test_a_missing_last_close_makes_the_holders_returns_null(tmp_path: Path) -> None:
    publish(tmp_path)
    edit_report(tmp_path, "2026-W49", lambda w: w["closes"]["TLT"].__setitem__(-1, None))
    done = run(tmp_path)
    assert done.returncode == 1
    for account, published in (("sealed:A", "0.03"), ("critiqued:A", "0.015"), ("sealed:B", "0.015"),
                               ("critiqued:B", "0.0175")):
        assert f"2026-W49.shadow_returns.{account}: published {published}, recounted null" in done.stdout
    assert "2026-W49.shadow_returns.council:" not in done.stdout  # holds no TLT
    assert "2026-W49.f23.council_vs_sealed_mean: published -0.01675, recounted null" in done.stdout


def test_a_changed_close_or_return_is_caught(tmp_path: Path) -> None:
    publish(tmp_path)
    edit_report(tmp_path, "2026-W49", lambda w: w["closes"]["SPY"].__setitem__(0, 99.0))  # SPY now flat
    done = run(tmp_path)
    assert done.returncode == 1
    # council 30% x 0 + 20% x 0 = 0; stated:B 30% x 0 = 0
    assert "2026-W49.shadow_returns.council: published -0.003, recounted 0.0" in done.stdout
    assert "2026-W49.shadow_returns.stated:B: published -0.003, recounted 0.0" in done.stdout
    publish(tmp_path)
    edit_report(tmp_path, "2026-W49", lambda w: w["shadow_returns"].update({"stated:B": -0.002}))
    done = run(tmp_path)
    assert done.returncode == 1
    assert "2026-W49.shadow_returns.stated:B: published -0.002, recounted -0.003" in done.stdout
    assert done.stdout.count("MISMATCH") == 1  # F23 is recounted from the inputs, not from published returns
    publish(tmp_path)
    edit_report(tmp_path, "2026-W49", lambda w: w["shadow_returns"].pop("sealed:C"))
    assert "2026-W49.shadow_returns.sealed:C: recounted but not published" in run(tmp_path).stdout


def test_changed_letters_are_caught(tmp_path: Path) -> None:
    publish(tmp_path)

    def swap(week: dict[str, Any]) -> None:
        week["letter_map"].update(alpha="C", bravo="B")
    edit_report(tmp_path, "2026-W49", swap)
    done = run(tmp_path)
    assert done.returncode == 1
    swapped = {"alpha": "C", "bravo": "B", "charlie": "D", "delta": "A"}
    digest = hashlib.sha256(json.dumps({"letters": swapped, "salt": "7", "week": "2026-W49"}, sort_keys=True,
                                       separators=(",", ":")).encode()).hexdigest()
    assert '2026-W49.letter_map_sha256: published "' in done.stdout
    assert f'recounted "{digest}"' in done.stdout
    assert '2026-W49.letter_map.alpha: published "C", recounted "B"' in done.stdout
    assert '2026-W49.letter_map.bravo: published "B", recounted "C"' in done.stdout
    publish(tmp_path)
    edit_report(tmp_path, "2026-W49", lambda w: w.update(chair_letter="A"))
    done = run(tmp_path)
    assert done.returncode == 1
    assert '2026-W49.chair_letter: published "A", recounted "C"' in done.stdout
    publish(tmp_path)
    edit_report(tmp_path, "2026-W50", lambda w: w.update(salt="7"))
    assert "2026-W50: letter_map is null (not revealed) but salt or chair_seat is not" in run(tmp_path).stdout


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
