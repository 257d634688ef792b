"""The score job's fast paths, each against the path it replaces:

* the replay's provider bars made without ``Bar.__post_init__`` once the arrays are checked at once;
* ``iso_seconds`` / ``parse_iso`` remembered per instant and per text;
* the index's interning pass (``league.jobs.context.compact``) without a call per scalar;
* the counting rule's sealed contracts remembered (``league.counting.contract_of``);
* the portfolio stage's engine bars made in one loop.
"""

from __future__ import annotations

import math
import random
import sys
from collections import OrderedDict
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from league import isotime
from league.calendar import Calendar
from league.config import MarketSpec
from league.contracts import EventContract
from league.counting import contract_of
from league.errors import InvalidRecord
from league.jobs.books import SHORT_TEXT, compact
from league.jobs.portfolio import engine_bar
from league.portfolio.interface import Bar as EngineBar
from league.portfolio.interface import SessionBars
from league.prices.interface import Bar, PriceError
from league.prices.replay import SyntheticMarket, _bars, _Minutes, minute_starts

SYMBOLS = ("^GSPC", "SPY", "CL=F", "BTC-USD", "IEF", "^TNX", "GLD", "^VIX")
DAYS = (date(2026, 11, 2), date(2026, 11, 25), date(2026, 11, 27), date(2026, 3, 9), date(2026, 11, 1))


def _reference_bars(m: _Minutes, keep: Any) -> list[Bar]:
    """The path replaced: every minute through ``Bar(...)`` and its own check."""
    rows = zip(minute_starts(m.t[keep].tolist()), m.o[keep].tolist(), m.h[keep].tolist(), m.low[keep].tolist(),
               m.c[keep].tolist(), m.v[keep].tolist(), strict=True)
    return [Bar(*row) for row in rows]


def _same(fast: list[Bar], slow: list[Bar]) -> None:
    assert fast == slow
    assert all(type(b) is Bar and b.start.tzinfo is UTC for b in fast)
    assert [(b.start, b.open, b.high, b.low, b.close, b.volume) for b in fast] == \
        [(b.start, b.open, b.high, b.low, b.close, b.volume) for b in slow]


@pytest.fixture(scope="module")
def replay(markets: tuple[MarketSpec, ...], cal: Calendar) -> SyntheticMarket:
    return SyntheticMarket(7, markets, cal, anchor=date(2026, 11, 2), before=280, after=40)


@pytest.mark.parametrize("symbol", SYMBOLS)
def test_replay_bars_are_the_checked_bars(replay: SyntheticMarket, symbol: str) -> None:
    for day in DAYS:  # plain days, Thanksgiving's eve and early close, a DST week, a Sunday
        start = datetime(day.year, day.month, day.day, tzinfo=UTC)
        for m in replay.minute_arrays(symbol, start, start + timedelta(days=1)):
            keep = np.nonzero(m.t >= 0)[0]
            _same(_bars(m, keep), _reference_bars(m, keep))
            half = keep[: len(keep) // 2]
            _same(_bars(m, half), _reference_bars(m, half))


def _minutes(n: int, rng: random.Random) -> _Minutes:
    t = 1_780_000_000 - 1_780_000_000 % 60 + 60 * np.arange(n, dtype=np.int64)
    low = np.array([rng.uniform(1.0, 100.0) for _ in range(n)])
    h = low + np.array([rng.uniform(0.0, 3.0) for _ in range(n)])
    o = low + (h - low) * np.array([rng.random() for _ in range(n)])
    c = low + (h - low) * np.array([rng.random() for _ in range(n)])
    v = np.array([rng.choice([0.0, rng.uniform(0, 1e6)]) for _ in range(n)])
    return _Minutes(t, o, h, low, c, v)


BREAKS = [("o", math.nan), ("h", math.inf), ("low", -1.0), ("low", 0.0), ("c", 1e9), ("v", -0.5), ("v", math.inf),
          ("v", math.nan), ("o", 0.0), ("c", math.nan)]


@pytest.mark.parametrize(("field", "value"), BREAKS)
def test_a_minute_that_fails_the_check_raises_the_same_error(field: str, value: float) -> None:
    m = _minutes(50, random.Random(5))
    getattr(m, field)[17] = value
    keep = np.arange(50)
    with pytest.raises(PriceError) as slow:
        _reference_bars(m, keep)
    with pytest.raises(PriceError) as fast:
        _bars(m, keep)
    assert str(fast.value) == str(slow.value)
    assert _bars(m, np.arange(17)) == _reference_bars(m, np.arange(17))  # the bad minute left out: fine


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=200), st.integers(min_value=0, max_value=2**31))
def test_generated_minutes_give_the_checked_bars(n: int, seed: int) -> None:
    m = _minutes(n, random.Random(seed))
    keep = np.arange(n)
    _same(_bars(m, keep), _reference_bars(m, keep))


def test_session_bars_columns_give_the_checked_engine_bars(replay: SyntheticMarket) -> None:
    start = datetime(2026, 11, 2, tzinfo=UTC)
    raw = replay.bars("SPY", start, start + timedelta(days=1))
    rows = [(b.start, b.open, b.high, b.low, b.close) for b in raw]
    made = SessionBars(*(list(column) for column in zip(*rows, strict=True)))
    assert list(made) == [EngineBar(*row) for row in rows] == [engine_bar(*row) for row in rows]
    assert made[-1] == EngineBar(*rows[-1]) and made[3:5] == [EngineBar(*row) for row in rows[3:5]]
    assert all(type(b) is EngineBar for b in made) and len(made) > 300


# ---------------------------------------------------------------------------------- time text
def _plain_iso(value: datetime) -> str:
    return isotime.require_aware(value).strftime("%Y-%m-%dT%H:%M:%SZ")


def _plain_parse(text: str) -> datetime:
    return isotime.require_aware(datetime.fromisoformat(text.replace("Z", "+00:00")))


EARLIEST = datetime(1990, 1, 1, tzinfo=UTC).replace(tzinfo=None)  # hypothesis draws naive times in this range
LATEST = datetime(2100, 1, 1, tzinfo=UTC).replace(tzinfo=None)
ZONES = [UTC, timezone(timedelta(hours=-5)), timezone(timedelta(hours=5, minutes=30)), timezone(timedelta(0))]


@settings(max_examples=200, deadline=None)
@given(st.datetimes(min_value=EARLIEST, max_value=LATEST), st.sampled_from(ZONES))
def test_iso_seconds_remembered_is_the_formatted_text(naive: datetime, zone: timezone) -> None:
    value = naive.replace(tzinfo=zone)
    for _ in range(2):  # computed, then remembered
        assert isotime.iso_seconds(value) == _plain_iso(value)
    same_instant = value.astimezone(UTC)
    assert isotime.iso_seconds(same_instant) == _plain_iso(value)


def test_naive_times_are_refused_every_time() -> None:
    naive = datetime(2026, 1, 1, 12, 0)  # noqa: DTZ001 - the point of the test
    isotime.iso_seconds(naive.replace(tzinfo=UTC))  # its aware twin remembered first
    for _ in range(2):
        with pytest.raises(ValueError, match="naive"):
            isotime.iso_seconds(naive)
        with pytest.raises(ValueError, match="naive"):
            isotime.parse_iso("2026-01-01T12:00:00")
    with pytest.raises(ValueError):
        isotime.parse_iso("not a time")
    with pytest.raises(AttributeError):
        isotime.parse_iso(None)  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(st.datetimes(min_value=EARLIEST, max_value=LATEST), st.sampled_from(ZONES),
       st.booleans())
def test_parse_iso_remembered_is_the_parsed_time(naive: datetime, zone: timezone, zulu: bool) -> None:
    text = naive.replace(tzinfo=zone).isoformat()
    if zulu and zone is UTC:
        text = text.replace("+00:00", "Z")
    for _ in range(2):
        got = isotime.parse_iso(text)
        want = _plain_parse(text)
        assert got == want and got.tzinfo is UTC and got.utcoffset() == want.utcoffset()


# ---------------------------------------------------------------------------------- interning
def _general(value: Any) -> Any:
    """The interning rule as it was written before (one call per value)."""
    if isinstance(value, dict):
        return {sys.intern(k) if isinstance(k, str) else k: _general(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_general(v) for v in value]
    if isinstance(value, str) and len(value) <= SHORT_TEXT:
        return sys.intern(value)
    return value


def _shape(value: Any) -> Any:
    """Value, type and (for short strings) identity with the interned copy, all the way down."""
    if isinstance(value, dict):
        return (type(value), [(_shape(k), _shape(v)) for k, v in value.items()])
    if isinstance(value, list):
        return (type(value), [_shape(v) for v in value])
    if isinstance(value, str) and len(value) <= SHORT_TEXT:
        return (type(value), value, value is sys.intern(value))
    return (type(value), value)


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=30)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=8), JSON, max_size=6))
def test_compact_is_the_general_rule(body: dict[str, Any]) -> None:
    got, want = compact(body), _general(body)
    assert got == want and _shape(got) == _shape(want)


def test_compact_of_odd_containers_is_the_general_rule() -> None:
    body = {"a": OrderedDict(b=["x" * 3, ("t", 1)]), "n": 1, 7: "k", "long": "y" * (SHORT_TEXT + 1),
            "f": 1.5, "t": True, "z": None, "s": [{"deep": ["v"]}]}
    got = compact(body)  # type: ignore[arg-type]
    assert got == _general(body) and _shape(got) == _shape(_general(body))
    assert type(got["a"]) is dict  # an OrderedDict becomes a dict, as before


# ---------------------------------------------------------------------------------- contracts
CONTRACT = {"asset": "SPX", "horizon": "1d", "reference_at": "2026-06-02T13:30:00Z",
            "end_at": "2026-06-02T20:00:00Z", "rule": "close_gt_ref", "reference_rule": "r",
            "price_provider": "p", "price_symbol": "^GSPC", "resolver_version": "1"}


def _contract_fields() -> dict[str, Any]:
    fields = {k: CONTRACT.get(k, "x") for k in EventContract.__dataclass_fields__}
    return {**fields, "horizon": "1d", "reference_at": CONTRACT["reference_at"], "end_at": CONTRACT["end_at"]}


def test_contract_of_is_from_mapping() -> None:
    sealed = {**_contract_fields(), "event_id": "ignored"}
    for _ in range(2):
        assert contract_of(sealed) == EventContract.from_mapping(sealed)
    other = {**sealed, "end_at": "2026-06-03T20:00:00Z", "horizon": "1w"}
    assert contract_of(other) == EventContract.from_mapping(other) != contract_of(sealed)


@pytest.mark.parametrize("change", [{"horizon": "2d"}, {"end_at": "2026-06-01T20:00:00Z"},
                                    {"reference_at": "2026-06-02 13:30"}, {"asset": ""}, {"asset": ["SPX"]},
                                    {"asset": 5}])
def test_a_bad_contract_is_refused_every_time_as_before(change: dict[str, Any]) -> None:
    sealed = {**_contract_fields(), **change}
    with pytest.raises((InvalidRecord, ValueError)) as before:
        EventContract.from_mapping(sealed)
    for _ in range(2):
        with pytest.raises((InvalidRecord, ValueError)) as now:
            contract_of(sealed)
        assert type(now.value) is type(before.value) and str(now.value) == str(before.value)
    missing = _contract_fields()
    missing.pop("price_symbol")
    with pytest.raises(InvalidRecord, match="missing"):
        contract_of(missing)
