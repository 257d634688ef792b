"""The `league publish`, `league serve` and `league tail` verbs from the command line (CliRunner)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from season_fixture import Season
from typer.testing import CliRunner

from league.cli import app
from league.publish import files as publish_files


@pytest.fixture()
def data(season: Season, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    target = tmp_path / "data"
    shutil.copytree(season.data, target)
    monkeypatch.setitem(publish_files.PRODUCERS, "forecasts", None)
    return target


def test_publish_prints_the_report(data: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["publish", "--data", str(data), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "council-forecasts.csv: not produced" in result.output
    assert (tmp_path / "out" / "index.html").is_file()


def test_publish_exits_1_when_a_producer_fails(data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def write_proof_pages(*args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setitem(publish_files.PRODUCERS, "proof", write_proof_pages)
    monkeypatch.setenv("LEAGUE_DATA", str(data))
    result = CliRunner().invoke(app, ["publish"])
    assert result.exit_code == 1
    assert "proof/: failed: OSError: disk full" in result.output


@pytest.mark.parametrize("verb", ["publish", "serve", "tail"])
def test_help(verb: str) -> None:
    result = CliRunner().invoke(app, [verb, "--help"])
    assert result.exit_code == 0
    assert "Usage" in result.output


def test_serve_refuses_a_folder_without_a_book(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["serve", "--data", str(tmp_path)])
    assert result.exit_code != 0
    assert "no council-book.jsonl" in str(result.exception) + result.output
