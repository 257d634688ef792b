"""The nightly upgrade asks about a pending proof nightly for a week, then at 7·2^k days; by hand, always."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from league.book import Book
from league.clock import SimulatedClock
from league.stamping.stamper import Stamper, upgrade_due
from league.stamps.interface import Artifact, BackendKind, StampConfig

START = datetime(2026, 3, 2, 13, 0, tzinfo=UTC)


class PendingForever:
    """An OpenTimestamps backend whose calendar never completes a proof; counts the upgrade calls."""

    kind: BackendKind = "ots"
    name = "ots"

    def __init__(self) -> None:
        self.asked = 0

    def stamp(self, data: bytes) -> Artifact:
        return Artifact(kind="ots", name="ots", suffix=".ots", data=b"pending proof", complete=False)

    def upgrade(self, raw: bytes) -> tuple[bytes, bool]:
        self.asked += 1
        return raw, False


def test_due_every_night_of_the_first_week_then_at_doubling_weeks() -> None:
    folder = Path("stamps") / "2026-03-02" / "130000Z.status.json"
    day = date(2026, 3, 2)
    due = [age for age in range(0, 120) if upgrade_due(folder, day + timedelta(days=age))]
    assert due == [0, 1, 2, 3, 4, 5, 6, 7, 14, 28, 56, 112]
    assert upgrade_due(Path("stamps") / "not-a-day" / "x.status.json", day)


def test_nightly_upgrade_skips_what_is_not_due_and_rewrites_nothing_pending(tmp_path: Path) -> None:
    book = tmp_path / "books" / "council-book.jsonl"
    with Book(book, SimulatedClock(START)) as b:
        b.append("run", {"run_id": "r1", "session": "2026-03-02"})
    clock, ots = SimulatedClock(START), PendingForever()
    st = Stamper(StampConfig(), tmp_path / "stamps", clock, backends=[ots])
    assert st.stamp_books([("council-book.jsonl", book)]) is not None
    status = next((tmp_path / "stamps").glob("*/*.status.json"))
    before = (status.read_bytes(), status.stat().st_mtime_ns)
    clock.advance(timedelta(days=10))
    assert st.upgrade(backoff=True) == [] and ots.asked == 0  # ten days old: not a due night
    assert len(st.upgrade()) == 1 and ots.asked == 1  # by hand: every pending proof
    clock.advance(timedelta(days=4))
    assert len(st.upgrade(backoff=True)) == 1 and ots.asked == 2  # fourteen days old: due
    assert (status.read_bytes(), status.stat().st_mtime_ns) == before  # still pending: left as it was


def test_the_nightly_walk_lists_what_the_old_glob_and_filter_listed(tmp_path: Path) -> None:
    """Stamper._status_files lists only the due day folders, in the order sorted(glob) gave, filtered."""
    stamps = tmp_path / "stamps"
    names = ["2026-03-02", "2026-03-09", "2026-03-10", "2026-03-15", "2026-03-16", "2026-01-01", "tsa", "2026-3-x"]
    for name in names:
        for file in ("130000Z.status.json", "020000Z.status.json", "130000Z-1.status.json", "130000Z.txt"):
            (stamps / name).mkdir(parents=True, exist_ok=True)
            (stamps / name / file).write_text("{}")
    (stamps / "stray.status.json").write_text("{}")  # not in a day folder: never listed
    st = Stamper(StampConfig(), stamps, SimulatedClock(START), backends=[PendingForever()])
    for today in (date(2026, 3, 16), date(2026, 3, 23), date(2026, 4, 13), date(2026, 5, 1)):
        old = [p for p in sorted(stamps.glob("*/*.status.json")) if upgrade_due(p, today)]
        assert list(st._status_files(today)) == old
    assert list(st._status_files(None)) == sorted(stamps.glob("*/*.status.json"))
    assert list(Stamper(StampConfig(), tmp_path / "none", SimulatedClock(START), backends=[])._status_files(None)) == []
