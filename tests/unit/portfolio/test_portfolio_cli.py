"""The ``league portfolio`` verbs: help, rules, an offline demo season, and its replay."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from league.cli import app

runner = CliRunner()


def test_every_portfolio_verb_has_help() -> None:
    for verb in ([], ["rules"], ["demo"], ["replay"]):
        result = runner.invoke(app, ["portfolio", *verb, "--help"])
        assert result.exit_code == 0 and "Usage" in result.output


def test_rules_prints_the_sealed_json() -> None:
    result = runner.invoke(app, ["portfolio", "rules", "--name", "pro-1"])
    assert result.exit_code == 0
    assert json.loads(result.output)["max_gross"] == 2.0
    assert runner.invoke(app, ["portfolio", "rules", "--name", "nope-1"]).exit_code != 0


def test_demo_publishes_files_that_replay_to_zero_different(tmp_path: Path) -> None:
    out = tmp_path / "public"
    result = runner.invoke(app, ["portfolio", "demo", str(out), "--sessions", "3", "--seats", "2"])
    assert result.exit_code == 0, result.output
    assert {p.name for p in out.iterdir()} == {"arena-trades.csv", "arena-accounts.csv", "portfolio-tables.json",
                                               "arena-protocol.json", "replay.py"}
    tables = json.loads((out / "portfolio-tables.json").read_text())["portfolio"]
    assert {r["account"] for r in tables["arena-3"]["accounts"]} >= {"seat1", "seat2", "_cash", "_spy"}
    assert runner.invoke(app, ["portfolio", "replay", str(out)]).exit_code == 0
