"""Benchmark of the sealed book (docs/protocol.md §3): seal latency and verify throughput.

Not a test: it measures, prints a table and a JSON record, and the figures go into docs/book.md.

* Seal latency: ``Book.append`` of ``--seal-lines`` answer-sized lines (~3 KB each: twelve markets
  times four horizons), each one written, flushed and fsync'd before ``append`` returns.
* Verify throughput on two books: ``--lines`` (default 1,000,000) of ~300-byte lines (the size of
  the league's small lines: marks, crowd rows, score cells) and ``--answer-lines`` (default 100,000)
  of answer lines as the league seals them (~4 KB: the fields of an ``answer`` line, twelve markets
  times four horizons, a short risk text in some cells). The reader loop of docs/protocol.md §3 is
  run, verbatim, in a child ``python3 -I`` on the same file in the same run;
  ``league.verify.chain.verify`` runs in its own child, with the default workers and with one.
  Verdicts are compared on the good book and on a copy with one digit changed near the end. Peak
  memory (max RSS of the verifying process and of its workers) is taken on a book a tenth of the
  size and on the full book: equal figures mean memory is flat. Wall and CPU seconds are both
  reported (the CPU ratio does not depend on a free core), with the load average before and after.
* The floor, in the same go: the least any verifier must do, read the file and compute one SHA-256
  per line (4 MB reads, split at LF, ``hashlib.sha256(line).hexdigest()``), in its own child. The
  summary prints floor, reader loop and ``verify`` side by side in CPU seconds, with verify/floor and
  reader loop/verify. Run the whole script under ``taskset -c 0`` for one core (the children inherit
  the affinity; the record names it).
* ``--before SRC``: one more row, ``verify(workers=1)`` of another version (a ``git archive`` of it
  unpacked in SRC, put first on ``PYTHONPATH``), alternating with the others, for a before/after.

Every figure is the median of ``--runs`` runs (default 3). ``0`` skips a part. Usage::

    taskset -c 0 python benchmarks/book_bench.py [--lines 1000000] [--answer-lines 100000] [--seal-lines 10000]
                                    [--runs 3] [--dir DIR --keep] [--before SRC]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from league.book import Book, BookLine
from league.clock import SimulatedClock, iso_seconds

READER_LOOP = (Path(__file__).resolve().parent.parent / "tests" / "assets" / "book" / "reader_loop.py").read_text(
    encoding="utf-8"
)
# Runs the verbatim loop with exec so that, on a failure, the loop's own ``i`` names the line.
# Peak memory: VmHWM (reset at exec, unlike ru_maxrss, which keeps the forking parent's peak) of
# the checking process, plus a 20 ms sampler summing VmRSS over it and its worker processes.
_MEMORY = """
import os, threading
def _kb(pid, key):
    try:
        for row in open(f"/proc/{pid}/status"):
            if row.startswith(key):
                return int(row.split()[1])
    except OSError:
        pass
    return 0
def _children():
    out = []
    for task in os.listdir("/proc/self/task"):
        try:
            out += open(f"/proc/self/task/{task}/children").read().split()
        except OSError:
            pass
    return out
PEAK = [0]
def _sample():
    while True:
        PEAK[0] = max(PEAK[0], _kb("self", "VmRSS:") + sum(_kb(c, "VmRSS:") for c in _children()))
        threading.Event().wait(0.02)
threading.Thread(target=_sample, daemon=True).start()
def peak_kb():
    return max(PEAK[0], _kb("self", "VmHWM:"))
"""
# Runs the verbatim loop with exec so that, on a failure, the loop's own ``i`` names the line.
READER_WRAPPER = _MEMORY + """
import json, sys, time
src = open(sys.argv[1], encoding="utf-8").read()
ns = {}
t0 = time.perf_counter()
c0 = time.process_time()
try:
    exec(compile(src, "reader_loop", "exec"), ns)
    verdict = ["ok", ns.get("i", 0)]
except Exception as exc:
    verdict = ["bad", ns.get("i", 0), type(exc).__name__]
wall = time.perf_counter() - t0
cpu = time.process_time() - c0
print(json.dumps({"wall": wall, "cpu": cpu, "verdict": verdict, "rss_kb": peak_kb()}))
"""
# ``league verify`` runs no other thread, so its workers are forked children. Here the memory sampler
# is a second thread, which would make verify start them from a fork server instead: not children of
# this process, so neither their CPU seconds (os.times) nor their RSS would be counted. Fork, as the
# CLI does.
VERIFY_WRAPPER = _MEMORY + """
import json, multiprocessing, os, sys, time
from league.verify import chain
from league.verify.chain import verify
chain._context = lambda: multiprocessing.get_context("fork")
workers = int(sys.argv[2]) if sys.argv[2] != "auto" else None
t0 = time.perf_counter()
c0 = os.times()
r = verify(sys.argv[1], workers=workers)
wall = time.perf_counter() - t0
c1 = os.times()
cpu = (c1.user - c0.user) + (c1.system - c0.system) + (c1.children_user - c0.children_user) + (
    c1.children_system - c0.children_system)
verdict = ["ok", r.lines] if r.ok else ["bad", r.bad_line, r.reason]
print(json.dumps({"wall": wall, "cpu": cpu, "verdict": verdict, "rss_kb": peak_kb()}))
"""
# The floor: read the file as verify reads it (4 MB blocks, split at LF) and one SHA-256 per line.
FLOOR_WRAPPER = """
import hashlib, json, os, sys, time
t0 = time.perf_counter()
c0 = time.process_time()
lines, tail = 0, b""
with open(sys.argv[1], "rb") as fh:
    while block := fh.read(4 << 20):
        rows = (tail + block).split(b"\\n")
        tail = rows.pop()
        for row in rows:
            hashlib.sha256(row).hexdigest()
        lines += len(rows)
wall = time.perf_counter() - t0
cpu = time.process_time() - c0
print(json.dumps({"wall": wall, "cpu": cpu, "verdict": ["read", lines], "rss_kb": 0}))
"""
MARKETS = ("SPX", "NDX", "DJI", "SOX", "TNX", "DXY", "VIX", "GOLD", "WTI", "BRENT", "COPPER", "BTC")
ACTIONS = ("buy_strong", "buy_dips", "hold", "trim", "sell")


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    model = ""
    try:
        for row in Path("/proc/cpuinfo").read_text().splitlines():
            if row.startswith("model name"):
                model = row.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return {
        "cpus": os.cpu_count(),
        "cpu": model,
        "mem_gib": round(mem, 1),
        "python": platform.python_version(),
        "kernel": platform.release(),
    }


def answer_content(i: int, rng: random.Random) -> dict[str, Any]:
    """An answer-sized line (~3 KB): one cell per market and horizon."""
    items = {
        m: {
            h: {"prob_up": rng.randint(5, 95), "action": rng.choice(ACTIONS), "target": round(rng.uniform(1, 9e4), 2)}
            for h in ("1d", "1w", "1m", "6m")
        }
        for m in MARKETS
    }
    return {
        "seat": "claude",
        "model": "model-x",
        "version": "2026-01",
        "mode": "high",
        "items": items,
        "years": {m: "sideways" for m in MARKETS},
        "own_sha256": f"{i:064x}",
        "run_id": "r-2026-11-29",
        "attempt": 1,
    }


RISKS = ("a close below the 50-day average", "CPI above 3.5%: yields up, then trim", "Fed minutes, 14:00 ET")


def real_answer_content(i: int, rng: random.Random) -> dict[str, Any]:
    """An answer line's content with the fields the league seals (docs/protocol.md, ``answer``):
    twelve markets times four horizons, half the one-day cells with a short risk text, the three
    reply digests, usage; ~4 KB once sealed."""
    items: dict[str, Any] = {}
    for market in MARKETS:
        row: dict[str, Any] = {}
        for horizon in ("1d", "1w", "1m", "6m"):
            cell: dict[str, Any] = {
                "prob_up": rng.randint(5, 95), "action": rng.choice(ACTIONS), "target": round(rng.uniform(1, 9e4), 2)
            }
            if horizon == "1d" and rng.random() < 0.5:
                cell["risk"] = rng.choice(RISKS)
            row[horizon] = cell
        items[market] = row

    def digest(name: str) -> str:
        return hashlib.sha256(f"{name}{i}".encode()).hexdigest()

    return {
        "run_id": "2026-11-27-1430", "session": "2026-11-27", "seat": "claude", "attempt": 1,
        "booked_at": "2026-11-27T14:31:07Z", "started_at": "2026-11-27T14:30:02Z", "elapsed_s": 64.318,
        "model": "claude-opus-4", "version": "2.1.3", "mode": "high", "status": "answered", "parse_failure": "",
        "parse_notes": ["VIX 6m: prob_up 0.62 is below 1, read as 0.62%"] if i % 7 == 0 else [],
        "items": items, "years": {m: rng.choice(("up", "down", "sideways")) for m in MARKETS},
        "own_sha256": digest("own"), "ask_sha256": digest("ask"), "seat_ask_sha256": digest("seat"),
        "usage": {"input_tokens": 18234 + i % 1000, "output_tokens": 2210, "cost_usd": 0.412},
        "fetches": [], "raw_encoding": "", "raw_store_problem": "",
    }


def small_content(i: int) -> dict[str, Any]:
    """A ~300-byte line once sealed (the four bookkeeping fields take ~220 bytes)."""
    return {"seat": "gemini", "asset": MARKETS[i % 12], "prob_up": (i * 37) % 101 + 0.5, "mark": i}


def bench_seal(directory: Path, lines: int) -> dict[str, float]:
    """Latency of each ``append`` (seal + write + fsync) in milliseconds."""
    path = directory / "seal-bench.jsonl"
    path.unlink(missing_ok=True)
    rng = random.Random(7)
    clock = SimulatedClock(datetime(2026, 11, 30, 13, 30, tzinfo=UTC))
    contents = [answer_content(i, rng) for i in range(lines)]
    times = []
    with Book(path, clock) as book:
        for content in contents:
            t0 = time.perf_counter()
            book.append("answer", content)
            times.append((time.perf_counter() - t0) * 1000)
    size = path.stat().st_size
    path.unlink()
    times.sort()
    return {
        "p50_ms": times[len(times) // 2],
        "p99_ms": times[int(len(times) * 0.99) - 1],
        "mean_line_bytes": size / lines,
    }


def write_book(path: Path, lines: int, kind: str) -> None:
    """The same bytes ``Book.append`` writes (``BookLine.seal_new(...).to_bytes()``), without an
    fsync per line so that a million lines take seconds, not hours."""
    start = datetime(2026, 1, 2, 14, 30, tzinfo=UTC)
    rng = random.Random(11)
    prev = ""
    with open(path, "wb") as fh:
        for n in range(1, lines + 1):
            at = iso_seconds(start + timedelta(seconds=n))
            if kind == "answer":
                body = {**real_answer_content(n, rng), "kind": "answer", "at": at}
            else:
                body = {**small_content(n), "kind": "mark", "at": at}
            line = BookLine.seal_new(body, n, prev)
            fh.write(line.to_bytes())
            prev = line.link


def cached_book(directory: Path, lines: int, kind: str) -> Path:
    path = directory / f"book-{kind}-{lines}.jsonl"
    if not path.exists():
        tmp = path.with_suffix(".tmp")
        write_book(tmp, lines, kind)
        tmp.rename(path)
    return path


def child(code: str, *args: str, isolated: bool = False, path: Path | None = None) -> dict[str, Any]:
    """Run ``code`` in a child Python; ``path``: a source tree put first on its PYTHONPATH (``--before``)."""
    flags = ["-I"] if isolated else []
    env = None if path is None else {**os.environ, "PYTHONPATH": str(path)}
    out = subprocess.run(
        [sys.executable, *flags, "-c", code, *args], check=True, capture_output=True, text=True, env=env
    ).stdout
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def reader_loop(book: Path, workdir: Path) -> dict[str, Any]:
    """The protocol's loop opens ``council-book.jsonl`` in its cwd: give it the book under that name."""
    target = workdir / "council-book.jsonl"
    target.unlink(missing_ok=True)
    os.link(book, target)
    loop = workdir / "reader_loop.py"
    loop.write_text(READER_LOOP, encoding="utf-8")
    cwd = os.getcwd()
    os.chdir(workdir)
    try:
        return child(READER_WRAPPER, str(loop), isolated=True)
    finally:
        os.chdir(cwd)


def fast_verify(book: Path, workers: str, path: Path | None = None) -> dict[str, Any]:
    return child(VERIFY_WRAPPER, str(book), workers, path=path)


def floor(book: Path) -> dict[str, Any]:
    return child(FLOOR_WRAPPER, str(book), isolated=True)


def median_of(runs: list[dict[str, Any]], key: str) -> float:
    return float(statistics.median(r[key] for r in runs))


def tampered_copy(book: Path, directory: Path, field: bytes) -> tuple[Path, int]:
    """Copy with one digit changed in the number ``field`` of a line near the end; returns (path, line)."""
    data = bytearray(book.read_bytes())
    pos = data.rfind(b'"' + field + b'":', 0, len(data) - len(data) // 10) + len(field) + 3
    data[pos] = ord("1") if data[pos] != ord("1") else ord("2")
    line = data.count(b"\n", 0, pos) + 1
    out = directory / "tampered.jsonl"
    out.write_bytes(bytes(data))
    return out, line


LOAD_BEFORE: tuple[float, float, float] = (0.0, 0.0, 0.0)


def bench_verify(
    directory: Path, lines: int, runs: int, kind: str = "small", before: Path | None = None
) -> dict[str, Any]:
    global LOAD_BEFORE
    book = cached_book(directory, lines, kind)
    small = cached_book(directory, max(1, lines // 10), kind)
    LOAD_BEFORE = os.getloadavg()
    work = directory / "loop"
    work.mkdir(exist_ok=True)
    loops, fasts, serials, floors, befores = [], [], [], [], []
    for _ in range(runs):
        floors.append(floor(book))
        loops.append(reader_loop(book, work))
        fasts.append(fast_verify(book, "auto"))
        serials.append(fast_verify(book, "1"))
        if before is not None:
            befores.append(fast_verify(book, "1", path=before))
    bad, bad_line = tampered_copy(book, directory, b"prob_up" if kind == "answer" else b"mark")
    verdicts = {
        "good": {"reader_loop": loops[0]["verdict"], "verify": fasts[0]["verdict"]},
        "tampered_line": bad_line,
        "tampered": {"reader_loop": reader_loop(bad, work)["verdict"], "verify": fast_verify(bad, "auto")["verdict"]},
    }
    size = book.stat().st_size
    loop_s, fast_s, serial_s = (median_of(x, "wall") for x in (loops, fasts, serials))
    loop_cpu, fast_cpu, serial_cpu = (median_of(x, "cpu") for x in (loops, fasts, serials))
    floor_s, floor_cpu = median_of(floors, "wall"), median_of(floors, "cpu")
    side_by_side = {
        "floor_cpu_s": floor_cpu,
        "reader_loop_cpu_s": loop_cpu,
        "verify_workers1_cpu_s": serial_cpu,
        "verify_over_floor_cpu": serial_cpu / floor_cpu,
        "loop_over_verify_cpu": loop_cpu / serial_cpu,
        "us_per_line_cpu": {"floor": floor_cpu / lines * 1e6, "reader_loop": loop_cpu / lines * 1e6,
                            "verify_workers1": serial_cpu / lines * 1e6},
    }
    if befores:
        before_cpu = median_of(befores, "cpu")
        side_by_side |= {"before_verify_workers1_cpu_s": before_cpu, "before_over_after_cpu": before_cpu / serial_cpu,
                         "loop_over_before_cpu": loop_cpu / before_cpu}
        side_by_side["us_per_line_cpu"]["before_verify_workers1"] = before_cpu / lines * 1e6
    return {
        "side_by_side": side_by_side,
        "affinity": sorted(os.sched_getaffinity(0)),
        "floor_s": floor_s,
        "book": kind,
        "lines": lines,
        "bytes": size,
        "mean_line_bytes": size / lines,
        "reader_loop_s": loop_s,
        "verify_s": fast_s,
        "verify_workers1_s": serial_s,
        "reader_loop_lines_per_s": lines / loop_s,
        "verify_lines_per_s": lines / fast_s,
        "verify_mb_per_s": size / fast_s / 1e6,
        "ratio": loop_s / fast_s,
        "ratio_workers1": loop_s / serial_s,
        "ratio_cpu": loop_cpu / fast_cpu,
        "ratio_cpu_workers1": loop_cpu / serial_cpu,
        "cpu_s": {"reader_loop": loop_cpu, "verify": fast_cpu, "verify_workers1": serial_cpu},
        "load_avg_before_after": [LOAD_BEFORE, os.getloadavg()],
        "verify_rss_kb_full": median_of(fasts, "rss_kb"),
        "verify_rss_kb_tenth": fast_verify(small, "auto")["rss_kb"],
        "reader_loop_rss_kb": median_of(loops, "rss_kb"),
        "verdicts": verdicts,
        "all_runs": {"floor": floors, "reader_loop": loops, "verify": fasts, "verify_workers1": serials,
                     "before_verify_workers1": befores},
    }


def median_seal(directory: Path, lines: int, runs: int) -> dict[str, float]:
    results = [bench_seal(directory, lines) for _ in range(runs)]
    return {k: float(statistics.median(r[k] for r in results)) for k in results[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--answer-lines", type=int, default=100_000)
    parser.add_argument("--seal-lines", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=None, help="where the books are written (default: a tmp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the generated books for a later run")
    parser.add_argument("--before", type=Path, default=None,
                        help="a source tree of another version (git archive): its verify(workers=1) alongside")
    args = parser.parse_args()
    directory = args.dir or Path(tempfile.mkdtemp(prefix="book-bench-"))
    directory.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {"machine": machine(), "filesystem_dir": str(directory), "runs": args.runs}
    try:
        if args.seal_lines:
            report["seal"] = median_seal(directory, args.seal_lines, args.runs)
            print(f"seal: {report['seal']}", flush=True)
        for key, lines, kind in (("verify", args.lines, "small"), ("verify_answers", args.answer_lines, "answer")):
            if lines:
                report[key] = bench_verify(directory, lines, args.runs, kind, args.before)
                print(json.dumps({key: _summary(report[key])}, indent=2), flush=True)
                print(side_by_side(kind, report[key]), flush=True)
    finally:
        if not args.keep and args.dir is None:
            shutil.rmtree(directory, ignore_errors=True)
    print(json.dumps({k: _summary(v) if k.startswith("verify") else v for k, v in report.items()}, indent=2))
    print(json.dumps(report))


def side_by_side(kind: str, part: dict[str, Any]) -> str:
    """One line: floor, reader loop and verify (one worker) in CPU seconds, and the two ratios."""
    s = part["side_by_side"]
    text = (f"{kind} book, {part['lines']} lines, CPU s (median of runs, cpus {part['affinity']}, load "
            f"{part['load_avg_before_after'][0][0]:.1f} -> {part['load_avg_before_after'][1][0]:.1f}): "
            f"floor {s['floor_cpu_s']:.2f} | reader loop {s['reader_loop_cpu_s']:.2f} | "
            f"verify(workers=1) {s['verify_workers1_cpu_s']:.2f} | verify/floor {s['verify_over_floor_cpu']:.2f}x | "
            f"loop/verify {s['loop_over_verify_cpu']:.2f}x")
    if "before_verify_workers1_cpu_s" in s:
        text += (f" | before: verify(workers=1) {s['before_verify_workers1_cpu_s']:.2f}, "
                 f"loop/before {s['loop_over_before_cpu']:.2f}x, before/after {s['before_over_after_cpu']:.2f}x")
    return text


def _summary(part: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in part.items() if k != "all_runs"}


if __name__ == "__main__":
    main()
