"""The league table printed by `league demo` and `league stats` (probability scores; portfolios apart)."""

from __future__ import annotations

import csv
from pathlib import Path

from rich.table import Table

from league.extras import extra


def render_tables(public: Path) -> list[Table]:
    """The probability league table (scoring's own rows, so the demo prints what is published) and,
    apart, the paper portfolios."""
    with extra("stats"):
        from league.scoring.frame import STATS_COLUMNS, load_forecasts
        from league.scoring.render import league_table
    tables = [league_table(load_forecasts(public / "council-forecasts.csv", STATS_COLUMNS))]  # not the free text
    accounts = accounts_table(public)
    return tables if accounts is None else [*tables, accounts]


def account_rows(accounts_csv: Path) -> list[dict[str, str]]:
    """The last mark of every account in every league (value, return, drawdown)."""
    last: dict[tuple[str, str], dict[str, str]] = {}
    with open(accounts_csv, encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            last[(row["league"], row["account"])] = row
    return sorted(last.values(), key=lambda r: (r["league"], -float(r["value"] or 0)))


def accounts_table(public: Path) -> Table | None:
    path = public / "arena-accounts.csv"
    if not path.is_file():
        return None
    table = Table(title="Paper portfolios — last mark (its own table; not a probability score)")
    for col in ("league", "account", "value", "return", "max drawdown", "fees"):
        table.add_column(col, justify="left" if col in ("league", "account") else "right")
    for r in account_rows(path):
        table.add_row(r["league"], r["account"], f"{float(r['value']):,.2f}", f"{float(r['return']):+.2%}",
                      f"{float(r['drawdown']):.2%}", r["fees_total"])
    return table
