"""The crowd stage after the close: a ``crowd`` line for every sealed quote whose contract has resolved.

Quotes are recorded with the snapshot and sealed in the run line (:func:`league.jobs.snapshot.crowd_quotes`);
the ask lists the contracts and their rules but never a price. After each close, every sealed quote
whose contract has resolved gets one ``crowd`` line; unresolved ones are asked again at later closes.
The published comparison (:mod:`league.publish.crowd`) is computed from sealed lines only.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import structlog

from league import records
from league.book.lines import CrowdLine
from league.clock import iso_seconds
from league.counting import SealedLines, sealed_time
from league.crowd.compare import sealed_quotes
from league.crowd.interface import CrowdProvider, CrowdQuote
from league.jobs.context import League
from league.jsonvalue import text

log = structlog.get_logger(__name__)


# ------------------------------------------------------------------------- resolution
def resolved_ids(lg: League) -> set[tuple[str, str]]:
    return {(x.venue, x.contract_id) for x in lg.books.index.recent_of(records.Crowd)}


def resolve_crowd(lg: League, session: str) -> int:
    """Seal a ``crowd`` line for every sealed quote (this session or earlier, inside the memory window:
    a venue's contract resolves within days) that has now resolved."""
    if lg.market.crowd is None or not lg.stages.crowd:
        return 0
    done, sealed = resolved_ids(lg), 0
    for run in lg.books.index.recent_of(records.Run):
        if run.session > session:
            continue
        for obj in sealed_quotes(run.crowd):
            quote = CrowdQuote.from_json(obj)
            if (quote.venue, quote.contract_id) in done:
                continue
            outcome = _resolution(lg, quote)
            if outcome is not None:
                lg.books.seal(CrowdLine(session=text(obj.get("session")), market=quote.market, venue=quote.venue,
                                  contract_id=quote.contract_id, resolved_up=outcome, run_id=run.run_id,
                                  at_answer=at_answer(lg.books.index, lg.market.crowd, run.run_id, quote)))
                done.add((quote.venue, quote.contract_id))
                sealed += 1
    return sealed


def answer_minutes(index: SealedLines, run_id: str, market: str) -> dict[str, datetime]:
    """seat -> the minute its first well-formed answer of the run with a ``crowd_up`` for ``market`` was
    sealed (model seats only: the baselines state no crowd_up)."""
    out: dict[str, datetime] = {}
    for a in sorted(index.answers({run_id}), key=lambda x: x.n):
        cell = a.items.get(market, {}).get("1d")
        if a.status != "answered" or a.seat in out or a.seat.startswith("_"):
            continue
        if isinstance(cell, dict) and cell.get("crowd_up") is not None:
            out[a.seat] = sealed_time(a).replace(second=0, microsecond=0)
    return out


def at_answer(index: SealedLines, crowd: CrowdProvider | None, run_id: str, quote: CrowdQuote,
              ) -> dict[str, dict[str, Any]]:
    """The crowd's price at each answering seat's sealing minute (paper §4.9: each model against the
    crowd of its own answer minute); a price the venue cannot give is sealed as null, not guessed."""
    out: dict[str, dict[str, Any]] = {}
    for seat, minute in answer_minutes(index, run_id, quote.market).items():
        out[seat] = {"minute": iso_seconds(minute), "price": _price_at(crowd, quote, minute)}
    return out


def _price_at(crowd: CrowdProvider | None, quote: CrowdQuote, minute: datetime) -> float | None:
    if crowd is None:
        return None
    try:
        return crowd.price_at(quote, minute)
    except Exception as exc:  # noqa: BLE001 - sealed as null: the comparison at ask time still stands
        log.warning("crowd.price_at_failed", contract=quote.contract_id, minute=iso_seconds(minute), error=str(exc))
        return None


def _resolution(lg: League, quote: CrowdQuote) -> bool | None:
    if lg.market.crowd is None:
        return None
    try:
        result = lg.market.crowd.resolution(quote)
    except Exception as exc:  # noqa: BLE001 - asked again at the next close
        log.warning("crowd.resolution_failed", contract=quote.contract_id, error=str(exc))
        return None
    return None if result is None else bool(result)


