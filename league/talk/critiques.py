"""A chair's critiques: the record, how one is applied to a portfolio, how it resolves, and F22. Pure.

A critique questions one position of one seat's portfolio (``target`` letter, ``market``, the position's
``weight`` in percent that the chair would hold instead) and states the fund's ``direction`` over the next
five sessions. F22 is the share of resolved critiques whose direction came true, with its Wilson interval.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypedDict

from league.talk import TalkError

Direction = Literal["up", "down"]
DIRECTIONS: tuple[Direction, ...] = ("up", "down")
#: Sessions between a critique's reference close and the close it is resolved on.
HORIZON_SESSIONS = 5
#: The normal quantile of a two-sided 95% interval (statistics.NormalDist().inv_cdf(0.975)).
Z95 = 1.959963984540054
#: Room for float sums: a portfolio of weights summing to 100 + 1e-9 is still fully invested, not over.
SUM_TOLERANCE = 1e-9


def check_weights(weights: Mapping[str, float], what: str) -> None:
    """Refuse a portfolio that is not long-only percent weights summing to at most 100 (the rest is cash)."""
    for fund, w in weights.items():
        if not fund:
            raise TalkError(f"{what}: a fund name is empty")
        if isinstance(w, bool) or not isinstance(w, int | float) or not math.isfinite(w) or not 0 <= w <= 100:
            raise TalkError(f"{what}: weight {w!r} of {fund} is not a number from 0 to 100")
    total = sum(weights.values())
    if total > 100 + SUM_TOLERANCE:
        raise TalkError(f"{what}: weights sum to {total:g}%, more than 100 (long-only; the rest is cash)")


@dataclass(frozen=True, slots=True)
class Critique:
    """One critique as the chair wrote it; validated when built."""

    target: str
    market: str
    risk: str
    weight: float
    direction: Direction

    def __post_init__(self) -> None:
        if not self.target or not self.market:
            raise TalkError("a critique names a target letter and a market")
        if isinstance(self.weight, bool) or not math.isfinite(self.weight) or not 0 <= self.weight <= 100:
            raise TalkError(f"a critique's weight {self.weight!r} is not from 0 to 100 (percent)")
        if self.direction not in DIRECTIONS:
            raise TalkError(f"a critique's direction {self.direction!r} is not up or down")


def fund_for(critique: Critique, fund_of_market: Mapping[str, str]) -> str:
    """The fund that carries the critique's market (config/markets.toml ``fund``)."""
    fund = fund_of_market.get(critique.market, "")
    if not fund:
        raise TalkError(f"market {critique.market} has no fund", fix="critique a market with a fund")
    return fund


def apply_critique(weights: Mapping[str, float], critique: Critique,
                   fund_of_market: Mapping[str, str]) -> dict[str, float]:
    """The portfolio with the critique applied: what the seat would hold had it followed the chair.

    The rule: the questioned position (the fund of the critique's market) is set to the critique's weight;
    every other position is unchanged, unless the total would then pass 100%, in which case the other
    positions are scaled down by one common factor, (100 - critique weight) / (their sum), so that the total
    is exactly 100 and their proportions are kept. Cash is whatever stays below 100. The chair's number wins
    over the others because it is the one the critique states; the others shrink proportionally because the
    critique says nothing about them.
    """
    check_weights(weights, "the critiqued portfolio")
    fund = fund_for(critique, fund_of_market)
    others = {f: float(w) for f, w in weights.items() if f != fund}
    room = 100.0 - critique.weight
    held = sum(others.values())
    if held > room and held > 0:
        factor = room / held
        others = {f: w * factor for f, w in others.items()}
    out = {f: others.get(f, float(critique.weight)) for f in weights}
    out[fund] = float(critique.weight)
    return out


def resolve_direction(closes: Sequence[float]) -> bool | None:
    """Whether the fund went up: its close five sessions after the reference (``closes[5]``) strictly above
    the reference close (``closes[0]``); a close equal to the reference is not up. None with fewer than six
    closes (the week has not run its course). Later closes, if given, are not read."""
    if len(closes) <= HORIZON_SESSIONS:
        return None
    first, last = closes[0], closes[HORIZON_SESSIONS]
    for c in (first, last):
        if not math.isfinite(c) or c <= 0:
            raise TalkError(f"close {c!r} is not a positive price")
    return last > first


def came_true(critique: Critique, closes: Sequence[float]) -> bool | None:
    """Whether the critique's stated direction came true over the next five sessions (None: unresolved)."""
    up = resolve_direction(closes)
    if up is None:
        return None
    return up == (critique.direction == "up")


class F22(TypedDict):
    """F22 as :func:`f22` returns it."""

    n: int
    hits: int
    share: float | None
    ci95: list[float] | None


def wilson(hits: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of ``hits`` out of ``n`` (None for n = 0): unlike the normal interval it
    stays within [0, 1] and is honest for the few critiques of a season."""
    if n <= 0:
        return None
    if not 0 <= hits <= n:
        raise TalkError(f"{hits} hits out of {n}")
    p = hits / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def f22(outcomes: Sequence[bool]) -> F22:
    """F22: {"n", "hits", "share", "ci95": [lo, hi]} over the resolved critiques (share and ci95 None for none)."""
    n = len(outcomes)
    hits = sum(1 for o in outcomes if o)
    interval = wilson(hits, n)
    return {"n": n, "hits": hits, "share": hits / n if n else None,
            "ci95": list(interval) if interval is not None else None}
