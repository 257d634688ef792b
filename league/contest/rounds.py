"""Betting rounds (bench.md "Betting rounds", "What counts"): the job that opens and plays them.

A poll lists the venue's open markets; those not seen at an earlier poll are new (the very first
poll only records what exists). New markets are screened by every eligibility rule, ranked by press
attention and picked within the caps (5 a UTC day, 3 at once, no category above 40% of the week).
Each picked market opens a round: every agent gets the round's ask (stake, market, clock rule, its
OWN past results) and ``bench`` inside its sandbox, all agents at once. Then:

- a sandbox, login or usage-limit incident of ANY agent voids the round for every agent: a
  ``contest.round.void`` line is sealed and nothing of the round is published;
- otherwise each agent's window is closed; no bet in time is a sealed forfeit.

Round flags (published, outside every table): ``pre_season`` (opened before the season start),
``high_stakes`` (Big Bet Friday, bigger stake; the scheduler decides), ``follower_called`` (a
follower asked for the market) and ``debut`` (an agent's first round: its debut matchup).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta

import structlog

from league.answers import clean_label, clean_text
from league.clock import parse_iso
from league.contest import ledger as L
from league.contest.asks import PastResult, round_ask, utc
from league.contest.bench_server import BenchServer
from league.contest.config import ContestAgent
from league.contest.context import ContestContext
from league.contest.desk import BetWindow, Desk
from league.contest.eligibility import Candidate, RoundsState, pick_for_rounds, screen
from league.contest.markets.interface import Market, books_for
from league.contest.seats import BenchSandbox
from league.jsonvalue import JsonObject, items, number, text, texts
from league.seatcore.files import sha256_text
from league_agents.base import Ask, SeatReply

log = structlog.get_logger(__name__)
GRACE_S = 30.0  # the agent's process may wrap up after its bet; the window decides regardless


@dataclass(frozen=True)
class RoundResult:
    round_id: int
    market_id: str
    state: str  # "closed" or "void"
    bets: dict[str, str | None]
    reason: str = ""


def _flags(ctx: ContestContext, now: datetime, high_stakes: bool, follower_called: bool) -> dict[str, bool]:
    played = {a for line in ctx.ledger.contents(L.ROUND_OPEN) for a in line["agents"]}
    return {"pre_season": now < ctx.config.season_start, "high_stakes": high_stakes,
            "follower_called": follower_called, "debut": any(a.agent not in played for a in ctx.config.agents)}


def rounds_state(ctx: ContestContext, now: datetime) -> RoundsState:
    opened = ctx.ledger.contents(L.ROUND_OPEN)
    ended = {line["round_id"] for line in ctx.ledger.contents(L.ROUND_CLOSED, L.ROUND_VOID)}
    week = now - timedelta(days=ctx.config.eligibility.category_window_days)
    return RoundsState(
        today=sum(1 for r in opened if parse_iso(r["opened_at"]).date() == now.date()),
        running=sum(1 for r in opened if r["round_id"] not in ended),
        past_week=tuple(r["category"] for r in opened if parse_iso(r["opened_at"]) > week),
    )


def own_history(ctx: ContestContext, agent: str, limit: int = 10) -> list[PastResult]:
    """The agent's own resolved rounds (never another agent's), newest last."""
    winners = {line["market_id"]: line["winner"] for line in ctx.ledger.contents(L.RESOLUTION)}
    void = {line["round_id"] for line in ctx.ledger.contents(L.ROUND_VOID)}
    bets = {line["round_id"]: line for line in ctx.ledger.contents(L.BET) if line["agent"] == agent}
    out = []
    for r in ctx.ledger.contents(L.ROUND_OPEN):
        winner = winners.get(r["market_id"])
        if agent not in r["agents"] or r["round_id"] in void or winner is None:
            continue
        bet = bets.get(r["round_id"])
        pnl = 0.0 if bet is None else (bet["shares"] if bet["outcome"] == winner else 0.0) - bet["spent"]
        out.append(PastResult(r["question"], bet["outcome"] if bet else None, winner, pnl))
    return out[-limit:]


def poll_new(ctx: ContestContext, now: datetime) -> list[Market]:
    """Markets listed now and never seen before; the first poll only records what exists."""
    listed = ctx.source.open_markets(now, ctx.config.eligibility.max_days_to_close)
    seen_lines = ctx.ledger.contents(L.SEEN)
    seen = {mid for line in seen_lines for mid in line["market_ids"]}
    fresh = [m for m in listed if m.id not in seen]
    if fresh:
        ctx.ledger.append(L.SEEN, {"market_ids": sorted(m.id for m in fresh), "first_poll": not seen_lines})
    return fresh if seen_lines else []


def pick_rounds(ctx: ContestContext, *, market_ids: tuple[str, ...] = ()) -> list[Candidate]:
    """Poll (or take exactly ``market_ids`` when a follower called them), screen and pick within the caps;
    the refusals are sealed. Rounds still running count against "3 at once" (their open line is sealed)."""
    now = ctx.clock.now()
    rules = ctx.config.eligibility
    fresh = [ctx.source.market(m) for m in market_ids] if market_ids else poll_new(ctx, now)
    ok, refused = screen(fresh, now, rules, ctx.config.categories, lambda m: books_for(ctx.source, m))
    picked, capped = pick_for_rounds(ok, rounds_state(ctx, now), rules)
    refusals = [r.as_json() for r in (*refused, *capped)]
    if refusals:
        ctx.ledger.append(L.REFUSED, {"date": now.date().isoformat(), "context": "rounds", "refused": refusals})
    return picked


def open_rounds(ctx: ContestContext, *, high_stakes: bool = False, follower_called: bool = False,
                market_ids: tuple[str, ...] = ()) -> list[RoundResult]:
    """Poll, pick and play the new rounds one after the other (the scheduler plays them at once:
    :func:`open_round` then :func:`play_opened` on its own thread)."""
    picked = pick_rounds(ctx, market_ids=market_ids)
    failed = ctx.failed_checks() if picked else []
    out = []
    for c in picked:
        r = open_round(ctx, c, high_stakes=high_stakes, follower_called=follower_called)
        out.append(void_opened(ctx, r, failed) if failed else play_opened(ctx, r))
    return out


def _open_line(ctx: ContestContext, c: Candidate, round_id: int, now: datetime, stake: float,
               flags: dict[str, bool]) -> JsonObject:
    m = c.market
    return {"round_id": round_id, "market_id": m.id, "question": m.question, "slug": m.slug,
            "outcomes": [*m.outcomes], "token_ids": [*m.token_ids],
            "prices_at_start": [round(c.books[o].mid or 0.0, 4) for o in m.outcomes],
            "closes": utc(m.end), "category": c.category, "stake": stake,
            "decision_s": ctx.config.rounds.decision_s, "opened_at": utc(now),
            "flags": {k: v for k, v in flags.items()}, "agents": [a.agent for a in ctx.config.agents]}


def _play_agent(ctx: ContestContext, agent: ContestAgent, desk: Desk, ask: Ask) -> SeatReply:
    with BenchServer(desk.handle) as server:
        sandbox = BenchSandbox(ctx.base_sandbox(), server.directory)
        seat = ctx.seat(agent, sandbox=sandbox, timeout_s=ctx.config.rounds.decision_s + GRACE_S)
        return seat.ask(ask, ctx.clock.now)


@dataclass(frozen=True)
class OpenedRound:
    """A round whose open line is sealed and whose agents' clocks run from ``opened_at``."""

    round_id: int
    market_id: str
    line: JsonObject
    desks: dict[str, Desk]


def open_round(ctx: ContestContext, c: Candidate, *, high_stakes: bool = False,
               follower_called: bool = False) -> OpenedRound:
    """Seal the round's open line and start every agent's bet window. Callers open rounds one at a time
    (round ids come from the count of open lines)."""
    now = ctx.clock.now()
    rules = ctx.config.rounds
    stake = rules.big_bet_stake if high_stakes else rules.stake
    round_id = ctx.ledger.count(L.ROUND_OPEN) + 1
    opened = _open_line(ctx, c, round_id, now, stake, _flags(ctx, now, high_stakes, follower_called))
    ctx.ledger.append(L.ROUND_OPEN, opened, at=now)
    desks = {a.agent: Desk(round_id, a.agent, c.market, ctx.source, ctx.broker, ctx.ledger, rules, stake,
                           BetWindow(ctx.clock, now, rules.decision_s)) for a in ctx.config.agents}
    return OpenedRound(round_id, c.market.id, opened, desks)


def play_opened(ctx: ContestContext, r: OpenedRound) -> RoundResult:
    """Every agent's ask at once, each with ``bench`` in its sandbox; then void or close the round."""
    agents = list(ctx.config.agents)
    asks = {a.agent: _round_ask(ctx, a, r.line) for a in agents}
    ctx.base_sandbox()
    with ThreadPoolExecutor(max_workers=max(1, len(agents))) as pool:
        replies = dict(zip([a.agent for a in agents],
                           pool.map(lambda a: _play_agent(ctx, a, r.desks[a.agent], asks[a.agent]), agents),
                           strict=True))
    return _close_round(ctx, r.round_id, r.market_id, r.desks, replies)


def play_round(ctx: ContestContext, c: Candidate, *, high_stakes: bool = False,
               follower_called: bool = False) -> RoundResult:
    return play_opened(ctx, open_round(ctx, c, high_stakes=high_stakes, follower_called=follower_called))


def void_opened(ctx: ContestContext, r: OpenedRound, failed: list[str]) -> RoundResult:
    """The batch's pre-batch self-check failed: the round is void for every agent and nobody is asked. The
    check runs before the batch's rounds open, so it never eats into an agent's five minutes."""
    return _void(ctx, r.round_id, r.market_id, r.desks, "selfcheck", "", "; ".join(failed))


def _round_ask(ctx: ContestContext, agent: ContestAgent, opened: JsonObject) -> Ask:
    """The round's ask, from its sealed open line (:func:`_open_line`)."""
    rules = ctx.config.rounds
    prices = [float(p) for v in items(opened["prices_at_start"]) if (p := number(v)) is not None]
    ask = round_ask(question=text(opened["question"]), outcomes=texts(opened["outcomes"]), prices=prices,
                    closes=text(opened["closes"]), stake=float(number(opened["stake"]) or 0.0),
                    decision_s=rules.decision_s, quote_max=rules.quote_max_chars, slippage=rules.slippage,
                    history=own_history(ctx, agent.agent))
    market_id = text(opened["market_id"])
    hint: JsonObject = {market_id: ctx.hints[market_id]} if market_id in ctx.hints else {}
    return Ask(text=ask, sha256=sha256_text(ask), session=f"round-{opened['round_id']}",
               context={"kind": "round", "hint": hint})


def _void(ctx: ContestContext, round_id: int, market_id: str, desks: dict[str, Desk], incident: str, agent: str,
          detail: str) -> RoundResult:
    """Void the round for every agent (an incident, or the pre-batch self-check failed): nothing is posted."""
    ctx.ledger.append(L.ROUND_VOID, {"round_id": round_id, "market_id": market_id, "reason": "infra",
                                     "incident": incident, "agent": agent, "detail": detail[:2000]})
    for desk in desks.values():
        desk.window.close()
    log.warning("contest.round_void", round_id=round_id, agent=agent, incident=incident)
    return RoundResult(round_id, market_id, "void", {}, incident)


def _close_round(ctx: ContestContext, round_id: int, market_id: str, desks: dict[str, Desk],
                 replies: dict[str, SeatReply]) -> RoundResult:
    incidents = {a: r for a, r in replies.items() if r.failure is not None and r.failure.is_incident}
    if incidents:
        agent, reply = next(iter(incidents.items()))
        assert reply.failure is not None
        return _void(ctx, round_id, market_id, desks, reply.failure.value, agent, reply.detail)
    entries = []
    for agent, desk in desks.items():
        state = desk.window.close()
        reply = replies[agent]
        if state == "forfeit":
            late = desk.window.late_attempt
            ctx.ledger.append(L.FORFEIT, {"round_id": round_id, "agent": agent,
                                          "reason": f"late bet at {utc(late)}" if late else "no bet in time"})
        failure = reply.failure.value if reply.failure else None
        entries.append({"agent": agent, "state": state, "model": clean_label(reply.model),
                        "version": clean_label(reply.version), "failure": failure,
                        "detail": clean_text(reply.detail, 500),
                        "raw_sha256": sha256_text(reply.raw), "finished_at": utc(reply.finished_at)})
    ctx.ledger.append(L.ROUND_CLOSED, {"round_id": round_id, "market_id": market_id, "entries": entries})
    bets = {a: outcome if isinstance(outcome := (d.bet or {}).get("outcome"), str) else None
            for a, d in desks.items()}
    return RoundResult(round_id, market_id, "closed", bets)
