"""The synthetic replay market: determinism, exact daily O/H/L/C, sessions, funds, recorded folders."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from league.calendar import Calendar
from league.config import MarketSpec
from league.prices.cache import FolderBarCache
from league.prices.replay import RecordedProvider, SyntheticMarket, bars_from_points, bridge_points


def Z(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


NOV25 = (Z(2026, 11, 25), Z(2026, 11, 26))


def _dump(bars: list) -> str:  # type: ignore[type-arg]
    return "\n".join(json.dumps(b.as_json(), sort_keys=True) for b in bars)


def test_same_seed_same_bytes_different_seed_different(markets: tuple[MarketSpec, ...], cal: Calendar) -> None:
    kw = {"anchor": date(2026, 11, 2), "before": 30, "after": 30}
    a = SyntheticMarket(11, markets, cal, **kw)  # type: ignore[arg-type]
    b = SyntheticMarket(11, markets, cal, **kw)  # type: ignore[arg-type]
    c = SyntheticMarket(12, markets, cal, **kw)  # type: ignore[arg-type]
    for symbol in ("^GSPC", "CL=F", "BTC-USD", "IEF", "^TNX"):
        # different call order on b: determinism must not depend on what was asked first
        later = b.bars(symbol, Z(2026, 11, 27), Z(2026, 11, 28))
        first = b.bars(symbol, *NOV25)
        assert _dump(a.bars(symbol, *NOV25)) == _dump(first)
        assert _dump(a.bars(symbol, Z(2026, 11, 27), Z(2026, 11, 28))) == _dump(later)
        assert _dump(c.bars(symbol, *NOV25)) != _dump(first)


@pytest.mark.parametrize("symbol", ["^GSPC", "^NDX", "^VIX", "CL=F", "BZ=F", "^DJI", "^TNX", "SPY", "IEF"])
def test_session_bars_hit_daily_ohlc_exactly(replay: SyntheticMarket, cal: Calendar, symbol: str) -> None:
    for day in cal.sessions_in_range(date(2026, 11, 16), date(2026, 11, 27)):
        lo, hi = cal.session_open(day), cal.session_close(day)
        bars = replay.bars(symbol, lo, hi)
        assert len(bars) == cal.session_minutes(day)
        o, h, low, c = replay.daily_ohlc(symbol, day)  # type: ignore[misc]
        assert bars[0].open == o and bars[-1].close == c
        assert max(b.high for b in bars) == h and min(b.low for b in bars) == low


def test_bridge_on_hand_numbers() -> None:
    rng = np.random.default_rng(5)
    points, i_h, i_l = bridge_points(rng, 100.0, 103.0, 98.0, 101.0, 390, 2)
    assert points[0] == 100.0 and points[-1] == 101.0
    assert points.max() == 103.0 and points.min() == 98.0
    assert points[i_h] == 103.0 and points[i_l] == 98.0 and 0 < i_h < 390 and 0 < i_l < 390
    o, h, lo, c = bars_from_points(rng, points, 103.0, 98.0, 2)
    assert len(o) == 390 and o[0] == 100.0 and c[-1] == 101.0 and h.max() == 103.0 and lo.min() == 98.0
    assert (h >= np.maximum(o, c)).all() and (lo <= np.minimum(o, c)).all()


def test_minute_counts_early_close_dst_bitcoin_and_premarket(replay: SyntheticMarket) -> None:
    early = replay.bars("^GSPC", Z(2026, 11, 27), Z(2026, 11, 28))
    assert len(early) == 210
    assert early[0].start == Z(2026, 11, 27, 14, 30) and early[-1].start == Z(2026, 11, 27, 17, 59)
    dst = replay.bars("^GSPC", Z(2026, 10, 30), Z(2026, 10, 31))
    assert dst[0].start == Z(2026, 10, 30, 13, 30) and len(dst) == 390
    after = replay.bars("^GSPC", Z(2026, 11, 2), Z(2026, 11, 3))
    assert after[0].start == Z(2026, 11, 2, 14, 30)
    btc = replay.bars("BTC-USD", Z(2026, 11, 1), Z(2026, 11, 2))  # DST day: still 1440 UTC minutes
    assert len(btc) == 1440 and btc[0].start == Z(2026, 11, 1, 0, 0)
    oil = replay.bars("CL=F", *NOV25)
    assert oil[0].start == Z(2026, 11, 25, 9, 0)  # 04:00 ET pre-market
    assert len(oil) == 330 + 390
    assert replay.bars("^GSPC", Z(2026, 11, 26), Z(2026, 11, 27)) == []  # Thanksgiving


def test_window_is_half_open(replay: SyntheticMarket) -> None:
    bars = replay.bars("^GSPC", Z(2026, 11, 25, 14, 30), Z(2026, 11, 25, 14, 33))
    assert [b.start for b in bars] == [Z(2026, 11, 25, 14, 30), Z(2026, 11, 25, 14, 31), Z(2026, 11, 25, 14, 32)]


def test_premarket_bridges_previous_close_to_open(replay: SyntheticMarket, cal: Calendar) -> None:
    oil = replay.bars("CL=F", *NOV25)
    prev = replay.daily_ohlc("CL=F", date(2026, 11, 24))
    today = replay.daily_ohlc("CL=F", date(2026, 11, 25))
    assert oil[0].open == prev[3]  # type: ignore[index]
    assert oil[329].close == today[0]  # type: ignore[index]


def test_funds_follow_their_market(replay: SyntheticMarket, cal: Calendar) -> None:
    days = cal.sessions_in_range(date(2026, 10, 1), date(2026, 11, 27))
    spx = dict(replay.daily_closes("^GSPC", days[0], days[-1]))
    spy = dict(replay.daily_closes("SPY", days[0], days[-1]))
    ratios = [spy[d] / spx[d] for d in days]
    assert max(ratios) / min(ratios) < 1.0002  # proportional up to cent rounding
    tnx = dict(replay.daily_closes("^TNX", days[0], days[-1]))
    ief = dict(replay.daily_closes("IEF", days[0], days[-1]))
    for a, b in zip(days, days[1:], strict=False):
        if abs(tnx[b] - tnx[a]) > 0.01:
            assert (tnx[b] - tnx[a]) * (ief[b] - ief[a]) < 0  # yield up, bond fund down


def test_levels_are_realistic_at_anchor(replay: SyntheticMarket) -> None:
    anchor = date(2026, 11, 2)
    closes = {s: replay.daily_closes(s, anchor, anchor)[0][1] for s in ("^GSPC", "^TNX", "BTC-USD", "SPY", "^IRX")}
    assert closes == {"^GSPC": 6800.0, "^TNX": 4.1, "BTC-USD": 92000.0, "SPY": 680.0, "^IRX": 3.85}


def test_daily_closes_match_last_minute(replay: SyntheticMarket, cal: Calendar) -> None:
    for day, close in replay.daily_closes("^NDX", date(2026, 11, 16), date(2026, 11, 20)):
        assert replay.bars("^NDX", cal.session_open(day), cal.session_close(day))[-1].close == close


def test_unknown_symbol_and_off_span(replay: SyntheticMarket) -> None:
    aapl = replay.bars("AAPL", *NOV25)
    assert len(aapl) == 390
    assert replay.bars("^GSPC", Z(2020, 3, 2), Z(2020, 3, 3)) == []  # before the replay span: no data, no guess


def test_recorded_provider_serves_complete_days_only(tmp_path, replay: SyntheticMarket) -> None:  # type: ignore[no-untyped-def]
    cache = FolderBarCache(tmp_path)
    full = replay.bars("^GSPC", *NOV25)
    cache.put_bars("^GSPC", date(2026, 11, 25), full, complete=True)
    cache.put_bars("^GSPC", date(2026, 11, 27), full[:10], complete=False)
    rec = RecordedProvider(tmp_path)
    assert rec.bars("^GSPC", *NOV25) == full
    assert rec.bars("^GSPC", Z(2026, 11, 27), Z(2026, 11, 28)) == []
    assert len(RecordedProvider(tmp_path, include_partial=True).bars("^GSPC", Z(2026, 11, 25), Z(2026, 11, 28))) == 400
    assert rec.bars("^GSPC", Z(2026, 11, 25, 14, 30), Z(2026, 11, 25, 14, 31)) == full[:1]


def test_span_longer_than_shipped_history(markets: tuple[MarketSpec, ...], cal: Calendar) -> None:
    """VIX ships ~1259 days; a 1500-session span extends it by running it backwards, still exact."""
    long = SyntheticMarket(3, markets, cal, anchor=date(2026, 11, 2), before=1400, after=100)
    assert len(long.daily_path("VIX").days) > 1259
    assert long.sessions[0] < date(2021, 6, 1)
    day = date(2021, 6, 1)
    bars = long.bars("^VIX", cal.session_open(day), cal.session_close(day))
    o, h, low, c = long.daily_ohlc("^VIX", day)  # type: ignore[misc]
    assert bars[0].open == o and bars[-1].close == c and max(b.high for b in bars) == h
    assert min(b.low for b in bars) == low


def test_default_span_reaches_the_calendar_end(markets: tuple[MarketSpec, ...], cal: Calendar) -> None:
    sm = SyntheticMarket(7, markets, cal)
    assert sm.sessions[-1] == cal.last_session
    assert len(sm.bars("^GSPC", Z(2027, 12, 1), Z(2027, 12, 2))) == 390  # a late-2027 6m window has prices


@settings(max_examples=60, deadline=None)
@given(
    o=st.floats(1.0, 1000.0), c=st.floats(1.0, 1000.0),
    up=st.floats(0.0, 0.05), down=st.floats(0.0, 0.05),
    n=st.integers(3, 1440), seed=st.integers(0, 2**32 - 1),
)
def test_bridge_hits_any_valid_daily_row(o: float, c: float, up: float, down: float, n: int, seed: int) -> None:
    o, c = round(o, 2), round(c, 2)
    h, low = round(max(o, c) * (1 + up), 2), round(min(o, c) * (1 - down), 2)
    rng = np.random.default_rng(seed)
    points, _, _ = bridge_points(rng, o, h, low, c, n, 2)
    bo, bh, bl, bc = bars_from_points(rng, points, h, low, 2)
    assert bo[0] == o and bc[-1] == c and bh.max() == h and bl.min() == low
    assert (bh >= np.maximum(bo, bc)).all() and (bl <= np.minimum(bo, bc)).all()


def test_the_default_span_does_not_follow_a_grown_calendar(markets: tuple[MarketSpec, ...]) -> None:
    """A growing calendar grows whenever anything in the process asks about a later day (a test once asked
    about 2099, and the next demo in that process failed: BRENT's monthly history was too short for a span
    to 2101). The default span must be the same before and after, and so must the prices."""
    cal = Calendar()  # its own: growing the shared default calendar would leak into other tests
    before = SyntheticMarket(5, markets, cal, anchor=date(2026, 6, 1))
    cal.is_session(date(2099, 1, 5))
    assert cal.last_session.year > 2100  # the calendar did grow
    after = SyntheticMarket(5, markets, cal, anchor=date(2026, 6, 1))
    assert after.sessions == before.sessions and after.sessions[-1].year == 2028
    for symbol in ("^GSPC", "BZ=F"):
        assert _dump(after.bars(symbol, *NOV25)) == _dump(before.bars(symbol, *NOV25))


def test_a_calendar_built_with_an_end_spans_the_replay_to_it(markets: tuple[MarketSpec, ...]) -> None:
    wide = Calendar(end=date(2030, 6, 28))  # an end of its own never moves: the replay may use all of it
    assert SyntheticMarket(5, markets, wide, anchor=date(2026, 6, 1)).sessions[-1] == wide.last_session
