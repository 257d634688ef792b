"""Crash recovery and the single-writer lock, with real processes and SIGKILL.

A child appends in a loop with league.book.Book and, after each append returns, reports (n, link)
on a pipe. It is SIGKILLed at random moments; after each kill the book is reopened: the chain must
hold, keep every reported line with its reported link, keep every byte sealed before, and move a
torn tail aside to a named file (Book.recovery). Large lines (256 KB, many pages) give the kernel
a chance to stop a write midway, but the window is short and a kill rarely lands in it, so every
third round a torn write is also simulated by appending part of a sealed line, as a power cut
during a write would leave it.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from multiprocessing import get_context
from pathlib import Path

import pytest

from league.book import Book, BookLine
from league.clock import SimulatedClock, SystemClock
from league.errors import BookLockedError
from league.verify.chain import verify

KILLS = 24
CLOCK = SimulatedClock(datetime(2026, 11, 30, 13, 30, tzinfo=UTC))


def _append_forever(path: str, report_fd: int, seed: int) -> None:
    """Child body (forked): append until killed; report each append only after it returned."""
    rng = random.Random(seed)
    with Book(path, SystemClock()) as book:
        while True:
            size = 256 * 1024 if rng.random() < 0.15 else rng.randint(10, 3000)
            line = book.append("answer", {"seat": "crash", "pad": "é" * (size // 2), "r": rng.random()})
            os.write(report_fd, f"{line.n} {line.link}\n".encode())


def _run_and_kill(path: Path, seed: int, rng: random.Random) -> list[tuple[int, str]]:
    """Start a child, SIGKILL it after a random delay, return the appends it reported."""
    read_fd, write_fd = os.pipe()
    child = get_context("fork").Process(target=_append_forever, args=(str(path), write_fd, seed), daemon=True)
    child.start()
    os.close(write_fd)
    time.sleep(rng.uniform(0.0, 0.08))
    assert child.pid is not None
    os.kill(child.pid, signal.SIGKILL)
    child.join()
    chunks = []
    while chunk := os.read(read_fd, 65536):
        chunks.append(chunk)
    os.close(read_fd)
    reports = []
    for row in b"".join(chunks).split(b"\n"):
        if row:  # a report is one short write (< PIPE_BUF): whole or absent
            n, link = row.split()
            reports.append((int(n), link.decode()))
    return reports


def _simulate_torn_write(path: Path, rng: random.Random) -> None:
    """Append the first bytes of a correctly sealed next line, without its LF."""
    data = path.read_bytes()
    last = json.loads(data.split(b"\n")[-2]) if data else {"n": 0, "link": ""}
    content = {"kind": "answer", "at": "2026-11-30T13:30:00Z", "x": "y" * 500}
    line = BookLine.seal_new(content, last["n"] + 1, last["link"])
    raw = line.to_bytes()
    with open(path, "ab") as fh:
        fh.write(raw[: rng.randint(1, len(raw) - 1)])


def test_sigkilled_writer_loses_no_returned_append(tmp_path: Path) -> None:
    path = tmp_path / "council-book.jsonl"
    rng = random.Random(20261130)
    sealed = b""  # every byte recovered so far: must stay a prefix forever
    reported: dict[int, str] = {}
    torn_files: set[Path] = set()
    real_torn = 0
    for round_ in range(KILLS):
        reports = _run_and_kill(path, round_, rng)
        reported.update(reports)
        data = path.read_bytes() if path.exists() else b""
        real_torn += bool(data) and not data.endswith(b"\n")
        if round_ % 3 == 2 and (not data or data.endswith(b"\n")):
            _simulate_torn_write(path, rng)
            data = path.read_bytes()
        tail = data[data.rfind(b"\n") + 1 :]
        with Book(path, CLOCK) as book:
            if tail:
                assert book.recovery is not None
                assert book.recovery.torn_bytes == len(tail)
                assert book.recovery.moved_to.read_bytes() == tail
                assert book.recovery.moved_to.name.startswith("council-book.jsonl.torn-")
                assert book.recovery.moved_to not in torn_files
                torn_files.add(book.recovery.moved_to)
            else:
                assert book.recovery is None
            lines = book.lines
        now = path.read_bytes()
        assert now == data[: len(data) - len(tail)]
        assert now.startswith(sealed)
        sealed = now
        report = verify(path)
        assert report.ok, report
        assert report.lines == lines >= max(reported, default=0)
        rows = now.split(b"\n")
        for n, link in reports:
            assert json.loads(rows[n - 1])["link"] == link
    assert len(reported) > KILLS  # the children did get appends through
    assert len(torn_files) >= KILLS // 3  # every simulated (and any real) torn tail was moved aside
    assert all(p.exists() for p in torn_files)
    print(f"{KILLS} kills, {len(reported)} reported appends, {real_torn} torn by the kill itself")


HOLD = """
import sys, time
from league.book import Book
from league.clock import SystemClock
book = Book(sys.argv[1], SystemClock())
print("ready", flush=True)
time.sleep(60)
"""


def test_second_writer_gets_book_locked_error_naming_the_holder(tmp_path: Path) -> None:
    path = tmp_path / "book.jsonl"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "ready\n"
        with pytest.raises(BookLockedError) as err:
            Book(path, CLOCK)
        assert f"pid {holder.pid} " in str(err.value)
        assert err.value.fix and "one writer" in err.value.fix
        assert err.value.exit_code == 3
    finally:
        holder.kill()
        holder.wait()
    with Book(path, CLOCK) as book:  # the lock dies with its holder
        book.append("mark", {"after": "holder died"})
    assert verify(path).lines == 1


def test_second_writer_in_the_same_process_is_refused_too(tmp_path: Path) -> None:
    path = tmp_path / "book.jsonl"
    with Book(path, CLOCK) as first:
        first.append("mark", {"i": 1})
        with pytest.raises(BookLockedError, match=f"pid {os.getpid()} "):
            Book(path, CLOCK)
        first.append("mark", {"i": 2})  # the refused open did not disturb the writer
    assert verify(path).lines == 2
