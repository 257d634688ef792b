"""The backends of one stamp run side by side: the same outcomes, in the configured order, and
the same files as one after the other, whatever order the backends finish in."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

from league.book import Book
from league.clock import SimulatedClock
from league.stamping.stamper import CertFiles, Stamper
from league.stamps.interface import Artifact, BackendKind, StampConfig, StampError
from league.stamps.local_tsa import LocalTsa, create_authority

START = datetime(2026, 3, 2, 13, 0, tzinfo=UTC)


class Gated:
    """A backend that answers only once the backend named ``after`` has answered (or at once): run one after
    the other in the configured order, a backend gated on a later one would wait for ever."""

    kind: BackendKind = "ots"

    def __init__(self, name: str, gates: dict[str, threading.Event], after: str | None = None,
                 fails: bool = False) -> None:
        self.name, self.gates, self.after, self.fails = name, gates, after, fails
        self.threads: list[str] = []

    def stamp(self, data: bytes) -> Artifact:
        self.threads.append(threading.current_thread().name)
        try:
            if self.after is not None and not self.gates[self.after].wait(timeout=10):
                raise StampError(f"{self.after} never answered")
            if self.fails:
                raise StampError(f"{self.name} is down")
            return Artifact(kind="ots", name=self.name, suffix=f".{self.name}.ots", data=self.name.encode() + data[:8],
                            complete=False)
        finally:
            self.gates[self.name].set()


def _stamp(folder: Path, backends: list[object], book: Path, *, one_by_one: bool = False) -> dict[str, bytes]:
    st = Stamper(StampConfig(retries=1, retry_wait=0), folder, SimulatedClock(START), backends=backends)  # type: ignore[arg-type]
    if one_by_one:  # the path it replaces
        st._run_backends = lambda chosen, path, data: tuple(st._run_backend(b, path, data) for b in chosen)  # type: ignore[method-assign]
    result = st.stamp_books([("council-book.jsonl", book)])
    assert result is not None
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_outcomes_keep_the_configured_order_when_later_backends_finish_first(tmp_path: Path, book: Path) -> None:
    gates = {n: threading.Event() for n in ("a", "b", "c")}
    first = Gated("a", gates, after="c")  # finishes last
    middle = Gated("b", gates, after="c", fails=True)
    last = Gated("c", gates)
    files = _stamp(tmp_path / "s", [first, middle, last], book)
    status = json.loads(files["2026-03-02/130000Z.status.json"])
    assert [b["name"] for b in status["backends"]] == ["a", "b", "c"]
    assert [b["ok"] for b in status["backends"]] == [True, False, True]
    assert status["trust_level"] == "2 pending"
    assert len({*first.threads, *last.threads}) == 2  # really side by side (else "a" would have timed out)


def test_side_by_side_writes_the_same_files_as_one_by_one(tmp_path: Path, book: Path) -> None:
    def backends(folder: Path) -> list[object]:
        gates = {n: threading.Event() for n in ("x", "y", "z")}
        return [Gated("x", gates), Gated("y", gates, fails=True), Gated("z", gates, after="x")]

    together = _stamp(tmp_path / "together", backends(tmp_path), book)
    alone = _stamp(tmp_path / "alone", backends(tmp_path), book, one_by_one=True)
    assert together == alone
    assert "2026-03-02/130000Z.txt.z.ots" in together


def test_local_authorities_side_by_side_give_the_outcomes_of_one_by_one(tmp_path: Path, book: Path) -> None:
    """Two real local authorities (their tokens carry fresh signatures, so the tokens themselves differ)."""
    outcomes = []
    for one_by_one in (False, True):
        auth = [create_authority(tmp_path / f"auth{one_by_one}" / n, n) for n in ("a", "b")]
        clock = SimulatedClock(START)  # the authorities sign at the league's time, not the machine's
        st = Stamper(StampConfig(), tmp_path / f"s{one_by_one}", clock,
                     backends=[LocalTsa(f.directory.name, f, clock) for f in auth],
                     certs={f.directory.name: CertFiles(f.ca_pem, f.tsa_crt) for f in auth})
        if one_by_one:
            st._run_backends = lambda chosen, path, data, st=st: tuple(  # type: ignore[method-assign,misc]
                st._run_backend(b, path, data) for b in chosen)
        result = st.stamp_books([("council-book.jsonl", book)])
        assert result is not None
        outcomes.append([o.as_json() for o in result.outcomes])
    assert outcomes[0] == outcomes[1]
    assert [o["name"] for o in outcomes[0]] == ["a", "b"] and all(o["verified"] for o in outcomes[0])


class SomeComplete:
    """An OpenTimestamps backend whose calendar completes about half of the proofs (by their bytes), slowly."""

    kind: BackendKind = "ots"
    name = "ots"

    def __init__(self) -> None:
        self.threads: set[str] = set()

    def stamp(self, data: bytes) -> Artifact:
        return Artifact(kind="ots", name="ots", suffix=".ots", data=b"pending " + data[-40:], complete=False)

    def upgrade(self, raw: bytes) -> tuple[bytes, bool]:
        self.threads.add(threading.current_thread().name)
        threading.Event().wait(0.01)  # a calendar's round trip
        if raw.startswith(b"pending ") and sum(raw) % 2:
            return b"complete " + raw[8:], True
        return raw, False


def _upgraded(folder: Path, book: Path, *, one_by_one: bool) -> tuple[list[tuple[str, bool]], dict[str, bytes], int]:
    clock, ots = SimulatedClock(START), SomeComplete()
    st = Stamper(StampConfig(), folder, clock, backends=[ots])
    for k in range(9):
        with Book(book, clock) as b:
            b.append("answer", {"run_id": "r1", "seat": f"s{k}"})  # a new head: a different list each time
        assert st.stamp_books([("council-book.jsonl", book)], note=f"stamp {k}") is not None
        clock.advance(timedelta(hours=1))
    if one_by_one:  # the path it replaces
        st._upgrade_all = lambda ots, files: [st._upgrade_one(ots, f) for f in files]  # type: ignore[method-assign]
    done = [(p.name, complete) for p, complete in st.upgrade(backoff=True)]
    files = {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
    return done, files, len(ots.threads)


def test_upgrades_side_by_side_give_the_results_and_files_of_one_by_one(tmp_path: Path) -> None:
    together = _upgraded(tmp_path / "together", tmp_path / "b1" / "council-book.jsonl", one_by_one=False)
    alone = _upgraded(tmp_path / "alone", tmp_path / "b2" / "council-book.jsonl", one_by_one=True)
    assert together[:2] == alone[:2]
    assert len(together[0]) == 9 and {c for _, c in together[0]} == {True, False}  # some completed, some not
    assert together[2] > 1 and alone[2] == 1  # really side by side
