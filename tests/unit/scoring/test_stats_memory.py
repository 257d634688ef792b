"""The statistics' memory: narrower row sets, one copy per de-duplication, the sides'
gaps in place. Every change must leave every published number as it was, bit for bit: each test here sets
the lean path against the plain one (every column kept, the whole frame sorted and copied, the original
expression) on tables with ties in the sort order, duplicate answers, missing values and two segments."""

from __future__ import annotations

import itertools
import json
from typing import Any

import numpy as np
import pandas as pd
import pytest

from league.scoring import climatology as climmod
from league.scoring import council, missing
from league.scoring import publish as pubmod
from league.scoring.consensus import dedupe
from league.scoring.frame import COUNCIL_COLUMNS, SCORED_COLUMNS, council_rows, load_forecasts, scored_rows
from league.scoring.synthetic import synthetic_families, synthetic_season, synthetic_sides


def _awkward_season(n_sessions: int = 32, seed: int = 5) -> pd.DataFrame:
    """A synthetic season (text, as in the CSV) with what the sorts and de-duplications must get right:
    second answers of a seat to the same event (one sealed at the same second as the first: a tie in the
    sort order, one earlier), a second-wave run, an unresolved close, empty event ids (the fallback key),
    a silent seat in one horizon and a second methodology version."""
    rng = np.random.default_rng(seed)
    df = synthetic_season(n_sessions, seed=seed)
    council_seat = ~df["seat"].str.startswith("_")
    again = df.loc[council_seat & (rng.random(len(df)) < 0.04)].copy()
    again["prob_up"] = rng.integers(1, 100, len(again)).astype(str)  # same sealed_at: a tie, the first must win
    earlier = df.loc[council_seat & (rng.random(len(df)) < 0.02)].copy()
    earlier["prob_up"] = rng.integers(1, 100, len(earlier)).astype(str)
    earlier["sealed_at"] = earlier["session"] + "T12:59:00Z"  # sealed earlier: this one counts
    wave = df.loc[council_seat & (df["session"] == df["session"].iloc[-1])].copy()
    wave["run_id"] = wave["run_id"] + "-w2"
    wave["run_role"] = "asked_again"
    wave["sealed_at"] = wave["session"] + "T13:30:00Z"
    out = pd.concat([df, again, earlier, wave], ignore_index=True)
    out = out.sample(frac=1.0, random_state=seed).reset_index(drop=True)  # rows in no particular order
    out.loc[out.index % 97 == 0, "close"] = ""  # unresolved
    out.loc[out.index % 89 == 0, ["event_id", "event_id_v2"]] = ""  # the fallback event key
    out.loc[(out["seat"] == "kimi") & (out["horizon"] == "6m"), ["prob_up", "status"]] = ["", "no_answer"]
    late = out["session"] >= sorted(out["session"].unique())[n_sessions - 6]
    out.loc[late, "methodology_version"] = "2"
    return out


@pytest.fixture(scope="module")
def awkward() -> pd.DataFrame:
    return load_forecasts(_awkward_season())


def _plain_dedupe(rows: pd.DataFrame) -> pd.DataFrame:
    """:func:`league.scoring.consensus.dedupe` as it was: the whole frame sorted, de-duplicated, copied."""
    if "unit" not in rows.columns:
        rows = rows.assign(unit=rows["run_id"])
    ordered = rows.sort_values(["unit", "event_key", "sealed_at", "seat"], kind="mergesort")
    out = ordered.drop_duplicates(["unit", "event_key", "seat"], keep="first").copy()
    out["ev"] = pd.factorize(out["unit"] + "\x1f" + out["event_key"], sort=True)[0]
    return out


@pytest.mark.parametrize("counted_only", [True, False])
def test_dedupe_keeps_the_rows_and_order_of_sorting_the_whole_frame(awkward: pd.DataFrame, counted_only: bool) -> None:
    rows = council_rows(awkward, counted_only=counted_only)
    lean = dedupe(rows)
    assert len(lean) < len(rows)  # the duplicates were there, and are gone
    pd.testing.assert_frame_equal(lean, _plain_dedupe(rows))


def test_dedupe_without_unit_and_with_a_non_range_index(awkward: pd.DataFrame) -> None:
    rows = council_rows(awkward).drop(columns=["unit"]).iloc[::-1]  # labels descending: positions are not labels
    pd.testing.assert_frame_equal(dedupe(rows), _plain_dedupe(rows))


def test_the_narrow_row_sets_are_the_columns_of_the_whole_ones(awkward: pd.DataFrame) -> None:
    whole = council_rows(awkward).loc[lambda x: x["common"]]
    narrow = council_rows(awkward, common_only=True, columns=COUNCIL_COLUMNS)
    pd.testing.assert_frame_equal(narrow, whole[[*COUNCIL_COLUMNS, "unit"]])
    pd.testing.assert_frame_equal(scored_rows(awkward, SCORED_COLUMNS), scored_rows(awkward)[list(SCORED_COLUMNS)])
    assert "unit" not in awkward.columns  # the row sets never write into the table they come from


def _dumped(files: dict[str, dict[str, Any]]) -> dict[str, str]:
    return {name: json.dumps(doc, indent=1, sort_keys=True, allow_nan=False) for name, doc in files.items()}


def test_the_statistics_of_the_narrow_season_are_those_of_the_whole_table(awkward: pd.DataFrame,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    clim = climmod.default_table(pd.Timestamp(str(awkward["session"].min())).date())
    args = (awkward, clim, synthetic_families(), synthetic_sides())
    lean = _dumped(pubmod.build_all(*args))
    assert json.loads(lean["council-stats.json"])["segments"][1]["methodology_version"] == "2"
    monkeypatch.setattr(pubmod, "SCORED_COLUMNS", None)  # every column, as before the change
    monkeypatch.setattr(pubmod, "COUNCIL_COLUMNS", None)
    monkeypatch.setattr(missing, "CELL_COLUMNS", list(awkward.columns))
    assert _dumped(pubmod.build_all(*args)) == lean


def _plain_gaps(y: np.ndarray, member: np.ndarray) -> np.ndarray:
    """council._gaps as it was: one expression, every intermediate array anew."""
    mask = (~np.isnan(y)).astype(float)
    y0 = np.nan_to_num(y)
    a = member.astype(float).T
    b = (~member).astype(float).T
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray((y0 @ a) / (mask @ a) - (y0 @ b) / (mask @ b), dtype=float)


def test_the_side_gaps_in_place_are_the_gaps_of_the_expression() -> None:
    rng = np.random.default_rng(4)
    y = np.rint(rng.uniform(1, 99, (300, 10)))
    y[rng.random(y.shape) < 0.2] = np.nan
    y[7, :5] = np.nan  # one side silent in a cell: 0/0
    member = rng.random((40, 10)) < 0.5
    np.testing.assert_array_equal(council._gaps(y, member), _plain_gaps(y, member))
    combos = list(itertools.combinations(range(10), 5))
    full = np.zeros((len(combos), 10), dtype=bool)
    for i, c in enumerate(combos):
        full[i, list(c)] = True
    g = _plain_gaps(y, full)
    expected = np.nanmax(np.abs(np.where(np.isfinite(g), g, np.nan)), axis=0)
    np.testing.assert_array_equal(council._split_stats(y, 5), expected)


def _plain_spreads(g: pd.DataFrame) -> np.ndarray:
    """run_horizon_table's spread terms as they were: a pandas group-by per run and horizon."""
    sd = g.groupby("event_key")["p"].agg(lambda x: float(np.std(x.to_numpy(dtype=float))) if len(x) > 1 else np.nan)
    return np.asarray(sd.to_numpy(dtype=float), dtype=float)


def test_the_event_spreads_are_those_of_the_group_by(awkward: pd.DataFrame) -> None:
    rows = dedupe(council_rows(awkward, counted_only=False, common_only=True, columns=COUNCIL_COLUMNS))
    groups = list(rows.groupby(["unit", "horizon"], sort=True))
    assert any(g["event_key"].duplicated().any() for _, g in groups)  # events with several answers
    for _, g in groups:
        got = council._event_spreads(g["event_key"].to_numpy(dtype=object), g["p"].to_numpy(dtype=float))
        np.testing.assert_array_equal(got, _plain_spreads(g))
    lone = council._event_spreads(np.array(["b", "a", "b"], dtype=object), np.array([10.0, 20.0, 70.0]))
    np.testing.assert_array_equal(lone, [np.nan, np.std([10.0, 70.0])])
    assert council._event_spreads(np.array([], dtype=object), np.array([])).size == 0


def test_the_climatology_per_row_is_the_lookup_per_row(awkward: pd.DataFrame) -> None:
    from league.scoring.baselines import clim_per_row

    clim = {("SPX", "1d"): 53.2, ("VIX", "1w"): 47}  # an int, and most pairs missing: the default
    rows = awkward.iloc[::7]
    expected = np.array([clim.get(k, 50.0) for k in zip(rows["asset"], rows["horizon"], strict=True)], dtype=float)
    np.testing.assert_array_equal(clim_per_row(rows, clim, 50.0), expected)
    assert clim_per_row(rows.iloc[:0], clim, 50.0).size == 0


@pytest.mark.parametrize("cells", [1, 3 * 14 * 14 + 5])
def test_pairwise_blocks_of_runs_give_the_statistics_of_one_block(awkward: pd.DataFrame, cells: int,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The (runs, seats, seats) arrays built a few runs at a time, the N_eff family, the
    seats' correlation with the others and the shadow weights' pooled correlation are the figures of one block."""
    clim = climmod.default_table(pd.Timestamp(str(awkward["session"].min())).date())
    args = (awkward, clim, synthetic_families(), synthetic_sides())
    rows = council_rows(awkward)

    def figures() -> tuple[object, ...]:
        return _dumped(pubmod.build_all(*args)), council._pooled_mean_corr(rows), council.distinctiveness(rows)

    monkeypatch.setattr(council, "BLOCK_CELLS", 10**12)  # one block: every run at once, as before the change
    assert len(council._blocks(council._cube(rows, "p")[0])) == 1
    whole = figures()
    monkeypatch.setattr(council, "BLOCK_CELLS", cells)  # one run a block, or three and a bit
    assert len(council._blocks(council._cube(rows, "p")[0])) > 3
    assert figures() == whole
