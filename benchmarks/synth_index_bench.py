"""CPU of filling a generated league's database index: read back from the books against fed as sealed.

    python benchmarks/synth_index_bench.py LEAGUE [--runs 2]

LEAGUE is a folder benchmarks/synth_league.py wrote. Each run, alternately, fills a fresh SQLite database
(beside LEAGUE's, removed afterwards) both ways and prints the CPU seconds of each:

* ``read back`` — :func:`league.store.index_book` over each book, as the generator did after writing: every
  line read, parsed and its seal and link checked again, then derived and inserted;
* ``fed`` — :class:`synth_league.BookFeed`: the same lines handed to ``Store.index_lines`` in batches of
  ``BookFeed.BATCH``, as the generator now does while sealing. The lines are parsed from the file first,
  outside the timed part (the generator holds them already, as it has just sealed them).

Both then refresh the planner's statistics once (``ANALYZE``), which is timed. The job ledger is left out.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from league.book.chain import iter_lines
from league.store import SqlStore, index_book, open_store

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth_league import BookFeed  # noqa: E402


def _fresh(db: Path) -> SqlStore:
    for p in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        p.unlink(missing_ok=True)
    store = open_store(f"sqlite:///{db}")
    assert isinstance(store, SqlStore)
    return store


def read_back(books: Path, db: Path) -> float:
    store = _fresh(db)
    try:
        t0 = time.process_time()
        for name in ("council-book", "asks"):
            index_book(store, books / f"{name}.jsonl", name)
        store.analyze()
        return time.process_time() - t0
    finally:
        store.close()


def fed(books: Path, db: Path) -> float:
    lines = {name: list(iter_lines(books / f"{name}.jsonl")) for name in ("council-book", "asks")}
    store = _fresh(db)
    try:
        feed = BookFeed(store, books)
        t0 = time.process_time()
        for name, book in lines.items():  # one book after the other, in batches, as sealed
            for line in book:
                feed.add(name, line)
                if feed.count >= BookFeed.BATCH:
                    feed.flush()
        feed.flush()
        store.analyze()
        return time.process_time() - t0
    finally:
        store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("league", type=Path)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    books = args.league / "data" / "books"
    db = args.league / "data" / "index-bench.db"
    lines = sum(1 for name in ("council-book", "asks") for _ in (books / f"{name}.jsonl").open("rb"))
    results: dict[str, list[float]] = {"read_back": [], "fed": []}
    try:
        for _ in range(args.runs):
            results["read_back"].append(round(read_back(books, db), 2))
            results["fed"].append(round(fed(books, db), 2))
    finally:
        _fresh(db).close()
        db.unlink(missing_ok=True)
    print(json.dumps({"league": str(args.league), "lines": lines, "cpu_s": results,
                      "ratio": [round(a / b, 2) for a, b in zip(results["read_back"], results["fed"], strict=True)]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
