"""Benchmark accounts: the same costs and execution as the seats, decisions fixed in advance.

``_hold_all`` (equal weight over every fund, bought once), ``_spy`` (all in SPY), ``_passive`` (60% SPY,
40% IEF, rebalanced every 21 sessions), ``_cash`` (never trades, earns the bill rate) and ``_random``
(random books drawn within the rules, seeded per session so a replay draws the same). The pro league adds
``_long_spx`` and ``_short_spx`` (all long / all short the S&P 500 fund). Benchmarks other than
``_random`` are exempt from the per-position band: a one-fund benchmark could not exist otherwise.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import date, datetime

from league.portfolio.decisions import Decision
from league.portfolio.rules import RuleSet

PASSIVE_REBALANCE = 21
RANDOM_TRADE_PROBABILITY = 0.25

Maker = Callable[[RuleSet, date, int, datetime, int], Decision | None]


def _book(account: str, session: date, at: datetime, targets: dict[str, float], exempt: bool = True) -> Decision:
    return Decision(seat=account, session=session, at=at, targets=targets, source="benchmark", exempt_limits=exempt)


def _hold_all(rules: RuleSet, session: date, index: int, at: datetime, seed: int) -> Decision | None:
    if index:
        return None
    share = 1.0 / len(rules.funds)
    return _book("_hold_all", session, at, {m: share for m in rules.funds})


def _spy(rules: RuleSet, session: date, index: int, at: datetime, seed: int) -> Decision | None:
    return _book("_spy", session, at, {"SPX": 1.0}) if index == 0 else None


def _passive(rules: RuleSet, session: date, index: int, at: datetime, seed: int) -> Decision | None:
    if index % PASSIVE_REBALANCE:
        return None
    return _book("_passive", session, at, {"SPX": 0.6, "TNX": 0.4})


def _cash(rules: RuleSet, session: date, index: int, at: datetime, seed: int) -> Decision | None:
    return None


def _random(rules: RuleSet, session: date, index: int, at: datetime, seed: int) -> Decision | None:
    """A random book inside the rules: 4-7 funds, each in the band, 95% invested at most."""
    rng = random.Random(f"{seed}:{rules.name}:{session.isoformat()}")
    if index and rng.random() >= RANDOM_TRADE_PROBABILITY:
        return None
    markets = sorted(rules.funds)
    count = rng.randint(4, 7)
    ceiling = min(rules.max_weight, 0.95 / count)
    picks = rng.sample(markets, count)
    return _book("_random", session, at, {m: rng.uniform(rules.min_weight, ceiling) for m in picks}, exempt=False)


def _long_spx(rules: RuleSet, session: date, index: int, at: datetime, seed: int) -> Decision | None:
    return _book("_long_spx", session, at, {"SPX": 1.0}) if index == 0 else None


def _short_spx(rules: RuleSet, session: date, index: int, at: datetime, seed: int) -> Decision | None:
    return _book("_short_spx", session, at, {"SPX": -1.0}) if index == 0 else None


LONG_ONLY: dict[str, Maker] = {
    "_hold_all": _hold_all, "_spy": _spy, "_passive": _passive, "_cash": _cash, "_random": _random,
}
LONG_SHORT: dict[str, Maker] = {"_long_spx": _long_spx, "_short_spx": _short_spx}


def benchmarks_for(rules: RuleSet) -> dict[str, Maker]:
    """The benchmark accounts of a league, by account id."""
    return dict(LONG_SHORT if rules.allow_short else LONG_ONLY)
