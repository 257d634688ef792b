"""The fixed climatology table: how often each market rose over each horizon before the season.

The table is a baseline every seat is judged against, so it must be fixed before the season and
impossible to adjust afterwards without anyone noticing: it is sealed by the SHA-256 of its content
(``json.dumps(obj_without_sha256_key, sort_keys=True)``, default separators) and every reader
re-checks that seal before using a number from it (scoring.md §2).

Paper §4.3: the same event the contract scores. The four US indices and bitcoin are measured on the
event itself, from daily bars: the one-day event is the session's (UTC day's, for bitcoin) open to
its close (09:30 -> 16:00 ET), a longer one the open of its first day to the close of its last (5,
21, 126 sessions; 7, 30, 182 days). The others (the yield, the dollar, gold, oil, copper, VIX) take
the nearest daily event, close to close over the same number of sessions, and say so in the table.
Every market has its own history: ``league init`` fetches 2016-2025 daily bars of the twelve price
symbols (:mod:`league.prices.history`); the demo ships its world's own 2016-2025 history
(``league/scoring/data/demo-history.csv.gz``).
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd

from league.config import load_markets, shipped_config_dir
from league.jsonvalue import Json, JsonObject, obj
from league.scoring.constants import ASSETS, HORIZON_SESSIONS, HORIZONS
from league.scoring.errors import ClimatologyHashError, ScoringError

RULE = ("strict rise over the event: open to close for SPX NDX DJI SOX BTC (the contract's own window from "
        "daily bars), close to close for the others; h sessions (1d=1, 1w=5, 1m=21, 6m=126), BTC h calendar "
        "days (1, 7, 30, 182)")
DRAW_RULE = (
    "daily approximation of the draw band: |r_h| < 0.1 x mean|r_day| over the 20 previous days (the live band "
    "uses 1-minute bars, about 0.08 of a session's standard deviation)"
)
DRAW_LOOKBACK = 20
#: Markets whose event is measured open to close from daily bars (the contract's own window).
OPEN_BASIS = frozenset({"SPX", "NDX", "DJI", "SOX", "BTC"})
CALENDAR_DAYS = {"BTC": {"1d": 1, "1w": 7, "1m": 30, "6m": 182}}
WINDOW = (date(2016, 1, 1), date(2025, 12, 31))
SHIPPED_HISTORY = Path(__file__).with_name("data") / "demo-history.csv.gz"


@dataclass(frozen=True)
class HistorySeries:
    """One market's daily history: closes (and opens, when the bars have them) indexed by date."""

    name: str
    closes: pd.Series
    step_sessions: int = 1
    opens: pd.Series | None = None

    def __post_init__(self) -> None:
        if self.step_sessions < 1:
            raise ScoringError(f"history {self.name}: step_sessions must be >= 1")


def read_history(rows: Iterable[Mapping[str, str]], symbols: Mapping[str, str]) -> dict[str, HistorySeries]:
    """Series by market code from ``symbol, day, open, close`` rows (the recorded history's shape);
    ``symbols`` maps a price symbol to its market code."""
    by: dict[str, list[tuple[pd.Timestamp, float, float]]] = {}
    for row in rows:
        code = symbols.get(row["symbol"])
        if code is None:
            continue
        o, c = float(row["open"] or "nan"), float(row["close"])
        by.setdefault(code, []).append((pd.Timestamp(row["day"]), o, c))
    out = {}
    for code, items in by.items():
        items.sort()
        index = pd.DatetimeIndex([t for t, _, _ in items])
        opens = pd.Series([o for _, o, _ in items], index=index, dtype=float)
        out[code] = HistorySeries(f"{code}:{items[0][0].date()}..{items[-1][0].date()}",
                                  pd.Series([c for _, _, c in items], index=index, dtype=float),
                                  opens=opens if opens.notna().all() else None)
    return out


def history_file_rows(path: Path) -> list[dict[str, str]]:
    """The rows of a recorded history file (CSV, gzip when it ends in .gz)."""
    data = path.read_bytes()
    text = gzip.decompress(data).decode("utf-8") if path.suffix == ".gz" else data.decode("utf-8")
    return list(csv.DictReader(io.StringIO(text)))


def shipped_history() -> dict[str, HistorySeries]:
    """The demo world's recorded 2016-2025 history of the twelve markets (shipped with the package)."""
    markets = load_markets(shipped_config_dir() / "markets.toml").markets
    return read_history(history_file_rows(SHIPPED_HISTORY), {m.symbol: m.code for m in markets})


def _draw_band(returns: pd.Series, step_sessions: int) -> pd.Series:
    mean_abs = returns.abs().rolling(DRAW_LOOKBACK).mean().shift(1)
    return 0.1 * mean_abs / np.sqrt(step_sessions)


def _moves(series: HistorySeries, asset: str, horizon: str, start: date,
           end: date) -> tuple[pd.Series, pd.Series, int, str]:
    """The window's event moves (by first day), the daily closes, the steps and the basis."""
    index = series.closes.index
    inside = (index >= pd.Timestamp(start)) & (index <= pd.Timestamp(end))
    closes = series.closes.loc[inside]
    steps = CALENDAR_DAYS.get(asset, HORIZON_SESSIONS)[horizon]
    if asset in OPEN_BASIS and series.opens is not None:
        opens = series.opens.loc[inside]
        last = closes.shift(-(steps - 1))
        return (last / opens - 1.0).dropna(), closes, steps, "open_to_close"
    steps = max(1, round(steps / series.step_sessions))
    return (closes.shift(-steps) / closes - 1.0).dropna(), closes, steps, "close_to_close"


def _entry(series: HistorySeries, asset: str, horizon: str, start: date, end: date) -> JsonObject:
    move, closes, steps, basis = _moves(series, asset, horizon, start, end)
    band = _draw_band(closes.pct_change(), series.step_sessions).reindex(move.index)
    up = move > 0
    draw = (move.abs() < band).fillna(False)
    n, n_ex = int(move.size), int((~draw).sum())
    return {
        "p_up": float(up.mean()) if n else 0.5,
        "p_up_ex_draw": float(up[~draw].mean()) if n_ex else 0.5,
        "n": n,
        "n_draw": int(draw.sum()),
        "n_independent": n // steps,
        "steps": steps,
        "basis": basis,
        "window": {"start": _iso(closes.index.min()), "end": _iso(closes.index.max())},
    }


def _iso(value: object) -> str | None:
    return None if pd.isna(value) else pd.Timestamp(value).date().isoformat()


def _no_history(note: str) -> JsonObject:
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
    source: str = "",
) -> JsonObject:
    """Build and seal the table from each market's own history (``history`` by market code); refuses
    a window that does not end before the season. ``source`` names the history (and its hash)."""
    if window_end >= season_start:
        raise ScoringError(
            f"climatology window ends {window_end}, not before the season start {season_start}",
            fix="choose a window that ends before the first session of the season",
        )
    table: JsonObject = {}
    for asset in assets:
        cells: JsonObject = {h: _cell(history, asset, h, window_start, window_end) for h in horizons}
        table[asset] = cells
    body: JsonObject = {
        "kind": "climatology_fixed",
        "window": {"start": window_start.isoformat(), "end": window_end.isoformat()},
        "season_start": season_start.isoformat(),
        "rule": RULE,
        "draw_rule": DRAW_RULE,
        "horizon_sessions": {h: HORIZON_SESSIONS[h] for h in horizons},
        "history": source,
        "table": table,
    }
    return seal(body)


def _cell(history: Mapping[str, HistorySeries], asset: str, horizon: str, start: date, end: date) -> JsonObject:
    series = history.get(asset)
    if series is None:
        return _no_history(f"no history for {asset}: 50%")
    entry = _entry(series, asset, horizon, start, end)
    if entry["n"] == 0:
        return _no_history(f"no history in the window for {asset}: 50%")
    entry["source"] = series.name
    entry["approximation"] = (None if entry["basis"] == "open_to_close" else
                              "nearest daily event: close to close over the same number of sessions")
    return entry


def content_sha256(obj: Mapping[str, Json]) -> str:
    """SHA-256 of ``json.dumps(obj_without_sha256, sort_keys=True)`` with the default separators."""
    body = {k: v for k, v in obj.items() if k != "sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode("utf-8")).hexdigest()


def seal(obj: Mapping[str, Json]) -> JsonObject:
    """Return a copy carrying its own content hash under ``sha256``."""
    sealed = {k: v for k, v in obj.items() if k != "sha256"}
    sealed["sha256"] = content_sha256(sealed)
    return sealed


def sha256_ok(obj: Mapping[str, Json]) -> bool:
    """True when the recorded seal matches the content (no exception: for publishing the flag)."""
    return isinstance(obj.get("sha256"), str) and obj["sha256"] == content_sha256(obj)


def check_climatology(obj: Mapping[str, Json]) -> str:
    """Re-check the seal before any use; raise :class:`ClimatologyHashError` on a changed table."""
    if not sha256_ok(obj):
        raise ClimatologyHashError(
            f"climatology table content does not match its sha256 {obj.get('sha256')!r}",
            fix="restore the sealed council-clim-window.json; a changed table cannot be used for scoring",
        )
    return str(obj["sha256"])


def clim_probabilities(table: Mapping[str, Json], *, ex_draw: bool = False) -> dict[tuple[str, str], float]:
    """(asset, horizon) -> climatological probability in percent, after re-checking the seal."""
    check_climatology(table)
    key = "p_up_ex_draw" if ex_draw else "p_up"
    return {
        (asset, horizon): 100.0 * _share(obj(cell).get(key), asset, horizon)
        for asset, cells in _table(table).items()
        for horizon, cell in obj(cells).items()
    }


def _table(table: Mapping[str, Json]) -> JsonObject:
    """The sealed table's ``table`` object (a table without one is refused, as reading it would fail)."""
    cells = table["table"]
    if not isinstance(cells, dict):
        raise ScoringError("the climatology table has no table of cells",
                                   fix="restore the sealed council-clim-window.json")
    return cells


def _share(value: Json | None, asset: str, horizon: str) -> float:
    """A cell's share as a float (a cell without a number is refused, as reading it would fail)."""
    if isinstance(value, int | float | str):
        return float(value)
    raise ScoringError(f"the climatology cell {asset} {horizon} has no share",
                               fix="restore the sealed council-clim-window.json")


def default_table(season_start: date) -> JsonObject:
    """The demo's table: the shipped 2016-2025 history of the twelve markets (see :data:`SHIPPED_HISTORY`)."""
    digest = hashlib.sha256(SHIPPED_HISTORY.read_bytes()).hexdigest()
    return build_climatology(shipped_history(), window_start=WINDOW[0], window_end=WINDOW[1],
                             season_start=season_start, source=f"{SHIPPED_HISTORY.name} sha256 {digest}")
