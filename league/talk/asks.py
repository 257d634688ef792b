"""The council talk's two ask texts: the chair's and a critiqued seat's. Pure.

The chair reads the seats' portfolios under letters only. These functions take letters, never seat ids,
and refuse a key that is not a letter, so no seat name, model or family can reach the chair through them
(the caller builds the letters with :func:`league.talk.rotation.letter_map`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from league.talk import TalkError
from league.talk.critiques import Critique, check_weights
from league.talk.parse import MAX_CRITIQUES, MIN_CRITIQUES

_LETTER = re.compile(r"[A-Z]{1,3}")


def _letter_key(letter: str) -> tuple[int, str]:
    return len(letter), letter


def _checked_letter(letter: str) -> str:
    if not _LETTER.fullmatch(letter):
        raise TalkError(f"{letter!r} is not a letter A..Z, AA...",
                        fix="pass the portfolios keyed by their week's letters, never by seat")
    return letter


def _pct(weight: float) -> str:
    return f"{weight:g}"


def _table(rows: Mapping[str, Mapping[str, float]], funds: Sequence[str], first: str) -> str:
    head = f"| {first} | " + " | ".join(funds) + " | cash |"
    rule = "|" + "---|" * (len(funds) + 2)
    lines = [head, rule]
    for name in sorted(rows, key=_letter_key):
        weights = rows[name]
        check_weights(weights, f"portfolio {name}")
        unknown = sorted(set(weights) - set(funds))
        if unknown:
            raise TalkError(f"portfolio {name} holds funds outside the list: {', '.join(unknown)}")
        cash = max(0.0, 100.0 - sum(weights.values()))
        cells = [_pct(weights.get(f, 0.0)) for f in funds]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {_pct(cash)} |")
    return "\n".join(lines)


def chair_text(week: str, portfolios_by_letter: Mapping[str, Mapping[str, float]], funds: Sequence[str], *,
               fund_of_market: Mapping[str, str] | None = None) -> str:
    """The chair's ask for week ``week``: every seat's portfolio under its letter (weights in percent of
    equity, cash the rest), then the request for ONE JSON object with the council's portfolio and 2 or 3
    critiques. ``fund_of_market`` (market -> fund), when given, lists the market codes a critique names."""
    for letter in portfolios_by_letter:
        _checked_letter(letter)
    if not portfolios_by_letter:
        raise TalkError("the chair's ask needs at least one portfolio")
    markets = ""
    if fund_of_market:
        pairs = ", ".join(f"{m} ({f})" for m, f in fund_of_market.items() if f)
        markets = f"\nA critique names a market by its code; the markets and their funds: {pairs}.\n"
    letters = ", ".join(sorted(portfolios_by_letter, key=_letter_key))
    return f"""# Council talk, week {week}: you chair

Below is each council member's paper portfolio for the week, under a letter ({letters}); the letters change
every week and say nothing about who holds which portfolio. Weights are percent of equity, long-only; cash is
the rest.

{_table(portfolios_by_letter, funds, "member")}

Write two things.

1. The council's portfolio: the weights (percent of equity, each 0 to 100, summing to at most 100; cash is the
   rest) you would hold for the council, over these funds only: {", ".join(funds)}.
2. Between {MIN_CRITIQUES} and {MAX_CRITIQUES} critiques of the members' positions. Each names the member's
   letter ("target"), the market of the position ("market"), the risk you see in it ("risk", a sentence or two),
   the weight you would give that position instead ("weight", percent, 0 to 100) and the direction you expect
   the fund to move over the next five sessions ("direction": "up" or "down"). At most one critique per member
   and market. Each critique is shown to its member, who states the portfolio it will hold; your direction is
   scored against the fund's close five sessions later.
{markets}
End your reply with ONE JSON object, exactly in this shape:

{{"council_portfolio": {{"FUND": weight_pct, ...}},
 "critiques": [{{"target": "B", "market": "SPX", "risk": "...", "weight": 20, "direction": "up"}}, ...]}}
"""


def reply_text(week: str, letter: str, own_portfolio: Mapping[str, float], critique: Critique | Sequence[Critique],
               *, funds: Sequence[str] | None = None) -> str:
    """A critiqued seat's ask for week ``week``: its own portfolio, the chair's critiques of its positions (one
    ask per seat, however many of its positions the chair questions), and the request for ONE JSON object with
    the portfolio it will hold. ``funds`` (the funds it may hold) default to those of its portfolio."""
    _checked_letter(letter)
    listed = list(funds) if funds is not None else list(own_portfolio)
    critiques = [critique] if isinstance(critique, Critique) else list(critique)
    if not critiques:
        raise TalkError(f"no critique of {letter} to show")
    for c in critiques:
        if c.target != letter:
            raise TalkError(f"the critique targets {c.target}, not {letter}")
    shown = "\n\n".join(f"""- market: {c.market}
- risk: {c.risk}
- the weight the chair would give it: {_pct(c.weight)}%
- the direction the chair expects over the next five sessions: {c.direction}""" for c in critiques)
    which = "one of your positions" if len(critiques) == 1 else f"{len(critiques)} of your positions"
    return f"""# Council talk, week {week}: a critique of your portfolio

Your paper portfolio for the week (weights in percent of equity, long-only; cash is the rest):

{_table({letter: own_portfolio}, listed, "you")}

This week's chair questions {which}:

{shown}

Consider the critique and state the portfolio you will hold: weights in percent of equity, each 0 to 100,
summing to at most 100 (cash is the rest), over these funds only: {", ".join(listed)}. Keeping your portfolio
as it is, is an answer too.

End your reply with ONE JSON object, exactly in this shape:

{{"portfolio": {{"FUND": weight_pct, ...}}}}
"""
