"""Seat-versus-crowd comparison of scoring.md §8 (pure functions, no I/O).

Each row pairs a seat's ``crowd_up`` for one contract with the crowd's sealed price and the
contract's own outcome. Both are scored on the CROWD's terms (its reference, its close), so the
seat is judged on the question the crowd actually traded. The crowd's event and the league's event
are close but not the same; ``d`` is the share of (session, market) pairs where they resolved in
opposite directions, and a Brier gap no larger than ``2d`` is not read as an advantage either way,
because a gap that small could come from the questions differing rather than from skill.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal

from league.crowd.interface import THIN_VOLUME_USD, CrowdError
from league.jsonvalue import Json, JsonObject

Tier = Literal["primary", "thin"]
Advantage = Literal["seat", "crowd", "none"]


@dataclass(frozen=True, slots=True)
class CrowdRow:
    """One seat's ``crowd_up`` (0-100) on one contract, with the crowd price (0-1) and both outcomes."""

    session: date
    market: str
    seat: str
    crowd_up: float
    crowd_price: float
    crowd_outcome: bool | None
    league_outcome: bool | None
    volume_usd: float
    venue: str = ""
    contract_id: str = ""
    #: the crowd's price at the minute the seat's answer was sealed (the ``crowd`` line), if read
    price_at_answer: float | None = None
    answer_minute: str = ""

    def __post_init__(self) -> None:
        if not (math.isfinite(self.crowd_up) and 0.0 <= self.crowd_up <= 100.0):
            raise CrowdError(f"{self.seat} {self.market} {self.session}: crowd_up must be 0-100, got {self.crowd_up}")
        if not (math.isfinite(self.crowd_price) and 0.0 <= self.crowd_price <= 1.0):
            raise CrowdError(f"{self.market} {self.session}: crowd price must be 0-1, got {self.crowd_price}")
        if not (math.isfinite(self.volume_usd) and self.volume_usd >= 0.0):
            raise CrowdError(f"{self.market} {self.session}: volume must be >= 0, got {self.volume_usd}")

    @property
    def tier(self) -> Tier:
        """Primary comparisons admit sealed volume >= $1,000; thinner contracts are reported apart."""
        return "thin" if self.volume_usd < THIN_VOLUME_USD else "primary"


@dataclass(frozen=True, slots=True)
class SeatVsCrowd:
    """One seat against the crowd in one tier; ``gap`` > 0 means the seat's Brier is lower (better)."""

    seat: str
    tier: Tier
    n: int
    seat_brier: float
    crowd_brier: float
    gap: float
    d: float | None
    d_n: int
    advantage: Advantage


def brier(probabilities: Sequence[float], outcomes: Sequence[bool]) -> float:
    """Mean squared error of probabilities (0-1) against 0/1 outcomes."""
    if not probabilities or len(probabilities) != len(outcomes):
        raise CrowdError(f"brier needs equal non-empty lists, got {len(probabilities)} and {len(outcomes)}")
    return sum((p - float(o)) ** 2 for p, o in zip(probabilities, outcomes, strict=True)) / len(probabilities)


def divergence(rows: Iterable[CrowdRow]) -> tuple[float | None, int]:
    """(d, pairs): share of (session, market) pairs whose crowd and league outcomes differ.

    Pairs where either outcome is unknown (unresolved, a league draw) are left out; no pair gives None.
    """
    pairs: dict[tuple[date, str], bool] = {}
    for row in rows:
        if row.crowd_outcome is not None and row.league_outcome is not None:
            pairs[(row.session, row.market)] = row.crowd_outcome != row.league_outcome
    if not pairs:
        return None, 0
    return sum(pairs.values()) / len(pairs), len(pairs)


def advantage(gap: float, d: float | None) -> Advantage:
    """Only a gap beyond ``2d`` reads as an advantage; with ``d`` unknown nothing does."""
    if d is None or abs(gap) <= 2.0 * d:
        return "none"
    return "seat" if gap > 0 else "crowd"


def _one(seat: str, tier: Tier, rows: Sequence[CrowdRow]) -> SeatVsCrowd:
    outcomes = [bool(r.crowd_outcome) for r in rows]
    seat_b = brier([r.crowd_up / 100.0 for r in rows], outcomes)
    crowd_b = brier([r.crowd_price for r in rows], outcomes)
    d, d_n = divergence(rows)
    gap = crowd_b - seat_b
    return SeatVsCrowd(seat, tier, len(rows), seat_b, crowd_b, gap, d, d_n, advantage(gap, d))


def compare(rows: Iterable[CrowdRow]) -> list[SeatVsCrowd]:
    """Per seat and tier (primary first), over rows whose crowd contract has resolved."""
    groups: dict[tuple[str, Tier], list[CrowdRow]] = {}
    for row in rows:
        if row.crowd_outcome is not None:
            groups.setdefault((row.seat, row.tier), []).append(row)
    order = sorted(groups, key=lambda key: (key[0], key[1] != "primary"))
    return [_one(seat, tier, groups[(seat, tier)]) for seat, tier in order]


def sealed_quotes(crowd: Sequence[Json] | None) -> list[dict[str, Json]]:
    """The sealed quotes of a run line's ``crowd`` (anything else in it is not a quote and is passed over)."""
    keys = ("market", "venue", "contract_id", "price", "volume_usd")
    return [q for q in crowd or [] if isinstance(q, dict) and all(k in q for k in keys)]


def _right(p: float, outcome: bool) -> bool | None:
    """On the side that happened: True/False; a 50 takes no side (None)."""
    return None if p == 0.5 else (p > 0.5) == outcome


def _who(model: bool | None, crowd: bool | None) -> str:
    return {(True, True): "both", (True, False): "model", (False, True): "crowd"}.get(
        (bool(model), bool(crowd)), "neither")


def question(row: CrowdRow) -> JsonObject:
    """One question of §4.9 (paper): the model's p (``crowd_up``/100), the crowd's sealed p at ask time and
    at the answer's minute, both Briers on the crowd's own outcome, and who was right (a 50 is neither)."""
    out = row.crowd_outcome
    model_p, crowd_p, at_p = row.crowd_up / 100.0, row.crowd_price, row.price_at_answer
    model_right = None if out is None else _right(model_p, out)
    crowd_right = None if out is None else _right(crowd_p, out)
    return {
        "session": row.session.isoformat(), "market": row.market, "venue": row.venue,
        "contract_id": row.contract_id, "seat": row.seat, "tier": row.tier, "volume_usd": row.volume_usd,
        "model_p": model_p, "crowd_p": crowd_p, "answer_minute": row.answer_minute, "crowd_p_at_answer": at_p,
        "resolved_up": out,
        "model_brier": None if out is None else (model_p - float(out)) ** 2,
        "crowd_brier": None if out is None else (crowd_p - float(out)) ** 2,
        "crowd_brier_at_answer": None if out is None or at_p is None else (at_p - float(out)) ** 2,
        "model_right": model_right, "crowd_right": crowd_right,
        "who_was_right": None if out is None else _who(model_right, crowd_right),
    }


def at_answer_minute(rows: Iterable[CrowdRow]) -> list[JsonObject]:
    """Per seat and tier: the seat against the crowd of its OWN answer minute (paper §4.9: the calibration
    file's clock), on resolved rows whose answer-minute price was read; ``gap`` > 0: the seat's Brier is lower."""
    groups: dict[tuple[str, Tier], list[CrowdRow]] = {}
    for row in rows:
        if row.crowd_outcome is not None and row.price_at_answer is not None:
            groups.setdefault((row.seat, row.tier), []).append(row)
    out: list[JsonObject] = []
    for seat, tier in sorted(groups, key=lambda key: (key[0], key[1] != "primary")):
        g = groups[(seat, tier)]
        outcomes = [bool(r.crowd_outcome) for r in g]
        seat_b = brier([r.crowd_up / 100.0 for r in g], outcomes)
        crowd_b = brier([float(r.price_at_answer or 0.0) for r in g], outcomes)
        out.append({"seat": seat, "tier": tier, "n": len(g), "seat_brier": seat_b,
                    "crowd_brier_at_answer": crowd_b, "gap": crowd_b - seat_b})
    return out
