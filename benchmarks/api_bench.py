"""Benchmark of the read-only API on loopback, side by side with its anchors (not a test; figures go to docs).

A season of ``--sessions`` sessions is written with the test fixture's generator and published; then, in the
same invocation and on the same machine:

* the anchor: Python's standard ``http.server`` (threading) serving the published folder;
* ``league serve --workers W`` on 127.0.0.1 (the static-file path, the JSON views, the lines and the stream);
* the production path: nginx with a configuration derived from deploy/nginx-league.conf (and
  nginx-league-http.conf) in front of a second ``league serve --workers W --accel-redirect /league-files/``: nginx
  sends the published files itself, league serve vets the book (embargo, 304) and nginx sends its bytes, the JSON
  views are kept one second by nginx; skipped when nginx is not installed.

Paths: ``/council-book.jsonl`` (the whole book, several MB, a growing file: league serve vets it even behind
nginx), ``/arena-dataset.json`` (the data dictionary, a nightly JSON file, sent by nginx itself on the production path),
``/api/league`` (the league table), ``/api/sessions/DAY`` (one session), ``/api/lines?from=1&to=100`` and the
stream's last 100 lines.

Each figure is requests per second with the median and 99th-percentile latency at ``--connections`` concurrent
clients (default 50), the median of ``--runs`` runs of ``--seconds``; each run of a row is preceded by a run of
its anchor (the same file; for the API, ``/arena-dataset.json``), so the two share the load of the moment, and
``x anchor`` is the median of the per-run ratios. The load generator is ``wrk`` (Debian package ``wrk``;
``--latency`` percentiles) when installed, else the script's own httpx loop with one thread per connection (a
Python generator competes with the servers for the CPU: read the ratios). The load average before and after is
printed: the machine may be shared. Every run only ever talks to 127.0.0.1. Usage::

    python benchmarks/api_bench.py [--sessions 126] [--seconds 5] [--connections 50] [--runs 3] [--workers 2]
                                   [--load wrk|httpx] [--no-nginx] [--baseline off|DIR] [--views-only]

``--baseline`` serves the JSON views a second time, from ``league serve`` with its view cache off (``off``) or from
another source tree, and measures each view on both in alternate pairs, with the servers' CPU milliseconds per
request (their processes' user + system time over the run's requests).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import pwd
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


def load_wrk(url: str, seconds: int, connections: int) -> tuple[float, float, float]:
    """(requests per second, p50 s, p99 s) from ``wrk --latency`` (two threads)."""
    out = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", "--timeout", "30s", url],
                         capture_output=True, text=True, check=True, timeout=seconds + 60).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    if re.search(r"Non-2xx or 3xx responses", out):
        raise RuntimeError(f"{url}: errors under load\n{out}")

    def pct(q: str) -> float:
        value, unit = re.search(rf"\s{q}%\s+([\d.]+)(us|ms|s)", out).groups()  # type: ignore[union-attr]
        return float(value) * {"us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]

    return rps, pct("50"), pct("99")


def one_run(url: str, args: argparse.Namespace) -> tuple[float, float, float]:
    """(req/s, p50 s, p99 s) of one run against ``url``."""
    if args.load == "wrk":
        return load_wrk(url, args.seconds, args.connections)
    rps, latencies = load_httpx(url, args.seconds, args.connections)
    return rps, percentile(latencies, 0.50), percentile(latencies, 0.99)


def measure(url: str, anchor_url: str, args: argparse.Namespace) -> dict[str, float]:
    """``url`` and its anchor measured in turns (anchor, then url, ``--runs`` times), so both see the same load
    of a shared machine; medians over the runs (milliseconds) and the median of the per-run ratios of req/s."""
    pairs = [(one_run(anchor_url, args), one_run(url, args)) for _ in range(args.runs)]
    return {"rps": statistics.median(p[0] for _, p in pairs),
            "p50_ms": statistics.median(p[1] for _, p in pairs) * 1000,
            "p99_ms": statistics.median(p[2] for _, p in pairs) * 1000,
            "anchor_rps": statistics.median(a[0] for a, _ in pairs),
            "anchor_p99_ms": statistics.median(a[2] for a, _ in pairs) * 1000,
            "ratio": statistics.median(p[0] / a[0] for a, p in pairs)}


def tree_cpu_s(pid: int) -> float:
    """CPU seconds (user + system) used so far by process ``pid`` and its live children (uvicorn's workers)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry.name) == pid or int(fields[1]) == pid:  # fields[1]: the parent's pid
            total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return total


def measured_run(url: str, pid: int, args: argparse.Namespace) -> tuple[float, float, float, float]:
    """One run against ``url`` served by process ``pid``: (req/s, p50 s, p99 s, server CPU ms per request)."""
    cpu0 = tree_cpu_s(pid)
    rps, p50, p99 = one_run(url, args)
    return rps, p50, p99, (tree_cpu_s(pid) - cpu0) * 1000 / max(1.0, rps * args.seconds)


def measure_baseline(url: str, pid: int, base_url: str, base_pid: int, anchor_url: str,
                     args: argparse.Namespace) -> dict[str, float]:
    """``url`` and the same path on the baseline server in alternate pairs (the anchor first in each run; the order
    of the two swapped every run), medians over ``--runs``; ratios of the project's figure to the baseline's."""
    runs = []
    for i in range(args.runs):
        anchor = one_run(anchor_url, args)
        if i % 2 == 0:
            mine, base = measured_run(url, pid, args), measured_run(base_url, base_pid, args)
        else:
            base, mine = measured_run(base_url, base_pid, args), measured_run(url, pid, args)
        runs.append((anchor, mine, base))
    med = statistics.median
    return {"rps": med(m[0] for _, m, _ in runs), "p50_ms": med(m[1] for _, m, _ in runs) * 1000,
            "p99_ms": med(m[2] for _, m, _ in runs) * 1000, "cpu_ms_per_req": med(m[3] for _, m, _ in runs),
            "base_rps": med(b[0] for _, _, b in runs), "base_p50_ms": med(b[1] for _, _, b in runs) * 1000,
            "base_p99_ms": med(b[2] for _, _, b in runs) * 1000, "base_cpu_ms_per_req": med(b[3] for _, _, b in runs),
            "anchor_rps": med(a[0] for a, _, _ in runs), "anchor_p99_ms": med(a[2] for a, _, _ in runs) * 1000,
            "ratio": med(m[0] / a[0] for a, m, _ in runs), "x_base_rps": med(m[0] / b[0] for _, m, b in runs),
            "base_p99_over_p99": med(b[2] / m[2] for _, m, b in runs)}


def start_nginx(public: Path, app_port: int, work: Path) -> tuple[subprocess.Popen[bytes], int]:
    """nginx in front of league serve, its locations from deploy/nginx-league.conf (the /league/ prefix kept)."""
    port = free_port()
    conf = (ROOT / "deploy" / "nginx-league.conf").read_text(encoding="utf-8")
    conf = conf.replace("127.0.0.1:8765", f"127.0.0.1:{app_port}").replace("/srv/league/data/public/", f"{public}/")
    (work / "league.conf").write_text(conf, encoding="utf-8")
    http = (ROOT / "deploy" / "nginx-league-http.conf").read_text(encoding="utf-8")
    (work / "http.conf").write_text(http.replace("/var/cache/nginx/league", f"{work}/cache"), encoding="utf-8")
    temps = "".join(f"{k}_temp_path {work}/{k}; " for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    user = pwd.getpwuid(os.geteuid()).pw_name
    (work / "nginx.conf").write_text(
        f"daemon off; user {user}; worker_processes auto; pid {work}/nginx.pid; error_log {work}/error.log warn;\n"
        f"events {{ worker_connections 1024; }}\n"
        f"http {{ access_log off; {temps}default_type application/octet-stream; include {work}/http.conf;\n"
        f"server {{ listen 127.0.0.1:{port} backlog=1024; include {work}/league.conf; }} }}\n", encoding="utf-8")
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    proc = subprocess.Popen([nginx, "-c", str(work / "nginx.conf"), "-p", str(work), "-e", str(work / "error.log")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return proc, port


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=126)
    parser.add_argument("--seats", type=int, default=14)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--load", choices=("wrk", "httpx"), default="wrk" if shutil.which("wrk") else "httpx")
    parser.add_argument("--no-nginx", action="store_true")
    parser.add_argument("--baseline", metavar="off|DIR",
                        help="also serve the JSON views from a baseline, measured in alternate pairs with league "
                             "serve: 'off' (this tree with LEAGUE_SERVE_VIEW_CACHE=0) or a source tree (e.g. "
                             "`git archive` of an older commit, run by this interpreter)")
    parser.add_argument("--views-only", action="store_true", help="measure the JSON views only (no files, no nginx)")
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
    dataset_kib = round((season.public / "arena-dataset.json").stat().st_size / 2**10, 1)
    day: str | None = season.sessions[len(season.sessions) // 2]
    port, base_port = free_port(), free_port()
    cli = [sys.executable, "-c", "from league.cli import main; main()"]
    procs = [subprocess.Popen([*cli, "serve", "--data", str(season.data), "--port", str(port), "--workers",
                               str(args.workers)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
             subprocess.Popen([sys.executable, "-m", "http.server", str(base_port), "--bind", "127.0.0.1",
                               "--directory", str(season.public)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)]
    baseline_port = None
    if args.baseline is not None:  # procs[2]
        baseline_port = free_port()
        base_tree = ROOT if args.baseline == "off" else Path(args.baseline).resolve()
        env = {**os.environ, "LEAGUE_SERVE_VIEW_CACHE": "0"} if args.baseline == "off" else None
        procs.append(subprocess.Popen([*cli, "serve", "--data", str(season.data), "--port", str(baseline_port),
                                       "--workers", str(args.workers)], cwd=base_tree, env=env,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    nginx_port = None
    if not args.no_nginx and not args.views_only and (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()):
        (work / "nginx").mkdir()
        accel_port = free_port()  # the production command: nginx sends the files league serve vets
        procs.append(subprocess.Popen([*cli, "serve", "--data", str(season.data), "--port", str(accel_port),
                                       "--workers", str(args.workers), "--accel-redirect", "/league-files/"],
                                      cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        proc, nginx_port = start_nginx(season.public, accel_port, work / "nginx")
        procs.append(proc)
    last = season.book.read_bytes().count(b"\n")
    rows: list[tuple[str, str, str, dict[str, float]]] = []  # (server, path, anchor path, figures)
    load_before = os.getloadavg()
    try:
        wait_up(f"http://127.0.0.1:{port}/api/today")
        wait_up(f"http://127.0.0.1:{base_port}/")
        if day is None:
            day = httpx.get(f"http://127.0.0.1:{port}/api/today", timeout=30).json()["session"]
        anchor = f"http://127.0.0.1:{base_port}"
        serve = f"http://127.0.0.1:{port}"
        views = (("/api/league", "/arena-dataset.json"), (f"/api/sessions/{day}", "/arena-dataset.json"))
        if baseline_port is not None:
            baseline = f"http://127.0.0.1:{baseline_port}"
            wait_up(baseline + "/api/today")
            for path, ref in views:
                figures = measure_baseline(serve + path, procs[0].pid, baseline + path, procs[2].pid,
                                           anchor + ref, args)
                rows.append((f"league serve --workers {args.workers}", path, ref, figures))
        for path, ref in (() if args.views_only else (("/council-book.jsonl", "/council-book.jsonl"),
                                                       ("/arena-dataset.json", "/arena-dataset.json"))) \
                + (() if baseline_port is not None else views) \
                + (() if args.views_only else (("/api/lines?from=1&to=100", "/arena-dataset.json"),
                                               (f"/api/stream?from={max(1, last - 99)}", "/arena-dataset.json"))):
            figures = measure(serve + path, anchor + ref, args)
            rows.append((f"league serve --workers {args.workers}", path, ref, figures))
        if nginx_port is not None:
            front = f"http://127.0.0.1:{nginx_port}/league"
            wait_up(front + "/api/today")
            for path, ref in (("/arena-dataset.json", "/arena-dataset.json"),
                              ("/council-book.jsonl", "/council-book.jsonl"), ("/api/league", "/arena-dataset.json"),
                              (f"/api/sessions/{day}", "/arena-dataset.json")):
                rows.append(("nginx -> league serve", path, ref, measure(front + path, anchor + ref, args)))
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)
    load_after = os.getloadavg()
    print(f"load: {args.load}, {args.connections} connections, {args.runs} x {args.seconds} s; book {book_mib} MiB, "
          f"arena-dataset.json {dataset_kib} KiB; load average before {load_before[0]:.1f}, after {load_after[0]:.1f}")
    print(f"{'server':<26} {'path':<36} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'anchor req/s':>13} "
          f"{'anchor p99':>11} {'x anchor':>9}")
    for server, path, _, r in rows:
        print(f"{server:<26} {path[:36]:<36} {r['rps']:>8.1f} {r['p50_ms']:>8.1f} {r['p99_ms']:>8.1f} "
              f"{r['anchor_rps']:>13.1f} {r['anchor_p99_ms']:>11.1f} {r['ratio']:>9.2f}")
    for _, path, _, r in rows:
        if "base_rps" in r:
            print(f"  baseline ({args.baseline}) {path[:36]:<36} req/s {r['base_rps']:.1f}, "
                  f"p50 {r['base_p50_ms']:.1f} ms, p99 {r['base_p99_ms']:.1f} ms, "
                  f"CPU {r['base_cpu_ms_per_req']:.2f} ms/req; league serve CPU "
                  f"{r['cpu_ms_per_req']:.2f} ms/req; req/s x{r['x_base_rps']:.1f}, p99 /{r['base_p99_over_p99']:.1f}")
    record: dict[str, Any] = {"machine": f"{platform.machine()} {os.cpu_count()} cores, {platform.python_version()}",
                              "load_generator": args.load, "seconds": args.seconds, "workers": args.workers,
                              "connections": args.connections, "runs": args.runs, "book_mib": book_mib,
                              "loadavg": [round(load_before[0], 1), round(load_after[0], 1)],
                              "results": [{"server": s_, "path": p, "anchor": ref, **r} for s_, p, ref, r in rows]}
    print(json.dumps(record))


if __name__ == "__main__":
    main()
