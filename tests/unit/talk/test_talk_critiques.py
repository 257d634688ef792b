"""A critique applied, resolved and counted into F22 (league/talk/critiques.py), on hand-computed cases."""

from __future__ import annotations

import pytest

from league.talk import TalkError
from league.talk.critiques import Critique, apply_critique, came_true, f22, resolve_direction, wilson

FUNDS = {"SPX": "SPY", "NDX": "QQQ", "GOLD": "GLD", "DXY": ""}


def critique(market: str, weight: float, direction: str = "up", target: str = "B") -> Critique:
    return Critique(target=target, market=market, risk="r", weight=weight, direction=direction)  # type: ignore[arg-type]


def test_raising_a_weight_scales_the_others_down_to_a_total_of_100() -> None:
    # SPY 50 -> 80; the others hold 30 + 10 = 40 > room 100 - 80 = 20, so x 20/40 = 0.5: QQQ 15, GLD 5
    got = apply_critique({"SPY": 50.0, "QQQ": 30.0, "GLD": 10.0}, critique("SPX", 80), FUNDS)
    assert got == {"SPY": 80.0, "QQQ": 15.0, "GLD": 5.0}


def test_lowering_a_weight_leaves_the_others_and_adds_cash() -> None:
    # SPY 50 -> 20; the others' 40 fit in the room of 80: unchanged, cash 50
    got = apply_critique({"SPY": 50.0, "QQQ": 30.0, "GLD": 10.0}, critique("SPX", 20), FUNDS)
    assert got == {"SPY": 20.0, "QQQ": 30.0, "GLD": 10.0}


def test_a_position_not_held_is_opened_at_the_critique_weight() -> None:
    # GLD 0 -> 40; QQQ 80 > room 60, so x 60/80 = 0.75: QQQ 60
    assert apply_critique({"QQQ": 80.0}, critique("GOLD", 40), FUNDS) == {"QQQ": 60.0, "GLD": 40.0}


def test_a_market_without_a_fund_or_a_bad_critique_is_refused() -> None:
    with pytest.raises(TalkError, match="has no fund"):
        apply_critique({"SPY": 10.0}, critique("DXY", 10), FUNDS)
    with pytest.raises(TalkError, match="0 to 100"):
        critique("SPX", 120)
    with pytest.raises(TalkError, match="up or down"):
        critique("SPX", 10, direction="flat")
    with pytest.raises(TalkError, match="more than 100"):
        apply_critique({"SPY": 70.0, "QQQ": 40.0}, critique("SPX", 10), FUNDS)


def test_direction_is_the_close_five_sessions_later_against_the_reference() -> None:
    assert resolve_direction([100.0, 101.0, 99.0, 98.0, 97.0, 100.5]) is True  # 100.5 > 100
    assert resolve_direction([100.0, 101.0, 99.0, 98.0, 97.0, 100.0]) is False  # equal is not up
    assert resolve_direction([100.0, 120.0, 120.0, 120.0, 120.0, 99.9]) is False  # only the fifth close counts
    assert resolve_direction([100.0, 1.0, 1.0, 1.0, 1.0, 101.0, 50.0]) is True  # later closes not read
    assert resolve_direction([100.0, 101.0, 102.0, 103.0, 104.0]) is None  # five closes: unresolved
    assert resolve_direction([]) is None
    with pytest.raises(TalkError):
        resolve_direction([0.0, 1.0, 1.0, 1.0, 1.0, 1.0])


def test_a_critique_came_true_when_its_direction_matches() -> None:
    up_path = [100.0, 100.0, 100.0, 100.0, 100.0, 103.0]
    assert came_true(critique("SPX", 10, "up"), up_path) is True
    assert came_true(critique("SPX", 10, "down"), up_path) is False
    assert came_true(critique("SPX", 10, "down"), [100.0, 100.0, 100.0, 100.0, 100.0, 100.0]) is True  # not up
    assert came_true(critique("SPX", 10, "down"), up_path[:5]) is None


def test_f22_with_the_wilson_interval_checked_by_hand() -> None:
    # 7 of 10, z = 1.959963984540054, z^2 = 3.841458820694125:
    #   denominator 1 + z^2/10 = 1.3841458820694125
    #   centre (0.7 + z^2/20) / denominator = 0.8920729410347063 / 1.3841458820694125 = 0.6444934400
    #   half z * sqrt(0.021 + z^2/400) / denominator = 1.959963984540054 * sqrt(0.030603647) / 1.38414588
    #        = 1.959963984540054 * 0.1749389813 / 1.3841458821 = 0.2477152926
    #   ci95 = [0.396778, 0.892209] (the published Wilson interval of 7/10 is 0.3968-0.8922)
    got = f22([True] * 7 + [False] * 3)
    assert got["n"] == 10 and got["hits"] == 7 and got["share"] == pytest.approx(0.7)
    assert got["ci95"] == pytest.approx([0.396778, 0.892209], abs=1e-6)


def test_wilson_on_even_all_and_none() -> None:
    # 2 of 4: centre 0.5, half z * sqrt(0.0625 + z^2/64) / (1 + z^2/4) = 0.34996101 -> [0.150039, 0.849961]
    assert wilson(2, 4) == pytest.approx((0.150039, 0.849961), abs=1e-6)
    # 0 of 3: centre (z^2/6) / (1 + z^2/3) = 0.640243/2.280486 = 0.280749 = half -> [0, 0.561497]
    assert wilson(0, 3) == pytest.approx((0.0, 0.561497), abs=1e-6)
    # 3 of 3 mirrors it: [0.438503, 1]
    assert wilson(3, 3) == pytest.approx((0.438503, 1.0), abs=1e-6)
    assert wilson(0, 0) is None
    assert f22([]) == {"n": 0, "hits": 0, "share": None, "ci95": None}
