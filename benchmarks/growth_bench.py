"""Growth benchmark: what the league's daily work costs as its history grows.

One command, re-runnable after other branches land (the leagues are generated once and cached)::

    python benchmarks/growth_bench.py --cache /var/tmp/league-synth [--runs 3] [--sizes 1y14,2y14,5y14,1y100]
        [--scratch /dev/shm] [--max-rss-mb 6000] [--json-out FILE]
    python benchmarks/growth_bench.py --report FILE.json [FILE.json ...]   # one table from saved records

Sizes are ``<years>y<seats>`` (``5y100`` is five years × 100 seats; ``20s5`` is 20 sessions × 5 seats).
Each league is written by benchmarks/synth_league.py into ``CACHE/<size key>`` when it is not there yet.
For every size, each figure is the median of ``--runs`` runs, each in a fresh child process, with the
child's peak resident memory (VmHWM, or ``ru_maxrss`` of a CLI child) and the 1-minute load average
around it:

* ``start``: opening the league as the daemon does before it runs anything (``open_live``'s path:
  configuration, database, :func:`league.compose.build_league` with the live stages; the clock at 06:00 ET
  of the session after the league's last, the seats' tools are not checked);
* ``morning``: the next session's snapshot, ask and second wave through the scheduler's job runner
  (``run_job``) under a simulated clock, deterministic in-process scripted seats
  (synth_league.InProcessSeat) and the demo's stand-ins (league.demo.add_stand_ins: seeded crowd,
  hints), replay prices anchored at that session; every reply sealed by 09:30. Stamps are off (they
  need the local authorities); ``open`` is reported apart from the jobs;
* ``score``: the same session's score job at 16:05 with its stages (crowd, portfolio, shadow weights),
  in a new process (as ``league run score``), open time apart;
* ``publish`` and ``stats``: ``benchmarks/publish_steps.py`` (the ``publish()`` that ``league publish --no-stamp``
  runs, each step's CPU, wall and peak reported as it ends: the steps a stopped run finished are kept too) and
  ``league stats``, as child processes;
* ``api``: the app of ``league serve`` in-process over httpx's ASGI transport: the session view
  (``/api/sessions/<last>``) and the league view (``/api/league``), p50/p99 of ``--requests`` requests each
  after one warm-up request (its time reported as ``first``).

The morning and score jobs seal lines, so each of their runs works on a fresh copy of the league under
``--scratch``. A child whose resident memory passes ``--max-rss-mb`` is stopped and reported as such
(the machine is shared). Output: a markdown table (one row per size) and one JSON record on the last
line (also written to ``--json-out``). Wall times on a loaded machine vary; CPU seconds are given too.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from datetime import date
from datetime import time as dtime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import synth_league  # noqa: E402  (benchmarks/ is not a package)

DEFAULT_SIZES = "1y14,2y14,5y14,1y100"
OPS = ("start", "morning", "score", "publish", "stats", "api")


# ------------------------------------------------------------------------------------ helpers
def vm_hwm_mb() -> float:
    """This process's peak resident memory (VmHWM) in MB."""
    text = Path("/proc/self/status").read_text(encoding="utf-8")
    match = re.search(r"^VmHWM:\s+(\d+) kB", text, re.M)
    return int(match.group(1)) / 1024 if match else float("nan")


def rss_mb(pid: int) -> float:
    try:
        text = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except OSError:
        return 0.0
    match = re.search(r"^VmRSS:\s+(\d+) kB", text, re.M)
    return int(match.group(1)) / 1024 if match else 0.0


def parse_size(text: str, seed: int) -> synth_league.Size:
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([ys])(\d+)", text.strip())
    if not match:
        raise SystemExit(f"size {text!r}: write <years>y<seats> or <sessions>s<seats>, e.g. 5y14 or 20s5")
    n, unit, seats = match.groups()
    if unit == "y":
        return synth_league.Size.of(years=float(n), seats=int(seats), seed=seed)
    return synth_league.Size.of(sessions=int(n), seats=int(seats), seed=seed)


def league_info(folder: Path) -> dict[str, Any]:
    info: dict[str, Any] = json.loads((folder / "COMPLETE").read_text(encoding="utf-8"))
    return info


def next_session(last: str) -> date:
    from league.calendar import default_calendar

    return default_calendar().next_session(date.fromisoformat(last))


# ------------------------------------------------------------------------------------ child ops
def op_start(folder: Path, session: date) -> dict[str, Any]:
    """The daemon's open: config, database, the League with the live stages (nothing is sealed).

    The clock reads 06:00 ET of the session after the league's last one, as for a daemon that has run the
    league up to now: the memory window (league.jobs.window) is counted back from the clock's today, and a
    synthetic league runs past the real today (with the system clock every later session stayed in it)."""
    t0, c0 = time.perf_counter(), time.process_time()
    from league.calendar import et_time
    from league.clock import SimulatedClock
    from league.compose import LIVE, build_league
    from league.config import load_config
    from league.heap import settle_heap
    from league.store import open_store

    config = load_config(folder / "config")
    clock = SimulatedClock(et_time(session, dtime(6, 0)))
    lg = build_league(config, clock, stages=LIVE, store=open_store(config.database_url))
    settle_heap()  # as open_live does once the league is open
    out = {"s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0, "lines": lg.books.book.lines}
    lg.close()
    return out


def _open_sim(folder: Path, session: date, at: dtime) -> tuple[Any, Any]:
    from league.calendar import et_time
    from league.clock import SimulatedClock
    from league.compose import build_league
    from league.config import load_config
    from league.demo import add_stand_ins
    from league.heap import settle_heap
    from league.jobs.context import Stages
    from league.store import open_store

    config = load_config(folder / "config")
    store = open_store(config.database_url)
    lg = build_league(config, SimulatedClock(et_time(session, at)), stages=Stages(stamps=False, publish=False),
                      store=store, seats=synth_league.stand_in_seats(config), anchor=session)
    add_stand_ins(lg, config.settings.prices.seed)
    settle_heap()  # as open_live (`league daemon`, `league run`) does once the league is open
    return lg, store


def op_morning(folder: Path, session: date) -> dict[str, Any]:
    """Snapshot, ask and second wave of ``session``; every reply sealed by the 09:30 close."""
    from league.calendar import et_time
    from league.jobs.ask import deadline
    from league.jobs.scheduler import MORNING_JOBS, planned, run_job
    from league.jobs.seal import pump

    t0, c0 = time.perf_counter(), time.process_time()
    lg, store = _open_sim(folder, session, dtime(8, 0))
    t1, c1, before = time.perf_counter(), time.process_time(), lg.books.book.lines
    results = []
    for fire in planned(lg.config.settings.schedule, lg.market.calendar, et_time(session, dtime(3, 0)),
                        deadline(lg, session.isoformat()), jobs=MORNING_JOBS):
        pump(lg, fire.at)
        results.append(run_job(lg, fire.job, fire.session, ledger=store))
    pump(lg, deadline(lg, session.isoformat()))
    out = {"open_s": t1 - t0, "s": time.perf_counter() - t1, "cpu_s": time.process_time() - c1,
           "open_cpu_s": c1 - c0, "sealed": lg.books.book.lines - before, "results": results}
    lg.close()
    return out


def op_score(folder: Path, session: date) -> dict[str, Any]:
    """The score job of ``session`` at 16:05 with its stages, in a new process (as ``league run score``)."""
    from league.jobs.scheduler import run_job

    t0, c0 = time.perf_counter(), time.process_time()
    lg, store = _open_sim(folder, session, dtime(16, 5))
    t1, c1, before = time.perf_counter(), time.process_time(), lg.books.book.lines
    result = run_job(lg, "score", session.isoformat(), ledger=store)
    out = {"open_s": t1 - t0, "s": time.perf_counter() - t1, "cpu_s": time.process_time() - c1,
           "open_cpu_s": c1 - c0, "sealed": lg.books.book.lines - before, "results": [result]}
    lg.close()
    return out


def op_api(folder: Path, _session: date, requests: int = 100) -> dict[str, Any]:
    """The session view and the league view of the read-only API, in-process over ASGI."""
    import asyncio

    import httpx

    from league.api import create_app

    last = league_info(folder)["last"]
    t0 = time.perf_counter()
    app = create_app(folder / "data")
    startup = time.perf_counter() - t0

    async def measure(url: str) -> dict[str, float]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://league") as client:
            t = time.perf_counter()
            (await client.get(url)).raise_for_status()
            first = time.perf_counter() - t
            times = []
            for _ in range(requests):
                t = time.perf_counter()
                (await client.get(url)).raise_for_status()
                times.append(time.perf_counter() - t)
        times.sort()
        return {"first_ms": first * 1000, "p50_ms": times[len(times) // 2] * 1000,
                "p99_ms": times[min(len(times) - 1, int(len(times) * 0.99))] * 1000}

    session_view = asyncio.run(measure(f"/api/sessions/{last}"))
    league_view = asyncio.run(measure("/api/league"))
    return {"startup_s": startup, "session": session_view, "league": league_view}


CHILD_OPS: dict[str, Callable[[Path, date], dict[str, Any]]] = {
    "start": op_start, "morning": op_morning, "score": op_score, "api": op_api}


def child_main(op: str, folder: Path, session: date) -> None:
    from league.log import configure

    configure(json_logs=True, level="ERROR")
    out = CHILD_OPS[op](folder, session)
    out["hwm_mb"] = vm_hwm_mb()
    print("RESULT " + json.dumps(out), flush=True)


# ------------------------------------------------------------------------------------ the parent
def run_child(argv: Sequence[str], max_rss_mb: float, timeout_s: float) -> dict[str, Any]:
    """Run one child, watch its resident memory, and return its RESULT line (or why there is none) with
    the wall time, the child's CPU time and peak RSS (ru_maxrss; the resident size sampled every 50 ms as
    ``sampled_peak_mb``), the largest step peak when it printed STEP lines, and the load averages around it."""
    import tempfile

    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out_f, tempfile.TemporaryFile("w+") as err_f:
        proc = subprocess.Popen(list(argv), stdout=out_f, stderr=err_f, text=True)
        peak, stopped = 0.0, ""
        while True:  # reaped here (not by Popen.poll) so that wait4 hands back the child's rusage
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            peak = max(peak, rss_mb(proc.pid))
            if peak > max_rss_mb:
                stopped = f"stopped: resident memory passed {max_rss_mb:.0f} MB"
            elif time.perf_counter() - t0 > timeout_s:
                stopped = f"stopped: ran over {timeout_s:.0f} s"
            if stopped:
                proc.kill()
                _pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.05)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out_f.seek(0)
        err_f.seek(0)
        stdout, stderr = out_f.read(), err_f.read()
    wall = time.perf_counter() - t0
    out: dict[str, Any] = {"wall_s": wall, "child_cpu_s": usage.ru_utime + usage.ru_stime,
                           "maxrss_mb": usage.ru_maxrss / 1024, "sampled_peak_mb": peak, "load_before": load0,
                           "load_after": os.getloadavg()[0]}
    steps = [line.split()[1:] for line in stdout.splitlines() if line.startswith("STEP ")]
    if steps:  # publish_steps.py: the steps finished, also when the run was stopped
        out["steps_done"] = steps
        out["step_peak_max"] = max(float(s[2]) for s in steps)
    if stopped:
        return {**out, "error": stopped}
    found = [line for line in stdout.splitlines() if line.startswith("RESULT ")]
    if found:
        out.update(json.loads(found[-1][len("RESULT "):]))
    elif proc.returncode != 0:
        out["error"] = f"exit {proc.returncode}: {stderr.strip().splitlines()[-1:] or stdout[-300:]}"
    return out


def _league_command() -> str:
    """The ``league`` script of this interpreter's environment (a virtual environment not on PATH), else PATH's."""
    beside = Path(sys.executable).with_name("league")
    return str(beside) if beside.is_file() else shutil.which("league") or "league"


def measure_size(folder: Path, runs: int, scratch: Path, max_rss_mb: float, timeout_s: float,
                 log: Callable[[str], None], ops: Sequence[str] = OPS,
                 saved: Callable[[dict[str, list[dict[str, Any]]]], object] = lambda _r: None,
                 ) -> dict[str, list[dict[str, Any]]]:
    """Every op of ``ops`` ``runs`` times on one league; the morning and score runs each on a fresh copy."""
    session = next_session(league_info(folder)["last"])
    me = [sys.executable, str(Path(__file__).resolve()), "--child"]
    league_cli = _league_command()
    results: dict[str, list[dict[str, Any]]] = {op: [] for op in OPS}
    commands = {
        "start": [*me, "start", str(folder), session.isoformat()],
        "publish": [sys.executable, str(Path(__file__).resolve().with_name("publish_steps.py")), str(folder / "data")],
        "stats": [league_cli, "stats", "--data", str(folder / "data")],
        "api": [*me, "api", str(folder), session.isoformat()],
    }
    for r in range(runs):
        for op in ops:
            log(f"  run {r + 1}/{runs}: {op}")
            if op in commands:
                results[op].append(run_child(commands[op], max_rss_mb, timeout_s))
            elif op == "morning":  # the score job follows on the same copy (it scores that morning's session)
                _morning_and_score(folder, session, scratch, max_rss_mb, timeout_s, results, with_score="score" in ops)
            saved(results)  # a run stopped half-way still leaves its figures (--json-out)
    return results


def _not_copied(where: str, names: list[str]) -> set[str]:
    """What a job's copy of a cached league leaves out (:func:`_morning_and_score`)."""
    skip = {n for n in names if n.endswith(("-wal", "-shm"))}
    if Path(where).name == "data":
        skip |= {"public", "publish-cache"} & set(names)
    return skip


def _morning_and_score(folder: Path, session: date, scratch: Path, max_rss_mb: float, timeout_s: float,
                       results: dict[str, list[dict[str, Any]]], *, with_score: bool) -> None:
    me = [sys.executable, str(Path(__file__).resolve()), "--child"]
    copy = scratch / f"growth-{os.getpid()}-{folder.name}"
    if copy.exists():
        shutil.rmtree(copy)
    # The published folder and the publisher's cache are left out: neither job reads them, and at 5 years × 100
    # seats they are another 10 GB to copy. So are SQLite's -wal and -shm files, which a reader of the league
    # (a publish or a start measured at the same time) creates and removes while the copy runs; nothing but the
    # generator writes a cached league, so the database file alone holds every row.
    shutil.copytree(folder, copy, ignore=_not_copied)
    try:
        results["morning"].append(run_child([*me, "morning", str(copy), session.isoformat()], max_rss_mb, timeout_s))
        if with_score:
            results["score"].append(run_child([*me, "score", str(copy), session.isoformat()], max_rss_mb, timeout_s))
    finally:
        shutil.rmtree(copy, ignore_errors=True)


# ------------------------------------------------------------------------------------ figures
def median(rows: list[dict[str, Any]], *path: str) -> float | None:
    values = []
    for row in rows:
        if "error" in row:
            continue
        value: Any = row
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, int | float):
            values.append(float(value))
    return statistics.median(values) if values else None


def child_peak_mb(row: dict[str, Any]) -> float:
    """A publish's or a `league stats` child's peak resident MB: the largest step peak when the child reported
    its steps (publish_steps.py), else its ``ru_maxrss``.

    Why not always ``ru_maxrss``: publish_steps.py resets the kernel's high-water mark between steps (writing 5
    to /proc/self/clear_refs), and that is the mark ``getrusage`` reports for a child that has ended, so after
    the resets it holds only the last step's peak (1.7 GB for a publish whose portfolio step peaked at 7.2 GB).
    (It also starts from the forking parent's mark, carried over at exec: small here, the parent is lean.)"""
    if "step_peak_max" in row:
        return float(row["step_peak_max"])
    return float(row["maxrss_mb"])


def figures(results: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """The medians of one size: seconds (wall; the op alone where the child reports it), CPU seconds,
    peak MB, and the API's percentiles in ms."""
    out: dict[str, Any] = {}
    for op in ("start", "morning", "score"):
        rows = results[op]
        out[op] = {"s": median(rows, "s"), "cpu_s": median(rows, "cpu_s"), "open_s": median(rows, "open_s"),
                   "open_cpu_s": median(rows, "open_cpu_s"),
                   "peak_mb": median(rows, "hwm_mb"), "wall_s": median(rows, "wall_s"),
                   "sealed": median(rows, "sealed"),
                   "results": sorted({str(r) for row in rows for r in row.get("results", [])})}
    for op in ("publish", "stats"):
        rows = [{**row, "peak_mb": child_peak_mb(row)} for row in results[op]]
        out[op] = {"s": median(rows, "wall_s"), "cpu_s": median(rows, "child_cpu_s"),
                   "peak_mb": median(rows, "peak_mb")}
    rows = results["api"]
    out["api"] = {"startup_s": median(rows, "startup_s"), "peak_mb": median(rows, "hwm_mb"),
                  **{f"{view}_{k}": median(rows, view, k) for view in ("session", "league")
                     for k in ("first_ms", "p50_ms", "p99_ms")}}
    errors = sorted({f"{op}: {row['error']}" for op, rows_ in results.items() for row in rows_ if "error" in row})
    out["errors"] = errors
    loads = [row[k] for rows_ in results.values() for row in rows_ for k in ("load_before", "load_after")]
    out["load"] = {"min": min(loads), "median": statistics.median(loads), "max": max(loads)} if loads else {}
    return out


def _f(value: float | None, digits: int = 1) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def markdown(rows: list[tuple[str, dict[str, Any]]]) -> str:
    """One row per league size: the medians, each cell ``wall s / CPU s / peak MB`` (on a loaded machine
    the CPU seconds are the steadier figure); morning and score: the jobs alone, their open's CPU s after
    ``+``; the API: p50/p99 ms of the session and league views."""
    head = ("| league | lines | runs | daemon start | morning jobs (+open cpu) | score job (+open cpu) | publish "
            "| stats | API session p50/p99 ms | API league p50/p99 ms | load |")
    out = [head, "|" + "---|" * 11]
    for label, f in rows:
        st, mo, sc, pu, sa, api = (f[k] for k in ("start", "morning", "score", "publish", "stats", "api"))
        runs = max((f.get("runs_done") or {"": 0}).values())
        out.append(
            f"| {label} | {f.get('lines', '—')} | {runs} | {_cell(st)} | {_cell(mo)} (+{_f(mo.get('open_cpu_s'))}) "
            f"| {_cell(sc)} (+{_f(sc.get('open_cpu_s'))}) | {_cell(pu)} | {_cell(sa)} "
            f"| {_f(api['session_p50_ms'])} / {_f(api['session_p99_ms'])} "
            f"| {_f(api['league_p50_ms'])} / {_f(api['league_p99_ms'])} "
            f"| {_f(f['load'].get('median'))} |")
    return "\n".join(out)


def _width(label: str) -> int:
    match = re.search(r"(\d+) seats", label)
    return int(match.group(1)) if match else 0


def _cell(op: dict[str, Any]) -> str:
    return f"{_f(op['s'])} / {_f(op['cpu_s'])} / {_f(op['peak_mb'], 0)}"


def machine() -> dict[str, Any]:
    mem = re.search(r"^MemTotal:\s+(\d+) kB", Path("/proc/meminfo").read_text(encoding="utf-8"), re.M)
    return {"machine": platform.machine(), "cores": os.cpu_count(), "python": platform.python_version(),
            "mem_gb": round(int(mem.group(1)) / 2**20, 1) if mem else None, "load_at_start": os.getloadavg()}


def main(argv: Sequence[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if args and args[0] == "--child":
        child_main(args[1], Path(args[2]), date.fromisoformat(args[3]))
        return 0
    if args and args[0] == "--report":  # the table of saved JSON records (--json-out files), sizes in order
        rows = [(v["label"], {**v, **(figures(v["raw"]) if "raw" in v else {})})
                for p in args[1:] for v in json.loads(Path(p).read_text())["sizes"].values()]
        print(markdown(sorted(rows, key=lambda r: (_width(r[0]), r[1].get("lines", 0)))))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, required=True, help="where generated leagues are kept (by size+seed)")
    parser.add_argument("--sizes", default=DEFAULT_SIZES, help=f"comma-separated (default {DEFAULT_SIZES})")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--scratch", type=Path, default=Path("/dev/shm") if Path("/dev/shm").is_dir() else None,
                        help="fast disk for generation and the copies the jobs write to (default /dev/shm)")
    parser.add_argument("--max-rss-mb", type=float, default=6000.0)
    parser.add_argument("--timeout-s", type=float, default=1800.0)
    parser.add_argument("--json-out", type=Path)
    parser.add_argument("--ops", default=",".join(OPS),
                        help="which figures (default all; score runs only after morning: it scores that session)")
    opts = parser.parse_args(args)
    scratch = opts.scratch or opts.cache

    def log(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    record: dict[str, Any] = {"bench": "growth", "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                              "runs": opts.runs, "machine": machine(), "sizes": {}}
    rows = []
    for text in opts.sizes.split(","):
        size = parse_size(text, opts.seed)
        log(f"{size.label}: generating or reading the cache")
        folder, report = synth_league.cached_league(opts.cache, size, scratch=opts.scratch)
        info = league_info(folder)
        if report is not None:
            log(f"  generated in {info['generate_s']} s ({info['lines_per_s']} lines/s)")
        ops = [op for op in OPS if op in opts.ops.split(",") and op != "score"]
        if "score" in opts.ops.split(",") and "morning" not in ops:
            ops.append("morning")  # the score job scores the morning's session
        if "score" in opts.ops.split(","):
            ops.append("score")
        info = league_info(folder)

        def save(results: dict[str, list[dict[str, Any]]], size: synth_league.Size = size,
                 folder: Path = folder, info: dict[str, Any] = info) -> dict[str, Any]:
            f = figures(results)
            f["lines"] = sum(info["lines"].values())
            f["book_mb"] = round((folder / "data" / "books" / "council-book.jsonl").stat().st_size / 2**20, 1)
            f["generated"] = info
            f["runs_done"] = {op: len(rows_) for op, rows_ in results.items()}
            f["raw"] = results  # every run's figures, so a later --report can recompute the medians
            record["sizes"][size.key] = {"label": size.label, **f}
            if opts.json_out:
                opts.json_out.write_text(json.dumps(record) + "\n", encoding="utf-8")
            return f

        f = save(measure_size(folder, opts.runs, scratch, opts.max_rss_mb, opts.timeout_s, log, ops, save))
        rows.append((size.label, f))
        log(markdown(rows[-1:]))
    record["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    print(markdown(rows))
    for label, f in rows:
        if f["errors"]:
            print(f"{label}: " + "; ".join(f["errors"]))
    text = json.dumps(record)
    if opts.json_out:
        opts.json_out.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
