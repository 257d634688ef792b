"""Missing answers: three separately ranked outcomes per seat and horizon (scoring.md §5).

An empty cell is filled with 50 only for the service score; the stated-probability Brier never
sees the filled 0.25, so silence can neither help nor hurt a seat's forecasting score.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from league.jsonvalue import JsonObject


def expected_cells(df: pd.DataFrame) -> pd.DataFrame:
    """Every cell the counted runs expected (all row statuses), one per seat, session, market, horizon.

    A seat silent in the first run and answering in the second wave of the same session has one
    expected cell, answered; the answered row wins over an unanswered one.
    """
    r = df.loc[df["counted_run"] & df["common"]]
    r = r.sort_values(["stated", "sealed_at"], ascending=[False, True], kind="mergesort")
    return r.drop_duplicates(["session", "seat", "asset", "horizon"], keep="first")


#: The columns :func:`three_outcomes` reads of the expected cells (the rest is never looked at there).
CELL_COLUMNS = ["counted_run", "common", "stated", "sealed_at", "session", "seat", "asset", "horizon", "p",
                "resolved", "outcome"]


def three_outcomes(df: pd.DataFrame) -> list[JsonObject]:
    """Per seat and horizon: stated Brier, coverage, service score, each with its own rank."""
    cells = expected_cells(df[CELL_COLUMNS])  # a lazy selection: the filter and sort copy these columns only
    cells["answered"] = cells["stated"]
    cells["p_service"] = cells["p"].where(cells["stated"], 50.0)
    cells["b_service"] = np.where(cells["resolved"], (cells["p_service"] / 100 - cells["outcome"]) ** 2, np.nan)
    cells["b_stated"] = cells["b_service"].where(cells["answered"])
    g = cells.groupby(["horizon", "seat"])
    tab = pd.DataFrame({
        "expected": g.size(), "answered": g["answered"].sum(),
        "brier_stated": g["b_stated"].mean(), "service_score": g["b_service"].mean(),
    })
    tab["coverage"] = tab["answered"] / tab["expected"]
    h = tab.groupby(level="horizon")
    tab["rank_brier"] = h["brier_stated"].rank(method="min")
    tab["rank_coverage"] = h["coverage"].rank(method="min", ascending=False)
    tab["rank_service"] = h["service_score"].rank(method="min")
    return [_row(k, v) for k, v in tab.iterrows()]


def _row(key: tuple[object, object], row: pd.Series) -> JsonObject:
    horizon, seat = key
    out: JsonObject = {"seat": str(seat), "horizon": str(horizon)}
    for name, value in row.items():
        v = float(value)
        out[str(name)] = None if not np.isfinite(v) else (int(v) if name in ("expected", "answered") or
                                                            str(name).startswith("rank") else v)
    return out
