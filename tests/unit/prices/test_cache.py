"""The day cache: completeness markers, refetch of partial days, outages never served from cache."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from league.clock import SimulatedClock
from league.prices.cache import CachedProvider, FolderBarCache
from league.prices.interface import Bar, PriceError, ProviderOutage
from league.prices.replay import SyntheticMarket


def Z(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


class Counting:
    """Wraps a provider; counts calls and can be switched to fail like an outage."""

    def __init__(self, inner: SyntheticMarket) -> None:
        self.inner, self.name, self.calls, self.down = inner, "counting", 0, False

    def bars(self, symbol: str, start: datetime, end: datetime) -> list[Bar]:
        self.calls += 1
        if self.down:
            raise ProviderOutage("simulated outage")
        return self.inner.bars(symbol, start, end)


class Mirror:
    def __init__(self) -> None:
        self.got: list[tuple[str, date, int, bool]] = []

    def put_bars(self, symbol: str, day: date, bars: Sequence[Bar], *, complete: bool) -> None:
        self.got.append((symbol, day, len(bars), complete))

    def get_bars(self, symbol: str, day: date) -> list[Bar] | None:
        return None


SESSION = (Z(2026, 11, 25, 14, 30), Z(2026, 11, 25, 21, 0))


def test_complete_day_is_cached_in_the_documented_format(tmp_path: Path, replay: SyntheticMarket) -> None:
    inner, mirror = Counting(replay), Mirror()
    cp = CachedProvider(inner, tmp_path, clock=SimulatedClock(Z(2026, 11, 27, 12, 0)), mirrors=[mirror])
    first = cp.bars("^GSPC", *SESSION)
    assert inner.calls == 1 and len(first) == 390
    again = cp.bars("^GSPC", *SESSION)
    assert inner.calls == 1 and again == first
    day_file = tmp_path / "^GSPC" / "2026-11-25.jsonl"
    line = json.loads(day_file.read_text().splitlines()[0])
    assert line["t"] == "2026-11-25T14:30:00Z" and set(line) == {"t", "o", "h", "l", "c", "v"}
    assert (tmp_path / "^GSPC" / "2026-11-25.complete").exists()
    assert mirror.got == [("^GSPC", date(2026, 11, 25), 390, True)]


def test_partial_day_is_never_served_as_complete(tmp_path: Path, replay: SyntheticMarket) -> None:
    inner = Counting(replay)
    clock = SimulatedClock(Z(2026, 11, 25, 16, 0))  # 11:00 ET: the session is running
    cp = CachedProvider(inner, tmp_path, clock=clock)
    morning = cp.bars("^GSPC", *SESSION)
    assert [b.start for b in morning][-1] < Z(2026, 11, 25, 16, 0)
    assert not FolderBarCache(tmp_path).is_complete("^GSPC", date(2026, 11, 25))
    clock.set(Z(2026, 11, 26, 1, 0))  # the day is over and settled
    evening = cp.bars("^GSPC", *SESSION)
    assert inner.calls == 2 and len(evening) == 390
    assert FolderBarCache(tmp_path).is_complete("^GSPC", date(2026, 11, 25))


def test_outage_propagates_and_stale_cache_is_not_used(tmp_path: Path, replay: SyntheticMarket) -> None:
    inner = Counting(replay)
    cp = CachedProvider(inner, tmp_path, clock=SimulatedClock(Z(2026, 11, 25, 16, 0)))
    cp.bars("^GSPC", *SESSION)  # partial file written, no marker
    inner.down = True
    with pytest.raises(ProviderOutage):
        cp.bars("^GSPC", *SESSION)
    assert not FolderBarCache(tmp_path).is_complete("^GSPC", date(2026, 11, 25))


def test_broken_day_file_names_file_and_line(tmp_path: Path, replay: SyntheticMarket) -> None:
    cache = FolderBarCache(tmp_path)
    cache.put_bars("^GSPC", date(2026, 11, 25), replay.bars("^GSPC", *SESSION)[:3], complete=True)
    path = tmp_path / "^GSPC" / "2026-11-25.jsonl"
    lines = path.read_text().splitlines()
    path.write_text(lines[0] + "\n" + '{"t": "2026-11-25T14:31:00Z", "o": "x"}\n')
    with pytest.raises(PriceError, match=r"2026-11-25.jsonl:2"):
        cache.get_bars("^GSPC", date(2026, 11, 25))


def test_symbol_cannot_escape_the_folder(tmp_path: Path) -> None:
    with pytest.raises(PriceError):
        FolderBarCache(tmp_path).get_bars("../etc", date(2026, 11, 25))


def test_daily_closes_delegate(tmp_path: Path, replay: SyntheticMarket) -> None:
    cp = CachedProvider(replay, tmp_path, clock=SimulatedClock(Z(2026, 11, 27)))
    got = cp.daily_closes("^GSPC", date(2026, 11, 24), date(2026, 11, 25))
    assert [d for d, _ in got] == [date(2026, 11, 24), date(2026, 11, 25)]
