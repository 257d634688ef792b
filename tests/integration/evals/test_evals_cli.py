"""`league eval` as an operator meets it: the installed entry point's exit codes and messages on bad input."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from evals_helpers import ASSETS

from league.evals.questions import read_question_file

LEAGUE = [sys.executable, "-c", "from league.cli import main; main()"]


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LEAGUE_LOG_LEVEL": "WARNING"}
    return subprocess.run([*LEAGUE, *args], capture_output=True, text=True, timeout=120, env=env, cwd=cwd)


def test_bad_options_are_clear_errors_before_anything_runs(tmp_path: Path) -> None:
    bad = run("eval", "questions", "--policy", "everything", "--out", str(tmp_path / "o"))
    assert bad.returncode == 2 and "bad option" in bad.stderr and "none, api or web" in bad.stderr
    bad = run("eval", "questions", "--seat", "nobody", "--out", str(tmp_path / "o"))
    assert bad.returncode == 2 and "no seat named 'nobody'" in bad.stderr
    bad = run("eval", "questions", str(ASSETS / "authors-layout.db"), "--out", str(tmp_path / "o"))
    assert bad.returncode == 2 and "no question table 'forecast_eval_set_example'" in bad.stderr
    assert "--table" in bad.stderr
    assert not (tmp_path / "o").exists()


def test_recount_of_a_folder_without_the_tool_fails(tmp_path: Path) -> None:
    bad = run("eval", "recount", str(tmp_path))
    assert bad.returncode == 4 and "recount_eval.py is missing" in bad.stderr


def test_build_questions_writes_a_readable_file(tmp_path: Path) -> None:
    ok = run("eval", "build-questions", "--out", str(tmp_path / "q.db"))
    assert ok.returncode == 0, ok.stderr
    assert len(read_question_file(tmp_path / "q.db").questions) == 15


def test_points_on_a_folder_without_a_book_fails(tmp_path: Path) -> None:
    bad = run("eval", "points", "--data", str(tmp_path))
    assert bad.returncode == 1 and "no council-book.jsonl" in bad.stderr
