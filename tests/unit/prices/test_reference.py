"""Reference, terminal, draw band and resolution on hand-made bar lists."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from league.prices.interface import Bar, PriceError
from league.prices.reference import (
    PricePoint,
    daily_reference,
    draw_band,
    resolve,
    seal_reference,
    terminal_price,
    within,
)


def Z(h: int, m: int, s: int = 0, day: int = 25) -> datetime:
    return datetime(2026, 11, day, h, m, s, tzinfo=UTC)


def bar(t: datetime, o: float, c: float, h: float | None = None, lo: float | None = None) -> Bar:
    return Bar(t, o, h if h is not None else max(o, c), lo if lo is not None else min(o, c), c, 10)


# 2026-11-25 (EST): 09:30 ET = 14:30Z, 15:00 ET = 20:00Z, 16:00 ET = 21:00Z
DAY = [
    bar(Z(14, 29), 99.0, 99.5),  # a pre-open bar must never be the reference
    bar(Z(14, 30), 100.0, 101.0),
    bar(Z(14, 31), 101.0, 102.0),
    bar(Z(14, 32), 102.0, 101.5),
    bar(Z(19, 59), 105.0, 105.5),
    bar(Z(20, 0), 105.5, 106.0),
    bar(Z(20, 59), 107.0, 107.25),
    bar(Z(21, 0), 107.25, 107.5),  # Yahoo's closing-print bar at 16:00
]


def test_daily_reference_takes_open_of_first_bar_at_0930() -> None:
    got = daily_reference(DAY, Z(14, 30))
    assert got == PricePoint(100.0, Z(14, 30), "open")


def test_daily_reference_skips_to_next_bar_when_0930_missing() -> None:
    bars = [b for b in DAY if b.start != Z(14, 30)]
    assert daily_reference(bars, Z(14, 30)) == PricePoint(101.0, Z(14, 31), "open")


def test_reference_refuses_a_bar_after_until() -> None:
    assert daily_reference(DAY[:1], Z(14, 30)) is None
    assert daily_reference(DAY, Z(14, 30), until=Z(14, 30)) is None


def test_bitcoin_reference_is_close_of_first_bar_after_seal() -> None:
    assert seal_reference(DAY, Z(14, 30, 20)) == PricePoint(102.0, Z(14, 31), "close")
    assert seal_reference(DAY, Z(14, 31, 0)) == PricePoint(102.0, Z(14, 31), "close")
    fraction = Z(14, 30, 59) + timedelta(milliseconds=500)  # rounds up to 14:31:00
    assert seal_reference(DAY, fraction) == PricePoint(102.0, Z(14, 31), "close")


def test_terminal_is_close_of_last_bar_at_or_before_end() -> None:
    assert terminal_price(DAY, Z(21, 0)) == PricePoint(107.5, Z(21, 0), "close")
    assert terminal_price(DAY, Z(20, 59, 59)) == PricePoint(107.25, Z(20, 59), "close")
    assert terminal_price(DAY, Z(20, 0)) == PricePoint(106.0, Z(20, 0), "close")  # the yield at 15:00 ET


def test_terminal_refuses_a_stale_bar() -> None:
    yesterday = [bar(Z(20, 59, day=24), 90.0, 91.0)]
    assert terminal_price(yesterday, Z(21, 0), since=Z(14, 30)) is None
    assert terminal_price([], Z(21, 0)) is None


def test_within_selects_regular_session() -> None:
    assert [b.start for b in within(DAY, Z(14, 30), Z(14, 32))] == [Z(14, 30), Z(14, 31)]


def _session(day: int, closes: list[float], start_minute: int = 0) -> list[Bar]:
    t0 = Z(14, 30, day=day) + timedelta(minutes=start_minute)
    return [bar(t0 + timedelta(minutes=i), c, c) for i, c in enumerate(closes)]


def test_draw_band_formula_on_one_percent_minutes() -> None:
    sessions = [_session(d, [100.0, 101.0, 102.01]) for d in (18, 19, 20, 23)]
    band = draw_band(sessions, 0.1)
    assert band is not None
    assert band.n_returns == 8 and band.n_sessions == 4
    assert band.mean_abs_return_pct == pytest.approx(1.0)
    assert band.pct == pytest.approx(0.1 * math.sqrt(390))  # 1.9748...


def test_draw_band_ignores_gaps_and_rolls() -> None:
    sessions = [_session(d, [100.0, 101.0]) for d in (18, 19, 20)]
    gap = _session(23, [100.0, 101.0]) + [bar(Z(14, 35, day=23), 150.0, 150.0)]  # 4-minute jump: not a 1m return
    roll = [bar(Z(14, 30, day=24), 100.0, 100.0), bar(Z(14, 31, day=24), 110.0, 110.0),
            bar(Z(14, 32, day=24), 111.1, 111.1)]
    band = draw_band([*sessions, gap, roll], 0.1, rolls=[Z(14, 32, day=24)])
    assert band is not None
    assert band.excluded_rolls == 1
    assert band.n_returns == 5  # 3 + 1 + (roll session: 1 kept)
    assert band.mean_abs_return_pct == pytest.approx(1.0)


def test_draw_band_needs_four_sessions() -> None:
    assert draw_band([_session(d, [100.0, 101.0]) for d in (18, 19, 20)], 0.1) is None
    assert draw_band([[], [], [], []], 0.1) is None


def test_resolve() -> None:
    ref, up, flat = PricePoint(100.0, Z(14, 30), "open"), PricePoint(101.0, Z(21, 0), "close"), \
        PricePoint(100.0, Z(21, 0), "close")
    r = resolve(ref, up, 1.5)
    assert r.change_pct == pytest.approx(1.0) and r.up is True and r.draw is True
    assert resolve(ref, up, 0.5).draw is False
    assert resolve(ref, flat, None).up is False and resolve(ref, flat, None).draw is None
    assert resolve(None, up, 1.0).up is None and not resolve(ref, None, 1.0).resolved


def test_bar_validation() -> None:
    with pytest.raises(PriceError):
        Bar(Z(14, 30), 100.0, 99.0, 98.0, 100.0)  # high below open
    with pytest.raises(PriceError):
        Bar(Z(14, 30), 100.0, 101.0, 100.5, 100.0)  # low above close
    with pytest.raises(PriceError):
        Bar(datetime(2026, 11, 25, 14, 30), 1.0, 1.0, 1.0, 1.0)  # noqa: DTZ001 - naive on purpose
    with pytest.raises(PriceError):
        Bar(Z(14, 30), 0.0, 1.0, 0.0, 1.0)
    b = Bar(Z(14, 30), 100.0, 101.0, 99.0, 100.5, 7)
    assert b.as_json() == {"t": "2026-11-25T14:30:00Z", "o": 100.0, "h": 101.0, "l": 99.0, "c": 100.5, "v": 7}
    assert Bar.from_json(b.as_json()) == b
