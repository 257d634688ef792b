"""The shadow accounts' simple returns and F23 (league/talk/shadow.py), hand-computed."""

from __future__ import annotations

import pytest

from league.talk import TalkError
from league.talk.critiques import Critique
from league.talk.shadow import f23, shadow_returns, week_accounts

CLOSES = {"SPY": [100.0, 102.0, 110.0],  # +10%
          "QQQ": [200.0, 190.0],  # -5%
          "GLD": [50.0, 50.0]}  # 0


def test_buy_and_hold_returns_with_cash_earning_nothing() -> None:
    got = shadow_returns({"a": {"SPY": 50.0, "QQQ": 30.0},  # 0.5 x 0.10 + 0.3 x -0.05 = 0.05 - 0.015 = 0.035
                          "b": {"QQQ": 100.0},  # -0.05
                          "c": {},  # all cash: 0
                          "d": {"GLD": 20.0, "TLT": 0.0}}, CLOSES)  # 0.2 x 0 = 0; a zero weight needs no prices
    assert got == pytest.approx({"a": 0.035, "b": -0.05, "c": 0.0, "d": 0.0})


def test_a_held_fund_without_prices_is_refused() -> None:
    with pytest.raises(TalkError, match="TLT"):
        shadow_returns({"a": {"TLT": 10.0}}, CLOSES)
    with pytest.raises(TalkError, match="more than 100"):
        shadow_returns({"a": {"SPY": 80.0, "QQQ": 30.0}}, CLOSES)


def test_f23_is_each_account_minus_the_sealed_one() -> None:
    # a 0.035 is the sealed weights: b -0.05 - 0.035 = -0.085, c 0 - 0.035 = -0.035
    got = f23({"a": 0.035, "b": -0.05, "c": 0.0}, "a")
    assert got == pytest.approx({"b": -0.085, "c": -0.035})
    with pytest.raises(TalkError):
        f23({"b": 0.0}, "a")


def test_week_accounts_apply_a_seats_critiques_in_order() -> None:
    critiques = [Critique("B", "NDX", "r", 60.0, "down"), Critique("B", "SPX", "r", 20.0, "up")]
    got = week_accounts({"SPY": 10.0}, {"A": {"SPY": 50.0, "QQQ": 30.0}, "B": {"QQQ": 100.0}}, critiques,
                        {"B": {"QQQ": 50.0}}, {"SPX": "SPY", "NDX": "QQQ"})
    # B: QQQ 100 -> 60 (cash 40); then SPY 0 -> 20, QQQ's 60 fits in the room of 80: {QQQ 60, SPY 20}
    assert got == {"council": {"SPY": 10.0}, "sealed:A": {"SPY": 50.0, "QQQ": 30.0}, "sealed:B": {"QQQ": 100.0},
                   "critiqued:B": {"QQQ": 60.0, "SPY": 20.0}, "stated:B": {"QQQ": 50.0}}
    with pytest.raises(TalkError, match="targets C"):
        week_accounts({}, {"A": {}}, [Critique("C", "SPX", "r", 1.0, "up")], {}, {"SPX": "SPY"})
