"""Reading the forecasts table: typed columns, and clear errors that name the bad row."""

from __future__ import annotations

from pathlib import Path

import pytest

from league.scoring.errors import ForecastsInputError
from league.scoring.frame import load_forecasts, scored_rows

ASSETS = Path(__file__).parents[2] / "assets" / "scoring"


def test_golden_small_file_parses_and_derives_outcomes() -> None:
    df = load_forecasts(ASSETS / "forecasts_small.csv")
    assert len(df) == 8
    spx = df.loc[(df["seat"] == "alpha") & (df["asset"] == "SPX")].iloc[0]
    assert spx["p"] == 70.0 and spx["outcome"] == 1.0 and bool(spx["pre_ref"])
    # an unchanged price is not a rise; an empty close leaves the row unresolved
    assert df.loc[df["asset"] == "TNX", "outcome"].tolist() == [0.0, 0.0, 0.0]
    assert df.loc[df["asset"] == "VIX", "resolved"].tolist() == [False, False]
    assert set(scored_rows(df)["seat"]) == {"alpha", "_coin"}
    assert df["line"].iloc[0] == "12"  # raw text is kept as it was


@pytest.mark.parametrize(("name", "message"), [
    ("forecasts_bad_prob.csv", "'sixty' is not a number"),
    ("forecasts_prob_range.csv", "outside 0-100"),
    ("forecasts_missing_column.csv", "lacks columns: prob_up"),
])
def test_broken_files_fail_with_the_row_named(name: str, message: str) -> None:
    with pytest.raises(ForecastsInputError, match=message):
        load_forecasts(ASSETS / name)


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ForecastsInputError, match="not found"):
        load_forecasts(tmp_path / "nope.csv")


def test_season_where_every_seat_was_silent_still_publishes(tmp_path: Path) -> None:
    import json

    from league.scoring.publish import write_stats

    clim = json.loads((ASSETS / "clim_window_good.json").read_text())
    paths = write_stats(ASSETS / "forecasts_all_silent.csv", tmp_path, clim, {})
    stats = json.loads(paths["council-stats.json"].read_text())
    assert stats["scores"] == [] and stats["n_eff"]["counted"]["per_run"] == []
    assert {m["coverage"] for m in stats["missing"]} == {0.0}


def test_header_only_file_is_refused(tmp_path: Path) -> None:
    import json

    from league.scoring.publish import write_stats

    clim = json.loads((ASSETS / "clim_window_good.json").read_text())
    with pytest.raises(ForecastsInputError, match="no rows"):
        write_stats(ASSETS / "forecasts_header_only.csv", tmp_path, clim, {})
    assert not list(tmp_path.iterdir())


def test_a_second_wave_answer_fills_the_expected_cell_once() -> None:
    import csv

    from league.scoring.missing import three_outcomes

    with open(ASSETS / "forecasts_small.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    beta_spx = next(r for r in rows if r["seat"] == "beta" and r["asset"] == "SPX")
    rows.append({**beta_spx, "run_id": "run-2026-01-05-r2", "status": "counted", "prob_up": "80",
                 "cell_status": "elicited", "line_kind": "answer", "line": "30", "why_missing": ""})
    out = {(m["seat"], m["horizon"]): m for m in three_outcomes(load_forecasts(rows))}
    assert out[("beta", "1d")]["expected"] == 2 and out[("beta", "1d")]["answered"] == 1
    assert out[("beta", "1d")]["coverage"] == 0.5
    # service score: SPX 80 on a rise (0.04) and TNX filled with 50 (0.25)
    assert abs(out[("beta", "1d")]["service_score"] - (0.04 + 0.25) / 2) < 1e-12


def test_ex_draw_scores_drop_draw_rows_and_use_the_ex_draw_climatology() -> None:
    import csv
    import json

    from league.scoring.publish import build_all

    with open(ASSETS / "forecasts_small.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        r["draw"] = "1" if r["asset"] == "TNX" else "0"
    clim = json.loads((ASSETS / "clim_window_good.json").read_text())
    stats = build_all(load_forecasts(rows), clim)["council-stats.json"]
    alpha = next(s for s in stats["scores"] if s["seat"] == "alpha")
    assert alpha["dropped_draw"] == 1 and alpha["n_ex_draw"] == 1
    assert abs(alpha["brier_ex_draw"] - 0.09) < 1e-12  # SPX 70 on a rise
    c = clim["table"]["SPX"]["1d"]["p_up_ex_draw"]
    assert abs(alpha["bss_ex_draw"]["climatology_ex_draw"] - (1 - 0.09 / (1 - c) ** 2)) < 1e-12
    assert abs(alpha["bss_ex_draw"]["coin"] - (1 - 0.09 / 0.25)) < 1e-12
