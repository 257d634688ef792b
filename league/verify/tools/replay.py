#!/usr/bin/env python3
"""Recompute every published portfolio account from arena-trades.csv and arena-accounts.csv.

Standard library only; run it as ``python3 -I replay.py PUBLIC_DIR``. It needs nothing but the two
files: every fill carries its price, fee rate, fee and cash after, and every account row carries its
bill rate, days, interest, cash, positions and the closing prices it was marked at.

For each account (in session order, fills in ``seq`` order) it starts from ``capital`` in cash at the
account's first session, then per session:
  interest = round_half_up(cash × bill_rate/100 × days/360, cents)            credited at the open
  amount   = round_half_up(qty × price, cents); fee = round_half_up(amount × fee_rate, cents)
  cash    -= amount + fee (buy) | cash += amount - fee (sell); position ± qty
  value    = round_half_up(cash + Σ qty × close, cents); weight = qty × close / value
It carries its OWN recomputed state forward, so a changed trade shows up in every later row.
Each published row (a fill or an account-session) is then:
  exact               every number equals the recomputation to the cent (shares and weights to their digits)
  within rounding     differences no larger than the rounding of the published inputs
  DIFFERENT           anything else.
Prints one line per account, details of DIFFERENT rows, and a summary; exits 1 if any row is DIFFERENT.
With ``--progress`` it also writes ``progress DONE/TOTAL LEAGUE ACCOUNT`` lines on stderr before each
account (what `league portfolio replay` draws its progress bar from); stdout is the same either way.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import defaultdict
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path

CENT = Decimal("0.01")
SIX = Decimal("0.000001")
HALF_SHARE_TICK = Decimal("0.00005")
HALF_PRICE_TICK = Decimal("0.00005")
EXACT, WITHIN, DIFFERENT = "exact", "within rounding", "DIFFERENT"
MAX_DETAILS = 5

Row = dict[str, str]
Key = tuple[str, str]
Counts = dict[str, int]


class BadInput(Exception):
    """The published files are missing or malformed."""


def cents(value: Decimal) -> Decimal:
    return value.quantize(CENT, ROUND_HALF_UP)


def dec(row: Row, key: str) -> Decimal:
    try:
        return Decimal(row[key])
    except (KeyError, InvalidOperation, TypeError):
        raise BadInput(f"column {key!r} is missing or not a number in row {dict(row)}") from None


def pairs(text: str | None) -> dict[str, Decimal]:
    out: dict[str, Decimal] = {}
    for item in filter(None, (text or "").split(";")):
        symbol, _, number = item.rpartition(":")
        try:
            out[symbol] = Decimal(number)
        except InvalidOperation:
            raise BadInput(f"bad SYMBOL:number pair {item!r}") from None
    return out


def read_csv(path: Path) -> list[Row]:
    if not path.is_file():
        raise BadInput(f"{path} not found")
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


class Verdict:
    """The worst comparison of one row, with the reasons it was not exact."""

    def __init__(self) -> None:
        self.level = EXACT
        self.reasons: list[str] = []

    def compare(self, name: str, published: Decimal, recomputed: Decimal, tolerance: Decimal) -> None:
        diff = abs(published - recomputed)
        if diff == 0:
            return
        level = WITHIN if diff <= tolerance else DIFFERENT
        if level == DIFFERENT or self.level == EXACT:
            self.level = level
        self.reasons.append(f"{name} published {published} recomputed {recomputed}")

    def fail(self, reason: str) -> None:
        self.level = DIFFERENT
        self.reasons.append(reason)


class Account:
    """One account's recomputed state."""

    def __init__(self, capital: Decimal) -> None:
        self.cash = capital
        self.positions: defaultdict[str, Decimal] = defaultdict(Decimal)
        self.seq = 0

    def apply(self, trade: Row) -> Verdict:
        verdict = Verdict()
        seq = int(trade["seq"])
        if seq != self.seq + 1:
            verdict.fail(f"fill seq {seq} follows {self.seq}")
        self.seq = seq
        qty, price, rate = dec(trade, "qty"), dec(trade, "price"), dec(trade, "fee_rate")
        amount = cents(qty * price)
        fee = cents(amount * rate)
        sign = {"buy": 1, "sell": -1}.get(trade["side"])
        if sign is None:
            verdict.fail(f"side {trade['side']!r} is neither buy nor sell")
            sign = 1
        self.cash += -amount - fee if sign > 0 else amount - fee
        self.positions[trade["symbol"]] += sign * qty
        loose = CENT + qty * HALF_PRICE_TICK + price * HALF_SHARE_TICK
        verdict.compare("amount", dec(trade, "amount"), amount, loose)
        verdict.compare("fee", dec(trade, "fee"), fee, CENT)
        verdict.compare("cash_after", dec(trade, "cash_after"), self.cash, loose + CENT)
        verdict.compare("position_after", dec(trade, "position_after"), self.positions[trade["symbol"]],
                        HALF_SHARE_TICK)
        return verdict

    def accrue(self, row: Row, verdict: Verdict) -> None:
        interest = cents(self.cash * dec(row, "bill_rate") / 100 * int(row["days"]) / 360)
        verdict.compare("interest", dec(row, "interest"), interest, CENT)
        self.cash += interest

    def mark(self, row: Row, verdict: Verdict) -> None:
        held = {s: q for s, q in self.positions.items() if q}
        published = {s: q for s, q in pairs(row["positions"]).items() if q}
        for symbol in sorted(set(held) | set(published)):
            verdict.compare(f"position {symbol}", published.get(symbol, Decimal(0)), held.get(symbol, Decimal(0)),
                            HALF_SHARE_TICK)
        closes = pairs(row["prices"])
        missing = sorted(s for s in held if s not in closes)
        if missing:
            verdict.fail(f"no closing price published for {missing}")
            return
        exact_value = self.cash + sum((q * closes[s] for s, q in held.items()), Decimal(0))
        loose = CENT + sum((abs(q) * HALF_PRICE_TICK + closes[s] * HALF_SHARE_TICK for s, q in held.items()),
                           Decimal(0))
        value = cents(exact_value)
        verdict.compare("cash", dec(row, "cash"), self.cash, CENT)
        verdict.compare("value", dec(row, "value"), value, loose)
        if value > 0:
            weights = pairs(row["weights"])
            for symbol, qty in sorted(held.items()):
                recomputed = (qty * closes[symbol] / value).quantize(SIX, ROUND_HALF_UP)
                verdict.compare(f"weight {symbol}", weights.get(symbol, Decimal(0)), recomputed,
                                SIX + loose / value)


def no_progress(done: int, total: int, key: Key) -> None:
    """Replay without progress lines."""


def progress_line(done: int, total: int, key: Key) -> None:
    """One machine-readable progress line on stderr (``--progress``)."""
    print(f"progress {done}/{total} {key[0]} {key[1]}", file=sys.stderr, flush=True)


def replay(public: Path, progress: Callable[[int, int, Key], None] = no_progress
           ) -> tuple[dict[Key, Counts], list[str]]:
    """Return (results, details): per-account counts and the DIFFERENT rows' explanations; ``progress``
    hears (done, total, account) before each account."""
    accounts = read_csv(public / "arena-accounts.csv")
    trades = read_csv(public / "arena-trades.csv")
    marks_by: defaultdict[Key, list[Row]] = defaultdict(list)
    for row in accounts:
        marks_by[(row["league"], row["account"])].append(row)
    fills_by: defaultdict[Key, defaultdict[str, list[Row]]] = defaultdict(lambda: defaultdict(list))
    for row in trades:
        fills_by[(row["league"], row["account"])][row["session"]].append(row)
    results: dict[Key, Counts] = {}
    details: list[str] = []
    keys = sorted(set(marks_by) | set(fills_by))
    for done, key in enumerate(keys):
        progress(done, len(keys), key)
        counts: Counts = {EXACT: 0, WITHIN: 0, DIFFERENT: 0}
        replay_account(key, marks_by.get(key, []), dict(fills_by.get(key, {})), counts, details)
        results[key] = counts
    return results, details


def replay_account(key: Key, marks: list[Row], fills: dict[str, list[Row]], counts: Counts,
                   details: list[str]) -> None:
    marks = sorted(marks, key=lambda r: r["session"])
    if not marks:
        counts[DIFFERENT] += sum(len(v) for v in fills.values())
        details.append(f"{key[0]} {key[1]}: fills published for an account with no account rows")
        return
    state = Account(dec(marks[0], "capital"))
    sessions = {r["session"] for r in marks}
    for session in sorted(set(fills) - sessions):
        counts[DIFFERENT] += len(fills[session])
        details.append(f"{key[0]} {key[1]} {session}: fills on a session with no account row")
    for row in marks:
        verdict = Verdict()
        state.accrue(row, verdict)
        for trade in sorted(fills.get(row["session"], []), key=lambda t: int(t["seq"])):
            tally(key, f"{row['session']} fill {trade['seq']} {trade['symbol']}", state.apply(trade), counts, details)
        state.mark(row, verdict)
        tally(key, f"{row['session']} account", verdict, counts, details)


def tally(key: Key, label: str, verdict: Verdict, counts: Counts, details: list[str]) -> None:
    counts[verdict.level] += 1
    if verdict.level == DIFFERENT:
        details.append(f"DIFFERENT {key[0]} {key[1]} {label}: " + "; ".join(verdict.reasons[:MAX_DETAILS]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Recompute every published portfolio account.")
    parser.add_argument("public", type=Path, help="folder holding arena-trades.csv and arena-accounts.csv")
    parser.add_argument("--progress", action="store_true", help="write 'progress DONE/TOTAL ...' lines on stderr")
    args = parser.parse_args(argv)
    try:
        results, details = replay(args.public, progress_line if args.progress else no_progress)
    except BadInput as exc:
        print(f"replay: {exc}", file=sys.stderr)
        return 2
    except (KeyError, ValueError, csv.Error) as exc:
        print(f"replay: malformed published file (missing column or bad value): {exc!r}", file=sys.stderr)
        return 2
    for (league, account), counts in results.items():
        status = "DIFFERENT" if counts[DIFFERENT] else "ok"
        print(f"{league} {account}: {sum(counts.values())} rows, {counts[EXACT]} exact, "
              f"{counts[WITHIN]} within rounding, {counts[DIFFERENT]} DIFFERENT  {status}")
    for line in details:
        print(line)
    total = {level: sum(c[level] for c in results.values()) for level in (EXACT, WITHIN, DIFFERENT)}
    print(f"{sum(total.values())} rows: {total[EXACT]} exact, {total[WITHIN]} within rounding, "
          f"{total[DIFFERENT]} DIFFERENT")
    return 1 if total[DIFFERENT] else 0


if __name__ == "__main__":
    sys.exit(main())
