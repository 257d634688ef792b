"""Each eligibility rule of bench.md as its own predicate, plus selection and the round caps."""

from __future__ import annotations

from datetime import timedelta

import pytest
from contest_helpers import NOW, book, books, market

from league.contest.config import EligibilityRules
from league.contest.eligibility import (
    Candidate,
    RoundsState,
    book_refusal,
    category_of,
    category_share_ok,
    closes_in_window,
    concurrency_ok,
    daily_cap_ok,
    favourite_at_most,
    has_order_book,
    is_open,
    pick_for_rounds,
    real_two_sided_book,
    screen,
    select_across_categories,
    sellers_on_every_outcome,
    topic_allowed,
)

RULES = EligibilityRules()


def test_open_for_trading() -> None:
    assert is_open(market()) is None
    assert is_open(market(closed=True)) == "not open for trading"
    assert is_open(market(accepting_orders=False)) == "not open for trading"


@pytest.mark.parametrize("left,ok", [(timedelta(minutes=29, seconds=59), False), (timedelta(minutes=30), True),
                                     (timedelta(days=7), True), (timedelta(days=7, seconds=1), False)])
def test_closes_within_seven_days_with_thirty_minutes_left(left: timedelta, ok: bool) -> None:
    reason = closes_in_window(market(end=NOW + left), NOW, RULES)
    assert (reason is None) is ok


def test_favourite_at_most_85_cents() -> None:
    assert favourite_at_most(market(prices=(0.85, 0.15)), RULES) is None
    assert "0.860" in (favourite_at_most(market(prices=(0.86, 0.14)), RULES) or "")
    assert favourite_at_most(market(prices=()), RULES) == "no listed prices"


def test_sellers_on_every_outcome() -> None:
    m = market()
    assert sellers_on_every_outcome(m, books(m)) is None
    thin = {"Yes": book(), "No": book(asks=())}
    assert sellers_on_every_outcome(m, thin) == "no sellers on 'No'"


def test_placeholder_price_without_any_book_is_refused() -> None:
    m = market(prices=(0.5, 0.5))
    empty = {"Yes": book(bids=(), asks=()), "No": book(bids=(), asks=())}
    assert "placeholder price" in (has_order_book(m, empty) or "")
    assert "placeholder price" in (book_refusal(m, empty, RULES) or "")


def test_real_two_sided_book_needs_bids_and_a_tight_spread() -> None:
    m = market()
    assert real_two_sided_book(m, books(m), RULES) is None
    one_sided = {"Yes": book(), "No": book(bids=())}
    assert "no bid" in (real_two_sided_book(m, one_sided, RULES) or "")
    # the reference's 0.5/0.5 "crowd": a 1¢ bid and a 99¢ ask
    wide = {"Yes": book(bids=((0.01, 1000),), asks=((0.99, 1000),)), "No": book()}
    assert "spread 0.98" in (real_two_sided_book(m, wide, RULES) or "")


@pytest.mark.parametrize("question,tags,reason", [
    ("Will the climber die on K2?", (), "keyword 'die'"),
    ("Earthquake above 7.0 in Chile?", (), "keyword 'earthquake'"),
    ("Will the ceasefire hold?", ("war",), "tag 'war'"),
    ("Assassination attempt before May?", (), "keyword 'assassinat'"),
])
def test_excluded_topics_by_tag_and_keyword(question: str, tags: tuple[str, ...], reason: str) -> None:
    assert reason in (topic_allowed(market(question=question, tags=tags), RULES) or "")


@pytest.mark.parametrize("question", ["Diego vs. Dieter: who wins?", "Warriors vs. Lakers", "Diet soda ban?"])
def test_keywords_do_not_catch_innocent_words(question: str) -> None:
    # "die " and "war " must end a word there
    assert topic_allowed(market(question=question, tags=()), RULES) is None


def test_category_from_tags_then_venue_then_other() -> None:
    cats = {"sports": ("nba", "sports"), "crypto": ("bitcoin",)}
    assert category_of(market(tags=("nba",)), cats) == "sports"
    assert category_of(market(tags=("misc",), category="weather"), cats) == "weather"
    assert category_of(market(tags=()), cats) == "other"


def test_no_category_above_forty_percent_of_the_week() -> None:
    assert category_share_ok("sports", (), RULES) is None  # a category's first round: 1 of 1
    assert category_share_ok("sports", ("crypto", "tech"), RULES) is None  # first sports round: 1 of 3
    assert category_share_ok("sports", ("sports", "crypto", "tech", "politics", "culture"), RULES) is None  # 2 of 6
    assert category_share_ok("sports", ("sports", "crypto", "tech", "politics"), RULES) is None  # 2 of 5 = 40 %
    assert "60%" in (category_share_ok("sports", ("sports", "sports", "crypto", "tech"), RULES) or "")  # 3 of 5


def test_the_category_cap_holds_after_the_pick() -> None:
    """Regression: the share was checked before the pick, so 2 of 5 (40 %) let a third round in: 3 of 6 = 50 %."""
    week = ("sports", "sports", "crypto", "tech", "politics")
    reason = category_share_ok("sports", week, RULES)
    assert reason is not None and "50%" in reason and "3 of 6" in reason
    assert category_share_ok("crypto", week, RULES) is None  # 2 of 6 = 33 %
    picked, refused = pick_for_rounds([_cand("s", "sports"), _cand("c", "crypto")],
                                      RoundsState(today=0, running=0, past_week=week), RULES)
    assert [c.market.id for c in picked] == ["c"] and [r.market_id for r in refused] == ["s"]


def test_daily_and_concurrent_caps() -> None:
    assert daily_cap_ok(4, RULES) is None and daily_cap_ok(5, RULES) is not None
    assert concurrency_ok(2, RULES) is None and concurrency_ok(3, RULES) is not None


def _cand(mid: str, cat: str, comments: int = 0) -> Candidate:
    m = market(mid, comments=comments)
    return Candidate(m, books(m), cat)


def test_selection_mixes_categories_and_caps_each() -> None:
    cands = [_cand(f"s{i}", "sports", 100 - i) for i in range(20)] + [_cand(f"c{i}", "crypto", 50) for i in range(3)]
    chosen = select_across_categories(cands, 10, 0.4)
    cats = [c.category for c in chosen]
    assert cats.count("sports") == 4 and cats.count("crypto") == 3  # cap = 40% of 10
    assert [c.market.id for c in chosen if c.category == "sports"] == ["s0", "s1", "s2", "s3"]  # press order


def test_press_attention_ranks_candidates() -> None:
    quiet, loud = market("q", comments=1, volume=10.0), market("l", comments=300, volume=5.0)
    ok, refused = screen([quiet, loud], NOW, RULES, {}, lambda m: books(m))
    assert [c.market.id for c in ok] == ["l", "q"] and refused == []


def test_screen_reads_books_only_for_listing_eligible_markets() -> None:
    read: list[str] = []
    far = market("far", end=NOW + timedelta(days=9))

    def reader(m: object) -> dict[str, object]:
        read.append(m.id)  # type: ignore[attr-defined]
        return books(m)  # type: ignore[arg-type]

    ok, refused = screen([far, market("near")], NOW, RULES, {}, reader)  # type: ignore[arg-type]
    assert read == ["near"] and [r.market_id for r in refused] == ["far"]


def test_round_picks_respect_daily_cap_concurrency_and_category() -> None:
    cands = [_cand("a", "sports"), _cand("b", "sports"), _cand("c", "crypto"), _cand("d", "tech")]
    picked, refused = pick_for_rounds(cands, RoundsState(today=3, running=0, past_week=("politics",)), RULES)
    assert [c.market.id for c in picked] == ["a", "c"]  # b: sports would be 2 of 3 (67%) after a; d: 5 a day
    assert [r.market_id for r in refused] == ["b", "d"]
    assert "category 'sports' would hold 67%" in refused[0].reason
    assert "5 rounds already opened today" in refused[1].reason
    picked, refused = pick_for_rounds(cands, RoundsState(today=0, running=3, past_week=()), RULES)
    assert picked == [] and all("at once" in r.reason for r in refused)
