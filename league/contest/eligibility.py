"""Market eligibility (bench.md "Market eligibility"): one pure predicate per rule.

Each predicate returns ``None`` when the market passes and otherwise the refusal reason, in words a
reader of the published ``refusals`` list understands. Nothing here reads a clock or a venue: the
caller passes ``now``, the books read at that moment and the past week's rounds.

Where bench.md is silent (written down in docs/contest.md):
- "sellers on every outcome" = at least one ask on every outcome's book;
- "a real two-sided book" = a bid AND an ask on every outcome, each spread at most
  ``max_spread`` (10¢ by default). The reference swept markets whose "crowd" was Gamma's placeholder
  0.5/0.5 with no book behind it; such a market has no bid or no ask, or a 1¢/99¢ book, and is refused;
- the favourite's price is the listing's highest outcome price (what the public sees);
- a market's category is the first configured category any of its tags belongs to, else the venue's
  own category field, else "other";
- "no category above 40% of the past week's rounds": a market is refused when its category already
  holds more than 40% of the rounds opened in the last 7 days (an empty week refuses nothing);
- "press attention preferred" is a ranking, not a filter: comment count, then 24-hour volume.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from league.contest.config import EligibilityRules
from league.contest.markets.interface import Market, OrderBook

Refusal = str | None


def is_open(market: Market) -> Refusal:
    if market.closed or not market.active or not market.accepting_orders:
        return "not open for trading"
    return None


def closes_in_window(market: Market, now: datetime, rules: EligibilityRules) -> Refusal:
    left = market.end - now
    if left < timedelta(minutes=rules.min_minutes_left):
        return f"closes in less than {rules.min_minutes_left:g} minutes"
    if left > timedelta(days=rules.max_days_to_close):
        return f"closes in more than {rules.max_days_to_close:g} days"
    return None


def favourite_at_most(market: Market, rules: EligibilityRules) -> Refusal:
    if not market.prices:
        return "no listed prices"
    top = max(market.prices)
    if top > rules.max_favourite + 1e-12:
        return f"favourite priced {top:.3f}, above {rules.max_favourite:.2f}"
    return None


def _words(text: str) -> str:
    return " " + re.sub(r"\s+", " ", text.lower()) + " "


def topic_allowed(market: Market, rules: EligibilityRules) -> Refusal:
    """Excluded topics (death, violence, disaster) by tag, then by keyword in question or description."""
    tags = set(market.tags)
    for tag in rules.excluded_tags:
        if tag.lower() in tags:
            return f"excluded topic: tag {tag!r}"
    text = _words(f"{market.question} {market.description}")
    for word in rules.excluded_keywords:
        if _matches_keyword(text, word.lower()):
            return f"excluded topic: keyword {word.strip()!r}"
    return None


def _matches_keyword(text: str, word: str) -> bool:
    """A keyword matches at a word start; a keyword without trailing space may continue
    (``assassinat`` matches "assassination"); with one it must end there (``war `` is not "warriors")."""
    stem = word.strip()
    if not stem:
        return False
    tail = r"\b" if word.endswith(" ") else ""
    return re.search(r"\b" + re.escape(stem) + tail, text) is not None


def has_order_book(market: Market, books: Mapping[str, OrderBook]) -> Refusal:
    """A listing price with no order at all behind it is a placeholder (the reference's 0.5/0.5)."""
    bare = [o for o in market.outcomes if o not in books or not (books[o].bids or books[o].asks)]
    return f"placeholder price: no order book on {', '.join(repr(o) for o in bare)}" if bare else None


def sellers_on_every_outcome(market: Market, books: Mapping[str, OrderBook]) -> Refusal:
    empty = [o for o in market.outcomes if o not in books or books[o].best_ask is None]
    return f"no sellers on {', '.join(repr(o) for o in empty)}" if empty else None


def real_two_sided_book(market: Market, books: Mapping[str, OrderBook], rules: EligibilityRules) -> Refusal:
    for outcome in market.outcomes:
        book = books.get(outcome)
        bid, ask = (book.best_bid, book.best_ask) if book else (None, None)
        if bid is None or ask is None:
            return f"no real two-sided book on {outcome!r} (placeholder price, no {'bid' if bid is None else 'ask'})"
        if ask - bid > rules.max_spread + 1e-12:
            return f"no real two-sided book on {outcome!r} (spread {ask - bid:.2f} above {rules.max_spread:.2f})"
    return None


def category_of(market: Market, categories: Mapping[str, Sequence[str]]) -> str:
    tags = set(market.tags)
    for name, members in categories.items():
        if tags & {m.lower() for m in members}:
            return name
    return market.category or "other"


def category_share_ok(category: str, past_week: Sequence[str], rules: EligibilityRules) -> Refusal:
    """The cap must hold *after* the pick: a round that would take its category from 2 of 5 rounds to 3 of 6
    (50 %) is refused, though 2 of 5 is within 40 %. A category's first round in the window is always allowed
    (1 of 1 is 100 %: otherwise no round could open in an empty or short week)."""
    count = sum(1 for c in past_week if c == category)
    if count == 0:
        return None
    after, total = count + 1, len(past_week) + 1
    if after > rules.max_category_share * total + 1e-12:
        return (f"category {category!r} would hold {after / total:.0%} of the past week's rounds with this one "
                f"({after} of {total}; at most {rules.max_category_share:.0%})")
    return None


def daily_cap_ok(rounds_today: int, rules: EligibilityRules) -> Refusal:
    if rounds_today >= rules.rounds_per_day:
        return f"{rounds_today} rounds already opened today (UTC), at most {rules.rounds_per_day}"
    return None


def concurrency_ok(running: int, rules: EligibilityRules) -> Refusal:
    if running >= rules.rounds_at_once:
        return f"{running} rounds already running, at most {rules.rounds_at_once} at once"
    return None


def press_rank(market: Market) -> tuple[int, float, str]:
    """Sort key, most press attention first when sorted descending (ties: newest id last-resort)."""
    return (market.comment_count, market.volume_24h, market.id)


def listing_refusal(market: Market, now: datetime, rules: EligibilityRules) -> Refusal:
    """The checks that need no order book (run first, so books are read only for candidates)."""
    return (is_open(market) or closes_in_window(market, now, rules) or favourite_at_most(market, rules)
            or topic_allowed(market, rules))


def book_refusal(market: Market, books: Mapping[str, OrderBook], rules: EligibilityRules) -> Refusal:
    return (has_order_book(market, books) or sellers_on_every_outcome(market, books)
            or real_two_sided_book(market, books, rules))


@dataclass(frozen=True)
class Candidate:
    """An eligible market with the books read for it and its category."""

    market: Market
    books: Mapping[str, OrderBook]
    category: str


@dataclass(frozen=True)
class Refused:
    market_id: str
    question: str
    reason: str

    def as_json(self) -> dict[str, str]:
        return {"market_id": self.market_id, "question": self.question, "reason": self.reason}


def screen(markets: Iterable[Market], now: datetime, rules: EligibilityRules,
           categories: Mapping[str, Sequence[str]],
           read_books: Callable[[Market], Mapping[str, OrderBook]]) -> tuple[list[Candidate], list[Refused]]:
    """Split markets into eligible candidates (ranked by press attention) and refusals with reasons."""
    ok: list[Candidate] = []
    refused: list[Refused] = []
    for market in sorted(markets, key=press_rank, reverse=True):
        reason = listing_refusal(market, now, rules)
        books: Mapping[str, OrderBook] = {}
        if reason is None:
            books = read_books(market)
            reason = book_refusal(market, books, rules)
        if reason:
            refused.append(Refused(market.id, market.question, reason))
        else:
            ok.append(Candidate(market, books, category_of(market, categories)))
    return ok, refused


def select_across_categories(candidates: Sequence[Candidate], n: int, max_share: float) -> list[Candidate]:
    """Up to ``n`` candidates, round-robin over categories (each in press order), no category above
    ``max_share`` of ``n`` (at least one per category)."""
    cap = max(1, int(max_share * n))
    queues: dict[str, list[Candidate]] = {}
    for c in candidates:
        queues.setdefault(c.category, []).append(c)
    order = sorted(queues, key=lambda cat: press_rank(queues[cat][0].market), reverse=True)
    taken: dict[str, int] = dict.fromkeys(order, 0)
    out: list[Candidate] = []
    while len(out) < n:
        progressed = False
        for cat in order:
            if queues[cat] and taken[cat] < cap and len(out) < n:
                out.append(queues[cat].pop(0))
                taken[cat] += 1
                progressed = True
        if not progressed:
            break
    return out


@dataclass(frozen=True)
class RoundsState:
    """What the round caps look at: today's count, running rounds, the past week's categories."""

    today: int
    running: int
    past_week: tuple[str, ...]


def pick_for_rounds(candidates: Sequence[Candidate], state: RoundsState,
                    rules: EligibilityRules) -> tuple[list[Candidate], list[Refused]]:
    """New rounds for the best candidates that still fit the daily cap, the concurrency cap and the
    category share (each pick counts for the next)."""
    picked: list[Candidate] = []
    refused: list[Refused] = []
    past = list(state.past_week)
    for c in candidates:
        reason = (daily_cap_ok(state.today + len(picked), rules)
                  or concurrency_ok(state.running + len(picked), rules)
                  or category_share_ok(c.category, past, rules))
        if reason:
            refused.append(Refused(c.market.id, c.market.question, reason))
            continue
        picked.append(c)
        past.append(c.category)
    return picked, refused
