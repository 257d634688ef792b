"""The fixed climatology table: built from arch's real daily history, sealed, re-checked."""

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


def test_spx_from_real_history_is_plausible(clim_table: dict[str, Any]) -> None:
    spx = clim_table["table"]["SPX"]
    # 2009-2018 daily S&P 500: about 2,500 one-day moves, a little over half of them up.
    assert 2400 <= spx["1d"]["n"] <= 2600
    assert 0.52 < spx["1d"]["p_up"] < 0.57
    assert spx["6m"]["p_up"] > spx["1d"]["p_up"]  # a rising decade: longer windows rise more often
    assert spx["1w"]["n_independent"] == spx["1w"]["n"] // 5
    assert spx["1d"]["approximation"] is None and spx["1d"]["source"] == "arch.data.sp500"


def test_approximations_are_stated(clim_table: dict[str, Any]) -> None:
    t = clim_table["table"]
    assert "Nasdaq" in t["NDX"]["1d"]["approximation"]
    assert "Brent" in t["BRENT"]["1m"]["approximation"] and t["BRENT"]["1m"]["source"] == "arch.data.crude:Brent"
    assert t["GOLD"]["1d"] == {**t["GOLD"]["1d"], "p_up": 0.5, "n": 0}
    assert "no history" in t["GOLD"]["1d"]["approximation"]


def test_hand_built_series_counts_strict_rises() -> None:
    closes = pd.Series([10.0, 11.0, 11.0, 10.0, 12.0, 13.0],
                       index=pd.date_range("2015-01-01", periods=6, freq="D"))
    obj = build_climatology({"arch.data.sp500": HistorySeries("arch.data.sp500", closes)},
                            window_start=date(2015, 1, 1), window_end=date(2015, 12, 31),
                            season_start=date(2016, 1, 4), assets=("SPX",), horizons=("1d",))
    cell = obj["table"]["SPX"]["1d"]
    assert cell["n"] == 5 and cell["p_up"] == pytest.approx(3 / 5)  # 11>10, 12>10, 13>12; 11=11 and 10<11 not


def test_window_must_end_before_the_season() -> None:
    with pytest.raises(ScoringError, match="not before the season"):
        build_climatology({}, window_start=date(2016, 1, 1), window_end=date(2026, 1, 5),
                          season_start=date(2026, 1, 5))
