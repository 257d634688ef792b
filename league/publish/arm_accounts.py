"""The arms' own paper accounts as one open file, ``arms/arm-accounts.csv``, rebuilt from the arms' book alone.

One row per arm × league × account × session, from the book's ``arm_mark`` lines (docs/experiments.md, "The arms'
accounts"); each row's league is read from the arm's own ``arm_rules`` line of that rule set. These accounts are
never in the council's daily tables or its ``arena-accounts.csv``.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from league.arms.lines import ArmMarkLine, ArmRulesLine, read_arm_line
from league.book import iter_lines
from league.publish.writing import write_bytes

ARM_ACCOUNT_COLUMNS: dict[str, str] = {
    "arm": "closed_book or price_only: the arm whose answers drive the account",
    "league": "long_only or long_short (the rule set's league, from its sealed arm_rules line)",
    "rules_version": "the rule set the account runs under (arena-3, pro-1)",
    "account": "seat id (or _ver:<model>:<n> after a change of model version)",
    "session": "NYSE session of the mark (at its close)",
    "cash": "cash after the session (USD, decimal text)",
    "value": "cash plus positions at the session's close (USD, to the cent)",
    "positions": "FUND:shares pairs, ';'-separated, by fund (negative shares are shorts)",
    "fees_total": "costs paid since the account opened (USD)",
    "peak": "highest value marked so far (USD)",
}


def arm_account_rows(book_path: Path) -> list[dict[str, str]]:
    """The rows of ``arm-accounts.csv`` in book order (the order the marks were sealed)."""
    leagues: dict[tuple[str, str], str] = {}
    rows: list[dict[str, str]] = []
    for line in iter_lines(book_path):
        typed = read_arm_line({**line.content, "at": line.at})
        if isinstance(typed, ArmRulesLine):
            leagues[(typed.arm, typed.rules)] = str(typed.rule_set.get("league", ""))
        elif isinstance(typed, ArmMarkLine):
            rows.append({
                "arm": typed.arm, "league": leagues.get((typed.arm, typed.league), ""),
                "rules_version": typed.league, "account": typed.account, "session": typed.session,
                "cash": typed.cash, "value": typed.value,
                "positions": ";".join(f"{fund}:{shares}" for fund, shares in sorted(typed.positions.items())),
                "fees_total": typed.fees_total, "peak": typed.peak})
    return rows


def write_arm_accounts(book_path: Path, out_path: Path) -> Path:
    """Write ``arm-accounts.csv`` (header only when no arm account was ever marked)."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(ARM_ACCOUNT_COLUMNS), lineterminator="\n")
    writer.writeheader()
    writer.writerows(arm_account_rows(book_path))
    return write_bytes(out_path, buf.getvalue().encode("utf-8"))
