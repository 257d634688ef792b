"""The published portfolio files: arena-trades.csv, arena-accounts.csv and the council-league tables.

Both CSVs carry every number ``replay.py`` needs and nothing it must look up elsewhere: fills with
their price, fee rate, fee and cash after; per account and session the bill rate and days, the interest,
cash, value, positions and the closing prices they were marked at. ``COLUMNS`` is the data dictionary
(for arena-dataset.json). Lists inside a cell are ``SYMBOL:number`` pairs joined by ``;`` (symbols may
contain ``=``, e.g. ``GC=F``).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import NotRequired, TypedDict

from league.portfolio.benchmarks import LONG_ONLY, LONG_SHORT
from league.portfolio.engine import Fill, Mark
from league.portfolio.metrics import account_metrics
from league.portfolio.money import cents, weight_text
from league.portfolio.season import Season

TRADE_COLUMNS: dict[str, str] = {
    "league": "rule set the account runs under (arena-3, pro-1)",
    "account": "seat id, benchmark (_spy …) or model-version account (_ver:<model>:<n>)",
    "session": "NYSE session (YYYY-MM-DD)",
    "time": "start of the 1-minute bar the fill used (ISO 8601, UTC)",
    "seq": "fill number within the account (1, 2, …): the order replay applies fills in",
    "symbol": "fund symbol traded",
    "market": "league market code the fund stands for",
    "side": "buy or sell (a sell below zero opens a short in the pro league)",
    "qty": "shares, 4 decimals, always positive",
    "price": "fill price, 4 decimals",
    "amount": "settled dollars = round_half_up(qty × price, cents)",
    "fee_rate": "cost per traded dollar (0.001 = 0.1%)",
    "fee": "round_half_up(amount × fee_rate, cents)",
    "cash_after": "cash after this fill: before − amount − fee (buy) or before + amount − fee (sell)",
    "position_after": "shares held after this fill (negative = short)",
    "leg": "open (09:30-09:45 ET window) or dips (buy_dips fill at its entry level)",
}

ACCOUNT_COLUMNS: dict[str, str] = {
    "league": "rule set",
    "account": "account id",
    "session": "NYSE session marked at its close",
    "opened": "first session of the account (capital in cash at that open)",
    "capital": "starting capital in dollars",
    "bill_rate": "13-week bill rate in percent used for this session's interest",
    "days": "calendar days since the account's previous session (0 on its first)",
    "interest": "round_half_up(previous cash × bill_rate/100 × days/360, cents), credited at the open",
    "cash": "cash at the close",
    "value": "round_half_up(cash + Σ qty × price, cents)",
    "return": "value / capital − 1 (6 decimals)",
    "drawdown": "1 − value / highest value so far including capital (6 decimals)",
    "positions": "SYMBOL:qty;… shares held at the close",
    "prices": "SYMBOL:price;… closing prices the positions were marked at",
    "weights": "SYMBOL:weight;… qty × price / value (6 decimals)",
    "shadow_value": "value had this session's decision not traded (no-trade shadow), cents",
    "fees_total": "costs paid since the account opened",
    "traded_total": "traded dollars since the account opened",
    "stale": "symbols with no close this session, marked at their previous price",
}

COLUMNS = {"arena-trades.csv": TRADE_COLUMNS, "arena-accounts.csv": ACCOUNT_COLUMNS}


def _pairs(values: Mapping[str, object]) -> str:
    return ";".join(f"{k}:{v}" for k, v in sorted(values.items()))


def _six(value: Decimal) -> str:
    return str(value.quantize(Decimal("0.000001"), ROUND_HALF_UP))


def trade_row(fill: Fill) -> dict[str, str]:
    return {
        "league": fill.league, "account": fill.account, "session": fill.session.isoformat(),
        "time": fill.time.isoformat().replace("+00:00", "Z"), "seq": str(fill.seq), "symbol": fill.symbol,
        "market": fill.market, "side": fill.side, "qty": str(fill.qty), "price": str(fill.price),
        "amount": str(fill.amount), "fee_rate": str(fill.fee_rate), "fee": str(fill.fee),
        "cash_after": str(fill.cash_after), "position_after": str(fill.position_after), "leg": fill.leg,
    }


def account_row(mark: Mark) -> dict[str, str]:
    return {
        "league": mark.league, "account": mark.account, "session": mark.session.isoformat(),
        "opened": mark.opened.isoformat(), "capital": str(mark.capital), "bill_rate": str(mark.bill_rate),
        "days": str(mark.days), "interest": str(mark.interest), "cash": str(mark.cash),
        "value": str(cents(mark.value)), "return": _six(cents(mark.value) / mark.capital - 1),
        "drawdown": _six(max(Decimal(0), 1 - cents(mark.value) / mark.peak)),
        "positions": _pairs(mark.positions), "prices": _pairs(mark.prices),
        "weights": _pairs({s: weight_text(w) for s, w in mark.weights.items()}),
        "shadow_value": str(cents(mark.shadow_value)), "fees_total": str(mark.fees_total),
        "traded_total": str(cents(mark.traded_total)), "stale": ";".join(mark.stale),
    }


def _csv_text(columns: Sequence[str], rows: Iterable[Mapping[str, str]]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def trades_csv(fills: Iterable[Fill]) -> str:
    ordered = sorted(fills, key=lambda f: (f.league, f.account, f.seq))
    return _csv_text(list(TRADE_COLUMNS), (trade_row(f) for f in ordered))


def accounts_csv(marks: Iterable[Mark]) -> str:
    ordered = sorted(marks, key=lambda m: (m.league, m.account, m.session))
    return _csv_text(list(ACCOUNT_COLUMNS), (account_row(m) for m in ordered))


def write_trades_csv(path: Path, fills: Iterable[Fill]) -> Path:
    """Write arena-trades.csv (UTF-8, LF) and return its path."""
    path.write_text(trades_csv(fills), encoding="utf-8")
    return path


def write_accounts_csv(path: Path, marks: Iterable[Mark]) -> Path:
    """Write arena-accounts.csv (UTF-8, LF) and return its path."""
    path.write_text(accounts_csv(marks), encoding="utf-8")
    return path


def account_kind(account: str) -> str:
    """seat, baseline (a history-only seat, ``_`` id), benchmark, or version (``_ver:<model>:<n>``)."""
    if account.startswith("_ver:"):
        return "version"
    if account in LONG_ONLY or account in LONG_SHORT:
        return "benchmark"
    return "baseline" if account.startswith("_") else "seat"


TABLE_NOTE = ("Sharpe and Sortino are null before 20 sessions; turnover = traded dollars / mean value; "
              "shadow_gain = Σ (value − no-trade shadow value) over sessions.")


class LeagueTable(TypedDict):
    """One league's table: its accounts best value first (and, from the seasons, the league's terms)."""

    league: NotRequired[str]
    capital: NotRequired[str]
    bill_rates: NotRequired[str]
    accounts: list[dict[str, object]]


class PortfolioTables(TypedDict):
    """The ``portfolio`` section of council-league.json and its note."""

    portfolio: dict[str, LeagueTable]
    note: str


def _table(histories: Mapping[str, Sequence[Mark]]) -> list[dict[str, object]]:
    """Each account's metrics (the fields of :class:`AccountMetrics`), its kind and last session, best value first."""
    rows = []
    for account, marks in sorted(histories.items()):
        metrics = account_metrics(marks)
        row: dict[str, object] = {**asdict(metrics), "kind": account_kind(account),
                                  "last_session": marks[-1].session.isoformat()}
        rows.append((metrics.value, metrics.account, row))
    rows.sort(key=lambda r: (-r[0], r[1]))
    return [row for _, _, row in rows]


def portfolio_tables(seasons: Sequence[Season]) -> PortfolioTables:
    """The ``portfolio`` section of council-league.json: one table per league, best value first."""
    leagues: dict[str, LeagueTable] = {
        season.rules.name: {"league": season.rules.league, "capital": str(season.rules.capital),
                            "bill_rates": season.bills.source, "accounts": _table(season.history)}
        for season in seasons
    }
    return {"portfolio": leagues, "note": TABLE_NOTE}


def portfolio_tables_from_marks(marks: Iterable[Mark]) -> PortfolioTables:
    """The same tables from marks alone (e.g. ``mark_from_content`` over the book's ``mark`` lines)."""
    grouped: dict[str, dict[str, list[Mark]]] = {}
    for m in sorted(marks, key=lambda m: (m.league, m.account, m.session)):
        grouped.setdefault(m.league, {}).setdefault(m.account, []).append(m)
    return {"portfolio": {league: {"accounts": _table(h)} for league, h in grouped.items()}, "note": TABLE_NOTE}
