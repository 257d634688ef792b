"""A league season in memory: accounts per seat, per model version, and the benchmarks.

The integrator feeds one session at a time (the counted decisions of that session); the season
returns everything that must be sealed (decisions, fills, rejections, marks) in a stable order.
No I/O and no clock: the same sessions, decisions and bars always give the same outcome.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time

from league.portfolio.benchmarks import benchmarks_for
from league.portfolio.bills import BillRates
from league.portfolio.decisions import Decision
from league.portfolio.engine import (
    ET,
    AccountState,
    Execution,
    Fill,
    Mark,
    PriceBook,
    Rejection,
    open_account,
    step,
)
from league.portfolio.interface import BarSource, PortfolioError
from league.portfolio.rules import RuleSet


@dataclass(frozen=True)
class SessionOutcome:
    """What one session produced, ready for :mod:`league.portfolio.seal` and the published files."""

    league: str
    session: date
    decisions: tuple[tuple[str, Decision], ...]
    executions: tuple[Execution, ...]
    rejections: tuple[Rejection, ...]
    marks: tuple[Mark, ...]
    opened: tuple[str, ...] = ()


@dataclass
class _Versions:
    """Which model version each seat runs, and how many versions each model has had."""

    current: dict[str, tuple[str, str]] = field(default_factory=dict)
    account: dict[str, str] = field(default_factory=dict)
    seen: dict[str, list[str]] = field(default_factory=dict)

    def restore(self, seat_versions: Mapping[str, tuple[str, str]], accounts: Iterable[str]) -> None:
        """Rebuild from each seat's last (model, version) and the ``_ver:`` accounts already open."""
        self.current = dict(seat_versions)
        opened = set(accounts)
        for seat, (model, version) in sorted(self.current.items()):
            numbers = sorted(int(a.rsplit(":", 1)[1]) for a in opened if a.startswith(f"_ver:{model}:"))
            self.seen[model] = [f"?{n}" for n in range(1, numbers[-1] if numbers else 1)] + [version]
            if numbers:
                self.account[seat] = f"_ver:{model}:{numbers[-1]}"

    def account_for(self, decision: Decision) -> tuple[str | None, bool]:
        """The version account this decision also drives, and whether it opens now (a take-over)."""
        if not decision.model or not decision.version:
            return self.account.get(decision.seat), False
        now = (decision.model, decision.version)
        before = self.current.get(decision.seat)
        self.current[decision.seat] = now
        versions = self.seen.setdefault(decision.model, [])
        if decision.version not in versions:
            versions.append(decision.version)
        if before is None or before == now:
            return self.account.get(decision.seat), False
        account = f"_ver:{decision.model}:{versions.index(decision.version) + 1}"
        self.account[decision.seat] = account
        return account, True


def _state_from_mark(mark: Mark, fills: int) -> AccountState:
    return AccountState(league=mark.league, account=mark.account, capital=mark.capital, opened=mark.opened,
                        cash=mark.cash, positions=dict(mark.positions), last_session=mark.session,
                        last_prices=dict(mark.prices), peak=mark.peak, fees_paid=mark.fees_total,
                        traded=mark.traded_total, fills=fills)


class Season:
    """All accounts of one league (one rule set) across a season."""

    def __init__(self, rules: RuleSet, bars: BarSource, bills: BillRates, *, seed: int = 0,
                 benchmarks: bool = True) -> None:
        self.rules = rules
        self.bills = bills
        self.seed = seed
        self.prices = PriceBook(bars)
        self.accounts: dict[str, AccountState] = {}
        self.history: dict[str, list[Mark]] = {}
        self.fills: list[Fill] = []
        self._makers = benchmarks_for(rules) if benchmarks else {}
        self._versions = _Versions()
        self._sessions: list[date] = []

    def restore(self, marks: Iterable[Mark], fills: Iterable[Fill],
                seat_versions: Mapping[str, tuple[str, str]] | None = None) -> None:
        """Resume after a restart from sealed lines (``mark_from_content`` / ``fill_from_content``).

        Each account restarts from its last mark (cash, positions, closes, peak, totals) and its fill count;
        ``seat_versions`` (seat → (model, version) of its last counted decision) lets take-overs continue.
        """
        if self.accounts:
            raise PortfolioError("restore() only on a fresh season")
        counts: dict[str, int] = {}
        for fill in fills:
            if fill.league == self.rules.name:
                counts[fill.account] = max(counts.get(fill.account, 0), fill.seq)
        for m in sorted((m for m in marks if m.league == self.rules.name), key=lambda m: (m.account, m.session)):
            self.history.setdefault(m.account, []).append(m)
            self.accounts[m.account] = _state_from_mark(m, counts.get(m.account, 0))
        self._sessions = sorted({m.session for ms in self.history.values() for m in ms})
        self._versions.restore(seat_versions or {}, self.accounts)

    def resume(self, marks: Iterable[Mark], fills: Mapping[str, int], sessions: Sequence[date]) -> None:
        """Resume from the last marked session alone (:func:`league.portfolio.restore.resume_point`): the
        same accounts, fill counts and session count as :meth:`restore` over the whole history, without
        reading it. ``history`` then holds only those last marks (the job's seasons publish nothing)."""
        if self.accounts:
            raise PortfolioError("resume() only on a fresh season")
        for m in sorted((m for m in marks if m.league == self.rules.name), key=lambda m: m.account):
            self.history[m.account] = [m]
            self.accounts[m.account] = _state_from_mark(m, fills.get(m.account, 0))
        self._sessions = sorted(sessions)
        self._versions.restore({}, self.accounts)

    def run_session(self, session: date, decisions: Iterable[Decision] = ()) -> SessionOutcome:
        """Run one session: open accounts, execute or reject decisions, mark every open account."""
        if self._sessions and session <= self._sessions[-1]:
            raise PortfolioError(f"session {session} is not after {self._sessions[-1]}")
        routed, opened = self._route(session, list(decisions))
        self._sessions.append(session)
        executions: list[Execution] = []
        rejections: list[Rejection] = []
        marks: list[Mark] = []
        for account in sorted(self.accounts):
            result = step(self.accounts[account], session, routed.get(account), self.rules, self.prices, self.bills)
            self.accounts[account] = result.state
            self.history.setdefault(account, []).append(result.mark)
            executions.extend([result.execution] if result.execution else [])
            self.fills.extend(result.execution.fills if result.execution else ())
            rejections.extend([result.rejection] if result.rejection else [])
            marks.append(result.mark)
        return SessionOutcome(league=self.rules.name, session=session,
                              decisions=tuple(sorted(routed.items(), key=lambda kv: kv[0])),
                              executions=tuple(executions), rejections=tuple(rejections), marks=tuple(marks),
                              opened=tuple(opened))

    def _route(self, session: date, decisions: Sequence[Decision]) -> tuple[dict[str, Decision], list[str]]:
        routed: dict[str, Decision] = {}
        opened: list[str] = []
        for decision in sorted(decisions, key=lambda d: d.seat):
            if decision.session != session:
                raise PortfolioError(f"decision of {decision.seat} is for {decision.session}, not {session}")
            if decision.seat in routed or decision.seat in self._makers or decision.seat.startswith("_ver:"):
                raise PortfolioError(f"{decision.seat}: one counted decision per seat and session, and no id of a "
                                     "benchmark or version account")
            routed[decision.seat] = decision
            version_account, takeover = self._versions.account_for(decision)
            if version_account:
                routed[version_account] = decision.for_account(version_account)
            for account in [decision.seat] + ([version_account] if takeover and version_account else []):
                opened.extend(self._open(account, session))
        opened.extend(self._benchmarks(session, routed))
        return routed, opened

    def _open(self, account: str, session: date) -> list[str]:
        if account in self.accounts:
            return []
        self.accounts[account] = open_account(self.rules, account, session)
        return [account]

    def _benchmarks(self, session: date, routed: dict[str, Decision]) -> list[str]:
        opened: list[str] = []
        index = len(self._sessions)
        at = datetime.combine(session, time(9, 30), tzinfo=ET)
        for account, maker in sorted(self._makers.items()):
            if index == 0:
                opened.extend(self._open(account, session))
            if account in self.accounts:
                decision = maker(self.rules, session, index, at, self.seed)
                if decision is not None:
                    routed[account] = decision
        return opened
