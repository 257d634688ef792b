"""The chair's reply and a critiqued seat's reply, parsed. Pure and total: these parsers never raise.

Each reads the LAST JSON object of the reply (a fenced block preferred), as the council's answers are read
(:func:`league.answers.find_json`, with its bounds against hostile replies). A reply is checked, never
repaired: a field that breaks a rule makes the reply not ``ok`` with a ``failure`` that says which field and
why; the caller keeps the raw text sealed as received. Keys the parser does not read are noted, not refused.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass, field

from league.answers import TEXT_CAP, clean_text, find_json, show
from league.jsonvalue import Json
from league.talk.critiques import DIRECTIONS, SUM_TOLERANCE, Critique

MIN_CRITIQUES = 2
MAX_CRITIQUES = 3
CRITIQUE_KEYS = ("target", "market", "risk", "weight", "direction")


@dataclass(frozen=True)
class ChairReply:
    """The chair's reply as read: the council's portfolio and its critiques when ``ok``, else the failure."""

    ok: bool
    failure: str = ""
    council_portfolio: dict[str, float] = field(default_factory=dict)
    critiques: tuple[Critique, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class StatedReply:
    """A critiqued seat's reply as read: the portfolio it states it will hold when ``ok``, else the failure."""

    ok: bool
    failure: str = ""
    portfolio: dict[str, float] = field(default_factory=dict)


class _Refused(Exception):
    """A field breaks a rule; its text is the reply's failure."""


def _weight(value: Json, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Refused(f"{where}: {show(value)} is not a number (a weight in percent)")
    w = float(value)
    if not math.isfinite(w) or not 0 <= w <= 100:
        raise _Refused(f"{where}: {show(value)} is outside 0-100 (a weight in percent)")
    return w


def _portfolio(value: Json, funds: Collection[str], where: str) -> dict[str, float]:
    if not isinstance(value, dict):
        raise _Refused(f"{where} is not an object of fund -> weight in percent")
    out: dict[str, float] = {}
    for fund, w in value.items():
        if fund not in funds:
            raise _Refused(f"{where}: unknown fund {show(fund)} (funds: {', '.join(sorted(funds))})")
        out[fund] = _weight(w, f"{where}.{fund}")
    total = sum(out.values())
    if total > 100 + SUM_TOLERANCE:
        raise _Refused(f"{where}: weights sum to {total:g}%, more than 100 (long-only: at most 100%, the rest "
                       "is cash)")
    return out


def _critique(value: Json, i: int, letters: Collection[str], markets: Collection[str]) -> Critique:
    where = f"critiques[{i}]"
    if not isinstance(value, dict):
        raise _Refused(f"{where} is not an object")
    missing = [k for k in CRITIQUE_KEYS if k not in value]
    if missing:
        raise _Refused(f"{where} lacks {', '.join(missing)}")
    target, market, risk, direction = value["target"], value["market"], value["risk"], value["direction"]
    if not isinstance(target, str) or target not in letters:
        raise _Refused(f"{where}.target: unknown letter {show(target)} (letters: {', '.join(sorted(letters))})")
    if not isinstance(market, str) or market not in markets:
        raise _Refused(f"{where}.market: unknown market {show(market)}")
    if not isinstance(risk, str) or not risk.strip():
        raise _Refused(f"{where}.risk is not a non-empty text")
    if not isinstance(direction, str) or direction not in DIRECTIONS:
        raise _Refused(f"{where}.direction: {show(direction)} is not \"up\" or \"down\"")
    weight = _weight(value["weight"], f"{where}.weight")
    return Critique(target=target, market=market, risk=clean_text(risk.strip(), TEXT_CAP), weight=weight,
                    direction="up" if direction == "up" else "down")


def _chair(raw: str, letters: Collection[str], markets: Collection[str], funds: Collection[str]) -> ChairReply:
    obj, why = find_json(raw)
    if obj is None:
        return ChairReply(ok=False, failure=why)
    notes = tuple(f"key {show(k)} is not read" for k in sorted(obj) if k not in ("council_portfolio", "critiques"))
    try:
        if "council_portfolio" not in obj:
            raise _Refused("the reply's JSON object has no council_portfolio")
        council = _portfolio(obj["council_portfolio"], funds, "council_portfolio")
        listed = obj.get("critiques")
        if not isinstance(listed, list):
            raise _Refused("critiques is missing or not a list")
        if not MIN_CRITIQUES <= len(listed) <= MAX_CRITIQUES:
            raise _Refused(f"{len(listed)} critiques given; the chair writes {MIN_CRITIQUES} or {MAX_CRITIQUES}")
        critiques = tuple(_critique(c, i, letters, markets) for i, c in enumerate(listed))
        seen: set[tuple[str, str]] = set()
        for c in critiques:
            if (c.target, c.market) in seen:
                raise _Refused(f"two critiques question {c.target}'s {c.market}; one critique per position")
            seen.add((c.target, c.market))
    except _Refused as refused:
        return ChairReply(ok=False, failure=str(refused), notes=notes)
    return ChairReply(ok=True, council_portfolio=council, critiques=critiques, notes=notes)


def parse_chair(raw: str, *, letters: Collection[str], markets: Collection[str],
                funds: Collection[str]) -> ChairReply:
    """The chair's reply: the last JSON object's ``council_portfolio`` (fund -> weight in percent, long-only,
    summing to at most 100) and its 2 or 3 ``critiques`` (each a known target letter, a known market, a
    non-empty risk, a weight from 0 to 100, a direction "up" or "down"; one critique per target and market).
    Never raises: anything unexpected is a failure too."""
    try:
        return _chair(raw, letters, markets, funds)
    except (ValueError, TypeError, RecursionError) as exc:  # the total parser's last guard
        return ChairReply(ok=False, failure=f"the reply could not be read: {clean_text(str(exc), TEXT_CAP)}")


def parse_reply(raw: str, *, funds: Collection[str]) -> StatedReply:
    """A critiqued seat's reply: the last JSON object's ``portfolio`` (fund -> weight in percent, long-only,
    summing to at most 100). Never raises."""
    try:
        obj, why = find_json(raw)
        if obj is None:
            return StatedReply(ok=False, failure=why)
        if "portfolio" not in obj:
            return StatedReply(ok=False, failure="the reply's JSON object has no portfolio")
        return StatedReply(ok=True, portfolio=_portfolio(obj["portfolio"], funds, "portfolio"))
    except _Refused as refused:
        return StatedReply(ok=False, failure=str(refused))
    except (ValueError, TypeError, RecursionError) as exc:
        return StatedReply(ok=False, failure=f"the reply could not be read: {clean_text(str(exc), TEXT_CAP)}")
