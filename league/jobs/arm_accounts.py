"""The arms' own paper accounts: each arm's answers drive $100,000 accounts of its own, in both leagues.

Run right after the council's portfolio stage (docs/experiments.md, "The arms' accounts"). For each configured
arm (``closed_book``, ``price_only``; a repeat is never a decision) that ran on the session, every seat's first
answered ``arm_answer`` of that arm is read as a portfolio decision exactly as the council's stage reads a
counted answer (its raw reply, so a ``targets`` block is honoured; decided at the line's sealed time), and the
portfolio engine runs one season per arm and rule set (``arena-3``, ``pro-1``), one account per seat, with the
league's prices. The lines are the council's portfolio lines with the arm's name, sealed in the ARMS' book
(``arm_rules``, ``arm_decision``, ``arm_rejection``, ``arm_trade``, ``arm_mark``): the council book, its
seasons and the daily tables never see them. There are no benchmark accounts here: the council's are the
same funds under the same rules and prices.

Idempotent per session and arm: a season restored after a restart from the arms' book's ``arm_mark`` and
``arm_trade`` lines of earlier sessions, and a session already marked is not marked again (only the lines a
killed daemon left unsealed are sealed).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from weakref import WeakKeyDictionary

import structlog

from league.arms.book import ARMS_BOOK, ArmsBooks
from league.arms.lines import (
    ArmAnswerLine,
    ArmDecisionLine,
    ArmMarkLine,
    ArmRejectionLine,
    ArmRulesLine,
    ArmTradeLine,
)
from league.arms.plan import REPEAT_KINDS
from league.clock import parse_iso
from league.jobs.ask import SHOWN
from league.jobs.context import League
from league.jobs.portfolio import RULE_SETS, ProviderBars, bill_rates, reply_object
from league.jsonvalue import Json, JsonObject
from league.portfolio.decisions import Decision, decision_from_reply
from league.portfolio.engine import PriceBook
from league.portfolio.rules import rule_set
from league.portfolio.seal import fill_from_content, mark_from_content, rules_content, session_lines
from league.portfolio.season import Season

log = structlog.get_logger(__name__)
#: The arms' line model of each kind :func:`league.portfolio.seal.session_lines` gives, in sealing order.
ARM_MODELS: dict[str, type[ArmDecisionLine | ArmRejectionLine | ArmTradeLine | ArmMarkLine]] = {
    "decision": ArmDecisionLine, "rejection": ArmRejectionLine, "trade": ArmTradeLine, "mark": ArmMarkLine}
_SESSION_LINES = (ArmDecisionLine, ArmRejectionLine, ArmTradeLine, ArmMarkLine)
#: Each open league's seasons by (arm, rule set), built at first use.
_SEASONS: WeakKeyDictionary[League, dict[tuple[str, str], Season]] = WeakKeyDictionary()
#: The last session each of them has run in memory (restored or marked).
_MARKED: WeakKeyDictionary[League, dict[tuple[str, str], str]] = WeakKeyDictionary()
#: The bar source every arm season of a league reads (each session through a fresh PriceBook).
_BARS: WeakKeyDictionary[League, ProviderBars] = WeakKeyDictionary()


def account_arms(lg: League) -> list[str]:
    """The configured arms that hold accounts (the repeats never decide anything)."""
    return [a for a in lg.config.settings.arms.arms if a not in REPEAT_KINDS]


def mark_arms(lg: League, session: str) -> int:
    """Seal the session's account lines of every arm that ran on it, both leagues; returns the lines sealed.

    Nothing (and no arms' book opened) when the league has no arms, no arms' book yet, or no portfolio stage."""
    arms = account_arms(lg)
    if not lg.stages.portfolio or not arms or not (lg.books.dir / ARMS_BOOK).is_file():
        return 0
    books = lg.arms
    ran = {r.arm for r in books.runs(session) if r.repeat == 0}
    sealed = 0
    for arm in arms:
        if arm not in ran:
            continue
        sealed += _seal_rules(books, arm)
        decisions = arm_decisions(lg, books, arm, session)
        for name, season in _seasons(lg, books, arm, session).items():
            sealed += _mark(lg, books, arm, name, season, session, decisions)
    return sealed


def _mark(lg: League, books: ArmsBooks, arm: str, name: str, season: Season, session: str,
          decisions: list[Decision]) -> int:
    key = (arm, name)
    if _MARKED[lg].get(key, "") >= session:
        return 0
    season.prices = PriceBook(_BARS[lg])  # only this session's bars are kept (as the council's stage does)
    outcome = season.run_session(date.fromisoformat(session), decisions)
    _MARKED[lg][key] = session
    lines = session_lines(outcome)
    done = [x.kind.removeprefix("arm_") for _, x in books.lines() if isinstance(x, _SESSION_LINES)
            and x.arm == arm and x.league == name and x.session == session]
    if done and sorted(done) != sorted(kind for kind, _ in lines[: len(done)]):
        log.error("arm_accounts.sealed_prefix_differs", arm=arm, league=name, session=session, sealed=len(done))
    books.seal_all([ARM_MODELS[kind].from_content({**content, "arm": arm}) for kind, content in lines[len(done):]])
    return len(lines) - len(done)


def _seal_rules(books: ArmsBooks, arm: str) -> int:
    """Each rule set once per arm, before it governs the arm's first decision."""
    sealed = {x.rules for _, x in books.lines() if isinstance(x, ArmRulesLine) and x.arm == arm}
    todo = [name for name in RULE_SETS if name not in sealed]
    books.seal_all([ArmRulesLine.from_content({**rules_content(rule_set(name)), "arm": arm}) for name in todo])
    return len(todo)


def arm_decisions(lg: League, books: ArmsBooks, arm: str, session: str) -> list[Decision]:
    """One decision per seat: its first answered ``arm_answer`` of the arm on the session (baselines too)."""
    first: dict[str, tuple[int, ArmAnswerLine]] = {}
    for n, x in books.lines():
        if (isinstance(x, ArmAnswerLine) and x.arm == arm and x.repeat == 0 and x.session == session
                and x.status == "answered" and x.seat not in first):
            first[x.seat] = (n, x)
    day = date.fromisoformat(session)
    return [decision_from_reply(reply_object(lg.data_dir, a.own_sha256, a.raw_encoding, a.items), seat=seat,
                                session=day, at=a.sealed_time(), model=a.model, version=a.version, answer_line=n)
            for seat, (n, a) in sorted(first.items())]


def _seasons(lg: League, books: ArmsBooks, arm: str, before: str) -> dict[str, Season]:
    """The arm's season of each rule set, restored the first time from its lines of sessions before ``before``."""
    if lg not in _BARS:
        _BARS[lg] = ProviderBars(lg.market)
        _SEASONS[lg] = {}
        _MARKED[lg] = {}
    seasons, marked = _SEASONS[lg], _MARKED[lg]
    if any((arm, name) not in seasons for name in RULE_SETS):
        bills = bill_rates(lg)
        for name in RULE_SETS:
            season = Season(rule_set(name), _BARS[lg], bills, seed=lg.config.settings.prices.seed, benchmarks=False)
            last = _restore(books, arm, name, season, before)
            if last is not None:
                marked[(arm, name)] = last
            seasons[(arm, name)] = season
    return {name: seasons[(arm, name)] for name in RULE_SETS}


def _restore(books: ArmsBooks, arm: str, name: str, season: Season, before: str) -> str | None:
    """The season from every one of the arm's marks and trades of the league before ``before``; the last
    session restored, or ``None`` when there is none."""
    marks = [x for _, x in books.lines() if isinstance(x, ArmMarkLine) and x.arm == arm and x.league == name
             and x.session < before]
    if not marks:
        return None
    fills = [fill_from_content(x.content()) for _, x in books.lines() if isinstance(x, ArmTradeLine)
             and x.arm == arm and x.league == name and x.session < before]
    season.restore([mark_from_content(m.content()) for m in marks], fills)
    return max(m.session for m in marks)


def arm_account(books: ArmsBooks, seat: str, arm: str, *,
                until: datetime | None = None) -> dict[str, JsonObject] | None:
    """A seat's own accounts in an arm, as the arm's ask shows them: ``{league: {as_of, cash, value, …}}`` from its
    latest ``arm_mark`` per league (the fields of league.jobs.ask.seat_accounts), or ``None`` before its first.
    ``until``: only marks sealed by then (the text of an ask re-sent after a restart is the text first sealed)."""
    latest: dict[str, ArmMarkLine] = {}
    for _, x in books.lines():
        if (isinstance(x, ArmMarkLine) and x.arm == arm and x.account == seat
                and (until is None or parse_iso(x.at) <= until)):
            latest[x.league] = x  # book order: the last one is the latest
    if not latest:
        return None
    return {league: {"as_of" if k == "session" else k: _shown(getattr(m, k)) for k in SHOWN}
            for league, m in sorted(latest.items())}


def _shown(value: str | Mapping[str, str]) -> Json:
    return value if isinstance(value, str) else dict(value)
