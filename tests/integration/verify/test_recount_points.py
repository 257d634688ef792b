"""The stand-alone recount of council-points.json (league/verify/tools/recount_points.py).

A small council book built by hand, whose MASE figures are worked out in the comments below, pins the rules; a
demo league's published folder (the real producer, league/evals/points.py) must agree with the recount, and a
changed figure there is a difference (exit 1); a missing book is exit 2.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
TOOL = ROOT / "league" / "verify" / "tools" / "recount_points.py"
SESSIONS = ("2026-01-05", "2026-01-06", "2026-01-07", "2026-01-08")
CLOSES = (10.0, 12.0, 11.0, 15.0)


def run(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-I", str(TOOL), str(folder), *args], capture_output=True, text=True,
                          check=False, timeout=300)


def event(session: str, horizon: str, close: float | None, reference: float) -> dict[str, object]:
    return {"market": "X", "event_id_v2": f"X-{horizon}-{session}", "reference": reference, "close": close}


def row(seat: str, session: str, horizon: str, status: str, target: float | None,
        prob_up: float | None) -> dict[str, object]:
    return {"seat": seat, "market": "X", "event_id_v2": f"X-{horizon}-{session}", "status": status,
            "target": target, "prob_up": prob_up}


def hand_book(folder: Path) -> None:
    """Market X, one-day closes 10, 12, 11, 15 on four sessions; season m = 1, min_history 1.

    The second session: history [10] (n - m = 0 < 1): A's target is unscaled.
    The third session: history [10, 12]: scale 2, naive 12, close 11. A says 13 (prob_up 30, reference 12: 13 < 12 is
      false, out of range): error 1, naive 0.5. B says 12 (prob_up 50: in range): error 0.5, naive 0.5.
    The fourth session: history [10, 12, 11]: scale (2 + 1) / 2 = 1.5, naive 11, close 15. A says 14 (prob_up 70,
      reference 11: in range): error 1/1.5 = 2/3, naive 4/1.5 = 8/3. B gave no answer (asked, not answered).
      The one-week event of the fourth session has no close: A's 16 (prob_up 60 over 11: in range) is unresolved.
    A: mase (1 + 2/3) / 2 = 5/6, naive (0.5 + 8/3) / 2 = 19/12, relative 10/19. B: 0.5 / 0.5 = 1.
    """
    lines: list[dict[str, object]] = [{"kind": "session_open", "n": 1, "session": SESSIONS[0]}]
    for i, (session, close) in enumerate(zip(SESSIONS, CLOSES, strict=True)):
        rows: list[dict[str, object]] = []
        if i == 1:
            rows = [row("A", session, "1d", "counted", 11.0, 60.0), row("_x", session, "1d", "late", 11.0, 60.0)]
        if i == 2:
            rows = [row("A", session, "1d", "counted", 13.0, 30.0), row("B", session, "1d", "counted_50", 12.0, 50.0)]
        if i == 3:
            rows = [row("A", session, "1d", "counted", 14.0, 70.0), row("B", session, "1d", "no_answer", None, None)]
        reference = CLOSES[i - 1] if i else close
        lines.append({"kind": "score", "session": session, "horizon": "1d", "n": i + 2, "seal": "s", "link": "l",
                      "markets": [event(session, "1d", close, reference)], "seats": rows})
    lines.append({"kind": "score_h", "session": SESSIONS[3], "horizon": "1w", "n": 7,
                  "markets": [event(SESSIONS[3], "1w", None, 11.0)],
                  "seats": [row("A", SESSIONS[3], "1w", "counted", 16.0, 60.0)]})
    (folder / "council-book.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    (folder / "council-points.json").write_text(json.dumps({"season": 1, "min_history": 1}), encoding="utf-8")


def test_hand_book_figures(tmp_path: Path) -> None:
    hand_book(tmp_path)
    proc = run(tmp_path, "--json")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["score_lines"] == 5 and got["season"] == 1 and got["min_history"] == 1
    a, b, naive = got["seats"]["A"], got["seats"]["B"], got["naive"]
    assert set(got["seats"]) == {"A", "B"}  # "late" is not an asked status
    assert (a["windows"], a["unscaled"], a["unresolved"]) == (2, 1, 1)
    assert a["compliance"] == {"asked": 4, "with_forecast": 4, "with_forecast_share": 1.0, "wrong_length": 0,
                               "range_checked": 4, "within_range": 3, "within_range_share": 0.75}
    [config] = a["configs"]
    assert config["config"] == ["X", "1d"] and config["bucket"] == "short" and config["windows"] == 2
    assert config["mase"] == pytest.approx(5 / 6, rel=1e-12)
    assert config["mase_naive"] == pytest.approx(19 / 12, rel=1e-12)
    assert a["overall"] == pytest.approx(10 / 19, rel=1e-12)
    assert a["buckets"]["short"] == pytest.approx(10 / 19, rel=1e-12)
    assert b["overall"] == pytest.approx(1.0, rel=1e-12) and b["windows"] == 1
    assert b["compliance"]["asked"] == 2 and b["compliance"]["with_forecast_share"] == 0.5
    assert b["compliance"]["within_range"] == 1
    assert naive["windows"] == 2 and naive["overall"] == 1.0
    assert naive["configs"][0]["mase"] == pytest.approx(19 / 12, rel=1e-12)


def test_hand_book_changed_figure_and_missing_book(tmp_path: Path) -> None:
    hand_book(tmp_path)
    doc = json.loads(run(tmp_path, "--json").stdout)
    doc["book"] = "council-book.jsonl"
    (tmp_path / "council-points.json").write_text(json.dumps(doc), encoding="utf-8")
    assert run(tmp_path).returncode == 0
    doc["seats"]["A"]["configs"][0]["mase"] = 5 / 6 + 1e-6
    (tmp_path / "council-points.json").write_text(json.dumps(doc), encoding="utf-8")
    proc = run(tmp_path)
    assert proc.returncode == 1
    assert "MISMATCH seats.A.configs[0].mase" in proc.stdout
    (tmp_path / "council-book.jsonl").unlink()
    assert run(tmp_path).returncode == 2


@pytest.mark.slow
def test_demo_folder_agrees_and_a_changed_figure_is_found(tmp_path: Path) -> None:
    league = Path(sys.executable).with_name("league")
    subprocess.run([str(league), "demo", "--out", str(tmp_path / "demo"), "--sessions", "12"], check=True,
                   capture_output=True, timeout=600)
    public = tmp_path / "demo" / "data" / "public"
    assert (public / "tools" / "recount_points.py").is_file()  # copied by the publisher (COPIES)
    proc = run(public)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "agree" in proc.stdout
    doc = json.loads((public / "council-points.json").read_text(encoding="utf-8"))
    scored = [s for s in doc["seats"].values() if s["windows"]]
    assert scored and doc["naive"]["windows"] > 0  # the demo scores something, so the agreement means something
    changed = tmp_path / "changed"
    shutil.copytree(public, changed)
    name = next(n for n, s in doc["seats"].items() if s["overall"] is not None)
    doc["seats"][name]["overall"] *= 1.001
    (changed / "council-points.json").write_text(json.dumps(doc), encoding="utf-8")
    proc = run(changed)
    assert proc.returncode == 1
    assert f"MISMATCH seats.{name}.overall" in proc.stdout
