"""The council talk (docs/experiments.md, "Council talk"): a weekly chair, its critiques and the shadow accounts.

On the talk day (``[talk] weekday``), after the score has marked the session's portfolios:

1. ``talk`` (``[schedule] talk``): the week's chair (the sealed rotation) reads every taking part seat's long-only
   portfolio of the session under this week's letters. The week's line seals the chair, the portfolios by letter
   and the commitment to the letter map (the map and its salt stay private until the week is over); then the
   chair's ask is sealed in the arms' ask chain and sent through the league's one seat runner.
2. ``talk_replies`` (``[schedule] talk_replies``): each seat the chair critiqued is asked once, with every
   critique of its positions, and states the portfolio it will hold.
3. After each later session's score (the ``talk_settle`` stage): the week's letters are revealed on the first
   session after the talk, and on the fifth session after it the week's shadow accounts are run through the
   portfolio engine under both leagues' rules and sealed with the funds' closes that resolve the critiques.

Every line goes to the arms' book (``talk_*`` kinds), every ask to its ask chain: the council's books, tables and
accounts never see the talk. A reply is sealed on arrival as received (its raw bytes under their hash) and read by
league.talk.parse, never repaired. Each step is idempotent: a week already opened is not opened again, a chair or
a seat already asked is not asked again, and an ask a killed daemon left in flight is re-sent with its exact text
(checked against the sealed hash) or sealed as lost by :func:`resume_talk`.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from datetime import date, datetime, time
from decimal import Decimal
from functools import partial
from pathlib import Path

import structlog

from league.answers import clean_text
from league.arms.book import ARMS_BOOK, ARMS_DIR, ArmsBooks
from league.arms.lines import (
    TalkAccountsLine,
    TalkChairLine,
    TalkEngineRow,
    TalkReplyLine,
    TalkRevealLine,
    TalkRoundLine,
    TalkScheduleLine,
    TalkWeekLine,
)
from league.asks import publish_ask_text, sha256_text
from league.blind import MASK
from league.book import iter_lines
from league.calendar import et_time
from league.clock import iso_seconds, parse_iso
from league.config import as_time
from league.jobs.ask import Sealer, send
from league.jobs.context import League, Pending
from league.jobs.portfolio import RULE_SETS, ProviderBars, bill_rates
from league.jobs.seal import store_raw
from league.portfolio.decisions import Decision
from league.portfolio.rules import rule_set
from league.portfolio.season import Season
from league.records import Mark
from league.runner import SeatAsk
from league.seatcore.files import write_atomic
from league.talk.asks import chair_text, reply_text
from league.talk.critiques import HORIZON_SESSIONS, Critique, apply_critique
from league.talk.parse import parse_chair, parse_reply
from league.talk.rotation import LETTER_RULE, ROTATION_RULE, chair_for, letter_commitment, letter_map
from league.talk.shadow import COUNCIL, critiqued_key, sealed_key, stated_key
from league_agents.base import Ask, Now, SeatReply, SeatSpec

log = structlog.get_logger(__name__)
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
#: The league whose portfolios the chair reads: long-only weights, which every critique and reply can restate.
TALK_LEAGUE = "arena-3"
RETRY_POLICY = "the council talk asks each seat once: no second wave"
LOST = "no_answer"
#: The private folder of each week's letter salt (DATA/talk-salts/<week>.json): never published; the salt is
#: revealed in the week's ``talk_reveal`` line once the week is over.
SALTS_DIR = "talk-salts"


# ------------------------------------------------------------------------------- what the week is
def week_label(session: str) -> str:
    """The ISO week of a session, ``2026-W49``: the talk's week."""
    year, week, _ = date.fromisoformat(session).isocalendar()
    return f"{year}-W{week:02d}"


def talk_seats(lg: League) -> list[SeatSpec]:
    """The roster seats taking part: ``[talk] seats``, or every seat but the history-only baselines."""
    names = lg.config.settings.talk.seats
    return [s for s in lg.config.roster.seat if not s.name.startswith("_") and (not names or s.name in names)]


def fund_of_market() -> dict[str, str]:
    """market -> fund of the league the chair reads (its tradable funds only)."""
    rules = rule_set(TALK_LEAGUE)
    return {m: f for m, f in rules.funds.items() if m not in rules.indicator_only}


def _is_talk_day(lg: League, session: str) -> bool:
    talk = lg.config.settings.talk
    return talk.enabled and WEEKDAYS[date.fromisoformat(session).weekday()] == talk.weekday


def _at(lg: League, session: str, hhmm: str) -> datetime:
    return et_time(date.fromisoformat(session), as_time(hhmm))


def week_line(books: ArmsBooks, week: str) -> TalkWeekLine | None:
    return next((x for _, x in books.lines() if isinstance(x, TalkWeekLine) and x.week == week), None)


def chair_line(books: ArmsBooks, week: str) -> TalkChairLine | None:
    return next((x for _, x in books.lines() if isinstance(x, TalkChairLine) and x.week == week), None)


def round_line(books: ArmsBooks, week: str) -> TalkRoundLine | None:
    return next((x for _, x in books.lines() if isinstance(x, TalkRoundLine) and x.week == week), None)


def reply_lines(books: ArmsBooks, week: str) -> list[TalkReplyLine]:
    return [x for _, x in books.lines() if isinstance(x, TalkReplyLine) and x.week == week]


# ------------------------------------------------------------------------------- the letters' salt
def salt_path(lg: League, week: str) -> Path:
    return lg.data_dir / SALTS_DIR / f"{week}.json"


def week_salt(lg: League, week: str) -> str:
    """The week's letter salt: drawn once from the operating system's randomness and kept privately (a simulated
    league derives it from the seed, so that a demo is reproducible; nobody there has a reason to guess it)."""
    path = salt_path(lg, week)
    if path.is_file():
        return str(json.loads(path.read_text(encoding="utf-8"))["salt"])
    if lg.simulated:
        salt = hashlib.sha256(f"{lg.config.settings.talk.seed}:{week}:letters".encode()).hexdigest()[:32]
    else:
        salt = secrets.token_hex(16)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_atomic(path, json.dumps({"week": week, "salt": salt}).encode("utf-8"))
    os.chmod(path, 0o600)
    return salt


# ------------------------------------------------------------------------------- the chair
def portfolio_of(lg: League, seat: str, session: str) -> dict[str, float]:
    """A seat's long-only portfolio at the session's close, in percent of equity (its ``arena-3`` mark; an
    account not marked that session holds nothing: all cash)."""
    marks = [m for m in lg.books.index.recent_of(Mark)
             if m.account == seat and m.league == TALK_LEAGUE and m.session == session]
    if not marks:
        return {}
    latest = max(marks, key=lambda m: m.n)
    out = {fund: round(float(w) * 100.0, 4) for fund, w in sorted(latest.weights.items()) if float(w) > 0}
    total = sum(out.values())
    return {f: w * 100.0 / total for f, w in out.items()} if total > 100.0 else out


def job_talk(lg: League, session: str) -> str | None:
    """Open the week and ask its chair (once per week); returns the chair's run id."""
    if not _is_talk_day(lg, session):
        return None
    books = lg.arms
    week = week_label(session)
    if week_line(books, week) is not None:
        return None
    settings = lg.config.settings.talk
    if not any(isinstance(x, TalkScheduleLine) for _, x in books.lines()):
        books.seal(TalkScheduleLine(seed=settings.seed, weekday=settings.weekday, league=TALK_LEAGUE,
                                    rotation=ROTATION_RULE, letters=LETTER_RULE))
    specs = talk_seats(lg)
    names = [s.name for s in specs]
    index = sum(1 for _, x in books.lines() if isinstance(x, TalkWeekLine))
    chair = chair_for(settings.seed, names, index)
    salt = week_salt(lg, week)
    letters = letter_map(salt, week, names)
    funds = fund_of_market()
    portfolios = {letters[name]: portfolio_of(lg, name, session) for name in names}
    text = chair_text(week, portfolios, sorted(set(funds.values())), fund_of_market=funds)
    sha = publish_ask_text(lg.data_dir / ARMS_DIR / "asks", text)
    rid = f"{session}-talk-chair"
    closes = _at(lg, session, lg.config.settings.schedule.talk_replies)
    spec = next(s for s in specs if s.name == chair)
    books.asks.seal_roster(rid, session, [spec], {}, closes, closes, RETRY_POLICY, "not_counted")
    books.seal(TalkWeekLine(week=week, index=index, session=session, chair=chair, chair_letter=letters[chair],
                            letter_map_sha256=letter_commitment(week, letters, salt), seats=len(names),
                            league=TALK_LEAGUE, funds=funds, portfolios=portfolios, run_id=rid, ask_sha256=sha,
                            deadline=iso_seconds(closes)))
    books.asks.seal_asks(rid, session, 1, [(chair, text)], sha)
    log.info("talk.chair_asked", week=week, chair=chair)
    _send(lg, rid, session, spec, text, closes, {"role": "chair", "week": week, "letters": sorted(portfolios),
                                                 "funds": funds, "portfolios": portfolios},
          partial(seal_chair, week=week))
    return rid


def _send(lg: League, rid: str, session: str, spec: SeatSpec, text: str, closes: datetime,
          talk: Mapping[str, object], sealer: Sealer, now: Now | None = None) -> None:
    ask = SeatAsk(spec, Ask(text=text, sha256=sha256_text(text), session=session, attempt=1,
                            context={"talk": dict(talk), "variant": f"talk-{talk['role']}"}))
    send(lg, rid, session, [ask], sha256_text(text), {}, now=now, seal=sealer, closes=closes)


def _raw(lg: League, reply: SeatReply) -> tuple[str, str]:
    own, encoding, _ = store_raw(lg, reply.raw)
    return own, encoding


def _failure(reply: SeatReply, lost: str) -> str:
    if lost:
        return f"{LOST}: the ask was lost with the daemon: {lost}"
    return str(reply.failure or "no_reply") + (f": {clean_text(reply.detail, 300)}" if reply.detail else "")


def _identity(lg: League, reply: SeatReply) -> tuple[str, str]:
    """The model and version a reply reports; masked in a blind season not yet revealed (as an answer is)."""
    if lg.config.roster.blind and not lg.books.index.of_kind("reveal"):
        return MASK, MASK
    return reply.model[:200], reply.version[:200]


def seal_chair(lg: League, p: Pending, reply: SeatReply, *, week: str, lost: str = "") -> None:
    """Seal the chair's reply on arrival: one ``talk_chair`` line, whatever it holds (``lost``: why an ask a dead
    daemon left in flight could not be re-sent)."""
    books = lg.arms
    line = week_line(books, week)
    assert line is not None
    funds = set(line.funds.values())
    parsed = parse_chair(reply.raw, letters=set(line.portfolios), markets=set(line.funds), funds=funds) \
        if not reply.silent else None
    own, encoding = _raw(lg, reply) if reply.raw else ("", "utf-8")
    model, version = _identity(lg, reply)
    critiques: list[dict[str, str | float]] = [
        {"target": c.target, "market": c.market, "risk": c.risk, "weight": float(c.weight), "direction": c.direction}
        for c in (parsed.critiques if parsed is not None and parsed.ok else ())]
    failure = _failure(reply, lost) if parsed is None else parsed.failure
    books.seal(TalkChairLine(
        run_id=p.run_id, week=week, seat=p.seat, answered=parsed is not None, ok=bool(parsed and parsed.ok),
        failure=failure, council_portfolio=dict(parsed.council_portfolio) if parsed and parsed.ok else {},
        critiques=critiques, notes=list(parsed.notes) if parsed else [], own_sha256=own,
        seat_ask_sha256=p.seat_ask_sha256, model=model, version=version,
        booked_at=iso_seconds(min(reply.finished_at, lg.clock.now())), raw_encoding=encoding))
    log.info("talk.chair_sealed", week=week, seat=p.seat, ok=bool(parsed and parsed.ok))


# ------------------------------------------------------------------------------- the critiqued seats
def critiques_of(chair: TalkChairLine) -> list[Critique]:
    return [Critique(target=str(c["target"]), market=str(c["market"]), risk=str(c["risk"]),
                     weight=float(c["weight"]), direction="up" if c["direction"] == "up" else "down")
            for c in chair.critiques]


def job_talk_replies(lg: League, session: str) -> str | None:
    """Ask each critiqued seat once, with its critiques (once per week); returns the run id."""
    if not _is_talk_day(lg, session):
        return None
    books = lg.arms
    week = week_label(session)
    line = week_line(books, week)
    if line is None or line.session != session or round_line(books, week) is not None:
        return None
    chair = chair_line(books, week)
    if chair is None:
        log.warning("talk.chair_not_in", week=week, chair=line.chair)
        return None
    if not chair.ok:
        log.info("talk.no_critiques", week=week, failure=chair.failure)
        return None
    salt = week_salt(lg, week)
    names = [s.name for s in talk_seats(lg)]
    letters = letter_map(salt, week, names)
    if letter_commitment(week, letters, salt) != line.letter_map_sha256:
        log.error("talk.letters_changed", week=week, fix="the taking part seats or the week's salt changed since "
                  "the chair was asked; the replies are not asked")
        return None
    seat_of = {v: k for k, v in letters.items()}
    by_letter: dict[str, list[Critique]] = {}
    for c in critiques_of(chair):
        by_letter.setdefault(c.target, []).append(c)
    asked = {seat_of[letter]: letter for letter in by_letter}
    specs = {s.name: s for s in talk_seats(lg)}
    funds = sorted(set(line.funds.values()))
    rid = f"{session}-talk-replies"
    closes = _at(lg, session, lg.config.settings.schedule.publish)
    texts = [(seat, reply_text(week, letter, line.portfolios[letter], by_letter[letter], funds=funds))
             for seat, letter in sorted(asked.items())]
    books.asks.seal_roster(rid, session, [specs[s] for s in sorted(asked)], {}, closes, closes, RETRY_POLICY,
                           "not_counted")
    books.seal(TalkRoundLine(run_id=rid, week=week, session=session, asked=asked, deadline=iso_seconds(closes)))
    for _, text in texts:
        publish_ask_text(lg.data_dir / ARMS_DIR / "asks", text)
    books.asks.seal_asks(rid, session, 1, texts, line.ask_sha256)
    for seat, text in texts:
        _send_reply(lg, rid, session, specs[seat], text, closes, week, asked[seat], line, by_letter[asked[seat]])
    log.info("talk.replies_asked", week=week, seats=sorted(asked))
    return rid


def _send_reply(lg: League, rid: str, session: str, spec: SeatSpec, text: str, closes: datetime, week: str,
                letter: str, line: TalkWeekLine, critiques: Sequence[Critique], now: Now | None = None) -> None:
    shown: list[object] = [{"market": c.market, "weight": c.weight, "direction": c.direction} for c in critiques]
    _send(lg, rid, session, spec, text, closes, {"role": "reply", "week": week, "letter": letter,
                                                 "funds": line.funds, "portfolio": line.portfolios[letter],
                                                 "critiques": shown},
          partial(seal_stated, week=week, letter=letter), now=now)


def seal_stated(lg: League, p: Pending, reply: SeatReply, *, week: str, letter: str, lost: str = "") -> None:
    """Seal a critiqued seat's reply on arrival: one ``talk_reply`` line, whatever it holds."""
    books = lg.arms
    line = week_line(books, week)
    assert line is not None
    parsed = parse_reply(reply.raw, funds=set(line.funds.values())) if not reply.silent else None
    own, encoding = _raw(lg, reply) if reply.raw else ("", "utf-8")
    model, version = _identity(lg, reply)
    failure = _failure(reply, lost) if parsed is None else parsed.failure
    books.seal(TalkReplyLine(
        run_id=p.run_id, week=week, seat=p.seat, letter=letter, answered=parsed is not None,
        ok=bool(parsed and parsed.ok), failure=failure,
        portfolio=dict(parsed.portfolio) if parsed and parsed.ok else {}, own_sha256=own,
        seat_ask_sha256=p.seat_ask_sha256, model=model, version=version,
        booked_at=iso_seconds(min(reply.finished_at, lg.clock.now())), raw_encoding=encoding))


# ------------------------------------------------------------------------------- after the talk
def settle_talk(lg: League, session: str) -> int:
    """After a session's score: reveal the letters of every week talked before this session, and seal the shadow
    accounts of every week whose fifth session after the talk has closed. Returns the lines sealed."""
    if not lg.config.settings.talk.enabled or not (lg.books.dir / ARMS_BOOK).is_file():
        return 0
    books = lg.arms
    revealed = {x.week for _, x in books.lines() if isinstance(x, TalkRevealLine)}
    settled = {x.week for _, x in books.lines() if isinstance(x, TalkAccountsLine)}
    sealed = 0
    for _, x in books.lines():
        if not isinstance(x, TalkWeekLine) or x.session >= session:
            continue
        if x.week not in revealed and _reveal(lg, books, x):
            sealed += 1
        sessions = _sessions_after(lg, x.session)
        if x.week not in settled and sessions[-1] <= session:
            books.seal(_accounts(lg, books, x, sessions))
            sealed += 1
    return sealed


def _reveal(lg: League, books: ArmsBooks, line: TalkWeekLine) -> bool:
    path = salt_path(lg, line.week)
    try:
        salt = str(json.loads(path.read_text(encoding="utf-8"))["salt"])
    except (OSError, ValueError, KeyError):
        log.error("talk.salt_lost", week=line.week, path=str(path),
                  fix="the week's letters cannot be revealed without its salt; they stay sealed")
        return False
    names = [s.name for s in talk_seats(lg)]
    letters = letter_map(salt, line.week, names)
    if letter_commitment(line.week, letters, salt) != line.letter_map_sha256:
        log.error("talk.reveal_mismatch", week=line.week, fix="the taking part seats changed since the week; its "
                  "letters are not revealed")
        return False
    books.seal(TalkRevealLine(week=line.week, letter_map=letters, salt=salt))
    return True


def _sessions_after(lg: League, session: str) -> list[str]:
    """The talk session and the five sessions after it."""
    out = [date.fromisoformat(session)]
    for _ in range(HORIZON_SESSIONS):
        out.append(lg.market.calendar.next_session(out[-1]))
    return [d.isoformat() for d in out]


def shadow_weights(week: TalkWeekLine, chair: TalkChairLine | None,
                   replies: Sequence[TalkReplyLine]) -> dict[str, dict[str, float]]:
    """Every shadow account's weights (league.talk.shadow): the council's when the chair's reply was read, each
    sealed portfolio, each critiqued one with its critiques applied, each stated one."""
    accounts: dict[str, dict[str, float]] = {sealed_key(k): dict(v) for k, v in week.portfolios.items()}
    if chair is not None and chair.ok:
        accounts[COUNCIL] = dict(chair.council_portfolio)
        for c in critiques_of(chair):
            key = critiqued_key(c.target)
            accounts[key] = apply_critique(accounts.get(key, accounts[sealed_key(c.target)]), c, week.funds)
    for r in replies:
        if r.ok:
            accounts[stated_key(r.letter)] = dict(r.portfolio)
    return dict(sorted(accounts.items()))


def _close(bars: ProviderBars, fund: str, session: str) -> float | None:
    got = bars.bars(fund, date.fromisoformat(session))
    return float(got[-1].close) if got else None


def _accounts(lg: League, books: ArmsBooks, week: TalkWeekLine, sessions: list[str]) -> TalkAccountsLine:
    chair = chair_line(books, week.week)
    weights = shadow_weights(week, chair, reply_lines(books, week.week))
    held = {f for w in weights.values() for f, x in w.items() if x > 0}
    critiqued = {week.funds[c.market] for c in critiques_of(chair)} if chair is not None and chair.ok else set()
    closes: dict[str, list[float | None]] = {}
    bars = ProviderBars(lg.market)
    for day in sessions:  # session by session: the provider's cache keeps one session
        for fund in sorted(held | critiqued):
            closes.setdefault(fund, []).append(_close(bars, fund, day))
    engine = {name: _engine(lg, name, weights, sessions) for name in RULE_SETS}
    return TalkAccountsLine(week=week.week, sessions=sessions, weights=weights, closes=closes, engine=engine)


def _engine(lg: League, name: str, weights: Mapping[str, Mapping[str, float]],
            sessions: list[str]) -> list[TalkEngineRow]:
    """Each account bought at the open of the session after the talk and held to the fifth session's close, under
    league ``name``'s rules (fees, bills, fills); a portfolio that breaks a rule is refused as a council decision
    is, and its account stays in cash."""
    rules = rule_set(name)
    market_of = {f: m for m, f in rules.funds.items()}
    season = Season(rules, ProviderBars(lg.market), bill_rates(lg), seed=lg.config.settings.prices.seed,
                    benchmarks=False)
    first = date.fromisoformat(sessions[1])
    at = et_time(first, time(9, 0))
    decisions = [Decision(seat=account, session=first, at=at, source="targets",
                          targets={market_of.get(f, f): w / 100.0 for f, w in w_.items() if w > 0})
                 for account, w_ in weights.items()]
    rejected: dict[str, str] = {}
    values: dict[str, tuple[Decimal, Decimal, Decimal]] = {}
    for k, day in enumerate(sessions[1:]):
        outcome = season.run_session(date.fromisoformat(day), decisions if k == 0 else [])
        for r in outcome.rejections:
            rejected[r.account] = r.reason
        for m in outcome.marks:
            values[m.account] = (m.value, m.capital, m.fees_total)
    rows = []
    for account in weights:
        got = values.get(account)
        if got is None:
            rows.append(TalkEngineRow(account=account, status="no_price", reason="the engine marked no session",
                                      value=None, gain=None, fees=None))
            continue
        value, capital, fees = got
        rows.append(TalkEngineRow(account=account, status="rejected" if account in rejected else "held",
                                  reason=rejected.get(account, ""), value=str(value),
                                  gain=round(float(value / capital - 1), 8), fees=str(fees)))
    return rows


# ------------------------------------------------------------------------------- after a restart
def resume_talk(lg: League) -> list[tuple[str, str, str]]:
    """Talk asks a dead daemon left in flight (sealed in the arms' ask chain, no talk line for the seat), re-sent
    with their exact text (read back from the published ask texts and checked against the sealed hash), or sealed
    as lost when the text is gone or the ask's deadline has passed. Returns ``(run_id, seat, resent|lost)``."""
    if not lg.config.settings.talk.enabled or not (lg.books.dir / ARMS_BOOK).is_file():
        return []
    books = lg.arms
    busy = {(p.run_id, p.seat) for p in lg.asking.pending if not p.council}
    asks = {(str(x.content["run_id"]), str(x.content["seat"])): (str(x.content["ask_sha256"]), parse_iso(x.at))
            for x in iter_lines(books.asks.path) if x.kind == "ask" and "-talk-" in str(x.content["run_id"])}
    specs = {s.name: s for s in talk_seats(lg)}
    out: list[tuple[str, str, str]] = []
    for _, x in books.lines():
        if isinstance(x, TalkWeekLine) and chair_line(books, x.week) is None and (x.run_id, x.chair) not in busy:
            out.append(_resume_one(lg, x.run_id, x.session, x.chair, asks, specs, parse_iso(x.deadline),
                                   partial(_resend_chair, line=x), chair=True, week=x.week))
        if isinstance(x, TalkRoundLine):
            answered = {r.seat for r in reply_lines(books, x.week)}
            week = week_line(books, x.week)
            for seat, letter in sorted(x.asked.items()):
                if seat not in answered and (x.run_id, seat) not in busy and week is not None:
                    out.append(_resume_one(lg, x.run_id, x.session, seat, asks, specs, parse_iso(x.deadline),
                                           partial(_resend_reply, line=week, letter=letter), chair=False,
                                           week=x.week, letter=letter))
    if out:
        log.warning("talk.resumed", asks=[" ".join(x) for x in out])
    return out


def _resume_one(lg: League, rid: str, session: str, seat: str, asks: Mapping[tuple[str, str], tuple[str, datetime]],
                specs: Mapping[str, SeatSpec], closes: datetime, resend: Callable[..., None], *, chair: bool, week: str,
                letter: str = "") -> tuple[str, str, str]:
    sealed = asks.get((rid, seat))
    text = ""
    if sealed is not None:
        try:
            text = (lg.data_dir / ARMS_DIR / "asks" / f"{sealed[0]}.md").read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            text = ""
    problem = ("its seat no longer takes part in the talk" if seat not in specs else
               "it was never sealed in the arms' ask chain" if sealed is None else
               "its text is gone or changed" if sha256_text(text) != sealed[0] else
               "it was in flight when the daemon stopped and its deadline passed before the restart"
               if not lg.simulated and lg.clock.now() >= closes else "")
    if problem:
        pend = Pending(rid, session, seat, 1, "", sealed[0] if sealed else "", {}, Future(), None)
        nothing = SeatReply(seat=seat, raw="", model="", version="", mode="", started_at=lg.clock.now(),
                            finished_at=lg.clock.now())
        if chair:
            seal_chair(lg, pend, nothing, week=week, lost=problem)
        else:
            seal_stated(lg, pend, nothing, week=week, letter=letter, lost=problem)
        return rid, seat, "lost"
    assert sealed is not None
    now = partial(_fixed, sealed[1]) if lg.simulated else None
    resend(lg, rid, session, specs[seat], text, closes, now=now)
    return rid, seat, "resent"


def _fixed(instant: datetime) -> datetime:
    """What a resumed seat of a simulated league reads as now: its original asked time."""
    return instant


def _resend_chair(lg: League, rid: str, session: str, spec: SeatSpec, text: str, closes: datetime, *,
                  line: TalkWeekLine, now: Now | None = None) -> None:
    _send(lg, rid, session, spec, text, closes, {"role": "chair", "week": line.week, "letters": sorted(line.portfolios),
                                                 "funds": line.funds, "portfolios": line.portfolios},
          partial(seal_chair, week=line.week), now=now)


def _resend_reply(lg: League, rid: str, session: str, spec: SeatSpec, text: str, closes: datetime, *,
                  line: TalkWeekLine, letter: str, now: Now | None = None) -> None:
    chair = chair_line(lg.arms, line.week)
    critiques = [c for c in critiques_of(chair) if c.target == letter] if chair is not None else []
    _send_reply(lg, rid, session, spec, text, closes, line.week, letter, line, critiques, now=now)

