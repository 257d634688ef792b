"""The fixed climatology table: how often each market rose over each horizon before the season.

The table is a baseline every seat is judged against, so it must be fixed before the season and
impossible to adjust afterwards without anyone noticing: it is sealed by the SHA-256 of its content
(``json.dumps(obj_without_sha256_key, sort_keys=True)``, default separators) and every reader
re-checks that seal before using a number from it (scoring.md §2).

Offline the daily history comes from the series ``arch`` ships (S&P 500, Nasdaq, VIX, WTI daily;
Brent monthly). Markets without a matching series use the nearest proxy, or 50% with "no history";
each approximation is written into the table itself.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

import numpy as np
import pandas as pd

from league.scoring.constants import ASSETS, HORIZON_SESSIONS, HORIZONS
from league.scoring.errors import ClimatologyHashError, ScoringError

RULE = "strict rise: close[t+h] > close[t] over daily closes; h in sessions (1d=1, 1w=5, 1m=21, 6m=126)"
DRAW_RULE = (
    "daily approximation of the draw band: |r_h| < 0.1 x mean|r_step| over the 20 previous steps / sqrt(step "
    "sessions) (the live band uses 1-minute bars, about 0.08 of a session's standard deviation)"
)
DRAW_LOOKBACK = 20


@dataclass(frozen=True)
class HistorySeries:
    """One price history: closes indexed by date, and how many sessions one observation step spans."""

    name: str
    closes: pd.Series
    step_sessions: int = 1

    def __post_init__(self) -> None:
        if self.step_sessions < 1:
            raise ScoringError(f"history {self.name}: step_sessions must be >= 1")


@dataclass(frozen=True)
class AssetSource:
    """Which history stands for a market at a horizon, and the approximation that implies (if any)."""

    series: str | None
    approximation: str | None


def _arch_close(module: str, column: str) -> pd.Series:
    import importlib

    frame = importlib.import_module(f"arch.data.{module}").load()
    return frame[column].astype(float).dropna()


def arch_history() -> dict[str, HistorySeries]:
    """The real daily (and Brent monthly) series shipped inside the ``arch`` package."""
    return {
        "arch.data.sp500": HistorySeries("arch.data.sp500", _arch_close("sp500", "Adj Close")),
        "arch.data.nasdaq": HistorySeries("arch.data.nasdaq", _arch_close("nasdaq", "Adj Close")),
        "arch.data.vix": HistorySeries("arch.data.vix", _arch_close("vix", "vix")),
        "arch.data.wti": HistorySeries("arch.data.wti", _arch_close("wti", "DCOILWTICO")),
        "arch.data.crude:Brent": HistorySeries("arch.data.crude:Brent", _arch_close("crude", "Brent"), 21),
    }


def arch_sources(asset: str, horizon: str) -> AssetSource:
    """Map a market and horizon to the arch series standing for it, with the approximation stated."""
    exact = {"SPX": "arch.data.sp500", "VIX": "arch.data.vix", "WTI": "arch.data.wti"}
    if asset in exact:
        return AssetSource(exact[asset], None)
    proxies = {
        "NDX": ("arch.data.nasdaq", "Nasdaq Composite stands for the Nasdaq-100"),
        "DJI": ("arch.data.sp500", "S&P 500 stands for the Dow Jones (nearest proxy)"),
        "SOX": ("arch.data.nasdaq", "Nasdaq Composite stands for the semiconductor index (nearest proxy)"),
    }
    if asset in proxies:
        return AssetSource(*proxies[asset])
    if asset == "BRENT":
        if horizon in ("1m", "6m"):
            return AssetSource("arch.data.crude:Brent", "monthly Brent averages (1m = 1 step, 6m = 6 steps)")
        return AssetSource("arch.data.wti", "WTI daily stands for Brent (no daily Brent history shipped)")
    return AssetSource(None, "no history: 50%")


def _draw_band(returns: pd.Series, step_sessions: int) -> pd.Series:
    mean_abs = returns.abs().rolling(DRAW_LOOKBACK).mean().shift(1)
    return 0.1 * mean_abs / np.sqrt(step_sessions)


def _entry(series: HistorySeries, horizon: str, start: date, end: date) -> dict[str, Any]:
    index = series.closes.index
    closes = series.closes.loc[(index >= pd.Timestamp(start)) & (index <= pd.Timestamp(end))]
    steps = max(1, round(HORIZON_SESSIONS[horizon] / series.step_sessions))
    step_returns = closes.pct_change()
    move = (closes.shift(-steps) / closes - 1.0).iloc[:-steps] if len(closes) > steps else closes.iloc[:0]
    band = _draw_band(step_returns, series.step_sessions).reindex(move.index)
    valid = move.notna()
    up = move[valid] > 0
    draw = (move.abs() < band).reindex(up.index).fillna(False)
    n, n_ex = int(valid.sum()), int((~draw).sum())
    return {
        "p_up": float(up.mean()) if n else 0.5,
        "p_up_ex_draw": float(up[~draw].mean()) if n_ex else 0.5,
        "n": n,
        "n_draw": int(draw.sum()),
        "n_independent": n // steps,
        "steps": steps,
        "window": {"start": _iso(closes.index.min()), "end": _iso(closes.index.max())},
    }


def _iso(value: Any) -> str | None:
    return None if pd.isna(value) else pd.Timestamp(value).date().isoformat()


def _no_history(note: str) -> dict[str, Any]:
    return {"p_up": 0.5, "p_up_ex_draw": 0.5, "n": 0, "n_draw": 0, "n_independent": 0, "steps": 0,
            "window": None, "source": None, "approximation": note}


def build_climatology(
    history: Mapping[str, HistorySeries],
    *,
    window_start: date,
    window_end: date,
    season_start: date,
    assets: tuple[str, ...] = ASSETS,
    horizons: tuple[str, ...] = HORIZONS,
) -> dict[str, Any]:
    """Build and seal the table; refuses a window that does not end before the season."""
    if window_end >= season_start:
        raise ScoringError(
            f"climatology window ends {window_end}, not before the season start {season_start}",
            fix="choose a window that ends before the first session of the season",
        )
    table: dict[str, dict[str, Any]] = {}
    for asset in assets:
        table[asset] = {h: _cell(history, asset, h, window_start, window_end) for h in horizons}
    obj = {
        "kind": "climatology_fixed",
        "window": {"start": window_start.isoformat(), "end": window_end.isoformat()},
        "season_start": season_start.isoformat(),
        "rule": RULE,
        "draw_rule": DRAW_RULE,
        "horizon_sessions": {h: HORIZON_SESSIONS[h] for h in horizons},
        "table": table,
    }
    return seal(obj)


def _cell(
    history: Mapping[str, HistorySeries], asset: str, horizon: str, start: date, end: date
) -> dict[str, Any]:
    source = arch_sources(asset, horizon)
    if source.series is None or source.series not in history:
        return _no_history(source.approximation or "no history: 50%")
    entry = _entry(history[source.series], horizon, start, end)
    if entry["n"] == 0:
        return _no_history(f"no history in the window for {source.series}: 50%")
    entry["source"] = source.series
    entry["approximation"] = source.approximation
    return entry


def content_sha256(obj: Mapping[str, Any]) -> str:
    """SHA-256 of ``json.dumps(obj_without_sha256, sort_keys=True)`` with the default separators."""
    body = {k: v for k, v in obj.items() if k != "sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode("utf-8")).hexdigest()


def seal(obj: Mapping[str, Any]) -> dict[str, Any]:
    """Return a copy carrying its own content hash under ``sha256``."""
    sealed = {k: v for k, v in obj.items() if k != "sha256"}
    sealed["sha256"] = content_sha256(sealed)
    return sealed


def sha256_ok(obj: Mapping[str, Any]) -> bool:
    """True when the recorded seal matches the content (no exception: for publishing the flag)."""
    return isinstance(obj.get("sha256"), str) and obj["sha256"] == content_sha256(obj)


def check_climatology(obj: Mapping[str, Any]) -> str:
    """Re-check the seal before any use; raise :class:`ClimatologyHashError` on a changed table."""
    if not sha256_ok(obj):
        raise ClimatologyHashError(
            f"climatology table content does not match its sha256 {obj.get('sha256')!r}",
            fix="restore the sealed council-clim-window.json; a changed table cannot be used for scoring",
        )
    return str(obj["sha256"])


def clim_probabilities(obj: Mapping[str, Any], *, ex_draw: bool = False) -> dict[tuple[str, str], float]:
    """(asset, horizon) -> climatological probability in percent, after re-checking the seal."""
    check_climatology(obj)
    key = "p_up_ex_draw" if ex_draw else "p_up"
    return {
        (asset, horizon): 100.0 * float(cell[key])
        for asset, cells in obj["table"].items()
        for horizon, cell in cells.items()
    }


def default_table(season_start: date) -> dict[str, Any]:
    """The offline table: 2009-2018 from arch's shipped series (the reference used 2016-2025)."""
    return build_climatology(
        arch_history(), window_start=date(2009, 1, 1), window_end=date(2018, 12, 31), season_start=season_start
    )
