"""The views' fallbacks when the statistics files are not published yet (no HTTP needed)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from season_fixture import write_season

from league.api.errors import BadRequest, DataFolderError, NotFound
from league.api.paths import DataPaths
from league.api.views import Store, calibration, grid, league_table, session
from league.publish import publish


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


def test_a_session_view_reads_only_its_slice_of_the_csv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the published forecasts index, a session's rows come from its byte slices (the whole CSV is
    never parsed); they are the rows a full read gives. A stale index falls back to the full read."""
    season = write_season(tmp_path / "data")
    publish(season.data)
    st = Store(DataPaths.resolve(season.data))
    day = season.sessions[-1]
    full = [r for r in st.rows() if r["session"] == day]
    assert full and st.session_rows(day) == full

    def whole_csv() -> list[dict[str, str]]:
        raise AssertionError("the whole CSV was read for one session")

    monkeypatch.setattr(st, "rows", whole_csv)
    assert session(st, day)["forecast_rows"] == len(full)
    csv_path = season.public / "council-forecasts.csv"
    data = csv_path.read_bytes()
    block = next(s for s in json.loads((season.public / "council-forecasts-index.json").read_text())["sessions"]
                 if s["session"] == day)
    cut = data.index(day.encode(), block["offset"])
    csv_path.write_bytes(data[:cut] + (b"1" if data[cut:cut + 1] == b"2" else b"2") + data[cut + 1:])  # same size
    with pytest.raises(AssertionError, match="whole CSV"):  # the slice no longer hashes: not trusted
        st.session_rows(day)


def test_the_three_arm_table_reads_the_published_experiment(tmp_path: Path) -> None:
    from league.api.prerender import arms_html
    from league.api.views import arms

    season = write_season(tmp_path / "data")
    st = Store(DataPaths.resolve(season.data))
    assert arms(st)["runs"] == [] and "not published" in str(arms(st)["source"])
    assert "No arm has run yet" in arms_html(arms(st))
    both = {"seats": ["a", "b"], "open": {"heat": 25.0, "n_eff": 1.5}, "closed_book": {"heat": 12.5, "n_eff": 1.2}}
    runs = [{"session": "2026-06-01", "closed_vs_open": both, "three_arms": None},
            {"session": "2026-06-02", "closed_vs_open": both,
             "three_arms": {**both, "price_only": {"heat": 0.0, "n_eff": 1.0}}},
            {"session": "2026-06-03", "closed_vs_open": None, "three_arms": None}]
    (season.public / "arena-cb-experiment.json").write_text(json.dumps({"runs": runs, "season": {}}), encoding="utf-8")
    table = arms(st)
    assert [r["session"] for r in table["runs"]] == ["2026-06-02", "2026-06-01"]  # newest first, empty runs left out
    newest, oldest = table["runs"]
    assert newest["price_only"] == {"heat": 0.0, "n_eff": 1.0} and oldest["price_only"] is None
    html = arms_html(table)
    assert html.count('class="arms-row"') == 2 and "12.5" in html and "1.20" in html
