"""Check that every forecast row traces to its sealed line (open-data.md: ``line`` names the line).

For each row of ``council-forecasts.csv``: the book line ``line`` exists and has the row's
``line_kind``; for an answer line with a stated probability, the line's cell
``items[asset][horizon].prob_up`` holds the same number. Publishing a table that does not match
the book would break the chain from a score to a sealed answer, so publish reports it as failed.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from league.contracts.columns import BOOK_KIND

SHOWN = 10


@dataclass
class LineCheck:
    rows: int = 0
    checked_cells: int = 0
    problems: list[str] = field(default_factory=list)
    problem_count: int = 0

    def problem(self, text: str) -> None:
        self.problem_count += 1
        if len(self.problems) < SHOWN:
            self.problems.append(text)

    @property
    def ok(self) -> bool:
        return self.problem_count == 0

    def summary(self) -> str:
        if self.ok:
            return f"{self.rows} rows trace to their book lines ({self.checked_cells} probabilities equal)"
        return f"{self.problem_count} of {self.rows} rows do not match their book line: " + "; ".join(self.problems)


def _index(book: bytes) -> dict[int, tuple[str, Any]]:
    """n -> (kind, items) for every line (items kept for answer lines, and for a cell correction its
    one corrected cell in the same shape)."""
    out: dict[int, tuple[str, Any]] = {}
    for raw in book.split(b"\n")[:-1]:
        obj = json.loads(raw)
        kind = str(obj.get("kind", ""))
        items = obj.get("items") if kind == "answer" else None
        if kind == "correction" and obj.get("target") == "cell":
            items = {obj.get("market"): {obj.get("horizon"): obj.get("cell") or {}}}
        out[int(obj["n"])] = (kind, items)
    return out


def _cell_prob(items: Any, asset: str, horizon: str) -> Any:
    try:
        return items[asset][horizon]["prob_up"]
    except (KeyError, TypeError):
        return None


def check_lines(book: bytes, forecasts: Iterable[str]) -> LineCheck:
    """Check the forecast rows (CSV text lines) against the book's bytes."""
    lines = _index(book)
    result = LineCheck()
    for i, row in enumerate(csv.DictReader(forecasts), 2):
        result.rows += 1
        _check_row(result, lines, i, row)
    return result


def _check_row(result: LineCheck, lines: dict[int, tuple[str, Any]], i: int, row: dict[str, str]) -> None:
    try:
        n = int(row.get("line") or "")
    except ValueError:
        result.problem(f"row {i}: line {row.get('line')!r} is not a line number")
        return
    if n not in lines:
        result.problem(f"row {i}: line {n} is not in the book")
        return
    kind, items = lines[n]
    said = row.get("line_kind") or kind
    expected = BOOK_KIND.get(said, said)
    if kind != expected:
        result.problem(f"row {i}: line {n} is a {kind} line, the row says {said}")
        return
    stated = row.get("prob_up", "")
    if kind not in ("answer", "correction") or stated == "":
        return
    cell = _cell_prob(items, row["asset"], row["horizon"])
    try:
        same = cell is not None and abs(float(cell) - float(stated)) < 1e-9
    except (TypeError, ValueError):
        same = False
    if not same:
        result.problem(f"row {i}: prob_up {stated} but line {n} holds {cell!r} for {row['asset']} {row['horizon']}")
        return
    result.checked_cells += 1

