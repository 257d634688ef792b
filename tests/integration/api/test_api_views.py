"""The views' fallbacks when the statistics files are not published yet (no HTTP needed)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from season_fixture import write_season

from league.api.errors import BadRequest, DataFolderError, NotFound
from league.api.paths import DataPaths
from league.api.views import Store, calibration, grid, league_table, session


@pytest.fixture()
def store(tmp_path: Path) -> tuple[Store, list[dict[str, object]], list[dict[str, str]]]:
    season = write_season(tmp_path / "data")
    (season.public / "council-league.json").unlink()
    shutil.copyfile(season.book, season.public / "council-book.jsonl")
    return Store(DataPaths.resolve(season.data)), season.models, season.rows


def test_table_falls_back_to_the_csv(store: tuple[Store, list[dict[str, object]], list[dict[str, str]]]) -> None:
    st, models, _ = store
    table = league_table(st)
    assert table["source"].startswith("computed from council-forecasts.csv")
    for model in models:
        row = next(r for r in table["horizons"][model["horizon"]] if r["seat"] == model["seat"])
        assert row["brier"] == pytest.approx(model["brier"], abs=1e-6)
        assert (row["n"], row["sessions"]) == (model["n"], model["sessions"])
        assert row["in_table"] == (model["n"] >= 30 and model["sessions"] >= 10)
    assert len(grid(st)["cells"]) == 4 * 4 * 2


def test_calibration_bins_count_every_directional_council_forecast(
        store: tuple[Store, list[dict[str, object]], list[dict[str, str]]]) -> None:
    st, _, rows = store
    groups = {g["horizon"]: g for g in calibration(st)["groups"]}
    for horizon, group in groups.items():
        expected = sum(1 for r in rows if r["horizon"] == horizon and not r["seat"].startswith("_")
                       and r["status"] == "counted" and r["prob_up"] not in ("", "50"))
        assert sum(b["n"] for b in group["bins"]) == expected


def test_bad_inputs(store: tuple[Store, list[dict[str, object]], list[dict[str, str]]], tmp_path: Path) -> None:
    st, _, _ = store
    with pytest.raises(BadRequest):
        session(st, "2026-1-5")
    with pytest.raises(NotFound):
        session(st, "1999-01-04")
    with pytest.raises(BadRequest):
        st.paths.public_file("asks/../../books/council-book.jsonl")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataFolderError, match="no council-book.jsonl"):
        DataPaths.resolve(tmp_path / "empty")
