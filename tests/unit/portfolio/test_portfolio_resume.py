"""A season resumed from its last marked session equals one restored from its whole history.

The score job of a fresh process restores both paper leagues; reading every mark and trade made it grow
with the season. :func:`league.portfolio.restore.resume_point` reads a few sessions instead; these
tests seal a long season's lines, restore it both ways at several points and check the states and the
next session's sealed lines are the same.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import date
from typing import Any

import pytest
from portfolio_helpers import et

from league import records
from league.portfolio.bills import BillRates
from league.portfolio.decisions import ActionCell, Decision
from league.portfolio.restore import resume_point
from league.portfolio.rules import ARENA_3, PRO_1, RuleSet
from league.portfolio.seal import fill_from_content, mark_from_content, session_lines
from league.portfolio.season import Season
from league.portfolio.synthetic import SyntheticBars, weekday_sessions
from league.records import record

SESSIONS = weekday_sessions(date(2026, 3, 2), 48)
PLAYBOOK = [
    {"SPX": "buy_strong", "GOLD": "buy_strong", "BTC": "buy_dips", "TNX": "sell"},
    {"SPX": "hold", "GOLD": "trim", "NDX": "buy_strong", "DJI": "buy_strong"},
    {"SPX": "sell", "COPPER": "buy_strong", "SOX": "buy_strong"},
]
Lines = dict[tuple[str, str], list[dict[str, Any]]]


def _decisions(bars: SyntheticBars, rules: RuleSet, i: int, day: date) -> list[Decision]:
    """alpha decides every session; beta only the first three (its last trade is far back); gamma joins at
    session 10 and changes version at 30 (a take-over account)."""
    seats = ["alpha"] + (["beta"] if i < 3 else []) + (["gamma"] if i >= 10 else [])
    out = []
    for k, seat in enumerate(seats):
        actions = PLAYBOOK[(i + k) % len(PLAYBOOK)]
        cells = {m: ActionCell(a, entry=bars.bars(rules.indicators[m], day)[0].open * 0.998)
                 for m, a in actions.items()}
        version = "2" if seat == "gamma" and i >= 30 else "1"
        out.append(Decision(seat=seat, session=day, at=et(day, 9, 10), cells=cells, model=seat, version=version))
    return out


def _season(rules: RuleSet, bars: SyntheticBars) -> Season:
    return Season(rules, bars, BillRates.constant("4.00"), seed=5)


@pytest.fixture(scope="module")
def sealed() -> tuple[SyntheticBars, Lines]:
    """Every session's sealed portfolio lines of both leagues, by (kind, session)."""
    bars = SyntheticBars(SESSIONS, seed=13, minutes=30)
    lines: Lines = defaultdict(list)
    for rules in (ARENA_3, PRO_1):
        season = _season(rules, bars)
        for i, day in enumerate(SESSIONS):
            for kind, content in session_lines(season.run_session(day, _decisions(bars, rules, i, day))):
                lines[(kind, day.isoformat())].append({"kind": kind, "league": rules.name, **content})
    return bars, lines


def _reader(lines: Lines) -> Any:
    def read(kind: str, session: str) -> Sequence[records.Sealed]:
        return [record(x) for x in lines.get((kind, session), [])]
    return read


def _both_ways(rules: RuleSet, bars: SyntheticBars, lines: Lines, upto: int) -> tuple[Season, Season]:
    """The season after ``upto`` sessions, restored from every line and resumed from the last ones."""
    before = [d.isoformat() for d in SESSIONS[:upto]]
    full = _season(rules, bars)
    mine = [x for s in before for kind in ("mark", "trade") for x in lines.get((kind, s), [])
            if x["league"] == rules.name]
    full.restore([mark_from_content(m) for m in mine if m["kind"] == "mark"],
                 [fill_from_content(t) for t in mine if t["kind"] == "trade"])
    point = resume_point(rules.name, before, _reader(lines))
    assert point is not None
    resumed = _season(rules, bars)
    resumed.resume(point.marks, point.fills, point.sessions)
    return full, resumed


@pytest.mark.parametrize("rules", [ARENA_3, PRO_1], ids=["arena-3", "pro-1"])
@pytest.mark.parametrize("upto", [1, 2, 5, 21, 22, 35, 47])
def test_resumed_state_and_next_session_equal_the_full_restore(sealed: tuple[SyntheticBars, Lines], rules: RuleSet,
                                                               upto: int) -> None:
    bars, lines = sealed
    full, resumed = _both_ways(rules, bars, lines, upto)
    assert resumed.accounts == full.accounts
    assert {a: s.fills for a, s in resumed.accounts.items()} == {a: s.fills for a, s in full.accounts.items()}
    assert resumed._sessions == full._sessions
    day = SESSIONS[upto]
    after_full = session_lines(full.run_session(day, _decisions(bars, rules, upto, day)))
    after_resumed = session_lines(resumed.run_session(day, _decisions(bars, rules, upto, day)))
    assert after_resumed == after_full
    if upto == 47 and rules is ARENA_3:  # the far-back last trade was found: beta traded only at first
        assert full.accounts["beta"].fills > 0


def test_fill_counts_come_from_far_back_trades(sealed: tuple[SyntheticBars, Lines]) -> None:
    bars, lines = sealed
    point = resume_point(ARENA_3.name, [d.isoformat() for d in SESSIONS], _reader(lines))
    assert point is not None
    beta_trades = [t for (kind, _), ts in lines.items() if kind == "trade" for t in ts
                   if t["league"] == ARENA_3.name and t["account"] == "beta"]
    assert point.fills["beta"] == max(int(t["seq"]) for t in beta_trades)
    assert {t["session"] for t in beta_trades} <= {d.isoformat() for d in SESSIONS[:3]}
    assert point.fills["_cash"] == 0


def test_a_half_sealed_last_session_falls_back_to_the_whole_history(sealed: tuple[SyntheticBars, Lines]) -> None:
    _, lines = sealed
    last = SESSIONS[20].isoformat()
    cut = dict(lines)
    cut[("mark", last)] = [m for m in lines[("mark", last)] if m["account"] != "alpha"]
    assert resume_point(ARENA_3.name, [d.isoformat() for d in SESSIONS[:21]], _reader(cut)) is None


def test_a_league_absent_from_the_last_session_is_not_resumed(sealed: tuple[SyntheticBars, Lines]) -> None:
    _, lines = sealed
    last = SESSIONS[20].isoformat()
    cut = dict(lines)
    cut[("mark", last)] = [m for m in lines[("mark", last)] if m["league"] != PRO_1.name]
    assert resume_point(PRO_1.name, [d.isoformat() for d in SESSIONS[:21]], _reader(cut)) is None
    assert resume_point(ARENA_3.name, [d.isoformat() for d in SESSIONS[:21]], _reader(cut)) is not None
