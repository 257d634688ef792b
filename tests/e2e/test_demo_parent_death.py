"""`kill -9` of the `league demo` process alone: its forked season (the book's writer) must end with it, and
`league demo` run again on the same --out must complete the season with the folder an uninterrupted run writes.

Before, the season child lived on (reparented to init), went on writing the book and held its lock; the same
command again was refused ("already holds a league", or the book "already open for writing by pid N")."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LEAGUE = [sys.executable, "-c", "from league.cli import main; main()"]
SEASON = ["--sessions", "3", "--seed", "5"]
#: Book lines written before the kill: the first session's run and some answers, well before the season's end.
KILL_AT_LINES = 20
#: How long the processes of the killed run get to end (bounded wait; the test then reads /proc, no time is asserted).
GONE_WITHIN_S = 60.0


def _stat(pid: int) -> tuple[str, int, int] | None:
    """State, parent pid and start time (clock ticks since boot) of a process; None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    fields = text.rsplit(")", 1)[1].split()
    return fields[0], int(fields[1]), int(fields[19])


def _descendants(root: int) -> dict[int, int]:
    """Every live descendant of ``root``: pid -> start time (a pid reused later is not the same process)."""
    table = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (st := _stat(int(entry.name))) is not None:
            table[int(entry.name)] = st
    found: dict[int, int] = {}
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        for pid, (state, ppid, started) in table.items():
            if ppid == parent and pid not in found and state not in "ZX":
                found[pid] = started
                frontier.append(pid)
    return found


def _running(pid: int, started: int) -> bool:
    """The same process, still running (a zombie has ended: its files and locks are gone)."""
    st = _stat(pid)
    return st is not None and st[2] == started and st[0] not in "ZX"


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def _lines(book: Path) -> int:
    try:
        with open(book, "rb") as fh:
            return sum(1 for _ in fh)
    except FileNotFoundError:
        return 0


def _demo(out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*LEAGUE, "demo", *SEASON, "--out", str(out)], capture_output=True, text=True,
                          timeout=900, check=False)


@pytest.mark.sandbox
@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_kill_9_of_the_demo_ends_its_season_and_the_same_command_completes_it(tmp_path: Path) -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    whole = _demo(tmp_path / "whole")
    assert whole.returncode == 0, whole.stderr[-3000:]
    full = _lines(tmp_path / "whole" / "data" / "books" / "council-book.jsonl")

    out = tmp_path / "cut"
    book = out / "data" / "books" / "council-book.jsonl"
    with open(tmp_path / "cut.log", "wb") as log:
        demo = subprocess.Popen([*LEAGUE, "demo", *SEASON, "--out", str(out)], stdout=log, stderr=log)
        try:
            while _lines(book) < KILL_AT_LINES and demo.poll() is None:
                time.sleep(0.05)
            assert demo.poll() is None, (tmp_path / "cut.log").read_text(errors="replace")[-3000:]
            family = _descendants(demo.pid)
            holder = re.search(r"pid (\d+)", book.with_name(book.name + ".lock").read_text(encoding="utf-8"))
            assert holder is not None
            assert int(holder[1]) in family and int(holder[1]) != demo.pid  # the book's writer is the forked season
            os.kill(demo.pid, signal.SIGKILL)  # the parent only
            demo.wait()
        finally:
            if demo.poll() is None:
                demo.kill()
                demo.wait()
    deadline = time.monotonic() + GONE_WITHIN_S
    while any(_running(pid, started) for pid, started in family.items()) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = {pid: _cmdline(pid) for pid, started in family.items() if _running(pid, started)}
    for pid in left:  # not to leave them behind this test when it fails
        os.kill(pid, signal.SIGKILL)
    assert left == {}, f"processes of the killed demo still running: {left}"
    cut = _lines(book)
    assert 0 < cut < full, f"the season went on writing after its parent was killed ({cut} of {full} lines)"

    again = _demo(out)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "never finished" in again.stdout and "starts from scratch" in again.stdout
    for name in ("council-book.jsonl", "asks.jsonl"):  # no wall-clock field under the simulated clock
        assert (out / "data" / "books" / name).read_bytes() == \
            (tmp_path / "whole" / "data" / "books" / name).read_bytes(), name
    compare = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "demo_compare.py"), str(tmp_path / "whole"),
                              str(out)], capture_output=True, text=True, timeout=300, check=False)
    assert compare.returncode == 0, compare.stdout[-3000:]


@pytest.mark.sandbox
@pytest.mark.slow
def test_a_finished_demo_folder_and_a_running_one_are_left_alone(tmp_path: Path) -> None:
    """Starting again from scratch is only for a season its own run left unfinished: a finished demo is refused,
    and a folder another `league demo` is writing is refused with that process named."""
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    out = tmp_path / "done"
    first = subprocess.run([*LEAGUE, "demo", "--sessions", "1", "--out", str(out)], capture_output=True, text=True,
                           timeout=900, check=False)
    assert first.returncode == 0, first.stderr[-3000:]
    book = (out / "data" / "books" / "council-book.jsonl").read_bytes()
    again = subprocess.run([*LEAGUE, "demo", "--sessions", "1", "--out", str(out)], capture_output=True, text=True,
                           timeout=300, check=False)
    assert again.returncode != 0
    assert "already holds a finished demo season" in again.stderr and "fix:" in again.stderr
    assert (out / "data" / "books" / "council-book.jsonl").read_bytes() == book

    busy = tmp_path / "busy"
    with open(tmp_path / "busy.log", "wb") as log:
        demo = subprocess.Popen([*LEAGUE, "demo", "--sessions", "10", "--out", str(busy)], stdout=log, stderr=log)
        try:
            while _lines(busy / "data" / "books" / "council-book.jsonl") < 1 and demo.poll() is None:
                time.sleep(0.05)
            second = subprocess.run([*LEAGUE, "demo", "--sessions", "2", "--out", str(busy)], capture_output=True,
                                    text=True, timeout=300, check=False)
            running = demo.poll() is None
        finally:
            demo.kill()
            demo.wait()
    if not running:
        pytest.fail("the first run ended before the second was started: " +
                    (tmp_path / "busy.log").read_text(errors="replace")[-2000:])
    assert second.returncode != 0
    assert f"is being written by a running `league demo` (pid {demo.pid}, or a process it forked)" in second.stderr, \
        second.stderr
    assert "fix:" in second.stderr and "Traceback" not in second.stderr
