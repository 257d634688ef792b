"""`verify` has a line-length guard: a huge line, a huge torn tail or /dev/zero
is reported in bounded memory instead of being read whole (a 1 GB line used to end in MemoryError)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from unittest import mock

import pytest
from book_oracle import ASSETS
from typer.testing import CliRunner

from league.book import Book, iter_lines
from league.cli import app
from league.clock import SimulatedClock
from league.errors import ChainBroken, InvalidRecord
from league.verify import chain as verify_fast
from league.verify.chain import MAX_LINE_BYTES, OVERLONG, verify

GOOD = (ASSETS / "good.jsonl").read_bytes()
ROWS = GOOD.splitlines(keepends=True)


@pytest.mark.parametrize("workers", [1, 2])
def test_an_overlong_line_is_reported_after_the_lines_that_hold(tmp_path: Path, workers: int) -> None:
    path = tmp_path / "book.jsonl"
    path.write_bytes(b"".join(ROWS[:3]) + b"a" * (MAX_LINE_BYTES + 5) + b"\n" + ROWS[3])
    with mock.patch.object(verify_fast, "CHUNK_BYTES", 1 << 20):
        report = verify(path, workers=workers)
    assert (report.bad_line, report.reason, report.lines) == (4, OVERLONG, 3)
    assert report.sha256 == hashlib.sha256(b"".join(ROWS[:3])).hexdigest()
    with pytest.raises(ChainBroken, match="longer than"):
        list(iter_lines(path))


def test_a_huge_torn_tail_is_checked_in_bounded_memory(tmp_path: Path) -> None:
    """512 MiB without a line feed after the good lines (a sparse file: no disk used)."""
    path = tmp_path / "book.jsonl"
    path.write_bytes(GOOD)
    with open(path, "r+b") as fh:
        fh.truncate(len(GOOD) + (512 << 20))
    # VmHWM (this process's own peak), not ru_maxrss, which Linux carries over from the parent at exec
    script = ("import sys; from league.verify.chain import verify\n"
              "r = verify(sys.argv[1], workers=1)\n"
              "hwm = next(x for x in open('/proc/self/status') if x.startswith('VmHWM:')).split()[1]\n"
              "print(r.bad_line, r.lines, hwm)\n")
    out = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).parents[3], timeout=120)
    bad, lines, peak_kib = (int(x) for x in out.stdout.split())
    assert (bad, lines) == (len(ROWS) + 1, len(ROWS))
    assert peak_kib < 200 * 1024  # a read of the whole tail would need more than 512 MiB


def test_devices_and_fifos_are_refused_by_the_cli(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["verify", "/dev/zero"])
    assert res.exit_code != 0 and "not a regular file" in str(res.exception)
    assert verify("/dev/zero").reason == OVERLONG  # the function itself ends too


def test_the_writer_never_writes_a_line_the_reader_refuses(tmp_path: Path) -> None:
    with Book(tmp_path / "book.jsonl", SimulatedClock(datetime(2026, 11, 30, 13, 30, tzinfo=UTC))) as book:
        with pytest.raises(InvalidRecord, match="longer than a book line may be"):
            book.append("note", {"text": "x" * MAX_LINE_BYTES})
        assert book.append("note", {"text": "fits"}).n == 1
