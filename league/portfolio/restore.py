"""Where a season resumes after a restart, read from a few sessions' sealed lines instead of all of them.

A season restored from every ``mark`` and ``trade`` of the league (:meth:`Season.restore`) reads the
whole history: the score job of a fresh process grew with the season. The same state is in a
handful of sessions' lines:

* every open account is marked at every session it lives through (accounts are never closed), so the
  last marked session holds each account's last mark;
* the season's session count (the benchmarks' index) is the number of sessions with marks;
* an account's fill count is the ``seq`` of its last trade. Its mark's ``traded_total`` never decreases
  and its ``positions`` change with every fill, so its last trade is at the first session whose mark
  already shows the final (``traded_total``, ``positions``): found by bisection over the marked
  sessions, O(log sessions) one-session reads per account. (The one history this misreads: after the
  final key first shows, fills that moved no cent and put every position back where it was — a sub-cent
  round trip, e.g. 0.0001 shares of a fund under $50 bought and later sold back, with no fill of a cent
  or more in between. Not met in the synthetic leagues checked; the fall-back below does not catch it.)

:func:`resume_point` returns ``None`` whenever what it reads does not fit those facts (a session whose
marks lack an account of the session before — a half-sealed session —, a league missing from the first
or last marked session, a change of key without a trade line); the caller then restores from the whole
history as before. No I/O here: the caller passes how to read one session's lines.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from league import records
from league.portfolio.engine import Mark
from league.portfolio.seal import mark_of

#: One session's sealed lines of a kind (``mark`` or ``trade``), as records, any league.
SessionLines = Callable[[str, str], Sequence[records.Sealed]]


@dataclass(frozen=True)
class ResumePoint:
    """What :meth:`league.portfolio.season.Season.resume` needs: the state after the last marked session."""

    marks: tuple[Mark, ...]
    fills: Mapping[str, int]
    sessions: tuple[date, ...]


class _Reader:
    """One league's marks by session, each session read once."""

    def __init__(self, league: str, read: SessionLines) -> None:
        self.league = league
        self.read = read
        self.cache: dict[str, dict[str, records.Mark]] = {}

    def marks(self, session: str) -> dict[str, records.Mark]:
        if session not in self.cache:
            self.cache[session] = {m.account: m for m in self.read("mark", session)
                                   if isinstance(m, records.Mark) and m.league == self.league}
        return self.cache[session]

    def trades(self, session: str, account: str) -> list[records.Trade]:
        return [t for t in self.read("trade", session)
                if isinstance(t, records.Trade) and t.league == self.league and t.account == account]


def _key(mark: records.Mark | None) -> tuple[Decimal, tuple[tuple[str, str], ...]] | None:
    """What every fill changes: the traded total grows (or stays, for a sub-cent fill) and a position moves."""
    if mark is None:
        return None
    return Decimal(mark.traded_total), tuple(sorted(mark.positions.items()))


def _fill_count(reader: _Reader, sessions: Sequence[str], account: str, last: records.Mark) -> int | None:
    """The ``seq`` of the account's last trade (0 if none); ``None`` when the lines do not fit the facts."""
    final = _key(last)
    lo = bisect_left(sessions, last.opened)
    hi = len(sessions) - 1
    while lo < hi:  # the first session whose mark shows the final key
        mid = (lo + hi) // 2
        if _key(reader.marks(sessions[mid]).get(account)) == final:
            hi = mid
        else:
            lo = mid + 1
    trades = reader.trades(sessions[lo], account)
    if trades:
        return max(t.seq for t in trades)
    opened_here = sessions[lo] == last.opened
    return 0 if opened_here else None  # a key changed without a trade: not what the engine seals


def resume_point(league: str, sessions: Sequence[str], read: SessionLines) -> ResumePoint | None:
    """The league's state after ``sessions`` (the marked sessions, ISO dates, ascending), or ``None``."""
    if not sessions:
        return None
    reader = _Reader(league, read)
    last = reader.marks(sessions[-1])
    if not last or not reader.marks(sessions[0]):
        return None
    if len(sessions) > 1 and not set(reader.marks(sessions[-2])) <= set(last):
        return None
    fills: dict[str, int] = {}
    for account, mark in sorted(last.items()):
        count = _fill_count(reader, sessions, account, mark)
        if count is None:
            return None
        fills[account] = count
    marks = tuple(mark_of(m) for _, m in sorted(last.items()))
    return ResumePoint(marks=marks, fills=fills, sessions=tuple(date.fromisoformat(s) for s in sessions))
