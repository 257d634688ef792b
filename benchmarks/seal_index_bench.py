"""Benchmark of the per-line costs of sealing, indexing and stamping, replayed from a demo's book.

Not a test: it measures and prints one JSON record. It runs on whatever ``league`` is importable, so the
same script measures two code bases (``PYTHONPATH=<other checkout> python benchmarks/seal_index_bench.py``
from a directory that is not a checkout, after checking ``league.__file__``):

* seal: every line of ``BOOK`` appended again with ``Book.append`` (its kind, content and time) to a
  new book in ``--dir``; the new book must be byte-identical to ``BOOK`` (printed as ``same_book``);
* index: those sealed lines indexed into a fresh SQLite store in batches of ``--batch`` lines, as the
  league's ``indexing_batch`` does (the database's rows are summed into ``index_digest``, to compare);
* index_asks: ``index_book`` of the asks chain called ``--asks-calls`` times on an unchanged file (the
  call the scheduler makes after every job), after a first full index;
* stamp: ``--stamps`` stamped lists of the new book's head with two local RFC 3161 authorities;
* ``--overlap REPLIES`` (alone): ``--stamps`` stamps with the demo's four backends (the two authorities, the
  local calendar and Rekor stand-ins) run side by side and one by one, and every raw reply of REPLIES stored
  and followed by a book line, ahead (side by side, per ``--per-pump`` replies) and one by one; twice each.

CPU seconds are the process's (``time.process_time``); wall seconds include the fsyncs. Usage::

    python benchmarks/seal_index_bench.py BOOK ASKS [--dir DIR] [--batch 50] [--asks-calls 500] [--stamps 100]
                                          [--stamps-only] [--overlap REPLIES [--per-pump 12]]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sqlite3
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BOOKKEEPING = ("n", "prev", "seal", "link", "kind", "at")


def timed(fn: Callable[[], Any]) -> tuple[Any, dict[str, float]]:
    cpu, wall = time.process_time(), time.perf_counter()
    out = fn()
    return out, {"cpu_s": round(time.process_time() - cpu, 3), "wall_s": round(time.perf_counter() - wall, 3)}


def seal_all(book_path: Path, target: Path) -> list[Any]:
    from league.book import Book
    from league.clock import SimulatedClock

    rows = [json.loads(raw) for raw in book_path.read_bytes().splitlines()]
    clock = SimulatedClock(datetime(2026, 1, 1, tzinfo=UTC))

    def run() -> list[Any]:
        sealed = []
        with Book(target, clock) as book:
            for obj in rows:
                content = {k: v for k, v in obj.items() if k not in BOOKKEEPING}
                at = datetime.fromisoformat(obj["at"].replace("Z", "+00:00"))
                sealed.append(book.append(obj["kind"], content, at=at))
        return sealed

    return timed(run)  # type: ignore[return-value]


def index_all(lines: list[Any], db: Path, batch: int) -> dict[str, float]:
    from league.store import open_store

    store = open_store(f"sqlite:///{db}")

    def run() -> None:
        for i in range(0, len(lines), batch):
            store.index_lines("council-book", lines[i:i + batch])

    _, took = timed(run)
    store.close()
    return took


def db_digest(db: Path, skip: tuple[str, ...] = ("job_runs", "alembic_version", "sqlite_stat1")) -> str:
    con = sqlite3.connect(db)
    digest = hashlib.sha256()
    for (table,) in con.execute("select name from sqlite_master where type='table' order by name"):
        if table in skip:
            continue
        for row in sorted(map(repr, con.execute(f"select * from '{table}'"))):
            digest.update(f"{table}:{row}\n".encode())
    con.close()
    return digest.hexdigest()


def index_asks(asks: Path, db: Path, calls: int) -> dict[str, float]:
    from league.store import index_book, open_store

    store = open_store(f"sqlite:///{db}")
    index_book(store, asks, "asks")

    def run() -> None:
        for _ in range(calls):
            index_book(store, asks, "asks")

    _, took = timed(run)
    store.close()
    return took


def stamp_many(book: Path, folder: Path, count: int) -> dict[str, float]:
    from league.clock import SimulatedClock
    from league.stamping.stamper import LOCAL_SCHEME, Stamper
    from league.stamps.interface import StampConfig, TsaEndpoint

    tsa = tuple(TsaEndpoint(name=n, url=LOCAL_SCHEME + str(folder / "local-tsa" / n),
                            ca_file=folder / "local-tsa" / n / "ca.pem", cert_file=folder / "local-tsa" / n / "tsa.crt")
                for n in ("local-a", "local-b"))
    clock = SimulatedClock(datetime(2026, 6, 1, 13, tzinfo=UTC))
    stamper = Stamper(StampConfig(tsa=tsa), folder / "stamps", clock)
    stamper.stamp_books([("council-book.jsonl", book)])  # authorities created here, outside the timing

    def run() -> None:
        from datetime import timedelta

        for _ in range(count):
            clock.advance(timedelta(minutes=1))
            stamper.stamp_books([("council-book.jsonl", book)], note="bench")

    _, took = timed(run)
    return took


def stamp_with_standins(book: Path, folder: Path, count: int, *, one_by_one: bool) -> dict[str, float]:
    """``count`` stamps with the demo's backends: two local authorities, the local calendar and Rekor stand-ins;
    ``one_by_one``: the backends run one after the other (the path before the side-by-side stamp)."""
    from datetime import timedelta

    from league.clock import SimulatedClock
    from league.demo import local_stamp_services
    from league.stamping.stamper import LOCAL_SCHEME, Stamper
    from league.stamps.interface import StampConfig, TsaEndpoint
    from league.stamps.rekor import generate_signing_key

    tsa = tuple(TsaEndpoint(name=n, url=LOCAL_SCHEME + str(folder / "local-tsa" / n),
                            ca_file=folder / "local-tsa" / n / "ca.pem", cert_file=folder / "local-tsa" / n / "tsa.crt")
                for n in ("local-a", "local-b"))
    clock = SimulatedClock(datetime(2026, 6, 1, 13, tzinfo=UTC))
    key = folder / "keys" / "league-signing.pem"
    generate_signing_key(key)
    with local_stamp_services(clock) as services:
        config = StampConfig(tsa=tsa, ots_calendars=services["calendars"], rekor_url=services["rekor_url"],
                             key_path=key)
        stamper = Stamper(config, folder / "stamps", clock)
        if one_by_one and hasattr(stamper, "_run_backends"):
            stamper._run_backends = lambda chosen, path, data: tuple(  # type: ignore[method-assign]
                stamper._run_backend(b, path, data) for b in chosen)
        stamper.stamp_books([("council-book.jsonl", book)])  # authorities created here, outside the timing

        def run() -> None:
            for _ in range(count):
                clock.advance(timedelta(minutes=1))
                stamper.stamp_books([("council-book.jsonl", book)], note="bench")

        _, took = timed(run)
    return took


def raw_then_line(replies: Path, folder: Path, per_pump: int, *, ahead: bool) -> dict[str, float]:
    """Every raw reply of a demo's ``replies/`` folder stored and followed by a book line, as a pump seals
    them: per batch of ``per_pump`` replies, either each file stored just before its line (one by one) or
    the batch's files stored side by side ahead (``league.jobs.seal._RawAhead``), each waited for before
    its line. Both write, fsync and rename every file and fsync every line."""
    from types import SimpleNamespace

    from league.book import Book
    from league.clock import SimulatedClock
    from league.jobs import seal

    raws = [p.read_bytes().decode("utf-8", "surrogatepass") for p in sorted(replies.glob("*.txt"))]
    lg = SimpleNamespace(data_dir=folder)
    replies_of = [SimpleNamespace(raw=r, silent=False) for r in raws]

    def run() -> None:
        with Book(folder / "book.jsonl", SimulatedClock(datetime(2026, 6, 1, 13, tzinfo=UTC))) as book:
            for i in range(0, len(raws), per_pump):
                batch = replies_of[i:i + per_pump]
                store = seal._RawAhead(lg, batch) if ahead else None  # type: ignore[arg-type]
                for k, reply in enumerate(batch):
                    if store is not None:
                        store.wait(k)
                    own, _, _ = seal._store_raw(lg, reply.raw)  # type: ignore[arg-type]
                    book.append("answer", {"own_sha256": own})
                if store is not None:
                    store.__exit__(None, None, None)

    _, took = timed(run)
    return {**took, "replies": len(raws)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("book", type=Path)
    ap.add_argument("asks", type=Path)
    ap.add_argument("--dir", type=Path, default=None)
    ap.add_argument("--batch", type=int, default=50)
    ap.add_argument("--asks-calls", type=int, default=500)
    ap.add_argument("--stamps", type=int, default=100)
    ap.add_argument("--stamps-only", action="store_true", help="only the stamp part, over BOOK itself")
    ap.add_argument("--overlap", type=Path, default=None, metavar="REPLIES",
                    help="only the side-by-side parts: the demo's stamp backends, and the raw replies of REPLIES "
                         "(a demo's DATA/replies) stored ahead of their lines, each against one by one")
    ap.add_argument("--per-pump", type=int, default=12)
    args = ap.parse_args()
    import league

    work = Path(tempfile.mkdtemp(prefix="seal-bench-", dir=args.dir))
    if args.overlap is not None:
        record = {"league": os.path.dirname(league.__file__), "load_before": os.getloadavg()}
        for name, flag in (("one_by_one", True), ("side_by_side", False), ("one_by_one_2", True),
                           ("side_by_side_2", False)):
            record[f"stamp_{name}"] = stamp_with_standins(args.book, work / f"st-{name}", args.stamps, one_by_one=flag)
            record[f"raw_{name}"] = raw_then_line(args.overlap, work / f"raw-{name}", args.per_pump, ahead=not flag)
        record["load_after"] = os.getloadavg()
        print(json.dumps(record))
        return
    if args.stamps_only:
        print(json.dumps({"league": os.path.dirname(league.__file__), "stamp": stamp_many(args.book, work, args.stamps),
                          "load": os.getloadavg()}))
        return
    new_book = work / "council-book.jsonl"
    lines, seal = seal_all(args.book, new_book)
    record: dict[str, Any] = {"league": os.path.dirname(league.__file__), "lines": len(lines), "seal": seal,
                              "same_book": new_book.read_bytes() == args.book.read_bytes()}
    record["index"] = index_all(lines, work / "index.db", args.batch)
    record["index_digest"] = db_digest(work / "index.db")
    record["index_asks"] = index_asks(args.asks, work / "asks.db", args.asks_calls)
    record["stamp"] = stamp_many(new_book, work, args.stamps)
    record["load"] = os.getloadavg()
    print(json.dumps(record))


if __name__ == "__main__":
    main()
