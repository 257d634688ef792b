"""The publisher's forked workers end with the publisher: after `kill -9` of a publishing process, its side child
(the proof pages, then the statistics) must not go on writing into the published folder. Before, it was
reparented to init and ran on. Each publisher runs in a fresh interpreter (it forks only a process running no
other thread), so these tests fork nothing themselves and need no `fork` mark."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from season_fixture import Season

#: How long the orphaned child gets to end (bounded wait; the test then reads /proc, no time is asserted).
GONE_WITHIN_S = 60.0

#: A publisher whose side child stalls in its first step (the proof pages), as a long statistics step would:
#: the child writes its pid, then waits; the parent goes on and waits for it before the compliance step.
_STALLED_PUBLISH = """
import os, sys, time
from datetime import UTC, datetime
from pathlib import Path
from league.clock import SimulatedClock
from league.publish import files, proof_pages
files.PRODUCERS["forecasts"] = None
if not files._can_fork():
    sys.exit(17)
def stalled(*args, **kwargs):
    Path(sys.argv[2]).write_text(str(os.getpid()), encoding="ascii")
    while True:
        time.sleep(1)
proof_pages.write_proof_pages = stalled
files.publish(Path(sys.argv[1]), clock=SimulatedClock(datetime(2026, 12, 1, 4, 0, tzinfo=UTC)), workers=2)
"""


def _running(pid: int) -> bool:
    """Still running (a zombie has ended: it writes nothing and holds no file)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    return text.rsplit(")", 1)[1].split()[0] not in "ZX"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_the_side_child_ends_when_the_publisher_is_killed(season: Season, tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(season.data, data)
    marker, log = tmp_path / "child.pid", tmp_path / "publisher.log"
    with open(log, "wb") as errors:  # a file, not a pipe: an orphaned child holding a pipe would block the read
        publisher = subprocess.Popen([sys.executable, "-c", _STALLED_PUBLISH, str(data), str(marker)],
                                     stdout=subprocess.DEVNULL, stderr=errors)
    try:
        while not (marker.exists() and marker.read_text(encoding="ascii")) and publisher.poll() is None:
            time.sleep(0.05)
        assert publisher.poll() is None, log.read_text(errors="replace")[-3000:]
        child = int(marker.read_text(encoding="ascii"))
        assert child != publisher.pid and _running(child)
        os.kill(publisher.pid, signal.SIGKILL)
        publisher.wait()
    finally:
        if publisher.poll() is None:
            publisher.kill()
            publisher.wait()
    deadline = time.monotonic() + GONE_WITHIN_S
    while _running(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    orphaned = _running(child)
    if orphaned:
        os.kill(child, signal.SIGKILL)  # not left behind by a failing test
    assert not orphaned, "the publisher's side child went on after the publisher was killed"


def test_a_child_whose_parent_died_before_it_asked_ends_at_once() -> None:
    """The race the parent-death signal cannot cover: the parent gone between the fork and the prctl call (the
    child already reparented, so no signal would ever come). The child checks its parent after asking and ends
    itself the same way: here it is told a parent that is not its own."""
    script = ("import os, sys; from league.shutdown import die_with_parent; "
              "die_with_parent(os.getppid() + 1 if os.getppid() != 1 else 2); print('still running')")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == -signal.SIGKILL, (done.returncode, done.stderr[-2000:])
    assert "still running" not in done.stdout


def test_a_child_of_a_living_parent_goes_on() -> None:
    script = ("import os; from league.shutdown import die_with_parent; "
              "print('asked' if die_with_parent(os.getppid()) else 'not asked')")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == ("asked" if sys.platform.startswith("linux") else "not asked")
