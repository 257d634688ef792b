"""The league's one retry policy (league.retry): the pause schedule both the bounded tries and the remote
followers wait by, written out here rather than recomputed, with the sleep injected."""

from __future__ import annotations

import pytest

from league.retry import MAX_WAIT_S, backoff_s, bounded


class _Flaky(Exception):
    pass


def test_the_schedule_doubles_from_its_start_up_to_its_cap() -> None:
    assert [backoff_s(k, first_s=2.0) for k in range(1, 8)] == [2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0]
    assert [backoff_s(k, first_s=0.5, max_s=3.0) for k in range(1, 5)] == [0.5, 1.0, 2.0, 3.0]
    assert MAX_WAIT_S == 60.0


def test_failures_count_from_one() -> None:
    with pytest.raises(ValueError, match="counts from 1"):
        backoff_s(0, first_s=1.0)


@pytest.mark.parametrize(("error", "calls_made", "waits_taken"), [
    (_Flaky("down"), 5, [20.0, 40.0, 60.0, 60.0]),  # transient: five tries, the schedule's pauses between
    (KeyError("fatal"), 1, []),  # the predicate calls it fatal: no second try, no pause
])
def test_bounded_tries_wait_the_schedule_and_stop_at_the_limit_or_a_fatal_error(
        error: Exception, calls_made: int, waits_taken: list[float]) -> None:
    waits: list[float] = []
    calls: list[int] = []

    def fail() -> None:
        calls.append(1)
        raise error

    with pytest.raises(type(error)):
        for attempt in bounded(attempts=5, wait_s=20.0, retry_on=lambda e: isinstance(e, _Flaky), sleep=waits.append):
            with attempt:
                fail()
    assert len(calls) == calls_made
    assert waits == waits_taken
