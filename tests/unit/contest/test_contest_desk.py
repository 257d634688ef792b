"""The bet clock (atomic, one second late forfeits), the bet rules and the quote rules."""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from contest_helpers import NOW, book, market

from league.clock import SimulatedClock
from league.contest import ledger as L
from league.contest.bench_server import BenchRefused
from league.contest.config import RoundRules
from league.contest.desk import BetWindow, Desk, clean_quote
from league.contest.ledger import Ledger
from league.contest.markets.interface import Market, OrderBook
from league.contest.markets.orders import PaperBroker


class Venue:
    def __init__(self, m: Market, books: dict[str, OrderBook]) -> None:
        self.m, self.books = m, books

    def book(self, token_id: str) -> OrderBook:
        return self.books[token_id]

    def history(self, token_id: str) -> list[tuple[int, float]]:
        return [(1, 0.4), (2, 0.45)]


@pytest.fixture()
def desk(tmp_path: Path) -> Any:
    clock = SimulatedClock(NOW)
    m = market()
    venue = Venue(m, {m.token_ids[0]: book(asks=((0.41, 50), (0.44, 1000))), m.token_ids[1]: book(asks=())})
    with Ledger(tmp_path / "book.jsonl", clock) as ledger:
        d = Desk(1, "claude", m, venue, PaperBroker(), ledger, RoundRules(), 100.0,  # type: ignore[arg-type]
                 BetWindow(clock, NOW, 300.0))
        yield d, clock, ledger


def bet(d: Desk, **kw: Any) -> Any:
    return d.handle({"cmd": "bet", "outcome": "yes", "confidence": 0.7, "rationale": "because", **kw})


def test_a_bet_on_the_last_second_counts(desk: Any) -> None:
    d, clock, ledger = desk
    clock.set(NOW + timedelta(seconds=300))
    assert bet(d)["placed"] is True
    assert d.window.close() == "bet"
    assert ledger.contents(L.BET)[0]["decided_s"] == 300.0


def test_a_bet_one_second_late_forfeits(desk: Any) -> None:
    d, clock, ledger = desk
    clock.set(NOW + timedelta(seconds=301))
    with pytest.raises(BenchRefused, match="too late"):
        bet(d)
    assert d.window.close() == "forfeit" and d.window.late_attempt == NOW + timedelta(seconds=301)
    assert ledger.contents(L.BET) == []


def test_after_the_close_no_bet_lands_even_with_time_on_the_clock(desk: Any) -> None:
    d, _, ledger = desk
    assert d.window.close() == "forfeit"  # the agent's run ended at 10 s without a bet
    with pytest.raises(BenchRefused, match="too late"):
        bet(d)
    assert ledger.contents(L.BET) == []


def test_close_and_bet_racing_give_one_consistent_state(desk: Any) -> None:
    d, _, ledger = desk
    barrier = threading.Barrier(2)
    results: list[str] = []

    def place() -> None:
        barrier.wait()
        try:
            bet(d)
            results.append("bet")
        except BenchRefused:
            results.append("refused")

    t = threading.Thread(target=place)
    t.start()
    barrier.wait()
    state = d.window.close()
    t.join()
    assert (state, results[0], len(ledger.contents(L.BET))) in (("bet", "bet", 1), ("forfeit", "refused", 0))


def test_one_bet_only(desk: Any) -> None:
    d, _, _ = desk
    bet(d)
    with pytest.raises(BenchRefused, match="already placed"):
        bet(d)


def test_ioc_fill_walks_the_book_up_to_ask_plus_five_cents(desk: Any) -> None:
    d, _, ledger = desk
    answer = bet(d)
    line = ledger.contents(L.BET)[0]
    assert line["limit"] == pytest.approx(0.46)
    # 50 shares at 0.41 (20.5 tokens), then 79.5 / 0.44 shares at 0.44
    assert line["shares"] == pytest.approx(50 + 79.5 / 0.44) and line["spent"] == pytest.approx(100.0)
    assert answer["outcome"] == "Yes" and answer["unspent"] == 0.0


def test_refused_bets_leave_the_window_open(desk: Any) -> None:
    d, _, _ = desk
    with pytest.raises(BenchRefused, match="unknown outcome"):
        bet(d, outcome="Maybe")
    with pytest.raises(BenchRefused, match="confidence"):
        bet(d, confidence=1.5)
    with pytest.raises(BenchRefused, match="no sellers"):
        bet(d, outcome="NO")
    with pytest.raises(BenchRefused, match="did not fill"):
        bet(d, max_price=0.30)
    with pytest.raises(BenchRefused, match="rationale"):
        bet(d, rationale="  ")
    assert bet(d)["placed"] is True


def test_arguments_with_dollars_quotes_and_newlines_survive(desk: Any) -> None:
    d, _, ledger = desk
    text = "It's a \"$100\" edge: $HOME stays $HOME\nsecond line; `no shell` \\ here"
    bet(d, rationale=text, quote="'$5' says \"yes\"")
    line = ledger.contents(L.BET)[0]
    assert line["rationale"] == text and line["quote"] == "'$5' says \"yes\""


def test_a_bad_quote_is_dropped_but_the_bet_stands(desk: Any) -> None:
    d, _, ledger = desk
    answer = bet(d, quote="see https://example.org for proof")
    assert answer["placed"] and answer["quote"] is None and "link" in answer["note"]
    assert ledger.contents(L.BET)[0]["quote"] is None


@pytest.mark.parametrize("quote,expected,note", [
    ("x" * 121, "x" * 120, "cut to 120"),
    ("x" * 120, "x" * 120, ""),
    ("ping @rival now", None, "@mention"),
    ("visit www.rival.gg", None, "link"),
    ("my site is rival.com", None, "link"),
    ("email-free, 100% sure", "email-free, 100% sure", ""),
    ("", None, ""),
])
def test_quote_rules(quote: str, expected: str | None, note: str) -> None:
    got, why = clean_quote(quote, 120)
    assert got == expected and note in why


def test_market_view_shows_prices_books_and_seconds_left(desk: Any) -> None:
    d, clock, _ = desk
    clock.set(NOW + timedelta(seconds=100))
    view = d.handle({"cmd": "market"})
    assert view["seconds_left"] == 200 and view["stake"] == 100.0 and view["outcomes"] == ["Yes", "No"]
    assert view["best_ask"] == [0.41, None] and view["market_id"] == "m1"
    assert d.handle({"cmd": "book", "outcome": "YES"})["asks"][0] == {"price": 0.41, "size": 50.0}
    assert d.handle({"cmd": "history", "outcome": "no"})["history"][0] == {"t": 1, "p": 0.4}
    with pytest.raises(BenchRefused, match="unknown command"):
        d.handle({"cmd": "sell"})


def test_seconds_left_rounds_down_and_is_zero_once_the_window_is_decided(desk: Any) -> None:
    d, clock, _ = desk
    clock.set(NOW + timedelta(seconds=100, milliseconds=400))
    assert d.handle({"cmd": "market"})["seconds_left"] == 199  # 199.6 s left: never promise the 200th
    clock.set(NOW + timedelta(seconds=299, milliseconds=1))
    assert d.window.seconds_left() == 0  # under one second left shows 0; a bet now still lands
    assert bet(d)["placed"] is True
    assert d.handle({"cmd": "market"})["seconds_left"] == 0  # a placed bet: the window is decided
