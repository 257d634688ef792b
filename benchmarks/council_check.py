"""The council statistics' demo check: a demo season, then every council figure recounted outside the writer.

    python benchmarks/council_check.py --sessions 30 [--out DIR]

1. Runs ``league demo`` for N sessions (offline, simulated clock, the real sandbox).
2. No consensus event of the counted series has n = 1 (bitcoin shares one event per session).
3. The stand-alone stdlib tools the folder publishes agree with it: ``tools/conformance.py``
   (every row), ``tools/replay_brier.py`` (every published Brier figure) and
   ``tools/recount_consensus.py`` (every consensus value and N_eff, from the published files alone:
   the families sealed in asks.jsonl, the rules sealed in the run lines).
4. ``league stats`` on a copy of the folder gives the same bytes; ``league verify`` passes.
5. An independent plain-Python recount from the CSV alone (``league.scoring.reference``: loops, no
   numpy/pandas, the roster's families) equals every published consensus and N_eff value.
6. The scoring schedule: every ``score_h`` line sealed at the first session on or after its events' end (a
   week ending on a Friday that Friday); the shadow weights sealed before session 11's run line and read
   by scoring; the crowd comparison per question; every slice of ``council-forecasts-index.json``.
Prints one line per check and exits 1 if any fails.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="council-check-")) / "demo"
    start = time.monotonic()
    from league.demo import run_demo

    result = run_demo(out, sessions=args.sessions)
    print(f"demo: {args.sessions} sessions, {result.book_lines} book lines, {result.forecasts} rows "
          f"in {time.monotonic() - start:.0f} s")
    public = result.public_dir
    failures = check_folder(public, out / "config" / "roster.toml")
    print("result: " + ("every check passed" if not failures else f"{failures} checks FAILED"))
    return 1 if failures else 0


def check_folder(public: Path, roster: Path) -> int:
    """Every check of the module docstring on a published folder; returns the number that failed."""
    stats = json.loads((public / "council-stats.json").read_text(encoding="utf-8"))
    failures = 0
    ones = [e for e in stats["consensus"]["per_event"] if e["n"] == 1]
    failures += report("no consensus event with n = 1", not ones, f"{len(ones)} events with one seat")
    btc = [e["n"] for e in stats["consensus"]["per_event"] if e["asset"] == "BTC"]
    failures += report("bitcoin events pool the session's seats", bool(btc) and min(btc) > 1, f"n = {sorted(set(btc))}")
    tools = public / "tools"
    for tool, argv in (("conformance", [str(tools / "conformance.py"), str(public / "council-forecasts.csv")]),
                       ("replay_brier", [str(tools / "replay_brier.py"), "--data", str(public), "--quiet"]),
                       ("recount_consensus", [str(tools / "recount_consensus.py"), "--data", str(public)])):
        run = subprocess.run([sys.executable, "-I", *argv], capture_output=True, text=True, check=False)
        failures += report(f"stand-alone {tool}", run.returncode == 0, run.stdout.strip().splitlines()[-1:])
    failures += recount(stats, public, roster)
    failures += issue13_part2(stats, public)
    failures += stats_and_verify(public)
    return failures


def issue13_part2(stats: dict, public: Path) -> int:
    """The scoring schedule's checks, read from the published folder: Friday weeks, sealed shadow weights,
    the crowd per question and the forecasts index."""
    import hashlib
    from datetime import date, datetime
    from zoneinfo import ZoneInfo

    from league.calendar import default_calendar

    book = [json.loads(x) for x in (public / "council-book.jsonl").read_text(encoding="utf-8").splitlines()]
    cal, et = default_calendar(), ZoneInfo("America/New_York")
    late = []
    for line in (x for x in book if x["kind"] == "score_h"):
        ends = [date.fromisoformat(m["contract"]["end_at"][:10]) for m in line["markets"]]
        sealed_on = datetime.fromisoformat(line["at"].replace("Z", "+00:00")).astimezone(et).date()
        if ends and sealed_on != cal.session_on_or_after(max(ends)):
            late.append((line["n"], line["session"], line["horizon"], sealed_on.isoformat()))
    weeks = sum(1 for x in book if x["kind"] == "score_h")
    failed = report("every score_h sealed at the first session on or after its events' end", not late,
                    f"{weeks} score_h lines; late: {late[:3]}")
    first_11 = sorted({x["session"] for x in book if x["kind"] == "run"})[10:11]
    asks_11 = [x["n"] for x in book if x["kind"] == "run" and x["session"] in first_11]
    sealed = [x for x in book if x["kind"] == "shadow_weights"]
    shadow = stats["council"]["shadow"]
    ok = bool(sealed) and (not asks_11 or sealed[0]["n"] < min(asks_11)) and shadow.get("weights_sealed") is True \
        and shadow["weights"] == sealed[0]["weights"]
    failed += report("shadow weights sealed before session 11 and read by scoring", ok,
                     f"line {sealed[0]['n'] if sealed else None}, "
                     f"session 11's first run line {min(asks_11, default=None)}")
    crowd = json.loads((public / "council-league.json").read_text(encoding="utf-8"))["crowd"]
    questions = crowd.get("questions", [])
    at_answer = sum(1 for q in questions if q.get("crowd_p_at_answer") is not None)
    failed += report("crowd comparison per question", crowd.get("available") is True and bool(questions),
                     f"{len(questions)} questions, {at_answer} with the crowd price at the answer minute")
    index = json.loads((public / "council-forecasts-index.json").read_text(encoding="utf-8"))
    data = (public / "council-forecasts.csv").read_bytes()
    bad = [r["run_id"] for r in index["runs"]
           if hashlib.sha256(data[r["offset"]:r["offset"] + r["length"]]).hexdigest() != r["sha256"]]
    failed += report("council-forecasts-index.json slices", index["sha256"] == hashlib.sha256(data).hexdigest()
                     and not bad, f"{len(index['runs'])} runs, {len(index['sessions'])} sessions; bad: {bad[:3]}")
    return failed


def stats_and_verify(public: Path) -> int:
    """`league stats` on a copy of the folder gives the same bytes; `league verify` passes every step."""
    import shutil

    failed = 0
    with tempfile.TemporaryDirectory(prefix="council-check-stats-") as tmp:
        copy = Path(tmp) / "public"
        shutil.copytree(public, copy)
        run = subprocess.run(["league", "stats", "--data", str(copy)], capture_output=True, text=True, check=False)
        names = ("council-stats.json", "council-calibration.json", "council-clim-window.json", "council-league.json")
        same = [n for n in names if (copy / n).read_bytes() == (public / n).read_bytes()]
        failed += report("league stats on a copy: same bytes", run.returncode == 0 and len(same) == len(names),
                         f"exit {run.returncode}; {len(same)} of {len(names)} files identical")
    run = subprocess.run(["league", "verify", str(public)], capture_output=True, text=True, check=False)
    failed += report("league verify (every step, derived files rebuilt)", run.returncode == 0,
                     [line for line in run.stdout.splitlines() if line.startswith("step") and (
                         "FAILED" in line or line.startswith(("step 11", "step 12")))])
    return failed


def recount(stats: dict, public: Path, roster: Path) -> int:
    from league.config import load_roster
    from league.scoring import reference

    with open(public / "council-forecasts.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    families = dict(load_roster(roster).families) if roster.is_file() else {}
    cons = reference.consensus_per_event(rows, families)
    published = {(e["session"], e["event_id"]): e["p"] for e in stats["consensus"]["per_event"]}
    bad = [k for k, v in published.items() if k not in cons or abs(cons[k] - v) > 1e-9]
    failed = report("consensus recount", not bad and len(cons) == len(published),
                    f"{len(published) - len(bad)} of {len(published)} equal; recount has {len(cons)} events")
    neff = reference.n_eff_per_run(rows)
    runs = stats["n_eff"]["counted"]["per_run"]
    off = [r for r in runs if not _same(neff.get((r["session"], r["horizon"]), (None, None, None))[2], r["n_eff"])]
    failed += report("N_eff recount", not off and len(runs) == len(neff),
                     f"{len(runs) - len(off)} of {len(runs)} equal; recount has {len(neff)} runs")
    return failed


def _same(a: float | None, b: float | None) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and abs(a - b) < 1e-9)


def report(what: str, ok: bool, detail: object) -> int:
    print(f"{'ok    ' if ok else 'FAILED'} {what}: {detail}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
