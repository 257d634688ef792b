"""Benchmark of the stamps (docs/stamps.md): what a stamp and a reader's verification cost.

Not a test: it measures, prints a table and a JSON record; the figures go into docs/stamps.md.

* Token: one RFC 3161 token from the local authority in process (``LocalTsa.stamp``: build the
  request, sign the reply in process (asn1crypto + cryptography), parse), against the baseline of spawning
  ``openssl version`` (the process start every token paid while the authority ran ``openssl ts -reply``).
* Stamp: ``Stamper.stamp_books`` with two local authorities (list, two tokens, in-process
  verification of each, status file), against the baseline of two bare tokens.
* Verify: ``verify_published`` on a folder with a ``--lines`` book and ``--stamps`` stamps with two
  tokens each, against the baseline ``league.verify.chain.verify`` of the same book (step 4 alone).

Every figure is the median of ``--runs`` runs (default 5). Usage::

    python benchmarks/stamps_bench.py [--lines 20000] [--stamps 6] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from league.book import Book
from league.clock import SimulatedClock
from league.publish.proof_pages import write_proof_pages
from league.stamping.stamper import CertFiles, Stamper
from league.stamps.interface import StampConfig
from league.stamps.local_tsa import LocalTsa, create_authority
from league.verify.chain import verify
from league.verify.reader import verify_published


def median_seconds(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def build(root: Path, lines: int, stamps: int) -> tuple[Path, Stamper, list[tuple[str, Path]]]:
    clock = SimulatedClock(datetime(2026, 3, 2, 12, 0, tzinfo=UTC))
    a, b = create_authority(root / "a", "A"), create_authority(root / "b", "B")
    tsas = [LocalTsa("a", a, clock), LocalTsa("b", b, clock)]
    certs = {"a": CertFiles(a.ca_pem, a.tsa_crt), "b": CertFiles(b.ca_pem, b.tsa_crt)}
    stamper = Stamper(StampConfig(retry_wait=0), root / "stamps", clock, backends=tsas, certs=certs)
    book_path = root / "books" / "council-book.jsonl"
    books = [("council-book.jsonl", book_path)]
    with Book(book_path, clock) as book:
        for i in range(lines):
            book.append("mark", {"seat": f"s{i % 7}", "value": i * 0.5, "note": "x" * 200})
            if (i + 1) % (lines // stamps) == 0:
                clock.advance(timedelta(minutes=1))
                stamper.stamp_books(books)
    public = root / "public"
    public.mkdir()
    shutil.copyfile(book_path, public / "council-book.jsonl")
    write_proof_pages(root / "stamps", public, books={"council-book.jsonl": book_path})
    return public, stamper, books


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=20000)
    ap.add_argument("--stamps", type=int, default=6)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        public, stamper, books = build(root, args.lines, args.stamps)
        tsa = stamper.backends[0]
        data = b"council-book.jsonl: 1 lines, sha256 ...\n"
        fig = {
            "token_s": median_seconds(lambda: tsa.stamp(data), args.runs),
            "openssl_spawn_s": median_seconds(
                lambda: subprocess.run(["openssl", "version"], capture_output=True, check=True), args.runs
            ),
            "stamp_two_tsa_s": median_seconds(lambda: stamper.stamp_books(books), args.runs),
            "two_tokens_s": median_seconds(lambda: [b.stamp(data) for b in stamper.backends], args.runs),
            "verify_published_s": median_seconds(lambda: verify_published(public), args.runs),
            "verify_fast_s": median_seconds(lambda: verify(public / "council-book.jsonl", workers=1), args.runs),
        }
        statuses = {r.step: r.status for r in verify_published(public)}
    record = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "lines": args.lines,
        "stamps": args.stamps + args.runs * 2,
        "runs": args.runs,
        "steps": statuses,
        **{k: round(v, 4) for k, v in fig.items()},
        "token_vs_spawn": round(fig["token_s"] / fig["openssl_spawn_s"], 2),
        "stamp_vs_two_tokens": round(fig["stamp_two_tsa_s"] / fig["two_tokens_s"], 2),
        "verify_published_vs_verify_fast": round(fig["verify_published_s"] / fig["verify_fast_s"], 2),
    }
    for key, value in record.items():
        print(f"{key:>34}: {value}")
    print(json.dumps(record))


if __name__ == "__main__":
    main()
