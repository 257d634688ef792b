"""Corrections (paper §3.10, requirement 15): a new sealed line naming the line it corrects.

Nothing sealed is ever rewritten: a correction is appended, the corrected line stays byte for byte
as it was, and every reader applies the correction from the book (the forecasts CSV writer replaces
a corrected price in its event's rows and adds a ``correction`` row for a corrected cell). Two kinds:

- ``price``: a reference or close price of one event of a sealed ``score``/``score_h`` line, with
  the price's source and the reason (the paper's ``price_corrections``);
- ``cell``: one cell of a sealed answer line (e.g. restored from the run's receipt), with the reason.
  The corrected cell was sealed after the reference, so it is published, labelled, and never scored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from league import records
from league.book.chain import BookLine
from league.book.lines import CorrectionLine
from league.errors import InvalidRecord
from league.jobs.context import League

PRICE_FIELDS = ("reference", "close")


def _line(lg: League, n: int) -> records.Score | records.Answer:
    found = lg.books.index.line(n)
    if not isinstance(found, records.Score | records.Answer):
        raise InvalidRecord(f"line {n} is not a score or answer line of this book",
                            fix="name the score line (a price) or the answer line (a cell) that you correct")
    return found


def price_correction(lg: League, *, of: int, market: str, field: str, value: float, source: str,
                     reason: str) -> CorrectionLine:
    """The correction of one event's reference or close price in the score line ``of``."""
    line = _line(lg, of)
    if not isinstance(line, records.Score):
        raise InvalidRecord(f"line {of} is a {line.kind} line; a price is corrected in its score line")
    if field not in PRICE_FIELDS:
        raise InvalidRecord(f"field {field!r} is not one of {', '.join(PRICE_FIELDS)}")
    if not value > 0:
        raise InvalidRecord(f"price {value} is not positive", fix="pass the corrected price")
    if not any(m.market == market and not m.late_ref for m in line.markets):
        raise InvalidRecord(f"line {of} has no common event of market {market!r}")
    _need(reason, source)
    return CorrectionLine.from_content({
        "of": of, "reason": reason, "target": "price", "session": line.session, "horizon": line.horizon,
        "market": market, "field": field, "value": float(value), "source": source})


def cell_correction(lg: League, *, of: int, market: str, horizon: str, cell: Mapping[str, Any], reason: str,
                    source: str) -> CorrectionLine:
    """The correction of one cell of the answer line ``of`` (the values the cell should have held)."""
    line = _line(lg, of)
    if not isinstance(line, records.Answer):
        raise InvalidRecord(f"line {of} is a {line.kind} line; a cell is corrected in its answer line")
    if market not in {m.code for m in lg.config.markets.markets}:
        raise InvalidRecord(f"market {market!r} is not one of the league's markets")
    p = cell.get("prob_up")
    if p is not None and not 0 <= float(p) <= 100:
        raise InvalidRecord(f"prob_up {p} is outside 0-100")
    _need(reason, source)
    return CorrectionLine.from_content({
        "of": of, "reason": reason, "target": "cell", "seat": line.seat, "run_id": line.run_id,
        "market": market, "horizon": horizon, "cell": dict(cell), "source": source})


def _need(reason: str, source: str) -> None:
    if not reason.strip() or not source.strip():
        raise InvalidRecord("a correction needs its reason and its source", fix="pass --reason and --source")


def seal_correction(lg: League, line: CorrectionLine) -> BookLine:
    """Seal the correction as the book's next line (the corrected line is not touched)."""
    return lg.books.seal(line)
