"""The crowd stage after the close: a ``crowd`` line for every sealed quote whose contract has resolved.

Quotes are recorded with the snapshot and sealed in the run line (:func:`league.jobs.snapshot.crowd_quotes`);
the ask lists the contracts and their rules but never a price. After each close, every sealed quote
whose contract has resolved gets one ``crowd`` line; unresolved ones are asked again at later closes.
The published comparison (:mod:`league.publish.crowd`) is computed from sealed lines only.
"""

from __future__ import annotations

import structlog

from league.book.lines import CrowdLine
from league.crowd.compare import sealed_quotes
from league.crowd.interface import CrowdQuote
from league.jobs.context import League

log = structlog.get_logger(__name__)


# ------------------------------------------------------------------------- resolution
def resolved_ids(lg: League) -> set[tuple[str, str]]:
    return {(str(x.get("venue")), str(x.get("contract_id"))) for x in lg.index.of_kind("crowd")}


def resolve_crowd(lg: League, session: str) -> int:
    """Seal a ``crowd`` line for every sealed quote (this session or earlier) that has now resolved."""
    if lg.crowd is None or not lg.stages.crowd:
        return 0
    done, sealed = resolved_ids(lg), 0
    for run in lg.index.of_kind("run"):
        if run["session"] > session:
            continue
        for obj in sealed_quotes(run):
            if (obj["venue"], obj["contract_id"]) in done:
                continue
            outcome = _resolution(lg, CrowdQuote.from_json(obj))
            if outcome is not None:
                lg.seal(CrowdLine(session=obj["session"], market=obj["market"], venue=obj["venue"],
                                  contract_id=obj["contract_id"], resolved_up=outcome, run_id=run["run_id"]))
                done.add((obj["venue"], obj["contract_id"]))
                sealed += 1
    return sealed


def _resolution(lg: League, quote: CrowdQuote) -> bool | None:
    if lg.crowd is None:
        return None
    try:
        result = lg.crowd.resolution(quote)
    except Exception as exc:  # noqa: BLE001 - asked again at the next close
        log.warning("crowd.resolution_failed", contract=quote.contract_id, error=str(exc))
        return None
    return None if result is None else bool(result)


