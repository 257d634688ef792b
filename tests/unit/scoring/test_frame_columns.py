"""The statistics read only the columns they use (league.scoring.frame.STATS_COLUMNS): every
published statistics file must come out exactly as from the whole table, and a statistic reaching for a
column not read must fail loudly, never compute on something else."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from league.scoring import climatology as climmod
from league.scoring.constants import FORECAST_COLUMNS
from league.scoring.frame import STATS_COLUMNS, load_forecasts
from league.scoring.publish import build_all, write_stats
from league.scoring.synthetic import synthetic_families, synthetic_season

ASSETS = Path(__file__).parents[2] / "assets" / "scoring"


def _dumped(files: dict[str, dict[str, object]]) -> dict[str, str]:
    return {name: json.dumps(doc, indent=1, sort_keys=True, allow_nan=False) for name, doc in files.items()}


@pytest.fixture(scope="module")
def season_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("season") / "council-forecasts.csv"
    frame = synthetic_season(40, seed=11)
    frame["exp_pct"] = "1.5"  # free text the statistics never read, differing from row to row
    frame.loc[frame.index % 3 == 0, "why_missing"] = "timeout"
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("source", ["season", "demo"])
def test_the_statistics_of_the_read_columns_are_those_of_the_whole_table(source: str, season_csv: Path,
                                                                          tmp_path: Path) -> None:
    path = season_csv if source == "season" else ASSETS / "demo_forecasts_3_sessions.csv"
    whole = load_forecasts(path)
    read = load_forecasts(path, STATS_COLUMNS)
    assert set(read.columns) < set(whole.columns)
    clim = json.loads((ASSETS / "clim_window_good.json").read_text()) if source == "demo" else \
        climmod.default_table(date.fromisoformat(str(whole["session"].min())))
    families = synthetic_families() if source == "season" else {"aurora": "lab-a", "aurora-mini": "lab-a"}
    expected = _dumped(build_all(whole, clim, families))
    assert _dumped(build_all(read, clim, families)) == expected
    written = write_stats(path, tmp_path, clim, families)  # the producer's own path
    assert {name: p.read_text(encoding="utf-8") for name, p in written.items()} == {
        name: text + "\n" for name, text in expected.items()}


def test_a_statistic_reaching_for_a_column_not_read_fails(season_csv: Path) -> None:
    read = load_forecasts(season_csv, STATS_COLUMNS)
    with pytest.raises(KeyError):
        read["exp_pct"]  # noqa: B018 - the access is the test


def test_a_file_lacking_a_listed_column_is_still_refused(tmp_path: Path, season_csv: Path) -> None:
    from league.scoring.errors import ForecastsInputError

    frame = load_forecasts(season_csv)[list(FORECAST_COLUMNS)].drop(columns=["why_missing"])
    frame.to_csv(tmp_path / "f.csv", index=False)
    with pytest.raises(ForecastsInputError, match="lacks columns: why_missing"):
        load_forecasts(tmp_path / "f.csv", STATS_COLUMNS)
