"""The CLI verbs: league sandbox exec, league seat check, league doctor."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from league.cli import app

pytestmark = pytest.mark.sandbox
runner = CliRunner()

ROSTER = """
counting_rule = "test"
[[seat]]
name = "s1"
adapter = "scripted"
options = {seed = 3}
[[seat]]
name = "quiet"
adapter = "scripted"
options = {mode = "silent"}
[[seat]]
name = "_coin"
adapter = "coin"
"""


@pytest.fixture
def roster(tmp_path: Path, sandbox: object) -> Path:
    path = tmp_path / "roster.toml"
    path.write_text(ROSTER)
    return path


def test_sandbox_exec_runs_inside(sandbox: object) -> None:
    res = runner.invoke(app, ["sandbox", "exec", "--", "/bin/sh", "-c", "echo $HOME; ls /root; exit 3"])
    assert res.exit_code == 3
    assert "/home/seat" in res.stdout
    assert "ended_by=exit" in res.stderr


def test_sandbox_exec_unknown_profile(sandbox: object) -> None:
    res = runner.invoke(app, ["sandbox", "exec", "--profile", "nope", "--", "/bin/true"])
    assert res.exit_code == 2
    assert "unknown sandbox profile" in res.stderr


def test_seat_check_prints_answer_model_time(roster: Path) -> None:
    res = runner.invoke(app, ["seat", "check", "s1", "--roster", str(roster)])
    assert res.exit_code == 0, res.output
    assert "model:    scripted" in res.stdout and "time:" in res.stdout
    assert '"prob_up"' in res.stdout


def test_seat_check_silent_seat_fails(roster: Path) -> None:
    res = runner.invoke(app, ["seat", "check", "quiet", "--roster", str(roster)])
    assert res.exit_code == 1
    assert "silent" in res.stdout


def test_seat_check_unknown_seat(roster: Path) -> None:
    res = runner.invoke(app, ["seat", "check", "nobody", "--roster", str(roster)])
    from league.errors import ConfigError

    assert isinstance(res.exception, ConfigError)
    assert "s1" in res.exception.diagnostics() and "nobody" in res.exception.message


def test_doctor_all_green_for_offline_roster(roster: Path) -> None:
    res = runner.invoke(app, ["doctor", "--roster", str(roster)])
    assert res.exit_code == 0, res.stdout
    assert "isolation: net_cut" in res.stdout and "FAIL" not in res.stdout


def test_doctor_reports_missing_cli_and_login(tmp_path: Path, sandbox: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEAGUE_CREDENTIALS_HOME", str(tmp_path))
    monkeypatch.delenv("GROK_API_KEY", raising=False)
    path = tmp_path / "r.toml"
    path.write_text('counting_rule = "t"\n[[seat]]\nname = "grok"\nadapter = "grok_cli"\nmodel = "grok-4.7"\n')
    res = runner.invoke(app, ["doctor", "--no-probe", "--roster", str(path)])
    assert res.exit_code == 1
    assert "FAIL  grok: credentials grok" in res.stdout
