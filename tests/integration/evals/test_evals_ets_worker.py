"""The `_ets` seat's fits in a worker process (league_agents.ets_fit.FitWorker) and started early
(EtsSeat.prefetch): the same answers, bit for bit, as the fits in the asking thread; a fit started early is
used only for exactly its own closes; a worker that fails ends as the seat's ordinary failure, never a hang."""

from __future__ import annotations

import struct
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from evals_helpers import walk

from league.runner import ThreadRunner, ask_one
from league_agents import ets_fit
from league_agents.base import Ask, FailureClass, SeatSpec
from league_agents.baselines import LONGEST_STEPS, EtsSeat

HORIZONS = ["1d", "1w", "1m", "6m"]


HISTORY = {"SPX": walk(260, 1), "NDX": walk(140, 2, drift=0.002), "GOLD": walk(35, 3, vol=0.03),
           "FLAT": [100.0] * 50, "SHORT": walk(12, 4)}


def now() -> datetime:
    return datetime(2026, 1, 5, 13, tzinfo=UTC)


def ask_of(history: dict[str, list[Any]]) -> Ask:
    markets = {code: {"horizons": HORIZONS, "price": 101.0} for code in history}
    return Ask(text="ask", sha256="0" * 64, session="2026-01-05", context={"markets": markets, "history": history})


def bits(path: ets_fit.Path | None) -> bytes | None:
    return None if path is None else b"".join(struct.pack("<dd", m, v) for m, v in path)


@pytest.fixture
def worker_seat(monkeypatch: pytest.MonkeyPatch) -> Iterator[EtsSeat]:
    monkeypatch.setenv(ets_fit.ENV_FLAG, "1")
    seat = EtsSeat(SeatSpec(name="_ets", adapter="ets", options={"max_history": 250}))
    assert seat.worker is not None
    yield seat
    seat.close()


def thread_seat(monkeypatch: pytest.MonkeyPatch) -> EtsSeat:
    monkeypatch.setenv(ets_fit.ENV_FLAG, "0")
    seat = EtsSeat(SeatSpec(name="_ets", adapter="ets", options={"max_history": 250}))
    assert seat.worker is None
    return seat


def test_the_worker_path_is_the_in_thread_path_bit_for_bit() -> None:
    worker = ets_fit.FitWorker()
    try:
        for closes in HISTORY.values():
            key = (tuple(closes), LONGEST_STEPS)
            assert bits(worker.take(key).result(timeout=120)) == bits(ets_fit.forecast_path(key))
    finally:
        worker.close()


def test_a_seat_with_a_worker_answers_as_one_without(worker_seat: EtsSeat, monkeypatch: pytest.MonkeyPatch) -> None:
    a = ask_of(HISTORY)
    assert worker_seat.ask(a, now).raw == thread_seat(monkeypatch).ask(a, now).raw


def test_a_prefetched_fit_serves_only_its_own_closes(worker_seat: EtsSeat, monkeypatch: pytest.MonkeyPatch) -> None:
    assert worker_seat.worker is not None
    started = worker_seat.prefetch(HISTORY)
    assert started == 4  # SHORT has fewer than min_history closes: nothing to fit
    sent = worker_seat.worker._next
    same = worker_seat.ask(ask_of(HISTORY), now)
    assert worker_seat.worker._next == sent  # every fit came from the prefetch
    assert same.raw == thread_seat(monkeypatch).ask(ask_of(HISTORY), now).raw

    worker_seat.prefetch(HISTORY)
    moved = {code: [*closes[:-1], closes[-1] * 1.01] for code, closes in HISTORY.items()}  # a last close revised
    got = worker_seat.ask(ask_of(moved), now)
    assert got.raw == thread_seat(monkeypatch).ask(ask_of(moved), now).raw
    assert got.raw != same.raw


def test_a_second_ask_with_the_same_closes_reads_the_first_asks_fits(worker_seat: EtsSeat,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The arms' asks of a session carry the counted ask's closes: one fit serves them all."""
    assert worker_seat.worker is not None
    own = {"SPX": walk(200, 11), "NDX": walk(90, 12, drift=-0.001)}  # closes no other test asks for
    before = worker_seat.worker._next
    first = worker_seat.ask(ask_of(own), now)
    sent = worker_seat.worker._next
    assert sent == before + 2  # one fit a market
    again = worker_seat.ask(ask_of(own), now)
    assert worker_seat.worker._next == sent
    assert again.raw == first.raw == thread_seat(monkeypatch).ask(ask_of(own), now).raw


def test_prefetch_reads_the_history_as_the_ask_does(worker_seat: EtsSeat) -> None:
    """Ints, bools and junk in the context's closes: the prefetched key is the ask's own (_history)."""
    assert worker_seat.worker is not None
    closes: list[Any] = [int(v) if i % 7 == 0 else v for i, v in enumerate(HISTORY["SPX"])]
    raw = {"SPX": [*closes, True, "x"]}
    worker_seat.prefetch(raw)
    sent = worker_seat.worker._next
    worker_seat.ask(ask_of(raw), now)
    assert worker_seat.worker._next == sent


def test_a_dying_worker_fails_what_waits_and_the_next_request_starts_a_new_one() -> None:
    worker = ets_fit.FitWorker()
    try:
        waiting = [worker.submit((tuple(closes), LONGEST_STEPS)) for closes in HISTORY.values()]
        proc = worker._proc
        assert proc is not None
        proc.kill()  # still importing statsmodels: nothing was answered
        for fut in waiting:
            assert isinstance(fut.exception(timeout=60), ets_fit.WorkerFailed)
        key = (tuple(HISTORY["SPX"]), LONGEST_STEPS)
        assert bits(worker.take(key).result(timeout=120)) == bits(ets_fit.forecast_path(key))
        assert worker._proc is not proc
    finally:
        worker.close()


def test_a_worker_that_ends_is_the_seats_ordinary_failure(worker_seat: EtsSeat) -> None:
    """A child that ends without answering (a crash in a fit): the ask is a seat fault, at once."""
    worker_seat.worker = ets_fit.FitWorker([sys.executable, "-c", "import sys; sys.stdin.buffer.read(1); sys.exit(3)"])
    try:
        worker_seat.prefetch(HISTORY)
        reply = ask_one(worker_seat, ask_of(HISTORY), now)
        assert reply.failure is FailureClass.SEAT_FAULT and "ets fit worker ended" in reply.detail
    finally:
        worker_seat.worker.close()


def test_without_a_worker_process_the_seat_fits_in_its_thread(worker_seat: EtsSeat,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    expected = thread_seat(monkeypatch).ask(ask_of(HISTORY), now).raw
    assert worker_seat.worker is not None
    worker_seat.worker.close()
    monkeypatch.setattr(ets_fit.sys, "executable", "/nonexistent/python")
    key = (tuple(HISTORY["SPX"]), LONGEST_STEPS)
    assert isinstance(worker_seat.worker.take(key).exception(timeout=5), ets_fit.WorkerUnavailable)
    reply = ask_one(worker_seat, ask_of(HISTORY), now)
    assert reply.failure is None and reply.raw == expected


def test_an_exception_in_a_fit_travels_as_itself(worker_seat: EtsSeat) -> None:
    assert worker_seat.worker is not None
    key = (tuple(HISTORY["SPX"]), 0)  # a prediction ending before it starts
    with pytest.raises(Exception) as here:
        ets_fit.forecast_path(key)
    with pytest.raises(type(here.value)) as there:
        worker_seat.worker.take(key).result(timeout=120)
    assert str(there.value) == str(here.value)


def test_the_runner_closes_the_worker_with_the_league(worker_seat: EtsSeat) -> None:
    assert worker_seat.worker is not None
    worker_seat.prefetch(HISTORY)
    proc = worker_seat.worker._proc
    assert proc is not None
    ThreadRunner({"_ets": worker_seat}).close()
    assert proc.poll() is not None and worker_seat.worker._proc is None
    assert ask_one(worker_seat, ask_of(HISTORY), now).failure is None  # a later ask starts a new child


def test_every_seat_of_a_process_shares_one_worker(worker_seat: EtsSeat) -> None:
    other = EtsSeat(SeatSpec(name="_ets2", adapter="ets"))
    assert other.worker is worker_seat.worker is ets_fit.shared_worker()


def test_the_fits_asked_for_least_recently_are_forgotten_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ets_fit, "MEMO_KEEP", 2)
    worker = ets_fit.FitWorker([sys.executable, "-c", "import sys; sys.stdin.buffer.read()"])  # never answers
    try:
        keys = [((float(i),) * 40, LONGEST_STEPS) for i in range(3)]
        first, second = worker.take(keys[0]), worker.take(keys[1])
        assert worker.take(keys[0]) is first  # taken, and still remembered: now the most recent
        worker.submit(keys[2])  # a third key: the least recently asked for (keys[1]) is forgotten
        assert worker.take(keys[0]) is first
        assert worker.take(keys[1]) is not second
    finally:
        worker.close()


def test_fits_nobody_takes_are_forgotten_oldest_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ets_fit, "MEMO_KEEP", 2)
    worker = ets_fit.FitWorker([sys.executable, "-c", "import sys; sys.stdin.buffer.read()"])  # never answers
    try:
        keys = [((float(i),) * 40, LONGEST_STEPS) for i in range(3)]
        first, *rest = [worker.submit(k) for k in keys]
        assert [worker.submit(k) for k in keys[1:]] == rest  # still remembered: the same fits
        assert worker.submit(keys[0]) is not first  # forgotten: asked again
    finally:
        worker.close()
    assert isinstance(first.exception(timeout=30), ets_fit.WorkerFailed)  # closing fails what waited
