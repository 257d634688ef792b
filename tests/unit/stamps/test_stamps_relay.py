"""Stamps relayed to another process's desk are the stamps a Stamper takes itself: the same lists at the same
times, in the order they were asked; a relay or a desk that fails never raises into the season."""

from __future__ import annotations

import pickle
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from league.book import Book, head_of
from league.clock import Clock, SimulatedClock
from league.errors import LeagueError
from league.stamping.relay import RelayStamper, StampDesk, StampRequest
from league.stamping.stamper import Stamper
from league.stamps.interface import Artifact, BackendKind, StampConfig

START = datetime(2026, 3, 2, 13, 0, tzinfo=UTC)


class Fixed:
    """A backend answering the same proof for every list, and recording when it was asked to upgrade."""

    kind: BackendKind = "ots"
    name = "ots"

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.upgrades: list[datetime] = []

    def stamp(self, data: bytes) -> Artifact:
        return Artifact(kind="ots", name="ots", suffix=".ots", data=b"pending proof", complete=False)

    def upgrade(self, raw: bytes) -> tuple[bytes, bool]:
        self.upgrades.append(self.clock.now())
        return raw, False


def stamper(folder: Path, clock: Clock) -> Stamper:
    return Stamper(StampConfig(retries=1, retry_wait=0), folder, clock, backends=[Fixed(clock)])


def every_file(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def season(book: Path, clock: SimulatedClock, stamps: Stamper | RelayStamper) -> None:
    """Two stamps with lines sealed between them, then the nightly upgrade, as a day's stages ask them."""
    books = [("council-book.jsonl", book)]
    stamps.stamp_books(books, note="session 2026-03-02")
    clock.set(START + timedelta(hours=3))
    with Book(book, clock) as b:
        b.append("score", {"session": "2026-03-02"})
    stamps.stamp_books(books, note="session 2026-03-02", only={"ots"})
    clock.set(START + timedelta(hours=9))
    stamps.upgrade(backoff=True)


def test_a_relayed_season_writes_the_stamps_a_stamper_writes_itself(tmp_path: Path, book: Path) -> None:
    other = tmp_path / "other" / "council-book.jsonl"
    other.parent.mkdir()
    other.write_bytes(book.read_bytes())
    here_clock = SimulatedClock(START)
    season(book, here_clock, stamper(tmp_path / "here", here_clock))

    sent: list[StampRequest] = []
    season_clock = SimulatedClock(START)
    season(other, season_clock, RelayStamper(season_clock, lambda r: sent.append(pickle.loads(pickle.dumps(r)))))
    made: list[Stamper] = []
    desk = StampDesk(SimulatedClock(START), lambda clock: made.append(stamper(tmp_path / "there", clock)) or made[-1])
    for request in sent:
        desk.take(request)

    assert [r.upgrade for r in sent] == [False, False, True] and desk.taken == 3 and len(made) == 1
    assert every_file(tmp_path / "there") == every_file(tmp_path / "here")
    assert len(every_file(tmp_path / "here")) == 6  # two lists, each with its proof and status file
    backend = made[0].backends[0]
    assert isinstance(backend, Fixed) and backend.upgrades == [START + timedelta(hours=9)] * 2


def test_a_closed_pipe_is_logged_and_the_season_goes_on(book: Path) -> None:
    def closed(request: StampRequest) -> None:
        raise BrokenPipeError("the parent is gone")

    relay = RelayStamper(SimulatedClock(START), closed)
    with capture_logs() as logs:
        assert relay.stamp_books([("council-book.jsonl", book)]) is None
        assert relay.upgrade(backoff=True) == []
    assert [e["event"] for e in logs] == ["stamp.relay_failed", "stamp.relay_failed"]


def test_a_book_that_cannot_be_read_sends_nothing(tmp_path: Path) -> None:
    sent: list[StampRequest] = []
    relay = RelayStamper(SimulatedClock(START), sent.append)
    with capture_logs() as logs:
        assert relay.stamp_books([("council-book.jsonl", tmp_path / "missing.jsonl")]) is None
    assert sent == [] and logs[0]["event"] == "stamp.list_failed"


def test_a_desk_that_cannot_make_its_stamper_logs_and_tries_again(tmp_path: Path, book: Path) -> None:
    tries: list[datetime] = []

    def make(clock: Clock) -> Stamper:
        tries.append(clock.now())
        if len(tries) == 1:
            raise LeagueError("the league's configuration is not there yet")
        return stamper(tmp_path / "s", clock)

    relay_clock, sent = SimulatedClock(START), []
    relay = RelayStamper(relay_clock, sent.append)
    relay.stamp_books([("council-book.jsonl", book)])
    relay_clock.set(START + timedelta(minutes=30))
    relay.stamp_books([("council-book.jsonl", book)])
    desk = StampDesk(SimulatedClock(START), make)
    with capture_logs() as logs:
        for request in sent:
            desk.take(request)
    assert tries == [START, START + timedelta(minutes=30)] and desk.taken == 1
    assert [e["event"] for e in logs if e["log_level"] == "error"] == ["stamp.desk_failed"]
    assert [p.name for p in (tmp_path / "s").rglob("*.txt")] == ["133000Z.txt"]


def test_a_request_is_a_stamp_or_an_upgrade_at_an_aware_time(book: Path) -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        StampRequest(datetime(2026, 3, 2, 13, 0), upgrade=True)  # noqa: DTZ001 - the naive time refused
    with pytest.raises(ValueError, match="names no heads"):
        StampRequest(START, heads=(("council-book.jsonl", head_of(book)),), upgrade=True)
