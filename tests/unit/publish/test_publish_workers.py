"""publish(workers=2): the statistics in a forked child beside the other steps, the blocks that merge into
their files written after them. Every file, and the report's skipped and failed entries in plan order, must be
what one worker gives."""

from __future__ import annotations

import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from season_fixture import Season

from league.clock import SimulatedClock
from league.publish import files as publish_files
from league.publish import publish
from league.publish.files import PublishReport

AT = datetime(2026, 12, 1, 4, 0, tzinfo=UTC)


pytestmark = [pytest.mark.fork, pytest.mark.usefixtures("fork_ready")]


@pytest.fixture(autouse=True)
def forking(fork_ready: None) -> None:
    """Two workers fork only a process without other threads (else publish uses one): the tests need that."""
    assert publish_files._can_fork(), "publish would not fork here: the test would compare one process with itself"


def _published(season: Season, root: Path, workers: int) -> tuple[PublishReport, dict[str, bytes]]:
    data = root / f"w{workers}" / "data"
    shutil.copytree(season.data, data)
    report = publish(data, clock=SimulatedClock(AT), workers=workers)
    out = data / "public"
    return report, {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def _both(season: Season, tmp_path: Path) -> tuple[tuple[PublishReport, dict[str, bytes]], ...]:
    return _published(season, tmp_path, 1), _published(season, tmp_path, 2)


@pytest.fixture()
def no_forecasts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fixture's book is a stand-in: its CSV stands in for the exporter's (as test_publish_files does)."""
    monkeypatch.setitem(publish_files.PRODUCERS, "forecasts", None)


def test_two_workers_publish_the_same_bytes(season: Season, tmp_path: Path, no_forecasts: None) -> None:
    (one, files_one), (two, files_two) = _both(season, tmp_path)
    assert one.ok and two.ok, (one.failed, two.failed)
    assert files_one.keys() == files_two.keys()
    assert [n for n in files_one if files_one[n] != files_two[n]] == []
    league = files_two["council-league.json"]
    assert b'"crowd"' in league and b'"portfolio"' in league  # the merged blocks are there
    assert b'"points"' in files_two["council-stats.json"]
    assert (one.skipped, one.failed) == (two.skipped, two.failed)


def test_a_failure_on_either_side_is_reported_in_plan_order(season: Season, tmp_path: Path, no_forecasts: None,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The statistics fail in the child, the crowd comparison in the parent before the statistics end: both
    reports name the same files, failed for the same reason, in the same order, and write the same files."""
    import league.scoring.publish
    from league.publish import crowd

    def boom(*args: object, **kwargs: object) -> None:
        raise ValueError("bad climatology")

    def crowd_boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("no crowd")

    monkeypatch.setattr(league.scoring.publish, "write_stats", boom)
    monkeypatch.setattr(crowd, "crowd_blocks", crowd_boom)
    (one, files_one), (two, files_two) = _both(season, tmp_path)
    assert not one.ok and one.failed == two.failed and one.skipped == two.skipped
    failed = [(name, why) for name, why in two.failed if name == "council-league.json"]
    assert [why for _, why in failed][:1] == ["failed: ValueError: bad climatology"]  # the statistics' entry first
    assert [n for n in files_one if files_one.get(n) != files_two.get(n)] == []


def test_points_failing_after_the_statistics_keeps_its_place(season: Season, tmp_path: Path, no_forecasts: None,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from league.publish import producers

    def merge_boom(out: Path, report: dict[str, object]) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(producers, "points_merge", merge_boom)
    (one, _), (two, _) = _both(season, tmp_path)
    assert one.failed == two.failed == (("council-points.json", "failed: OSError: disk full"),)


def test_a_statistics_child_that_dies_is_a_failure_not_a_hang(season: Season, tmp_path: Path, no_forecasts: None,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    import league.scoring.publish

    def die(*args: object, **kwargs: object) -> None:
        os._exit(3)

    monkeypatch.setattr(league.scoring.publish, "write_stats", die)
    report, files = _published(season, tmp_path, 2)
    failed = dict(report.failed)
    assert failed["council-stats.json"] == "failed: the publishing child process ended with status 3"
    assert "council-points.json" in files and "release-manifest.json" in files


def test_a_proof_pages_child_that_dies_is_a_failure_in_plan_order(season: Season, tmp_path: Path,
                                                                  no_forecasts: None,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The child forked at the start writes the proof pages first, then waits for the CSV to run the statistics:
    one that dies in the proof pages fails both its steps' files, in plan order (the statistics' before proof/,
    though it ran them first), and every other file is written."""
    import os

    from league.publish import proof_pages

    def die(*args: object, **kwargs: object) -> None:
        os._exit(5)

    monkeypatch.setattr(proof_pages, "write_proof_pages", die)
    report, files = _published(season, tmp_path, 2)
    assert [name for name, _ in report.failed] == [*publish_files.STATS_FILES, "proof/"]
    assert set(dict(report.failed).values()) == {"failed: the publishing child process ended with status 5"}
    assert "council-points.json" in files and "release-manifest.json" in files and "arena-trades.csv" in files


def test_a_run_stopped_before_the_csv_ends_the_waiting_child(season: Season, tmp_path: Path, no_forecasts: None,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A step failing before the statistics could start (here the config commitment) stops the run; the child
    waiting for the CSV is ended, not left behind."""
    import os

    from league.publish import commitments

    def boom(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(commitments, "write_snapshots", boom)
    forked: list[int] = []
    real = publish_files._fork_side

    def spy(*args: object) -> object:
        side = real(*args)  # type: ignore[arg-type]
        forked.append(side.pid)
        return side

    monkeypatch.setattr(publish_files, "_fork_side", spy)
    with pytest.raises(KeyboardInterrupt):
        _published(season, tmp_path, 2)
    assert len(forked) == 1
    with pytest.raises(ChildProcessError):
        os.waitpid(forked[0], os.WNOHANG)  # already reaped: ended by the run


_PUBLISH_AND_LIST = """
import sys
from datetime import UTC, datetime
from pathlib import Path
from league.clock import SimulatedClock
from league.publish import files
files.PRODUCERS["forecasts"] = None
report = files.publish(Path(sys.argv[1]), clock=SimulatedClock(datetime(2026, 12, 1, 4, 0, tzinfo=UTC)), workers=2)
assert report.ok, report.failed
print("HELD", *sorted({m.split(".")[0] for m in sys.modules} & {"scipy", "statsmodels", "arch"}))
"""


def test_the_statistics_numerical_stack_stays_in_the_side_child(season: Season, tmp_path: Path) -> None:
    """Two workers: the statistics' imports are the side child's (preload_stats), never the publishing process's,
    the largest of the demo (docs/costs.md, "The demo's processes"); the statistics are written all the same. Run in a
    fresh interpreter: this test process may hold the stack already."""
    data = tmp_path / "data"
    shutil.copytree(season.data, data)
    done = subprocess.run([sys.executable, "-c", _PUBLISH_AND_LIST, str(data)], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    held = [line.split()[1:] for line in done.stdout.splitlines() if line.startswith("HELD")]
    assert held == [[]]
    assert (data / "public" / "council-stats.json").is_file()
    assert b'"points"' in (data / "public" / "council-stats.json").read_bytes()
