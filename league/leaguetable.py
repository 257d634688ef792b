"""The league table printed by `league demo` and `league stats` (probability scores; portfolios apart)."""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path
from typing import Any

from rich.table import Table


def seat_rows(forecasts_csv: Path, horizon: str = "1d") -> list[dict[str, Any]]:
    """Per seat: all-rows Brier of counted stated probabilities, sessions, coverage of expected cells."""
    stats: dict[str, dict[str, Any]] = defaultdict(lambda: {"b": [], "sessions": set(), "expected": 0, "answered": 0})
    with open(forecasts_csv, encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            if row["horizon"] != horizon or row["run_role"] not in ("counted", ""):
                continue
            s = stats[row["seat"]]
            s["expected"] += 1
            if row["status"] == "counted":
                s["answered"] += 1
                if row["ref"] and row["close"] and row["prob_up"]:
                    up = float(row["close"]) > float(row["ref"])
                    s["b"].append((float(row["prob_up"]) / 100 - up) ** 2)
                    s["sessions"].add(row["session"])
    out = []
    for seat, s in stats.items():
        brier = sum(s["b"]) / len(s["b"]) if s["b"] else None
        out.append({"seat": seat, "brier": brier, "n": len(s["b"]), "sessions": len(s["sessions"]),
                    "coverage": s["answered"] / s["expected"] if s["expected"] else 0.0})
    return sorted(out, key=lambda r: (r["brier"] is None, r["brier"] or 0.0, r["seat"]))


def render_tables(public: Path) -> list[Table]:
    table = Table(title="League table — 1d, Brier (all rows; lower is better)")
    for col in ("seat", "Brier", "n", "sessions", "coverage"):
        table.add_column(col, justify="left" if col == "seat" else "right")
    for r in seat_rows(public / "council-forecasts.csv"):
        brier = "—" if r["brier"] is None else f"{r['brier']:.4f}"
        table.add_row(r["seat"], brier, str(r["n"]), str(r["sessions"]), f"{r['coverage']:.0%}")
    accounts = accounts_table(public)
    return [table] if accounts is None else [table, accounts]


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
