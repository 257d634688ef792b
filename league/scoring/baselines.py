"""Reference forecasts every seat is compared with: coin, climatology, momentum (scoring.md §2).

They are recomputed here from the forecast rows themselves (and the sealed climatology table), so a
reader holding only ``council-forecasts.csv`` gets the same references the league published.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date

import numpy as np
import numpy.typing as npt
import pandas as pd

from league.calendar import default_calendar
from league.errors import CalendarError
from league.scoring.constants import COIN_P, MOMENTUM_P


def coin(rows: pd.DataFrame) -> pd.Series:
    """50% on every row (0.25 per forecast)."""
    return pd.Series(COIN_P, index=rows.index, name="coin")


def climatology(rows: pd.DataFrame, clim: Mapping[tuple[str, str], float]) -> pd.Series:
    """The sealed table's probability for the row's market and horizon (50 where it has none)."""
    return pd.Series(clim_per_row(rows, clim, COIN_P), index=rows.index, name="climatology", dtype=float)


def clim_per_row(rows: pd.DataFrame, clim: Mapping[tuple[str, str], float], default: float) -> npt.NDArray[np.float64]:
    """``clim.get((asset, horizon), default)`` of every row as a float, looked up once per distinct pair
    (a season has a few dozen pairs and hundreds of thousands of rows)."""
    codes, pairs = pd.MultiIndex.from_arrays([rows["asset"], rows["horizon"]]).factorize()
    values = np.array([float(clim.get((str(a), str(h)), default)) for a, h in pairs], dtype=float)
    return np.asarray(values[codes], dtype=float)


def previous_nyse_session(session: str) -> str | None:
    """The NYSE session before ``session`` (league.calendar); ``None`` outside the calendar's range."""
    try:
        return default_calendar().previous_session(date.fromisoformat(session)).isoformat()
    except CalendarError:
        return None


def yesterday_direction(df: pd.DataFrame,
                        previous: Callable[[str], str | None] = previous_nyse_session) -> pd.DataFrame:
    """Per (asset, session): the sign of the previous NYSE session's one-day move of that market.

    "Yesterday" is the exchange's previous session, never the previous session in the table: after a
    session the league did not run (or did not score), the move before it is not yesterday's, and the
    baseline states nothing that day (the ``_momentum`` seat does the same from the book). Its one-day
    event (reference to close) is the latest move known at ask time. A missing or zero move gives 0.
    """
    day = df.loc[(df["horizon"] == "1d") & df["resolved"] & df["common"], ["asset", "session", "close_f", "ref_f"]]
    moves = day.groupby(["asset", "session"])[["close_f", "ref_f"]].first()
    sign = np.sign(moves["close_f"] - moves["ref_f"]).rename("direction").reset_index()
    sessions = pd.DataFrame({"session": sorted(df["session"].unique())})
    sessions["yesterday"] = sessions["session"].map(previous)
    out = sessions.merge(sign.rename(columns={"session": "yesterday"}), on="yesterday")
    return out[["asset", "session", "direction"]]


def momentum(rows: pd.DataFrame, df: pd.DataFrame) -> pd.Series:
    """55% in yesterday's direction of the same market; NaN (no forecast) after a zero or unknown move."""
    direction = yesterday_direction(df).set_index(["asset", "session"])["direction"]
    idx = pd.MultiIndex.from_arrays([rows["asset"], rows["session"]])
    d = direction.reindex(idx).to_numpy(dtype=float)
    p = np.where(d > 0, MOMENTUM_P, np.where(d < 0, 100.0 - MOMENTUM_P, np.nan))
    return pd.Series(p, index=rows.index, name="momentum")
