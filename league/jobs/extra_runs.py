"""The extra reference runs (docs/experiments.md, "Extra reference runs"): an evening run after each session's
close, bitcoin runs on Saturdays and Sundays, and a Sunday radar run, each asked about the next NYSE session,
sealed in the arms' book with its label, never counted, and scored on its own references.

A run takes its own price snapshot when it is asked (kept as ``DATA/arms/snapshots/<run id>.json``, its hash in
the run line), asks the configured seats as they run in the council (their own network policy: these are the
open question at another time), and seals each reply on arrival as an ``arm_answer`` line (league.jobs.arms).
Once every horizon end of a run has passed, :func:`score_extra_runs` seals one ``extra_score`` line per horizon:
each answer cell on its own event, from the first bar at or after the answer's seal to the session's horizon end.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import date, timedelta
from typing import cast

import structlog

from league.arms.book import ARMS_BOOK, ARMS_DIR
from league.arms.lines import EXTRA_KINDS, ArmAnswerLine, ArmKind, ArmRunLine, ExtraScoreLine, ExtraScoreRow
from league.arms.plan import run_markets
from league.asks import arm_text, publish_ask_text, unsealable
from league.clock import iso_seconds, parse_iso
from league.config import MarketSpec
from league.contracts import EventContract
from league.counting import Event, common_contract
from league.jobs.arms import arm_seats, extra_snapshot_path, seat_text, send_arm
from league.jobs.ask import deadline, market_lines
from league.jobs.context import League
from league.jobs.score import Bars, event_prices
from league.jobs.snapshot import take_snapshot
from league.jsonvalue import Json, obj
from league.seatcore.files import write_atomic

log = structlog.get_logger(__name__)
#: Each run's label in the published files: an earlier run of the session it asks about, or a reference run.
LABELS = {"evening": "earlier_run", "weekend_btc": "reference", "sunday_radar": "earlier_run"}
RETRY_POLICY = "an extra reference run asks each seat once; never counted"


def run_id(asked_on: str, kind: str) -> str:
    """``2026-06-05-evening``, ``2026-06-06-weekend_btc``: named by the day it is asked on."""
    return f"{asked_on}-{kind}"


def markets_of(lg: League, kind: str) -> list[MarketSpec]:
    return run_markets(lg.config.markets.markets, kind)


def job_extra(lg: League, day: str, kind: str) -> str | None:
    """Ask one extra reference run on ``day`` (the day it fires, New York time) about the next session."""
    if kind not in lg.config.settings.arms.extra_runs:
        return None
    rid = run_id(day, kind)
    books = lg.arms
    if any(r.run_id == rid for r in books.runs()):
        return None
    target = lg.market.calendar.next_session(date.fromisoformat(day)).isoformat()
    markets = markets_of(lg, kind)
    record = _snapshot(lg, rid, target, markets)
    asked = {m.code: list(m.horizons) for m in markets}
    text = arm_text(target, rid, market_lines(lg, target, obj(record["snapshot"]), markets),
                    str(record["sha256"]), arm=kind)
    common_sha = publish_ask_text(lg.data_dir / ARMS_DIR / "asks", text)
    specs = arm_seats(lg, kind)
    closes = deadline(lg, target)
    faults = unsealable(specs, asked, closes)
    specs = [s for s in specs if s.name not in faults]
    books.asks.seal_roster(rid, target, specs, asked, closes, closes, RETRY_POLICY, "not_counted")
    books.seal(ArmRunLine(run_id=rid, session=target, arm=_kind(kind), repeat=0, open_run="", order=[],
                          ask_sha256=common_sha, snapshot_sha256=str(record["sha256"]), packet_sha256=None,
                          roster=[s.name for s in specs], network={s.name: s.network for s in specs},
                          reference_at=iso_seconds(closes), deadline=iso_seconds(closes), label=LABELS[kind],
                          asked_on=day))
    texts = [(s.name, seat_text(lg, text, kind, s.name, None)) for s in specs]
    books.asks.seal_asks(rid, target, 1, texts, common_sha)
    log.info("extra_run.asked", run_id=rid, session=target, seats=[s.name for s in specs])
    send_arm(lg, rid, target, kind, 0, specs, texts, common_sha, record, None, asked=asked)
    return rid


def _kind(kind: str) -> ArmKind:
    if kind not in EXTRA_KINDS:
        raise ValueError(f"not an extra run: {kind}")
    return cast(ArmKind, kind)


def _snapshot(lg: League, rid: str, target: str, markets: Sequence[MarketSpec]) -> dict[str, Json]:
    """The run's own snapshot, taken once (a restarted job reads the one kept)."""
    path = extra_snapshot_path(lg, rid)
    if path.is_file():
        loaded: dict[str, Json] = json.loads(path.read_text(encoding="utf-8"))
        return loaded
    snap = take_snapshot(markets, lg.market.prices, lg.market.calendar, lg.clock.now())
    record: dict[str, Json] = {"session": target, "run_id": rid, "sha256": snap.sha256, "snapshot": snap.as_json(),
                                 "crowd": []}
    write_atomic(path, json.dumps(record, sort_keys=True, ensure_ascii=False).encode("utf-8"))
    return record


def job_evening(lg: League, day: str) -> str | None:
    return job_extra(lg, day, "evening")


def job_weekend_btc(lg: League, day: str) -> str | None:
    return job_extra(lg, day, "weekend_btc")


def job_sunday_radar(lg: League, day: str) -> str | None:
    return job_extra(lg, day, "sunday_radar")


# ------------------------------------------------------------------------------- scoring
def score_extra_runs(lg: League, session: str) -> int:
    """Seal an ``extra_score`` line for every extra run and horizon whose ends have all passed (once each);
    returns how many were sealed. A stage after the score job: the prices of a session are final then."""
    if not lg.config.settings.arms.extra_runs or not (lg.books.dir / ARMS_BOOK).is_file():
        return 0
    books = lg.arms
    now = lg.clock.now()
    scored = {(x.run_id, x.horizon) for _, x in books.lines() if isinstance(x, ExtraScoreLine)}
    answers: dict[str, list[ArmAnswerLine]] = {}
    for _, x in books.lines():
        if isinstance(x, ArmAnswerLine) and x.arm in EXTRA_KINDS and x.status == "answered":
            answers.setdefault(x.run_id, []).append(x)
    sealed = 0
    bars = Bars(lg.view)
    for run in books.runs():
        if run.arm not in EXTRA_KINDS:
            continue
        markets = markets_of(lg, run.arm)
        for horizon in sorted({h for m in markets for h in m.horizons}):
            if (run.run_id, horizon) in scored:
                continue
            ends = {m.code: common_contract(lg.view, m, date.fromisoformat(run.session), horizon)
                    for m in markets if horizon in m.horizons}
            if max(parse_iso(c.end_at) for c in ends.values()) + SETTLE > now:
                continue
            rows = [_row(lg, bars, a, m, horizon, ends[m.code]) for a in answers.get(run.run_id, [])
                    for m in markets if m.code in ends]
            books.seal(ExtraScoreLine(run_id=run.run_id, session=run.session, horizon=horizon, rows=rows))
            sealed += 1
    if sealed:
        log.info("extra_run.scored", lines=sealed)
    return sealed


#: How long after a horizon's end its prices are taken (the last bar has ended and the provider has it).
SETTLE = timedelta(minutes=5)


def _row(lg: League, bars: Bars, answer: ArmAnswerLine, m: MarketSpec, horizon: str,
         common: EventContract) -> ExtraScoreRow:
    sealed = answer.sealed_time()
    reference_at = sealed if sealed.microsecond == 0 else sealed.replace(microsecond=0) + timedelta(seconds=1)
    cell = answer.items.get(m.code, {}).get(horizon, {})
    prob = cell.get("prob_up")
    stated = isinstance(prob, int | float) and cell.get("cell_status") in ("elicited", "explicit_50")
    if m.daily:  # a session market's first bar at or after an evening or weekend seal is the session's open
        reference_at = max(reference_at, parse_iso(common.reference_at))
    own = EventContract.make(asset=m.code, horizon=horizon, reference_at=reference_at,
                             end_at=parse_iso(common.end_at), reference_rule=common.reference_rule,
                             price_provider=common.price_provider, price_symbol=common.price_symbol)
    ref, close = event_prices(Event(m.code, horizon, own, seal_based=not m.daily), bars)
    up = None if ref is None or close is None else close.price > ref.price
    why = "" if up is not None else "a price is missing: the cell stays unresolved"
    p = float(prob) if stated and isinstance(prob, int | float) else None
    outcome = None if up is None else int(up)
    brier = None if p is None or outcome is None else round((p / 100 - outcome) ** 2, 6)
    return ExtraScoreRow(seat=answer.seat, market=m.code, reference_at=own.reference_at, end_at=own.end_at,
                         reference=None if ref is None else ref.price,
                         reference_bar=None if ref is None else iso_seconds(ref.bar_start),
                         close=None if close is None else close.price,
                         close_bar=None if close is None else iso_seconds(close.bar_start),
                         prob_up=p, outcome=outcome, brier=brier,
                         why=why or ("" if p is not None else "no stated probability"))

