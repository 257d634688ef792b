"""The IOC price rule, the book walk and P&L."""

from __future__ import annotations

import pytest
from contest_helpers import book, market

from league.contest.markets.orders import OrderError, PaperBroker, limit_price, paper_fill, pnl, walk_book


def test_limit_is_best_ask_plus_five_cents() -> None:
    assert limit_price(0.41, None, slippage=0.05, cap=0.99) == pytest.approx(0.46)


def test_limit_never_above_99_cents() -> None:
    assert limit_price(0.97, None, slippage=0.05, cap=0.99) == pytest.approx(0.99)


def test_agents_own_max_price_wins_even_above_the_default() -> None:
    assert limit_price(0.41, 0.43, slippage=0.05, cap=0.99) == 0.43
    assert limit_price(0.41, 0.60, slippage=0.05, cap=0.99) == 0.60
    assert limit_price(None, 0.30, slippage=0.05, cap=0.99) == 0.30


def test_no_sellers_and_bad_max_price_are_refused() -> None:
    with pytest.raises(OrderError, match="no sellers"):
        limit_price(None, None, slippage=0.05, cap=0.99)
    with pytest.raises(OrderError, match="between 0 and 1"):
        limit_price(0.4, 1.2, slippage=0.05, cap=0.99)


def test_walk_book_fills_cheapest_first_up_to_the_stake() -> None:
    # asks out of order: 0.50 x 40, 0.45 x 100, 0.48 x 1000; limit 0.50, stake 100
    b = book(asks=((0.50, 40), (0.45, 100), (0.48, 1000)))
    shares, cost = walk_book(b, 0.50, 100.0)
    # 100 × 0.45 = 45 spent, then 55 / 0.48 = 114.583… shares at 0.48
    assert cost == pytest.approx(100.0)
    assert shares == pytest.approx(100 + 55 / 0.48)


def test_walk_book_stops_at_the_limit_and_cancels_the_rest() -> None:
    b = book(asks=((0.45, 10), (0.52, 1000)))
    fill = paper_fill(b, 0.50, 100.0)
    assert fill.shares == pytest.approx(10) and fill.spent == pytest.approx(4.5)
    assert fill.avg_price == pytest.approx(0.45)
    assert not paper_fill(book(asks=((0.60, 10),)), 0.50, 100.0).filled


def test_pnl_is_payout_minus_spent() -> None:
    assert pnl(200.0, 100.0, "Yes", "Yes") == pytest.approx(100.0)
    assert pnl(200.0, 100.0, "Yes", "No") == pytest.approx(-100.0)
    assert pnl(10.0, 4.5, "Yes", "Yes") == pytest.approx(5.5)  # unspent stake is not lost


def test_paper_broker_names_the_order() -> None:
    fill = PaperBroker().buy_ioc(market(), "Yes", book(), 0.46, 100.0, "r1-a")
    assert fill.order_id == "paper-r1-a" and fill.limit == 0.46
