"""league tail: a local book or the API stream; resuming after the server went away."""

from __future__ import annotations

import json
import queue
import threading
import time
from pathlib import Path

import pytest
from api_server import serve, stop
from season_fixture import Season, write_season
from typer.testing import CliRunner

from league.api.follow import FollowError, compact, follow_file, follow_url
from league.book import Book
from league.cli import app
from league.clock import SystemClock


@pytest.fixture()
def season(tmp_path: Path) -> Season:
    return write_season(tmp_path / "data", sessions=3)


def test_cli_prints_compact_score_rows(season: Season) -> None:
    result = CliRunner().invoke(app, ["tail", str(season.book), "--kind", "score"])
    assert result.exit_code == 0, result.output
    rows = result.output.strip().splitlines()
    assert len(rows) == 3
    last = json.loads(season.book.read_bytes().splitlines()[-1])
    spx = last["markets"]["SPX"]
    arrow = "up" if spx["close"] > spx["ref"] else "down"
    assert rows[-1].startswith(f"#{last['n']} score {season.sessions[-1]} run-{season.sessions[-1]}-am")
    assert f"SPX {spx['ref']:g}->{spx['close']:g}" in rows[-1] and arrow in rows[-1]


def test_cli_from_prints_whole_lines(season: Season) -> None:
    result = CliRunner().invoke(app, ["tail", str(season.book), "--from", "5"])
    lines = season.book.read_bytes().decode().splitlines()
    out = result.output.splitlines()
    assert out[0] == lines[4]
    assert len(out) == len(lines) - 4


def test_compact_leaves_other_kinds_whole() -> None:
    raw = b'{"kind":"answer","n":3,"seat":"a"}'
    assert compact(raw) == raw.decode()


def test_missing_book_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FollowError, match="no such book"):
        list(follow_file(tmp_path / "nope.jsonl"))


def test_follow_file_sees_appended_lines(season: Season) -> None:
    total = len(season.book.read_bytes().splitlines())
    got: queue.Queue[tuple[int, bytes]] = queue.Queue()
    stop_flag = threading.Event()

    def sleep(seconds: float) -> None:
        if stop_flag.wait(seconds):
            raise SystemExit

    def run() -> None:
        try:
            for item in follow_file(season.book, total + 1, frozenset(), follow=True, poll_s=0.05, sleep=sleep):
                got.put(item)
        except SystemExit:
            pass

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    with Book(season.book, SystemClock()) as book:
        line = book.append("correction", {"of": 1, "reason": "r", "source": "s"})
    n, raw = got.get(timeout=20)
    stop_flag.set()
    assert (n, raw) == (total + 1, line.to_bytes().rstrip(b"\n"))


def test_follow_url_resumes_after_a_disconnect(season: Season) -> None:
    base, server, thread = serve(season.data)
    port = int(base.rsplit(":", 1)[1])
    total = len(season.book.read_bytes().splitlines())
    got: queue.Queue[tuple[int, bytes] | BaseException] = queue.Queue()
    pauses: list[float] = []
    done = threading.Event()

    def pause(seconds: float) -> None:
        if done.is_set():
            raise SystemExit("test over")
        pauses.append(seconds)
        time.sleep(0.2)

    def run() -> None:
        try:
            for item in follow_url(base, total - 1, frozenset(), follow=True, retries=50, sleep=pause):
                got.put(item)
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            got.put(exc)

    reader = threading.Thread(target=run, daemon=True)
    reader.start()
    first = [got.get(timeout=20), got.get(timeout=20)]
    assert [item[0] for item in first if isinstance(item, tuple)] == [total - 1, total]
    stop(server, thread)
    with Book(season.book, SystemClock()) as book:
        sealed = book.append("correction", {"of": 1, "reason": "while the server was down", "source": "s"})
    base2, server2, thread2 = serve(season.data, port=port)
    try:
        item = got.get(timeout=60)
        assert not isinstance(item, BaseException), item
        assert item == (total + 1, sealed.to_bytes().rstrip(b"\n"))
        assert got.empty()
        assert pauses, "the follower never had to reconnect"
    finally:
        done.set()
        stop(server2, thread2)
        reader.join(timeout=30)


def test_tail_refuses_an_unknown_kind(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from league.cli import app

    book = tmp_path / "council-book.jsonl"
    book.write_text("")
    result = CliRunner().invoke(app, ["tail", "--kind", "bogus", str(book)])
    assert result.exit_code != 0
    assert "unknown kind bogus" in str(result.exception) or "unknown kind bogus" in result.output
