"""The daily forecast sweep job (bench.md "Daily forecast sweep").

Order of events, each sealed in the contest book as it happens:
1. the eligible markets are chosen (refusals with reasons kept) and the ask is sealed
   (``contest.sweep.open``: date, ask SHA-256, the markets with their prices at sweep time);
2. every agent is asked once, in parallel, in its sandbox, within the sweep's time limit;
   each reply is sealed as received with the strict parser's report (``contest.sweep.reply``);
   a sandbox/login/usage-limit incident is status ``infra``: that agent is not offered the day's
   markets (an infrastructure failure is not a missing forecast);
3. the forecasts file is written and its SHA-256 sealed (``contest.sweep.sealed``) and listed in
   ``sealed.json`` -- before any swept market can close (markets already closed by then are left
   out of the file and reported).
The job is idempotent per UTC date: a date already sealed is not swept again. A sweep interrupted after
its ask was sealed (the league stopped) is finished, not repeated: the replies in the book stand, every other
agent is ``infra`` (the league's failure, not a missing forecast), and the file is sealed.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import structlog

from league.answers import clean_label, clean_text
from league.clock import parse_iso
from league.contest import ledger as L
from league.contest.asks import SweptMarket, sweep_ask, utc
from league.contest.config import ContestAgent
from league.contest.context import ContestContext
from league.contest.eligibility import Candidate, screen, select_across_categories
from league.contest.files import add_sealed, forecast_row, sealed_entry, sweep_document, sweep_path
from league.contest.markets.interface import books_for
from league.contest.parse import parse_sweep
from league.jsonvalue import JsonObject
from league.seatcore.files import sha256_text, write_json
from league_agents.base import Ask, FailureClass, SeatReply

log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class SweepResult:
    date: str
    markets: int
    status: dict[str, str]
    sha256: str | None
    forecasts: int


def swept_market(c: Candidate) -> SweptMarket:
    """Prices at sweep time are the books' midpoints (a real two-sided book is required)."""
    prices = tuple(round(c.books[o].mid or 0.0, 4) for o in c.market.outcomes)
    return SweptMarket(id=c.market.id, question=c.market.question, outcomes=c.market.outcomes, prices=prices,
                       closes=utc(c.market.end), category=c.category)


def already_swept(ctx: ContestContext) -> set[str]:
    return {m["id"] for line in ctx.ledger.contents(L.SWEEP_OPEN) for m in line["markets"]}


def sealed_dates(ctx: ContestContext) -> dict[str, dict[str, Any]]:
    return {line["date"]: line for line in ctx.ledger.contents(L.SWEEP_SEALED)}


def choose_markets(ctx: ContestContext, now: datetime) -> tuple[list[SweptMarket], list[dict[str, str]]]:
    rules = ctx.config.eligibility
    seen = already_swept(ctx)
    listed = [m for m in ctx.source.open_markets(now, rules.max_days_to_close) if m.id not in seen]
    ok, refused = screen(listed, now, rules, ctx.config.categories, lambda m: books_for(ctx.source, m))
    chosen = select_across_categories(ok, ctx.config.sweep.markets, rules.max_category_share)
    return [swept_market(c) for c in chosen], [r.as_json() for r in refused]


def _context(ctx: ContestContext, markets: list[SweptMarket]) -> JsonObject:
    """Structured copy of the ask for stand-in seats; ``hint`` only exists in the demo."""
    hint: JsonObject = {m.id: ctx.hints[m.id] for m in markets if m.id in ctx.hints}
    return {"kind": "sweep", "hint": hint,
            "markets": [{"id": m.id, "outcomes": [*m.outcomes], "prices": [*m.prices]} for m in markets]}


def ask_agent(ctx: ContestContext, agent: ContestAgent, ask: Ask) -> SeatReply:
    seat = ctx.seat(agent, timeout_s=ctx.config.sweep.time_limit_s)
    return seat.ask(ask, ctx.clock.now)


def reply_status(reply: SeatReply, forecasts: int, deadline: datetime) -> tuple[str, str]:
    if reply.failure is not None and reply.failure.is_incident:
        return "infra", reply.failure.value
    if reply.finished_at > deadline:
        return "failed", "time limit"
    if forecasts:
        return "ok", ""
    return "failed", reply.failure.value if reply.failure else "no valid forecasts"


def record_reply(ctx: ContestContext, date: str, agent: ContestAgent, reply: SeatReply,
                 markets: list[SweptMarket], deadline: datetime) -> dict[str, Any]:
    parsed = parse_sweep(reply.raw, markets, ctx.config.sweep.sum_tolerance)
    status, detail = reply_status(reply, len(parsed.forecasts), deadline)
    forecasts = parsed.forecasts if status == "ok" else {}
    line = {"date": date, "agent": agent.agent, "status": status, "detail": detail,
            "model": clean_label(reply.model), "failure": reply.failure.value if reply.failure else None,
            "seat_detail": clean_text(reply.detail, 2000),
            "raw": reply.raw, "raw_sha256": sha256_text(reply.raw), "report": parsed.report(),
            "forecasts": forecasts, "finished_at": utc(reply.finished_at)}
    ctx.ledger.append(L.SWEEP_REPLY, line)
    log.info("contest.sweep_reply", date=date, agent=agent.agent, status=status, forecasts=len(forecasts))
    return line


def seal_file(ctx: ContestContext, date: str, markets: list[SweptMarket], replies: list[dict[str, Any]]) -> tuple[
        str, int, list[str]]:
    """Write the forecasts file (markets still open only) and seal its hash before any can resolve."""
    now = ctx.clock.now()
    open_now = [m for m in markets if parse_iso(m.closes) > now]
    late = [m.id for m in markets if m not in open_now]
    keep = {m.id for m in open_now}
    rows = [forecast_row(r["agent"], mid, r["model"], probs)
            for r in replies for mid, probs in r["forecasts"].items() if mid in keep]
    cfg = ctx.config
    doc = sweep_document(benchmark=cfg.benchmark, date=date, methodology_version=cfg.methodology_version,
                         markets=open_now, forecasts=rows)
    path = sweep_path(ctx.public, date)
    sha = write_json(path, doc)
    entry = sealed_entry(date, sha, len(rows), now.timestamp())
    ctx.ledger.append(L.SWEEP_SEALED, {**entry, "closed_before_seal": late})
    add_sealed(ctx.public, entry)
    return sha, len(rows), late


def run_sweep(ctx: ContestContext) -> SweepResult:
    """Sweep today's (UTC) markets once; see the module docstring."""
    now = ctx.clock.now()
    date = now.date().isoformat()
    done = sealed_dates(ctx).get(date)
    if done is not None:
        return SweepResult(date, -1, {}, done["sha256"], done["forecasts"])
    interrupted = next((o for o in ctx.ledger.contents(L.SWEEP_OPEN) if o["date"] == date), None)
    if interrupted is not None:
        return finish_interrupted(ctx, interrupted)
    failed = ctx.failed_checks()
    if failed:  # an infrastructure failure voids the day's sweep; it is not a missing forecast
        ctx.ledger.append(L.SWEEP_VOID, {"date": date, "reason": "infra", "failed_checks": failed[:20]})
        log.error("contest.sweep_void", date=date, failed=failed[:5])
        return SweepResult(date, 0, {}, None, 0)
    markets, refused = choose_markets(ctx, now)
    if not markets:
        ctx.ledger.append(L.REFUSED, {"date": date, "context": "sweep", "refused": refused})
        log.warning("contest.sweep_no_markets", date=date, refused=len(refused))
        return SweepResult(date, 0, {}, None, 0)
    text = sweep_ask(markets, ctx.config.sweep.time_limit_s)
    ask = Ask(text=text, sha256=sha256_text(text), session=date, context=_context(ctx, markets))
    ctx.ledger.append(L.SWEEP_OPEN, {"date": date, "ask_sha256": ask.sha256, "ask": text, "refused": refused,
                                     "markets": [{**m.as_file_json(), "category": m.category} for m in markets]})
    deadline = now + timedelta(seconds=ctx.config.sweep.time_limit_s)
    agents = list(ctx.config.agents)
    with ThreadPoolExecutor(max_workers=max(1, len(agents))) as pool:
        replies = list(pool.map(lambda a: ask_agent(ctx, a, ask), agents))
    lines = [record_reply(ctx, date, a, r, markets, deadline) for a, r in zip(agents, replies, strict=True)]
    sha, count, _ = seal_file(ctx, date, markets, lines)
    return SweepResult(date, len(markets), {r["agent"]: r["status"] for r in lines}, sha, count)


def finish_interrupted(ctx: ContestContext, opened: dict[str, Any]) -> SweepResult:
    """Seal the file of a sweep whose ask is in the book but whose seal is not (the league stopped in
    between): the sealed replies stand; an agent without one is ``infra``, never asked again (its answer
    would come after the others' and after the time limit)."""
    date = str(opened["date"])
    markets = [SweptMarket(m["id"], m["question"], tuple(m["outcomes"]), tuple(m["prices_at_sweep"]), m["closes"],
                           m.get("category", "")) for m in opened["markets"]]
    lines = [r for r in ctx.ledger.contents(L.SWEEP_REPLY) if r["date"] == date]
    answered = {r["agent"] for r in lines}
    now = ctx.clock.now()
    for agent in ctx.config.agents:
        if agent.agent not in answered:
            reply = SeatReply(seat=agent.seat.name, raw="", model=agent.seat.model, version="unreported", mode="",
                              started_at=now, finished_at=now, failure=FailureClass.SANDBOX,
                              detail="interrupted: the league stopped before this agent's reply was sealed")
            lines.append(record_reply(ctx, date, agent, reply, markets, now))
    sha, count, _ = seal_file(ctx, date, markets, lines)
    log.warning("contest.sweep_finished_after_interruption", date=date, infra=sorted(
        a.agent for a in ctx.config.agents if a.agent not in answered))
    return SweepResult(date, len(markets), {r["agent"]: r["status"] for r in lines}, sha, count)
