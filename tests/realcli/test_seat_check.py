"""`league seat check` names the cause and its fix, with the real Claude Code CLI against stand-ins."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import COUNTING, seat_table
from standin_models import StandIn
from typer.testing import CliRunner

from league.cli import app

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]
runner = CliRunner()


@pytest.fixture
def check(tmp_path: Path, secrets: dict[str, str]) -> Iterator[object]:
    def run(seat: str) -> tuple[int, str]:
        roster = tmp_path / "roster.toml"
        roster.write_text(COUNTING + seat)
        res = runner.invoke(app, ["seat", "check", "claude", "--roster", str(roster)])
        return res.exit_code, res.stdout

    yield run


def test_answering_seat_passes(check: object, cli_prefix: Path) -> None:
    with StandIn('Fine.\n{"forecast": {"SPX": {"1d": {"prob_up": 55, "action": "hold"}}}}') as server:
        code, out = check(seat_table("claude_code", server.url, cli_prefix))  # type: ignore[operator]
    assert code == 0, out
    assert "PROBLEM" not in out and f"fetch:    POST 127.0.0.1:{server.port} allowed" in out


@pytest.mark.parametrize(("mode", "problem", "fix"), [
    ("error401", "authentication refused", "log the CLI in again"),
    ("error404", "model name refused", "check `model = 'claude-fable-5-1'`"),
    ("I will not answer in JSON.", "reply unparseable", "docs/answer-format.md"),
])
def test_reply_problems_are_named(check: object, cli_prefix: Path, mode: str, problem: str, fix: str) -> None:
    server = StandIn(mode) if " " in mode else StandIn("unused", mode=mode)
    with server:
        code, out = check(seat_table("claude_code", server.url, cli_prefix, timeout_s=30))  # type: ignore[operator]
    assert code == 1
    assert f"PROBLEM:  {problem}" in out, out
    assert fix in out


def test_endpoint_refused_by_the_policy_is_named(check: object, cli_prefix: Path, standin: StandIn) -> None:
    seat = seat_table("claude_code", standin.url, cli_prefix, allow=["api.anthropic.com"], timeout_s=30)
    code, out = check(seat)  # type: ignore[operator]
    assert code == 1
    assert "PROBLEM:  endpoint unreachable under the policy" in out, out
    assert f"127.0.0.1:{standin.port} (not on the allow-list (policy api))" in out
    assert "allow" in out and standin.requests == []


def test_cli_not_installed_and_credentials_missing(check: object, tmp_path: Path, standin: StandIn) -> None:
    empty = tmp_path / "no-clis"
    empty.mkdir()
    code, out = check(seat_table("claude_code", standin.url, empty))  # type: ignore[operator]
    assert code == 1
    assert "CLI not installed: npm install -g @anthropic-ai/claude-code" in out


def test_credentials_missing(check: object, cli_prefix: Path, standin: StandIn,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    code, out = check(seat_table("claude_code", standin.url, cli_prefix))  # type: ignore[operator]
    assert code == 1
    assert "credentials missing" in out and "$ANTHROPIC_API_KEY" in out
