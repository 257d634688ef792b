"""Benchmark of the store: rebuild a season's index on SQLite and PostgreSQL, against a no-database baseline.

Usage: python benchmarks/store_rebuild.py [--sessions 126] [--price-days 21] [--runs 3]

The baseline is the unavoidable part of a rebuild (verify every book, parse every line and every price
file, derive the rows) with no database; each figure is the median of ``--runs`` runs made in the same go,
reported with its ratio to that baseline. PostgreSQL runs against the server on 127.0.0.1:5432 in a
throwaway database (skipped if unreachable).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from league.book import Book, iter_lines
from league.clock import SimulatedClock
from league.store import open_store, rebuild
from league.store.derive import derive
from league.store.rebuild import cached_days, check_book
from league.store.testing import pg_unreachable_reason, throwaway_pg_database

MARKETS = ["SPX", "NDX", "DJI", "SOX", "TNX", "DXY", "VIX", "GOLD", "WTI", "BRENT", "COPPER", "BTC"]
HORIZONS = ["1d", "1w", "1m", "6m"]
SEATS = ["claude", "codex", "gemini", "grok", "_coin", "_momentum", "_climatology", "gpt"]
SYMBOLS = ["^GSPC", "^NDX", "^DJI", "^SOX", "^TNX", "DX-Y.NYB", "^VIX", "GC=F", "CL=F", "BZ=F", "HG=F", "BTC-USD"]


def write_season(data: Path, sessions: int, price_days: int) -> int:
    start = datetime(2026, 6, 1, 12, 25, tzinfo=UTC)
    clock = SimulatedClock(start)
    lines = 0
    with Book(data / "books" / "council-book.jsonl", clock) as book:
        for s in range(sessions):
            day = (start + timedelta(days=s)).date().isoformat()
            run_id = f"run-{day}"
            book.append("run", {"run_id": run_id, "session": day, "role": "counted", "ask_sha256": "a" * 64})
            for k, seat in enumerate(SEATS):
                items = {
                    m: {
                        h: {"prob_up": (s + k + i) % 101, "action": "hold", "cell_status": "elicited"} for h in HORIZONS
                    }
                    for i, m in enumerate(MARKETS)
                }
                book.append(
                    "answer", {"seat": seat, "run_id": run_id, "status": "counted", "attempt": 1, "items": items}
                )
            book.append(
                "score",
                {
                    "session": day,
                    "markets": [{"market": m, "horizon": "1d", "reference": 100.0, "close": 101.0} for m in MARKETS],
                    "seats": [
                        {"seat": seat, "market": m, "horizon": "1d", "prob_up": 55, "outcome": 1, "brier": 0.2025}
                        for seat in SEATS
                        for m in MARKETS
                    ],
                },
            )
            clock.advance(timedelta(days=1))
            lines += 2 + len(SEATS)
    for d in range(price_days):
        day = date(2026, 6, 1) + timedelta(days=d)
        t0 = datetime.combine(day, datetime.min.time(), tzinfo=UTC) + timedelta(hours=13, minutes=30)
        for sym in SYMBOLS:
            folder = data / "prices" / sym
            folder.mkdir(parents=True, exist_ok=True)
            bars = [
                {
                    "t": (t0 + timedelta(minutes=i)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "o": 100.0 + i / 100,
                    "h": 100.5 + i / 100,
                    "l": 99.5 + i / 100,
                    "c": 100.1 + i / 100,
                    "v": i,
                }
                for i in range(390)
            ]
            (folder / f"{day}.jsonl").write_text("".join(json.dumps(b) + "\n" for b in bars), encoding="utf-8")
            (folder / f"{day}.complete").write_text("{}\n", encoding="utf-8")
    return lines


def baseline(data: Path) -> None:
    """Everything a rebuild must do except talk to the database."""
    book = data / "books" / "council-book.jsonl"
    check_book(book)
    rows = 0
    for line in iter_lines(book):
        rows += len(derive("council-book", line, lambda _r: None))
    for day in cached_days(data / "prices"):
        rows += len(day.rows)


def timed(fn: Any, runs: int) -> float:
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def claims(url: str, n: int) -> None:
    store = open_store(url)
    now = datetime(2026, 6, 1, 13, 0, tzinfo=UTC)
    try:
        for i in range(n):
            day = date(2026, 1, 1) + timedelta(days=i)
            store.claim_job(day, "bench", now)
            store.finish_job(day, "bench", "done", "", now)
    finally:
        store.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=126)
    ap.add_argument("--price-days", type=int, default=21)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="store-bench-"))
    data = tmp / "data"
    lines = write_season(data, args.sessions, args.price_days)
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; python "
        f"{platform.python_version()}"
    )
    print(f"season: {args.sessions} sessions, {lines} book lines, {args.price_days * len(SYMBOLS) * 390} bars")
    base = timed(lambda: baseline(data), args.runs)
    print(f"baseline (verify + parse + derive, no database): {base:.2f} s")
    targets = [("sqlite", f"sqlite:///{tmp / 'league.db'}")]
    reason = pg_unreachable_reason()
    with throwaway_pg_database("league_bench") if reason is None else _null() as pg_url:
        if pg_url:
            targets.append(("postgresql", pg_url))
        else:
            print(f"postgresql skipped: {reason}")
        for name, url in targets:
            t = timed(lambda url=url: rebuild(url, data), args.runs)  # type: ignore[misc]
            print(f"rebuild {name}: {t:.2f} s (x{t / base:.1f} baseline)")
            c = timed(lambda url=url: claims(url, 200), 1)  # type: ignore[misc]
            rebuild(url, data)
            print(f"claim+finish {name}: {c / 200 * 1000:.1f} ms per job (200 jobs)")


class _null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


if __name__ == "__main__":
    main()
