"""A pump stores its due replies' raw files ahead of sealing them, side by side: the same book
and the same reply files as storing each just before its seal, and each file on disk before its line."""

from __future__ import annotations

import errno
from concurrent.futures import Future
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from day_helpers import BASELINES, league_dir

from league import records
from league.book import Book
from league.compose import build_league
from league.config import load_config
from league.jobs import seal
from league.jobs.context import BARE, Pending
from league.jobs.scheduler import session_start
from league.jobs.seal import pump, raw_bytes
from league_agents.base import FailureClass, SeatReply

SESSION = date(2026, 11, 24)
ANSWER = '{"forecast": {"SPX": {"1d": {"prob_up": %d}}}}'
#: Distinct answers, one text twice, a lone surrogate, an empty reply (silent), unparseable text, a timeout.
RAWS: list[str | None] = [ANSWER % 61, ANSWER % 40, ANSWER % 61, "broken \udc80 reply", "", "no json here",
                          None, ANSWER % 55 + " " * 5000]


def _pending(seat: str, raw: str | None, arrives: Any) -> Pending:
    fut: Future[SeatReply] = Future()
    if raw is None:
        reply = SeatReply(seat=seat, raw="", model="m", version="v", mode="", started_at=arrives, finished_at=arrives,
                          failure=FailureClass.TIMEOUT, detail="no answer")
    else:
        reply = SeatReply(seat=seat, raw=raw, model="m", version="v", mode="", started_at=arrives, finished_at=arrives)
    fut.set_result(reply)
    return Pending(f"{SESSION}-r1", str(SESSION), seat, 1, "0" * 64, "1" * 64, {"SPX": ["1d"]}, fut)


def _season(tmp_path: Path, *, break_replies: bool = False) -> tuple[bytes, dict[str, bytes]]:
    """Pump the RAWS into a fresh league; (council book bytes, reply files by name)."""
    config_dir, data_dir, clock = league_dir(tmp_path, BASELINES, session_start(SESSION))
    if break_replies:
        (data_dir / "replies").write_text("a file where the folder should be")  # like a full or broken disk
    with build_league(load_config(config_dir), clock, stages=BARE) as lg:
        now = clock.now()
        lg.asking.pending = [_pending(f"s{k}", raw, now + timedelta(seconds=k + 1)) for k, raw in enumerate(RAWS)]
        assert pump(lg, now + timedelta(minutes=1)) == len(RAWS)
    replies = data_dir / "replies"
    files = {p.name: p.read_bytes() for p in sorted(replies.iterdir())} if replies.is_dir() else {}
    return (data_dir / "books" / "council-book.jsonl").read_bytes(), files


class _OneByOne:
    """The path the ahead store replaces: nothing stored ahead, each seal stores its own file."""

    def __init__(self, lg: Any, replies: Any) -> None:
        pass

    def wait(self, k: int) -> None:
        pass

    def __enter__(self) -> _OneByOne:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


@pytest.mark.parametrize("break_replies", [False, True])
def test_ahead_seals_the_same_bytes_as_one_by_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  break_replies: bool) -> None:
    ahead = _season(tmp_path / "ahead", break_replies=break_replies)
    monkeypatch.setattr(seal, "_RawAhead", _OneByOne)
    alone = _season(tmp_path / "alone", break_replies=break_replies)
    assert ahead == alone
    expected = {f"{seal.hashlib.sha256(raw_bytes(r)[0]).hexdigest()}.txt" for r in RAWS if r and r.strip()}
    assert set(ahead[1]) == (set() if break_replies else expected)
    assert (b"could not be stored" in ahead[0]) is break_replies


def test_each_raw_file_is_on_disk_before_its_answer_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config_dir, data_dir, clock = league_dir(tmp_path, BASELINES, session_start(SESSION))
    real_write, checked = Book._write, []

    def write(self: Book, line: Any) -> None:
        if line.kind == "answer":
            assert (data_dir / "replies" / f"{line.content['own_sha256']}.txt").is_file()
            checked.append(line.content["seat"])
        real_write(self, line)

    monkeypatch.setattr(Book, "_write", write)
    with build_league(load_config(config_dir), clock, stages=BARE) as lg:
        now = clock.now()
        lg.asking.pending = [_pending(f"s{k}", raw, now + timedelta(seconds=k + 1)) for k, raw in enumerate(RAWS)]
        pump(lg, now + timedelta(minutes=1))
    assert checked == [f"s{k}" for k, raw in enumerate(RAWS) if raw and raw.strip()]


def test_a_failed_line_leaves_its_reply_pending_with_its_file_stored(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The fault season's promise holds with the ahead store: the reply stays pending and is sealed once."""
    config_dir, data_dir, clock = league_dir(tmp_path, BASELINES, session_start(SESSION))
    real_write, failures = Book._write, iter([True])

    def refuse_s1(self: Book, line: Any) -> None:
        if line.kind == "answer" and line.content["seat"] == "s1" and next(failures, False):
            raise OSError(errno.ENOSPC, "No space left on device")
        real_write(self, line)

    monkeypatch.setattr(Book, "_write", refuse_s1)
    with build_league(load_config(config_dir), clock, stages=BARE) as lg:
        now = clock.now()
        lg.asking.pending = [_pending(f"s{k}", raw, now + timedelta(seconds=k + 1)) for k, raw in enumerate(RAWS)]
        with pytest.raises(seal.SealFailed):
            pump(lg, now + timedelta(minutes=1))
        assert [p.seat for p in lg.asking.pending] == [f"s{k}" for k in range(1, len(RAWS))]
        assert pump(lg, now + timedelta(minutes=2)) == len(RAWS) - 1
        assert sorted(a.seat for a in lg.books.index.of(records.Answer)) == sorted(
            f"s{k}" for k, raw in enumerate(RAWS) if raw and raw.strip())
