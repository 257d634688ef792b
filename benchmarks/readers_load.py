"""Load benchmark of the readers' write service on loopback (not a test; figures go to NOTES-readers-page.md, then
docs/readers.md).

One server process serves what ``league serve --readers`` serves: the read-only API over a small season with the
readers' service mounted under ``/readers`` (uvicorn, one worker, no access log), on a frozen clock during a
session (08:00 New York on a Monday, so forecasts are open the whole run) and with the per-address limits lifted
(every simulated reader comes from 127.0.0.1). ``--readers`` concurrent readers (default 50) then run for
``--seconds`` (default 20), each a loop of: a new cookie jar, ``GET /readers/state`` (a new reader, assigned and
sealed), one ``POST /readers/forecast`` per market (first forecasts: counted), then one more per market (later
forecasts: recorded, not counted), each POST with the single-use token the previous answer carried.

Checks, every run: no 5xx; every accepted forecast (a 200) is sealed exactly once, i.e. the book gains exactly as
many ``reader_forecast`` lines as there were 200s, those lines name distinct (reader, market, counted) triples
and the counted ones are exactly the first forecasts that were answered ``counted: true``. Figures: the POSTs'
p50 and p99 latency, requests per second (all requests) and POSTs per second; the median over ``--runs`` runs.

Baseline, in the same go and at the same concurrency, alternating with the readers' runs: ``GET /healthz`` of the
read-only API in the same server (what one request costs when nothing is sealed). The load generator is threads
of httpx clients, as in api_bench.py; on two cores they share the CPU with the server, so the ratio to the
baseline is the figure to read. Raw runs go to ``benchmarks/records/readers_load.json``. Usage::

    .venv/bin/python benchmarks/readers_load.py [--readers 50] [--seconds 20] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from datetime import time as dtime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

if TYPE_CHECKING:
    from fastapi import FastAPI

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "benchmarks" / "records" / "readers_load.json"
MARKETS = ["SPX", "NDX", "DJI", "SOX", "TNX", "DXY", "VIX", "GOLD", "WTI", "BRENT", "COPPER", "BTC"]
OPEN = datetime(2026, 12, 7, 13, 0, tzinfo=UTC)  # Monday 08:00 New York: the session's forecasts are open


# ---------------------------------------------------------------------------------------------- the server side
def build_app(data: Path) -> FastAPI:
    """The read-only API over ``data`` with the readers' service mounted as ``league serve --readers`` mounts
    it, on a frozen clock during a session and with the per-address limits lifted (one address, many readers)."""
    from league.api import create_app
    from league.api.app import mount_beside
    from league.calendar import default_calendar
    from league.clock import SimulatedClock
    from league.readers.service import Limits, ReadersService, create_readers_app

    service = ReadersService(data, data / "public", MARKETS, default_calendar(), dtime(9, 30), SimulatedClock(OPEN),
                             limits=Limits(requests_per_address_day=10**9, identifiers_per_address_day=10**9))
    app = create_app(data)
    mount_beside(app, "/readers", create_readers_app(service, secure_cookie=False))
    return app


def make_data(root: Path) -> Path:
    """A small season (the council book the read-only API needs) and a council on offer for the readers."""
    sys.path.insert(0, str(ROOT / "tests" / "unit" / "publish"))
    from season_fixture import write_season

    season = write_season(root / "data", sessions=3)
    (season.data / "public").mkdir(exist_ok=True)
    events = [{"horizon": "1d", "session": "2026-12-04", "asset": m, "p": 40.0 + 2 * i} for i, m in enumerate(MARKETS)]
    (season.data / "public" / "council-stats.json").write_text(json.dumps({"consensus": {"per_event": events}}))
    data: Path = season.data
    return data


def serve(data: Path, port: int) -> None:
    import uvicorn

    uvicorn.run(build_app(data), host="127.0.0.1", port=port, log_level="warning", access_log=False)


# ---------------------------------------------------------------------------------------------- the load side
@dataclass
class Tally:
    """What one run's clients saw."""

    requests: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    post_latencies: list[float] = field(default_factory=list)
    accepted: int = 0  # forecasts answered 200
    counted_true: int = 0  # of those, answered counted: true
    seconds: float = 0.0


def _reader_loop(base: str, markets: list[str], stop: float, tally: Tally, lock: threading.Lock) -> None:
    local = Tally()
    while time.monotonic() < stop:
        with httpx.Client(base_url=base, timeout=60) as client:  # a new cookie jar: a new reader
            got = client.get("/readers/state")
            local.requests += 1
            local.statuses[got.status_code] += 1
            if got.status_code != 200:
                continue
            state = got.json()
            csrf = state["csrf"]
            for rnd in range(2):  # first forecasts, then later ones
                for i, market in enumerate(markets):
                    if time.monotonic() >= stop:
                        break
                    body = {"session": state["session"], "market": market, "side": "up" if (i + rnd) % 2 else "down",
                            "confidence": 55 + (i * 7) % 41, "csrf": csrf}
                    t0 = time.perf_counter()
                    resp = client.post("/readers/forecast", json=body)
                    local.post_latencies.append(time.perf_counter() - t0)
                    local.requests += 1
                    local.statuses[resp.status_code] += 1
                    if resp.status_code != 200:
                        break  # the token is spent: this reader starts over
                    answer = resp.json()
                    csrf = answer["csrf"]
                    local.accepted += 1
                    local.counted_true += bool(answer["counted"])
    with lock:
        tally.requests += local.requests
        tally.statuses.update(local.statuses)
        tally.post_latencies.extend(local.post_latencies)
        tally.accepted += local.accepted
        tally.counted_true += local.counted_true


def readers_load(base: str, readers: int, seconds: float, markets: list[str] = MARKETS) -> Tally:
    """``readers`` concurrent reader loops against ``base`` for ``seconds``."""
    tally, lock = Tally(), threading.Lock()
    stop = time.monotonic() + seconds
    threads = [threading.Thread(target=_reader_loop, args=(base, markets, stop, tally, lock)) for _ in range(readers)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    tally.seconds = time.monotonic() - start
    return tally


def healthz_load(base: str, connections: int, seconds: float) -> Tally:
    """The baseline: ``GET /healthz`` in a loop from ``connections`` threads."""
    tally, lock = Tally(), threading.Lock()
    stop = time.monotonic() + seconds

    def worker() -> None:
        local = Tally()
        with httpx.Client(base_url=base, timeout=60) as client:
            while time.monotonic() < stop:
                t0 = time.perf_counter()
                resp = client.get("/healthz")
                local.post_latencies.append(time.perf_counter() - t0)
                local.requests += 1
                local.statuses[resp.status_code] += 1
        with lock:
            tally.requests += local.requests
            tally.statuses.update(local.statuses)
            tally.post_latencies.extend(local.post_latencies)

    threads = [threading.Thread(target=worker) for _ in range(connections)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    tally.seconds = time.monotonic() - start
    return tally


def book_forecasts(book: Path) -> list[dict[str, Any]]:
    if not book.exists():
        return []
    lines = [json.loads(x) for x in book.read_bytes().splitlines() if x.strip()]
    return [x for x in lines if x.get("kind") == "reader_forecast"]


def sealing_problems(before: list[dict[str, Any]], after: list[dict[str, Any]], tally: Tally) -> list[str]:
    """What is wrong with the book against the clients' tally: empty when every accepted forecast is sealed once."""
    new = after[len(before):]
    problems = []
    if after[:len(before)] != before:
        problems.append("the book's earlier forecast lines changed")
    if len(new) != tally.accepted:
        problems.append(f"{len(new)} forecast lines sealed for {tally.accepted} forecasts answered 200")
    counted = [x for x in new if x["counted"]]
    if len(counted) != tally.counted_true:
        problems.append(f"{len(counted)} counted lines for {tally.counted_true} answers counted: true")
    firsts = Counter((x["reader"], x["session"], x["market"]) for x in counted)
    if any(n > 1 for n in firsts.values()):
        problems.append("a reader x market x session counted twice")
    errors = sum(n for s, n in tally.statuses.items() if s >= 500)
    if errors:
        problems.append(f"{errors} server errors (5xx)")
    return problems


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def summary(t: Tally) -> dict[str, Any]:
    return {"requests": t.requests, "seconds": round(t.seconds, 3), "rps": round(t.requests / t.seconds, 1),
            "posts": len(t.post_latencies), "posts_per_s": round(len(t.post_latencies) / t.seconds, 1),
            "p50_ms": round(percentile(t.post_latencies, 0.50) * 1000, 2),
            "p99_ms": round(percentile(t.post_latencies, 0.99) * 1000, 2),
            "accepted": t.accepted, "counted": t.counted_true,
            "statuses": {str(k): v for k, v in sorted(t.statuses.items())}}


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


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--readers", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--serve", nargs=2, metavar=("DATA", "PORT"), help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, default=RECORD)
    args = parser.parse_args()
    if args.serve:
        serve(Path(args.serve[0]), int(args.serve[1]))
        return
    work = Path(tempfile.mkdtemp(prefix="readers-load-"))
    data = make_data(work)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(data), str(port)], cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    book = data / "books" / "readers-book.jsonl"
    runs: list[dict[str, Any]] = []
    try:
        wait_up(f"{base}/healthz")
        for i in range(args.runs):
            baseline = healthz_load(base, args.readers, args.seconds)
            before = book_forecasts(book)
            load = readers_load(base, args.readers, args.seconds)
            problems = sealing_problems(before, book_forecasts(book), load)
            runs.append({"run": i + 1, "readers": summary(load), "baseline_healthz": summary(baseline),
                         "problems": problems})
            print(json.dumps(runs[-1]), flush=True)
    finally:
        server.terminate()
        _, err = server.communicate(timeout=30)
    med = {k: statistics.median(r["readers"][k] for r in runs) for k in ("rps", "posts_per_s", "p50_ms", "p99_ms")}
    base_med = {k: statistics.median(r["baseline_healthz"][k] for r in runs) for k in ("rps", "p50_ms", "p99_ms")}
    record = {"date": datetime.now(UTC).date().isoformat(), "commit": _commit(),
              "machine": f"{platform.machine()} {os.cpu_count()} cores, Python {platform.python_version()}",
              "command": " ".join([".venv/bin/python benchmarks/readers_load.py", *sys.argv[1:]]),
              "load_average_after": [round(x, 2) for x in os.getloadavg()],
              "readers": args.readers, "seconds": args.seconds, "runs": runs, "median": med,
              "baseline_median": base_med, "rps_ratio_to_baseline": round(med["rps"] / base_med["rps"], 3),
              "all_sealed_exactly_once": all(not r["problems"] for r in runs),
              "server_stderr_lines": len(err.decode(errors="replace").splitlines())}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"readers: {med['rps']:.1f} req/s ({med['posts_per_s']:.1f} POST/s), POST p50 {med['p50_ms']:.1f} ms, "
          f"p99 {med['p99_ms']:.1f} ms; baseline /healthz {base_med['rps']:.1f} req/s, "
          f"p50 {base_med['p50_ms']:.1f} ms; "
          f"ratio {record['rps_ratio_to_baseline']}; sealed exactly once: {record['all_sealed_exactly_once']}")
    if not record["all_sealed_exactly_once"]:
        sys.exit(1)


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


if __name__ == "__main__":
    main()
