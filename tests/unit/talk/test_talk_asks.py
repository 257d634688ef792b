"""The chair's and a critiqued seat's ask texts (league/talk/asks.py)."""

from __future__ import annotations

import pytest

from league.talk import TalkError
from league.talk.asks import chair_text, reply_text
from league.talk.critiques import Critique
from league.talk.rotation import letter_map

SEATS = ["alpha", "bravo", "charlie", "delta"]
FUNDS = ["SPY", "QQQ", "GLD"]
PORTFOLIOS = {"alpha": {"SPY": 50.0, "GLD": 20.0}, "bravo": {"QQQ": 100.0}, "charlie": {},
              "delta": {"SPY": 10.0, "QQQ": 10.0, "GLD": 10.0}}


def by_letter() -> dict[str, dict[str, float]]:
    letters = letter_map(7, "2026-W49", SEATS)  # delta A, alpha B, bravo C, charlie D
    return {letters[seat]: weights for seat, weights in PORTFOLIOS.items()}


def test_chair_text_holds_the_letters_table_and_no_seat_name() -> None:
    text = chair_text("2026-W49", by_letter(), FUNDS, fund_of_market={"SPX": "SPY", "NDX": "QQQ", "DXY": ""})
    for seat in SEATS:
        assert seat not in text
    assert "| member | SPY | QQQ | GLD | cash |" in text
    assert "| A | 10 | 10 | 10 | 70 |" in text  # delta: 30% held, 70% cash
    assert "| B | 50 | 0 | 20 | 30 |" in text  # alpha
    assert "| C | 0 | 100 | 0 | 0 |" in text  # bravo
    assert "| D | 0 | 0 | 0 | 100 |" in text  # charlie: all cash
    assert text.index("| A |") < text.index("| B |") < text.index("| D |")
    assert '"council_portfolio"' in text and '"critiques"' in text and '"direction": "up"' in text
    assert "SPX (SPY), NDX (QQQ)" in text and "DXY" not in text  # a market without a fund is not offered


def test_chair_text_refuses_a_key_that_is_not_a_letter() -> None:
    with pytest.raises(TalkError, match="not a letter"):
        chair_text("2026-W49", {"alpha": {"SPY": 10.0}}, FUNDS)
    with pytest.raises(TalkError, match="outside the list"):
        chair_text("2026-W49", {"A": {"TLT": 10.0}}, FUNDS)


def test_reply_text_shows_the_critique_and_asks_for_a_portfolio() -> None:
    critique = Critique(target="B", market="SPX", risk="Earnings week; 50% is concentrated.", weight=25,
                        direction="down")
    text = reply_text("2026-W49", "B", {"SPY": 50.0, "GLD": 20.0}, critique, funds=FUNDS)
    assert "| you | SPY | QQQ | GLD | cash |" in text
    assert "| B | 50 | 0 | 20 | 30 |" in text
    assert "- market: SPX" in text and "- the weight the chair would give it: 25%" in text
    assert "over the next five sessions: down" in text
    assert '{"portfolio": {"FUND": weight_pct, ...}}' in text
    with pytest.raises(TalkError, match="targets B"):
        reply_text("2026-W49", "C", {"QQQ": 100.0}, critique)
