"""The resolution job: read the winner of every swept or bet-on market that has closed.

Only markets whose close time the clock has passed are asked; a venue that has not settled yet
(or settled ambiguously) answers None and the market is asked again on the next run. A winner is
sealed once (``contest.resolution``) and is what every score and P&L uses.
"""

from __future__ import annotations

import structlog

from league.clock import parse_iso
from league.contest import ledger as L
from league.contest.context import ContestContext
from league.contest.markets.interface import MarketSourceError

log = structlog.get_logger(__name__)


def due_markets(ctx: ContestContext) -> dict[str, list[str]]:
    """Closed, unresolved markets with their outcome labels (so a winner can be checked)."""
    now = ctx.clock.now()
    done = {line["market_id"] for line in ctx.ledger.contents(L.RESOLUTION)}
    due: dict[str, list[str]] = {}
    for line in ctx.ledger.contents(L.SWEEP_OPEN):
        for m in line["markets"]:
            if m["id"] not in done and parse_iso(m["closes"]) <= now:
                due[m["id"]] = m["outcomes"]
    for r in ctx.ledger.contents(L.ROUND_OPEN):
        if r["market_id"] not in done and parse_iso(r["closes"]) <= now:
            due[r["market_id"]] = r["outcomes"]
    return due


def resolve_due(ctx: ContestContext) -> dict[str, str]:
    """Seal the winners the venue reports now; a venue error leaves that market for the next run."""
    sealed: dict[str, str] = {}
    for market_id, outcomes in sorted(due_markets(ctx).items()):
        try:
            winner = ctx.source.resolution(market_id)
        except MarketSourceError as exc:
            log.warning("contest.resolution_unavailable", market_id=market_id, error=exc.message)
            continue
        if winner is None:
            continue
        if winner not in outcomes:
            log.error("contest.resolution_unknown_outcome", market_id=market_id, winner=winner)
            continue
        ctx.ledger.append(L.RESOLUTION, {"market_id": market_id, "winner": winner})
        sealed[market_id] = winner
    return sealed
