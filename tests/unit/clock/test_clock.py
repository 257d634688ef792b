"""The one Clock: aware UTC only; the simulated clock never runs backwards."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from league.clock import SimulatedClock, SystemClock, iso_seconds, parse_iso


def test_simulated_clock_moves_only_forward() -> None:
    clock = SimulatedClock(datetime(2026, 3, 8, 6, 59, tzinfo=UTC))
    clock.advance(timedelta(minutes=2))
    assert clock.now() == datetime(2026, 3, 8, 7, 1, tzinfo=UTC)
    with pytest.raises(ValueError):
        clock.set(datetime(2026, 3, 8, 7, 0, tzinfo=UTC))
    clock.sleep_until(datetime(2026, 3, 8, 6, 0, tzinfo=UTC))  # in the past: no move
    assert clock.now() == datetime(2026, 3, 8, 7, 1, tzinfo=UTC)


def test_naive_times_are_refused() -> None:
    with pytest.raises(ValueError, match="naive"):
        SimulatedClock(datetime(2026, 1, 1))  # noqa: DTZ001 - the point of the test
    with pytest.raises(ValueError):
        parse_iso("2026-01-01T00:00:00")


def test_iso_seconds_is_utc_with_z() -> None:
    eastern = timezone(timedelta(hours=-5))
    assert iso_seconds(datetime(2026, 11, 27, 13, 0, 0, 999, tzinfo=eastern)) == "2026-11-27T18:00:00Z"
    assert parse_iso("2026-11-27T18:00:00Z") == datetime(2026, 11, 27, 18, 0, tzinfo=UTC)


def test_system_clock_is_aware() -> None:
    assert SystemClock().now().tzinfo is not None
