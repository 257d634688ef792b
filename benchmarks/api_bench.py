"""Benchmark of the read-only API's throughput on loopback (not a test; figures go to docs/open-data.md).

A season of ``--sessions`` sessions is written with the test fixture's generator and published;
``league serve`` (uvicorn, one worker) then serves it on 127.0.0.1 and a local load generator asks
for:

* ``/council-book.jsonl``  the whole book file (static file path, several MB);
* ``/api/league``          the league-table endpoint (JSON, read from the published files, cached);
* ``/api/lines?from=1&to=100`` a hundred book lines through the book index;
* ``/api/stream?from=N``   the stream: the last hundred lines of the book as NDJSON (the response ends: no
  ``follow``), i.e. what each of many readers catching up costs.

Each figure is requests per second with the median and 99th-percentile latency of single requests,
with ``--connections`` concurrent clients (default 50: docs/open-data.md, "50 clients, with latency").

Baseline, in the same invocation: Python's standard ``http.server`` (threading) serving the same
book file, i.e. what a plain static server on the same machine does.

The load generator is a bounded httpx loop with ``--connections`` threads, timing every request (a
Python generator, so the script needs nothing beyond the project's own dependencies). On two cores the
50 client threads share the CPU with the server, so absolute figures are low and the ratio to the
baseline is the figure to read. Every run is bounded by ``--seconds`` and only ever talks to
127.0.0.1. Figures are the median of ``--runs`` runs. Usage::

    python benchmarks/api_bench.py [--sessions 126] [--seconds 5] [--connections 50] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "unit" / "publish"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_up(url: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            httpx.get(url, timeout=2)
            return
        except httpx.TransportError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not come up")


def load_httpx(url: str, seconds: int, connections: int) -> tuple[float, list[float]]:
    """(requests per second, every request's latency in seconds) over ``seconds`` with ``connections`` threads."""
    latencies: list[list[float]] = [[] for _ in range(connections)]
    stop = time.monotonic() + seconds

    def worker(i: int) -> None:
        with httpx.Client(timeout=60) as client:
            while time.monotonic() < stop:
                t0 = time.perf_counter()
                client.get(url).raise_for_status()
                latencies[i].append(time.perf_counter() - t0)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(connections)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    flat = [x for per in latencies for x in per]
    return len(flat) / (time.monotonic() - start), flat


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def measure(url: str, args: argparse.Namespace) -> dict[str, float]:
    """Median over runs of req/s, p50 and p99 (milliseconds)."""
    runs = [load_httpx(url, args.seconds, args.connections) for _ in range(args.runs)]
    return {"rps": statistics.median(r[0] for r in runs),
            "p50_ms": statistics.median(percentile(r[1], 0.50) for r in runs) * 1000,
            "p99_ms": statistics.median(percentile(r[1], 0.99) for r in runs) * 1000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=126)
    parser.add_argument("--seats", type=int, default=14)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from season_fixture import write_season

    from league.publish import files

    work = Path(tempfile.mkdtemp(prefix="api-bench-"))
    seats = tuple(f"seat{i:02d}" for i in range(args.seats - 1)) + ("_coin",)
    season = write_season(work / "data", sessions=args.sessions, seats=seats,
                          assets=("SPX", "NDX", "DJI", "SOX", "TNX", "DXY", "VIX", "GOLD", "WTI", "BRENT", "COPPER",
                                  "BTC"), horizons=("1d", "1w", "1m", "6m"))
    files.PRODUCERS = {k: None for k in files.PRODUCERS}  # no producers: the fixture's own files are served
    files.publish(season.data)
    book_mib = round(season.book.stat().st_size / 2**20, 2)
    port, base_port = free_port(), free_port()
    cli = [sys.executable, "-c", "from league.cli import main; main()"]
    api = subprocess.Popen([*cli, "serve", "--data", str(season.data), "--port", str(port)], cwd=ROOT,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    static = subprocess.Popen([sys.executable, "-m", "http.server", str(base_port), "--bind", "127.0.0.1",
                               "--directory", str(season.public)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results: dict[str, dict[str, float]] = {}
    last = season.book.read_bytes().count(b"\n")
    try:
        wait_up(f"http://127.0.0.1:{port}/api/today")
        wait_up(f"http://127.0.0.1:{base_port}/")
        results["baseline http.server /council-book.jsonl"] = measure(
            f"http://127.0.0.1:{base_port}/council-book.jsonl", args)
        for path in ("/council-book.jsonl", "/api/league", "/api/lines?from=1&to=100",
                     f"/api/stream?from={max(1, last - 99)}"):
            results[f"league serve {path}"] = measure(f"http://127.0.0.1:{port}{path}", args)
    finally:
        for proc in (api, static):
            proc.terminate()
            proc.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)
    base = results["baseline http.server /council-book.jsonl"]["rps"]
    print(f"{'endpoint':<52} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'x baseline':>11}")
    for name, r in results.items():
        print(f"{name:<52} {r['rps']:>8.1f} {r['p50_ms']:>8.1f} {r['p99_ms']:>8.1f} {r['rps'] / base:>11.2f}")
    record: dict[str, Any] = {"machine": f"{platform.machine()} {os.cpu_count()} cores, {platform.python_version()}",
                              "load": "httpx", "seconds": args.seconds,
                              "connections": args.connections, "runs": args.runs, "book_mib": book_mib,
                              "results": results}
    print(json.dumps(record))


if __name__ == "__main__":
    main()
