"""The strict sweep parser: one agent's raw reply -> probabilities per market, plus what went wrong.

Rules (bench.md; the reference's reading, made strict where it was lenient):
- the LAST valid ``{"forecasts": [...]}`` object in the text counts (agents think aloud first);
- each entry names a swept market ``id`` and ``probabilities`` keyed by outcome label, matched
  case-insensitively; an unknown label or a repeated one drops that market;
- a number ``1 < p ≤ 100`` is read as a percent; anything else outside [0, 1] drops the market;
- a two-outcome market with one side given gets the complement ``1 − p``;
- any other missing outcome drops the market (lower coverage) and is reported;
- the given probabilities must sum to 1 within ``tolerance``: then they are clamped to
  [0.01, 0.99] and renormalised; further off, the market is refused (the agent answered something
  else than a distribution, and we do not guess which number it meant);
- markets the object does not mention are reported missing. Nothing is ever invented.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from league.contest.asks import SweptMarket
from league.contest.stats import clamp_normalise
from league.jsonvalue import Json, JsonObject

OPENING = re.compile(r'\{\s*"forecasts"\s*:')
DECIMALS = 6


@dataclass
class SweepParse:
    """What one reply yielded: forecasts by market id, and the reasons for everything left out."""

    found_object: bool
    forecasts: dict[str, dict[str, float]] = field(default_factory=dict)
    dropped: dict[str, str] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)

    def report(self) -> JsonObject:
        return {"found_object": self.found_object, "forecasts": len(self.forecasts),
                "dropped": {k: v for k, v in sorted(self.dropped.items())}, "missing": [*sorted(self.missing)],
                "ignored": [*self.ignored]}


def last_forecasts_object(text: str) -> list[Json] | None:
    """The ``forecasts`` list of the last decodable ``{"forecasts": [...]}`` object, or None."""
    decoder = json.JSONDecoder()
    found = None
    for match in OPENING.finditer(text):
        try:
            obj: Json = decoder.raw_decode(text, match.start())[0]
        except ValueError:
            continue
        if isinstance(obj, dict) and isinstance(forecasts := obj.get("forecasts"), list):
            found = forecasts
    return found


def _number(value: Json | None) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _as_probability(value: Json | None) -> float | None:
    p = _number(value)
    if p is None or p < 0 or p > 100:
        return None
    return p / 100 if p > 1 else p


def read_market(market: SweptMarket, given: Mapping[str, Json],
                tolerance: float) -> tuple[dict[str, float] | None, str]:
    """One market's probabilities, or None and the reason it was dropped."""
    by_lower = {o.lower(): o for o in market.outcomes}
    probs: dict[str, float] = {}
    for key, value in given.items():
        label = by_lower.get(str(key).strip().lower())
        if label is None:
            return None, f"unknown outcome {key!r}"
        if label in probs:
            return None, f"outcome {label!r} given twice"
        p = _as_probability(value)
        if p is None:
            return None, f"probability {value!r} for {label!r} is not a number in [0, 1] or a percent"
        probs[label] = p
    if len(market.outcomes) == 2 and len(probs) == 1:
        (label, p), = probs.items()
        probs[next(o for o in market.outcomes if o != label)] = 1.0 - p
    missing = [o for o in market.outcomes if o not in probs]
    if missing:
        return None, f"missing outcomes {missing}"
    total = math.fsum(probs.values())
    if abs(total - 1.0) > tolerance + 1e-12:
        return None, f"probabilities sum to {total:.4f}, outside 1 ± {tolerance:g}"
    normalised = clamp_normalise(probs)
    return {o: round(normalised[o], DECIMALS) for o in market.outcomes}, ""


def parse_sweep(text: str, markets: Sequence[SweptMarket], tolerance: float) -> SweepParse:
    entries = last_forecasts_object(text)
    if entries is None:
        return SweepParse(found_object=False, missing=[m.id for m in markets])
    by_id = {m.id: m for m in markets}
    out = SweepParse(found_object=True)
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(given := entry.get("probabilities"), dict):
            out.ignored.append(f"entry {i}: not an object with an id and probabilities")
            continue
        market_id = str(entry.get("id", "")).strip()
        market = by_id.get(market_id)
        if market is None:
            out.ignored.append(f"entry {i}: id {entry.get('id')!r} is not a swept market")
            continue
        if market_id in out.forecasts or market_id in out.dropped:
            out.forecasts.pop(market_id, None)
            out.dropped[market_id] = "market given twice"
            continue
        probs, reason = read_market(market, given, tolerance)
        if probs is None:
            out.dropped[market_id] = reason
        else:
            out.forecasts[market_id] = probs
    out.missing = [m.id for m in markets if m.id not in out.forecasts and m.id not in out.dropped]
    return out
