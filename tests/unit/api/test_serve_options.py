"""`league serve`'s process options refuse what cannot work, before anything starts."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from league.cli import app


def test_the_readers_service_is_refused_with_several_workers(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["serve", "--data", str(tmp_path), "--readers", "--workers", "2"])
    assert res.exit_code == 2 and "--readers" in res.output


def test_an_accel_redirect_that_is_no_location_prefix_is_refused(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["serve", "--data", str(tmp_path), "--accel-redirect", "league-files"])
    assert res.exit_code == 2 and "location prefix" in res.output


def test_workers_are_bounded(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["serve", "--data", str(tmp_path), "--workers", "100000"])
    assert res.exit_code == 2
