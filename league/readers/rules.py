"""The reader experiment's rules and measures (docs/readers.md). Pure: no I/O, no clock.

A reader is an anonymous identifier, assigned once and for ever, at random, to **g0 (blind)**: the council's
answers hidden until its first forecast of the session, or **g1 (see)**: shown at once. Each first forecast per
reader x market x session counts; later ones are recorded as later and never counted. A forecast is a side (up or
down) with a confidence of 55-95 %: probability c/100 for that side.

The measures (:func:`experiment`) are computed on counted first forecasts whose session's 1d outcome is known:
- **Brier** per group, and the two groups compared on the same markets: per market (market x session cell) the
  difference of the groups' mean Brier, weighted by the smaller group's count in that cell (cells where one group
  has no forecast do not enter);
- **time to first forecast** (seconds from the reader's first view of the session to its first forecast);
- **stated confidence against hit rate** (overconfidence = mean confidence/100 - hit rate);
- **anchoring** = share of first forecasts whose side agrees with the consensus direction on offer when it was
  made (the latest disclosed council consensus for that market, shown to g1, hidden from g0);
- counts of identifiers, first forecasts, returns (readers forecasting in more than one session), peeks and
  resets.

The revision protocol (:func:`revision`): a private forecast with the council hidden, then at random the council
or a control display, then a final forecast of the same market and session; the primary outcome is the difference
between the displays in the Brier change from private to final; movement toward the council is reported apart for
sessions where the council was right and where it was wrong.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from league.errors import LeagueError
from league.jsonvalue import Json

GROUPS = ("g0", "g1")
GROUP_LABELS = {"g0": "blind: the council's answers hidden until the reader's first forecast of the session",
                "g1": "see: the council's answers shown at once"}
DISPLAYS = ("council", "control")
CONFIDENCE_MIN, CONFIDENCE_MAX = 55, 95
PLACES = 6
Side = Literal["up", "down"]


class ReaderError(LeagueError):
    """A reader's forecast or request that breaks a rule: the message says which field and why."""


def check_confidence(value: object) -> int:
    """A confidence is a whole number of percent from 55 to 95."""
    if isinstance(value, bool) or not isinstance(value, int) or not CONFIDENCE_MIN <= value <= CONFIDENCE_MAX:
        raise ReaderError(f"confidence {value!r} is not a whole number from {CONFIDENCE_MIN} to {CONFIDENCE_MAX}",
                          fix="state how sure you are, from 55 (barely) to 95 (nearly sure) percent")
    return value


def check_side(value: object) -> Side:
    if value not in ("up", "down"):
        raise ReaderError(f"direction {value!r} is not up or down", fix="choose up or down")
    return "up" if value == "up" else "down"


def probability_up(side: str, confidence: int) -> float:
    """The probability of up a forecast states: c/100 for up, 1 - c/100 for down."""
    return confidence / 100 if side == "up" else 1 - confidence / 100


def brier(side: str, confidence: int, up: int) -> float:
    """(p_up - outcome)^2, outcome 1 when the market closed up."""
    return (probability_up(side, confidence) - up) ** 2


@dataclass(frozen=True)
class First:
    """A counted first forecast with what it is measured against (``up`` None while unresolved)."""

    reader: str
    group: str
    session: str
    market: str
    side: str
    confidence: int
    seconds: float | None
    consensus_up: float | None  # the consensus probability of up on offer (percent), None when none was
    up: int | None


def _r(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else round(x, PLACES)


def _mean(xs: Sequence[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _group(firsts: Sequence[First]) -> dict[str, Json]:
    scored = [f for f in firsts if f.up is not None]
    hits = [1.0 if (f.side == "up") == (f.up == 1) else 0.0 for f in scored]
    conf = [f.confidence / 100 for f in scored]
    with_consensus = [f for f in firsts if f.consensus_up is not None and f.consensus_up != 50]
    agree = [1.0 if (f.side == "up") == (f.consensus_up is not None and f.consensus_up > 50) else 0.0
             for f in with_consensus]
    seconds = [f.seconds for f in firsts if f.seconds is not None]
    hit = _mean(hits)
    mean_conf = _mean(conf)
    return {"first_forecasts": len(firsts), "scored": len(scored),
            "brier": _r(_mean([brier(f.side, f.confidence, f.up) for f in scored if f.up is not None])),
            "hit_rate": _r(hit), "mean_confidence": _r(mean_conf),
            "overconfidence": _r(mean_conf - hit) if hit is not None and mean_conf is not None else None,
            "median_seconds_to_first": _r(sorted(seconds)[len(seconds) // 2]) if seconds else None,
            "anchoring": _r(_mean(agree)), "anchoring_n": len(agree)}


def matched_difference(firsts: Sequence[First]) -> dict[str, Json]:
    """g1 minus g0 mean Brier, cell by cell (market x session), weighted by the smaller group's count there."""
    cells: dict[tuple[str, str], dict[str, list[float]]] = {}
    for f in firsts:
        if f.up is not None:
            cells.setdefault((f.market, f.session), {g: [] for g in GROUPS})[f.group].append(
                brier(f.side, f.confidence, f.up))
    num = den = 0.0
    used = 0
    for by in cells.values():
        a, b = by["g0"], by["g1"]
        if a and b:
            w = min(len(a), len(b))
            num += w * (sum(b) / len(b) - sum(a) / len(a))
            den += w
            used += 1
    return {"g1_minus_g0": _r(num / den) if den else None, "cells": used, "weight": int(den)}


def experiment(readers: Mapping[str, str], firsts: Sequence[First], *, later: int, peeks: Iterable[str],
               resets: int, sessions_by_reader: Mapping[str, set[str]]) -> dict[str, Json]:
    """The published ``experiment`` block: per group (g0, g1) the counts and measures, and the matched difference.
    ``readers``: reader -> group; ``peeks``: the readers recorded peeking; ``resets``: assignments that were resets."""
    peeked = set(peeks)
    groups: dict[str, Json] = {}
    for g in GROUPS:
        mine = [r for r, grp in readers.items() if grp == g]
        returning = [r for r in mine if len(sessions_by_reader.get(r, set())) > 1]
        block = _group([f for f in firsts if f.group == g])
        groups[g] = {"label": GROUP_LABELS[g], "identifiers": len(mine),
                     "forecasting_identifiers": len({f.reader for f in firsts if f.group == g}),
                     "returns": len(returning), "peeks": len([r for r in mine if r in peeked]), **block}
    total = len(readers)
    return {"groups": groups, "matched": matched_difference(firsts), "later_forecasts": later,
            "resets": resets, "reset_share": _r(resets / total) if total else None, "identifiers": total}


@dataclass(frozen=True)
class Revision:
    """One revision-protocol pair: the private and the final forecast of a reader, market and session."""

    display: str
    private_side: str
    private_confidence: int
    final_side: str
    final_confidence: int
    consensus_up: float | None
    up: int | None


def revision(pairs: Sequence[Revision]) -> dict[str, Json]:
    """Per display, the mean Brier change from private to final (final minus private; negative is better) and the
    mean movement toward the council (private distance to the council's p minus the final's, in probability),
    the latter apart for sessions where the council was right and wrong; the primary outcome is the council's
    Brier change minus the control's."""
    out: dict[str, Json] = {}
    change: dict[str, float | None] = {}
    for d in DISPLAYS:
        mine = [p for p in pairs if p.display == d]
        scored = [p for p in mine if p.up is not None]
        deltas = [brier(p.final_side, p.final_confidence, p.up) - brier(p.private_side, p.private_confidence, p.up)
                  for p in scored if p.up is not None]
        change[d] = _mean(deltas)
        moves: dict[str, list[float]] = {"council_right": [], "council_wrong": []}
        for p in scored:
            if p.consensus_up is None or p.consensus_up == 50 or p.up is None:
                continue
            c = p.consensus_up / 100
            before = abs(probability_up(p.private_side, p.private_confidence) - c)
            after = abs(probability_up(p.final_side, p.final_confidence) - c)
            right = (c > 0.5) == (p.up == 1)
            moves["council_right" if right else "council_wrong"].append(before - after)
        out[d] = {"pairs": len(mine), "scored": len(scored), "brier_change": _r(change[d]),
                  "toward_council_when_right": _r(_mean(moves["council_right"])),
                  "toward_council_when_wrong": _r(_mean(moves["council_wrong"])),
                  "n_right": len(moves["council_right"]), "n_wrong": len(moves["council_wrong"])}
    a, b = change["council"], change["control"]
    out["primary"] = {"council_minus_control": _r(a - b) if a is not None and b is not None else None}
    return out
