"""`league stats`: prints the table and writes the files; a broken CSV is a clear error."""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from league.cli import app

ASSETS = Path(__file__).parents[2] / "assets" / "scoring"


def test_help() -> None:
    result = CliRunner().invoke(app, ["stats", "--help"])
    assert result.exit_code == 0 and "--data" in result.output


def test_stats_writes_files(tmp_path: Path) -> None:
    (tmp_path / "public").mkdir()
    shutil.copy(ASSETS / "forecasts_small.csv", tmp_path / "public" / "council-forecasts.csv")
    result = CliRunner().invoke(app, ["stats", "--data", str(tmp_path), "--clim",
                                      str(ASSETS / "clim_window_good.json")])
    assert result.exit_code == 0, result.output
    # alpha: SPX 70 on a rise (0.09) and TNX 40 on an unchanged close, not a rise (0.16): mean 0.125
    assert "alpha" in result.output and "0.1250" in result.output
    assert (tmp_path / "public" / "council-stats.json").is_file()


def test_tampered_climatology_is_refused(tmp_path: Path) -> None:
    (tmp_path / "public").mkdir()
    shutil.copy(ASSETS / "forecasts_small.csv", tmp_path / "public" / "council-forecasts.csv")
    result = CliRunner().invoke(app, ["stats", "--data", str(tmp_path), "--clim",
                                      str(ASSETS / "clim_window_tampered.json")])
    assert result.exit_code != 0
    assert not (tmp_path / "public" / "council-stats.json").exists()


def test_league_rows_keep_silent_seats_visible() -> None:
    from league.scoring.frame import load_forecasts
    from league.scoring.render import league_rows

    rows = {r["seat"]: r for r in league_rows(load_forecasts(ASSETS / "forecasts_small.csv"))}
    assert abs(rows["alpha"]["brier"] - 0.125) < 1e-12 and rows["alpha"]["sessions"] == 1
    assert rows["beta"]["brier"] is None and rows["beta"]["coverage"] == 0.0
    assert list(rows) == ["alpha", "_coin", "beta"]
