"""The fixed climatology table: built from each market's own daily history (paper §4.3), sealed, re-checked."""

from __future__ import annotations

import copy
import hashlib
import json
from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from league.scoring.climatology import (
    HistorySeries,
    build_climatology,
    check_climatology,
    clim_probabilities,
    sha256_ok,
)
from league.scoring.errors import ClimatologyHashError, ScoringError

ASSETS = Path(__file__).parents[2] / "assets" / "scoring"


def test_seal_is_the_spec_formula(clim_table: dict[str, Any]) -> None:
    body = {k: v for k, v in clim_table.items() if k != "sha256"}
    assert clim_table["sha256"] == hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
    assert check_climatology(clim_table) == clim_table["sha256"]


def test_changed_table_fails_the_check(clim_table: dict[str, Any]) -> None:
    changed = copy.deepcopy(clim_table)
    changed["table"]["SPX"]["1d"]["p_up"] = 0.6
    assert not sha256_ok(changed)
    with pytest.raises(ClimatologyHashError):
        check_climatology(changed)
    with pytest.raises(ClimatologyHashError):
        clim_probabilities(changed)


def test_golden_and_tampered_files() -> None:
    good = json.loads((ASSETS / "clim_window_good.json").read_text())
    bad = json.loads((ASSETS / "clim_window_tampered.json").read_text())
    assert sha256_ok(good)
    with pytest.raises(ClimatologyHashError):
        check_climatology(bad)


def test_spx_from_the_shipped_history_is_plausible(clim_table: dict[str, Any]) -> None:
    spx = clim_table["table"]["SPX"]
    # 2016-2025 sessions: 2,514 one-day events (each session's open -> close), a little over half up.
    assert spx["1d"]["n"] == 2514 and spx["1d"]["basis"] == "open_to_close"
    assert 0.5 < spx["1d"]["p_up"] < 0.58
    assert spx["1w"]["n_independent"] == spx["1w"]["n"] // 5
    assert spx["1d"]["approximation"] is None and spx["1d"]["source"].startswith("SPX:2016-01-04")
    assert clim_table["window"] == {"start": "2016-01-01", "end": "2025-12-31"}  # paper §4.3


def test_approximations_are_stated(clim_table: dict[str, Any]) -> None:
    t = clim_table["table"]
    assert t["NDX"]["1d"]["approximation"] is None  # its own history, its own event
    assert "close to close" in t["GOLD"]["1d"]["approximation"] and t["GOLD"]["1d"]["n"] > 2000
    assert t["BTC"]["1w"]["steps"] == 7  # calendar days


def test_hand_built_series_counts_strict_rises() -> None:
    index = pd.date_range("2015-01-01", periods=6, freq="D")
    closes = pd.Series([10.0, 11.0, 11.0, 10.0, 12.0, 13.0], index=index)
    opens = pd.Series([10.0, 10.5, 11.5, 10.0, 11.0, 13.5], index=index)
    obj = build_climatology({"SPX": HistorySeries("spx", closes, opens=opens),
                             "GOLD": HistorySeries("gold", closes)},
                            window_start=date(2015, 1, 1), window_end=date(2015, 12, 31),
                            season_start=date(2016, 1, 4), assets=("SPX", "GOLD"), horizons=("1d", "1w"))
    spx, gold = obj["table"]["SPX"], obj["table"]["GOLD"]
    # SPX 1d, open -> close of the same day: 10->10 no, 10.5->11 up, 11.5->11 no, 10->10 no, 11->12 up, 13.5->13 no.
    assert spx["1d"]["n"] == 6 and spx["1d"]["p_up"] == pytest.approx(2 / 6)
    # SPX 1w (5 sessions): open of day 1 -> close of day 5: 10 -> 12 up; 10.5 -> 13 up.
    assert spx["1w"]["n"] == 2 and spx["1w"]["p_up"] == 1.0
    # GOLD close -> next close: 11>10, 11=11 no, 10<11 no, 12>10, 13>12 -> 3 of 5.
    assert gold["1d"]["n"] == 5 and gold["1d"]["p_up"] == pytest.approx(3 / 5)


def test_window_must_end_before_the_season() -> None:
    with pytest.raises(ScoringError, match="not before the season"):
        build_climatology({}, window_start=date(2016, 1, 1), window_end=date(2026, 1, 5),
                          season_start=date(2026, 1, 5))
