"""The contest in the league's open data: a recorded sweep sealed in the contest book, the books stamped by
a real local RFC 3161 authority, the league's publisher copying the contest files into public/contest/, and
the reader's steps (`league verify`) passing on the folder; a tampered forecasts file fails step 13.

The seats here answer in-process (the sandboxed stand-ins are exercised by the other contest tests):
what this file tests is the wiring of files, book, stamps, publisher and reader."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from league.book import Book
from league.clock import SimulatedClock
from league.contest.config import load_config
from league.contest.context import ContestContext
from league.contest.ledger import Ledger
from league.contest.markets.recorded import RecordedSource
from league.contest.markets.synthetic import make_venue
from league.contest.publish import publish as publish_contest
from league.contest.resolve import resolve_due
from league.contest.sweep import run_sweep
from league.contest.verify import verify_folder
from league.publish import files as publish_files
from league.stamping.stamper import Stamper
from league.stamps.interface import StampConfig, TsaEndpoint
from league.stamps.local_tsa import LocalTsa, create_authority
from league.stamps.trust import TrustStore
from league.verify.reader import StepResult, verify_published
from league_agents.base import Ask, Now, SeatReply, SeatSpec

DAY = datetime(2026, 12, 7, tzinfo=UTC)


class CrowdSeat:
    """Answers the sweep with the market's own prices, as one JSON object (what a CLI prints last)."""

    def __init__(self, spec: SeatSpec, _sandbox: object) -> None:
        self.spec = spec

    def ask(self, ask: Ask, now: Now) -> SeatReply:
        markets = ask.context["markets"]
        body = {"forecasts": [{"id": m["id"], "probabilities": dict(zip(m["outcomes"], m["prices"], strict=True))}
                              for m in markets]}
        at = now()
        return SeatReply(seat=self.spec.name, raw="thinking...\n" + json.dumps(body), model=f"test/{self.spec.name}",
                         version="1", mode="high", started_at=at, finished_at=at)


def reader_store(public: Path) -> TrustStore:
    """A reader who checked the test authority's root herself (the file the stamps were made with)."""
    return TrustStore.default([public.parents[1] / "authority" / "ca.pem"], system=False)


def statuses(results: list[StepResult]) -> dict[int, str]:
    return {r.step: r.status for r in results}


@pytest.fixture(scope="module")
def public(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("league")
    data, clock = root / "data", SimulatedClock(DAY.replace(hour=5))
    venue = make_venue(DAY, 1, seed=3, per_day=12)
    venue.write(root / "venue")
    authority = create_authority(root / "authority", "Authority A")
    with LocalTsa("tsa-a", authority, clock).serve() as url, \
            Book(data / "books" / "council-book.jsonl", clock) as council, \
            Ledger(data / "books" / "contest-book.jsonl", clock) as ledger:
        council.append("run", {"run_id": "r1", "session": "2026-12-07"})
        stamper = Stamper(StampConfig(tsa=(TsaEndpoint(name="tsa-a", url=url, ca_file=authority.ca_pem),)),
                          data / "stamps", clock)
        ctx = ContestContext(load_config(), clock, ledger, RecordedSource(root / "venue"), data / "contest",
                             seat_factory=CrowdSeat)  # type: ignore[arg-type]
        clock.set(DAY.replace(hour=6))
        sweep = run_sweep(ctx)
        assert sweep.markets > 0 and sweep.sha256 is not None
        books = [("council-book.jsonl", data / "books" / "council-book.jsonl"),
                 ("contest/contest-book.jsonl", data / "books" / "contest-book.jsonl")]
        assert stamper.stamp_books(books, note="contest sweep") is not None
        clock.set(DAY + timedelta(days=8))
        assert resolve_due(ctx)
        publish_contest(ctx)
        produced: dict[str, Any] = {k: None for k in publish_files.PRODUCERS}
        produced["proof"] = publish_files.PRODUCERS["proof"]
        saved = publish_files.PRODUCERS
        publish_files.PRODUCERS = produced
        try:
            report = publish_files.publish(data, clock=clock)
        finally:
            publish_files.PRODUCERS = saved
    assert report.file("contest/sealed.json") is not None
    yield data / "public"


def test_the_publisher_copies_the_contest_files_byte_for_byte(public: Path) -> None:
    data = public.parent
    sealed = json.loads((public / "contest" / "sealed.json").read_text())
    [entry] = sealed
    assert (public / "contest" / entry["file"]).read_bytes() == (data / "contest" / entry["file"]).read_bytes()
    assert (public / "contest" / "contest-book.jsonl").read_bytes() == \
        (data / "books" / "contest-book.jsonl").read_bytes()
    described = json.loads((public / "arena-dataset.json").read_text())["files"]
    assert "sealed sweeps" in described["contest/sealed.json"]["description"]
    assert "one sealed sweep" in described[f"contest/{entry['file']}"]["description"]


def test_league_verify_passes_with_the_contest_book_stamped_and_step_13(public: Path) -> None:
    results = verify_published(public, trust=reader_store(public), contest=verify_folder)
    got = statuses(results)
    assert got[3] == "ok" and got[4] == "ok" and got[9] == "ok" and got[13] == "ok", [r.line() for r in results]
    assert "contest/contest-book.jsonl" in next(r for r in results if r.step == 4).detail
    # step 7 recounts the council's CSV, which this one-line council (no producers) does not publish
    assert [n for n, status in got.items() if status == "FAILED"] == [7], [r.line() for r in results]


def test_a_changed_forecast_fails_step_13_naming_the_file(public: Path, tmp_path: Path) -> None:
    copy = tmp_path / "public"
    shutil.copytree(public, copy)
    [entry] = json.loads((copy / "contest" / "sealed.json").read_text())
    path = copy / "contest" / entry["file"]
    doc = json.loads(path.read_text())
    probs = doc["forecasts"][0]["probabilities"]
    label = next(iter(probs))
    probs[label] = round(1 - probs[label], 6)
    path.write_bytes(json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False).encode("utf-8"))
    step = next(r for r in verify_published(copy, trust=reader_store(public), contest=verify_folder) if r.step == 13)
    assert step.status == "FAILED" and entry["file"] in step.detail


def test_step_13_without_a_contest_verifier_is_skipped_and_strict_refuses(public: Path) -> None:
    """The reader does not import the contest package (its ledger is writer code): the caller hands the
    contest's verifier in, and a folder with contest files checked without one is not passed as checked."""
    step = next(r for r in verify_published(public, trust=reader_store(public)) if r.step == 13)
    assert step.status == "skipped" and "not asked for" in step.detail
    assert step.strict == "the contest's files were not checked (no contest verifier was given)"
