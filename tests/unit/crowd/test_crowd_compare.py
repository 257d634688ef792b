"""The §8 comparison with hand-computed numbers (every expected value below is worked in a comment)."""

from __future__ import annotations

from datetime import date

import pytest

from league.crowd.compare import CrowdRow, advantage, brier, compare, divergence
from league.crowd.interface import CrowdError

S1, S2, S3 = date(2026, 11, 23), date(2026, 11, 24), date(2026, 11, 25)


def _row(seat: str, day: date, market: str, up: float, price: float, crowd: bool | None, league: bool | None,
         volume: float) -> CrowdRow:
    return CrowdRow(day, market, seat, up, price, crowd, league, volume)


ROWS = [
    _row("A", S1, "SPX", 70, 0.60, True, True, 5000),    # seat .09, crowd .16
    _row("A", S2, "SPX", 40, 0.55, False, True, 2000),   # seat .16, crowd .3025; outcomes differ
    _row("A", S3, "SPX", 80, 0.70, True, True, 1000),    # seat .04, crowd .09 (exactly $1,000 is primary)
    _row("A", S1, "BTC", 50, 0.61, True, None, 640),     # thin; seat .25, crowd .1521; league draw
    _row("A", S2, "BTC", 90, 0.50, None, True, 800),     # crowd unresolved: left out
    _row("B", S1, "SPX", 100, 0.60, True, True, 5000),   # seat 0, crowd .16
    _row("B", S3, "SPX", 100, 0.70, True, True, 1000),   # seat 0, crowd .09
]


def test_per_seat_and_tier_on_the_crowds_terms() -> None:
    a_primary, a_thin, b_primary = compare(ROWS)
    assert (a_primary.seat, a_primary.tier, a_primary.n) == ("A", "primary", 3)
    assert a_primary.seat_brier == pytest.approx(0.29 / 3)       # (.09 + .16 + .04) / 3
    assert a_primary.crowd_brier == pytest.approx(0.5525 / 3)    # (.16 + .3025 + .09) / 3
    assert a_primary.gap == pytest.approx(0.2625 / 3)            # 0.0875
    assert (a_primary.d, a_primary.d_n) == (pytest.approx(1 / 3), 3)
    assert a_primary.advantage == "none"                          # 0.0875 <= 2/3
    assert (a_thin.tier, a_thin.n, a_thin.d, a_thin.d_n) == ("thin", 1, None, 0)
    assert a_thin.seat_brier == pytest.approx(0.25) and a_thin.crowd_brier == pytest.approx(0.1521)
    assert a_thin.advantage == "none"                             # d unknown: nothing reads as an advantage
    assert (b_primary.seat_brier, b_primary.crowd_brier) == (0.0, pytest.approx(0.125))
    assert (b_primary.d, b_primary.advantage) == (0.0, "seat")   # 0.125 > 2 * 0


def test_advantage_threshold_is_two_d_both_ways() -> None:
    assert advantage(0.10, 0.05) == "none"     # exactly 2d: not an advantage
    assert advantage(0.1001, 0.05) == "seat"
    assert advantage(-0.1001, 0.05) == "crowd"
    assert advantage(0.5, None) == "none"


def test_divergence_counts_each_session_market_once() -> None:
    rows = [_row(seat, S1, "SPX", 50, 0.5, True, False, 5000) for seat in ("A", "B", "C")]
    rows.append(_row("A", S2, "SPX", 50, 0.5, True, True, 5000))
    assert divergence(rows) == (0.5, 2)   # (S1, SPX) differs, (S2, SPX) agrees


def test_brier_by_hand_and_bad_inputs() -> None:
    assert brier([0.8, 0.3], [True, True]) == pytest.approx((0.04 + 0.49) / 2)
    with pytest.raises(CrowdError, match="equal non-empty"):
        brier([], [])
    with pytest.raises(CrowdError, match="crowd_up must be 0-100"):
        _row("A", S1, "SPX", 101, 0.5, True, True, 1)
    with pytest.raises(CrowdError, match="crowd price must be 0-1"):
        _row("A", S1, "SPX", 50, 1.5, True, True, 1)


def test_no_resolved_rows_gives_nothing() -> None:
    assert compare([_row("A", S1, "SPX", 50, 0.5, None, True, 5000)]) == []
