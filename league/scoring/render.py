"""The league table as a rich table, for ``league demo`` and ``league stats``."""

from __future__ import annotations

from typing import TypedDict

import pandas as pd
from rich.table import Table

from league.jsonvalue import number, text
from league.scoring.constants import HORIZONS
from league.scoring.frame import scored_rows
from league.scoring.missing import three_outcomes


class LeagueRow(TypedDict):
    """One line of the league table: a seat at a horizon (``brier`` None for a seat with no scored row)."""

    horizon: str
    seat: str
    brier: float | None
    n: int
    sessions: int
    coverage: float | None


def league_rows(df: pd.DataFrame) -> list[LeagueRow]:
    """Seat, horizon, Brier (all rows), forecasts, sessions and coverage, best Brier first per horizon."""
    scored = scored_rows(df)
    b = (scored["p"] / 100.0 - scored["outcome"]) ** 2
    g = scored.assign(b=b).groupby(["horizon", "seat"])
    tab = pd.DataFrame({"brier": g["b"].mean(), "n": g.size(), "sessions": g["session"].nunique()})
    cov = {(text(m["horizon"]), text(m["seat"])): number(m["coverage"]) for m in three_outcomes(df)}
    rows: list[LeagueRow] = [{"horizon": str(h), "seat": str(s), "brier": float(r["brier"]), "n": int(r["n"]),
             "sessions": int(r["sessions"]), "coverage": cov.get((h, s))} for (h, s), r in tab.iterrows()]
    shown = {(r["horizon"], r["seat"]) for r in rows}
    rows += [{"horizon": h, "seat": s, "brier": None, "n": 0, "sessions": 0, "coverage": c}
             for (h, s), c in cov.items() if (h, s) not in shown]  # silent seats stay visible
    return sorted(rows, key=lambda r: (HORIZONS.index(r["horizon"]), r["brier"] is None, r["brier"] or 0.0,
                                       r["seat"]))


def league_table(df: pd.DataFrame, title: str = "League table (Brier, all rows; lower is better)") -> Table:
    """A rich table of :func:`league_rows`; baseline seats (ids starting with ``_``) are dimmed."""
    table = Table(title=title)
    for name, justify in (("horizon", "left"), ("seat", "left"), ("Brier", "right"), ("forecasts", "right"),
                          ("sessions", "right"), ("coverage", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for r in league_rows(df):
        table.add_row(*_cells(r), style="dim" if r["seat"].startswith("_") else None)
    return table


def _cells(r: LeagueRow) -> list[str]:
    cov = r["coverage"]
    brier = "—" if r["brier"] is None else f"{r['brier']:.4f}"
    return [r["horizon"], r["seat"], brier, str(r["n"]), str(r["sessions"]),
            "" if cov is None else f"{100 * cov:.1f}%"]
