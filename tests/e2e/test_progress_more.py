"""Progress bars of `league rebuild`, `league stats` and `league portfolio replay`, as in
test_progress.py: on stderr when LEAGUE_PROGRESS=1 (or a terminal watches), absent otherwise; stdout and
the exit code are the same either way; the bar ends complete (N/N, "done")."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from league.cli import app

LEAGUE = str(Path(sys.executable).with_name("league"))
LOG_LINE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[")


def _twice(args: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[str, str, str]:
    """(stdout without a bar, stdout with one, the bar's last line); both runs must succeed."""
    monkeypatch.delenv("LEAGUE_PROGRESS", raising=False)
    quiet = CliRunner().invoke(app, [a.replace("{run}", "quiet") for a in args])
    monkeypatch.setenv("LEAGUE_PROGRESS", "1")
    shown = CliRunner().invoke(app, [a.replace("{run}", "shown") for a in args])
    assert quiet.exit_code == shown.exit_code == 0, f"{quiet.output}\n{shown.output}"
    assert quiet.stderr.strip() == "", quiet.stderr
    return _printed(quiet.stdout, "quiet"), _printed(shown.stdout, "shown"), shown.stderr.strip().splitlines()[-1]


def _printed(stdout: str, run: str) -> str:
    """What the command printed, less the structlog lines the in-process runner lets through (they carry
    the time and a temporary folder's name)."""
    return "\n".join(line.replace(run, "{run}") for line in stdout.splitlines() if not LOG_LINE.match(line))


def test_rebuild_shows_each_book_and_price_day(demo_league: dict[str, object], tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    data = Path(str(demo_league["data"]))
    books = len(list((data / "books").glob("*.jsonl")))
    days = len(list((data / "prices").glob("*/*.jsonl")))
    quiet, shown, last = _twice(["rebuild", "--data", str(data), "--db", f"sqlite:///{tmp_path}/{{run}}.db"],
                                monkeypatch)
    assert quiet == shown and "lines indexed" in quiet
    total = 2 * books + days  # verify and index each book, read each cached price day
    assert last.startswith("rebuild") and "done" in last and f"{total}/{total}" in last


def test_stats_shows_the_recomputation(demo_league: dict[str, object], tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    data = Path(str(demo_league["data"]))
    quiet, shown, last = _twice(["stats", "--data", str(data), "--out", str(tmp_path / "{run}")], monkeypatch)
    assert quiet == shown and "wrote council-league.json" in quiet
    assert last.startswith("stats") and "done" in last and "6/6" in last


def _replay(folder: Path, progress: bool) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "LEAGUE_PROGRESS"} | ({"LEAGUE_PROGRESS": "1"} if progress
                                                                             else {})
    return subprocess.run([LEAGUE, "portfolio", "replay", str(folder)], capture_output=True, text=True, env=env,
                          timeout=120, check=False)


def test_replay_shows_each_account(demo_league: dict[str, object]) -> None:
    public = Path(str(demo_league["public"]))
    quiet, shown = _replay(public, False), _replay(public, True)
    assert quiet.returncode == shown.returncode == 0, shown.stderr
    assert quiet.stdout == shown.stdout and " 0 DIFFERENT" in quiet.stdout.splitlines()[-1]
    assert quiet.stderr == "" and "progress " not in shown.stderr  # the tool's lines move the bar, never shown
    accounts = sum(1 for line in quiet.stdout.splitlines() if line.endswith("  ok"))
    last = shown.stderr.strip().splitlines()[-1]
    assert last.startswith("replay") and "done" in last and f"{accounts}/{accounts}" in last


def test_an_older_published_replay_runs_without_a_bar(tmp_path: Path) -> None:
    """A folder's own replay.py from before `--progress` is run as it always was (it would refuse the flag)."""
    (tmp_path / "replay.py").write_text("import sys\nprint('old tool', sys.argv[1:])\n", encoding="utf-8")
    done = _replay(tmp_path, True)
    assert done.returncode == 0 and done.stdout == f"old tool ['{tmp_path}']\n" and "replay" not in done.stderr
