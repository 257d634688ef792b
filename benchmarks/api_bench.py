"""Benchmark of the read-only API's throughput on loopback (not a test; figures go to docs/open-data.md).

A season of ``--sessions`` sessions is written with the test fixture's generator and published;
``league serve`` (uvicorn, one worker) then serves it on 127.0.0.1 and a local load generator asks
for:

* ``/council-book.jsonl``  the whole book file (static file path, several MB);
* ``/api/league``          the league-table endpoint (JSON, read from the published files, cached);
* ``/api/lines?from=1&to=100`` a hundred book lines through the book index.

Baseline, in the same invocation: Python's standard ``http.server`` (threading) serving the same
book file, i.e. what a plain static server on the same machine does.

The load generator is ``wrk`` when installed (``apt-get install wrk``), else a bounded httpx loop
with ``--connections`` threads. Every run is bounded by ``--seconds`` and only ever talks to
127.0.0.1. Figures are the median of ``--runs`` runs. Usage::

    python benchmarks/api_bench.py [--sessions 126] [--seconds 5] [--connections 8] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
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


def load_wrk(url: str, seconds: int, connections: int) -> float:
    out = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", url], capture_output=True, text=True,
                         check=True).stdout
    match = re.search(r"Requests/sec:\s+([\d.]+)", out)
    if not match:
        raise RuntimeError(out)
    return float(match.group(1))


def load_httpx(url: str, seconds: int, connections: int) -> float:
    counts = [0] * connections
    stop = time.monotonic() + seconds

    def worker(i: int) -> None:
        with httpx.Client(timeout=30) as client:
            while time.monotonic() < stop:
                client.get(url).raise_for_status()
                counts[i] += 1

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(connections)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(counts) / (time.monotonic() - start)


def measure(url: str, args: argparse.Namespace) -> float:
    load = load_wrk if shutil.which("wrk") else load_httpx
    return statistics.median(load(url, args.seconds, args.connections) for _ in range(args.runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=126)
    parser.add_argument("--seats", type=int, default=14)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from season_fixture import write_season

    from league.publish import files

    work = Path(tempfile.mkdtemp(prefix="api-bench-"))
    seats = tuple(f"seat{i:02d}" for i in range(args.seats - 1)) + ("_coin",)
    season = write_season(work / "data", sessions=args.sessions, seats=seats,
                          assets=("SPX", "NDX", "DJI", "SOX", "TNX", "DXY", "VIX", "GOLD", "WTI", "BRENT", "COPPER",
                                  "BTC"), horizons=("1d", "1w", "1m", "6m"))
    files.PRODUCERS = {k: ("no.such.module:x",) for k in files.PRODUCERS}  # the fixture's league file is served
    files.publish(season.data)
    book_mib = round(season.book.stat().st_size / 2**20, 2)
    port, base_port = free_port(), free_port()
    cli = [sys.executable, "-c", "from league.cli import main; main()"]
    api = subprocess.Popen([*cli, "serve", "--data", str(season.data), "--port", str(port)], cwd=ROOT,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    static = subprocess.Popen([sys.executable, "-m", "http.server", str(base_port), "--bind", "127.0.0.1",
                               "--directory", str(season.public)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results: dict[str, float] = {}
    try:
        wait_up(f"http://127.0.0.1:{port}/api/today")
        wait_up(f"http://127.0.0.1:{base_port}/")
        results["baseline http.server /council-book.jsonl"] = measure(
            f"http://127.0.0.1:{base_port}/council-book.jsonl", args)
        for path in ("/council-book.jsonl", "/api/league", "/api/lines?from=1&to=100"):
            results[f"league serve {path}"] = measure(f"http://127.0.0.1:{port}{path}", args)
    finally:
        for proc in (api, static):
            proc.terminate()
            proc.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)
    base = results["baseline http.server /council-book.jsonl"]
    print(f"{'endpoint':<48} {'req/s (median)':>15} {'x baseline':>11}")
    for name, rps in results.items():
        print(f"{name:<48} {rps:>15.1f} {rps / base:>11.2f}")
    record: dict[str, Any] = {"machine": f"{platform.machine()} {os.cpu_count()} cores, {platform.python_version()}",
                              "load": "wrk" if shutil.which("wrk") else "httpx", "seconds": args.seconds,
                              "connections": args.connections, "runs": args.runs, "book_mib": book_mib,
                              "req_per_s": results}
    print(json.dumps(record))


if __name__ == "__main__":
    main()
