"""Progress bars of the long commands: shown on stderr when LEAGUE_PROGRESS=1 (or a terminal
watches), absent otherwise; stdout and the exit code are the same either way."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from league.cli import app


@pytest.mark.parametrize("verb", ["verify", "publish"])
def test_a_bar_on_stderr_only_when_asked(verb: str, demo_league: dict[str, object], tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    data = Path(str(demo_league["data"]))
    args = (["verify", str(demo_league["public"]), "--no-rebuild"] if verb == "verify"
            else ["publish", "--data", str(data), "--out", str(tmp_path / "out"), "--no-stamp"])
    monkeypatch.delenv("LEAGUE_PROGRESS", raising=False)
    quiet = CliRunner().invoke(app, args)
    if verb == "publish":
        shutil.rmtree(tmp_path / "out")
    monkeypatch.setenv("LEAGUE_PROGRESS", "1")
    shown = CliRunner().invoke(app, args)
    assert quiet.exit_code == shown.exit_code == 0, shown.output
    assert verb not in quiet.stderr and "done" not in quiet.stderr
    last = shown.stderr.strip().splitlines()[-1]
    assert last.startswith(verb) and "done" in last  # the bar ends complete: N/N, "done"
    total = 12 if verb == "verify" else 23  # verify: steps 2-13; publish: its 23 steps
    assert f"{total}/{total}" in last
    assert shown.stdout.splitlines()[0].split()[0] == quiet.stdout.splitlines()[0].split()[0]
