"""Benchmark: contextual-track windows per minute at 1, 4 and 16 concurrent sandboxes, direct and editing modes.

Not a test (no timing assertions anywhere in the suite); run by hand and copy the figures into the notes:

    nice python benchmarks/ctx_windows.py [--windows 16] [--runs 3] [--levels 1,4,16]

One *window* is one ``ask_path`` call (one window, one arm) against a scripted seat that runs as a REAL child in
the REAL bubblewrap sandbox (a stdlib script, Debian's python3 ``-I -S``, the scripted child's profile), as the
questions track's stand-in does: in direct mode that is one sandboxed seat run (the seat answers a JSON array of
H numbers); in editing mode three sandboxed runs (the seat answers one program, the league runs that program in
its own sandbox, the seat answers DONE). The windows come from a synthetic series (windows.py, short bucket,
H = 30: 300 history values, so the prompts are of realistic size), their effects from effects.py, the arms
taken in turn. The levels run in turn (1, 4, 16, 1, 4, 16, ...) so that drift in the machine's load touches
every level alike; each figure is the median of ``runs``. The load average is printed before and after.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any, ClassVar

from league.evals.context.ask import ARMS, PathQuestion, arm_effects, ask_path
from league.evals.context.effects import compute_effects
from league.evals.context.scores import naive_path
from league.evals.context.windows import Series, make_windows
from league_agents.base import Ask, SeatSpec
from league_agents.scripted import CHILD_FLAGS, CHILD_PROFILE
from league_agents.standin import StandIn
from sandbox.bwrap import BwrapSandbox
from sandbox.interface import system_now
from sandbox.profiles import Profile

H = 30
SEASON = 24
SCRIPT = b'''\
import json, re, sys
prompt = json.load(sys.stdin)["prompt"]
h = int(re.search(r"Horizon: (\\d+) steps", prompt).group(1))
if "Improve a statistical base forecast" in prompt:
    if "This is reply 1 of" in prompt:
        sys.stdout.write("```python\\npath = [v + 1.0 for v in path]\\n```\\n")
    else:
        sys.stdout.write("DONE\\n")
else:
    sys.stdout.write(json.dumps([50.0 + k for k in range(h)]) + "\\n")
'''


class PathSeat(StandIn):
    """The scripted path seat: one stdlib script per ask in the real sandbox, reading only the prompt."""

    flags: ClassVar[tuple[str, ...]] = CHILD_FLAGS
    version: ClassVar[str] = "bench-path-1"

    def program(self) -> tuple[str, bytes]:
        return "path_seat.py", SCRIPT

    def request(self, ask: Ask) -> dict[str, Any]:
        return {"prompt": ask.text}

    def profile(self) -> str | Profile:
        return CHILD_PROFILE


def questions(n: int, mode: str) -> list[PathQuestion]:
    """``n`` path questions: windows of a synthetic hourly series, the arms in turn."""
    length = (n + 2) * 11 * H
    vals = [100 + 20 * math.sin(2 * math.pi * t / SEASON) + 0.01 * t + 5 * math.sin(t / 97.0) for t in range(length)]
    stamps = tuple(datetime.fromtimestamp(1_767_225_600 + 3600 * t, UTC).isoformat() for t in range(length))
    windows = make_windows(Series("bench", stamps, tuple(vals)), H, "short", max_windows=n)
    out = []
    for i, w in enumerate(windows):
        arm = ARMS[i % len(ARMS)]
        reference = naive_path(w.history, H, SEASON)
        record = compute_effects(w.history, w.future, reference, history_period=SEASON).record()
        out.append(PathQuestion(
            window_id=f"{w.sha256[:16]}-{arm}", arm=arm, mode=mode, history=w.history,
            history_timestamps=w.history_timestamps, future_timestamps=w.future_timestamps,
            stated_range=(min(w.future), max(w.future)), effects=arm_effects(record, arm),
            base=reference if mode == "editing" else None))
    return out


def one_run(qs: list[PathQuestion], level: int, box: BwrapSandbox) -> float:
    seat = PathSeat(SeatSpec(name="bench-path", adapter="bench-path", timeout_s=60), sandbox=box)
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=level) as pool:
        replies = list(pool.map(lambda q: ask_path(seat, q, sandbox=box, now=system_now), qs))
    elapsed = time.perf_counter() - t0
    bad = [r for r in replies if r.ended != "answered" or r.values is None]
    assert not bad, f"{len(bad)} windows not answered at concurrency {level}: {bad[0]}"
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--windows", type=int, default=16)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--levels", default="1,4,16")
    args = parser.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    box = BwrapSandbox()
    sets = {mode: questions(args.windows, mode) for mode in ("direct", "editing")}
    times: dict[tuple[str, int], list[float]] = {(m, lv): [] for m in sets for lv in levels}
    load_before = os.getloadavg()
    for _ in range(args.runs):
        for mode, qs in sets.items():
            for lv in levels:
                times[(mode, lv)].append(one_run(qs, lv, box))
    load_after = os.getloadavg()
    record = {
        "at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": f"{os.cpu_count()} cpu, {platform.machine()}", "python": platform.python_version(),
        "windows": args.windows, "horizon": H, "runs": args.runs,
        "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in load_after],
        "figures": {f"{m}@{lv}": {"median_s": round(statistics.median(ts), 3), "runs_s": [round(t, 3) for t in ts],
                                  "windows_per_minute": round(args.windows / statistics.median(ts) * 60, 1)}
                    for (m, lv), ts in times.items()},
    }
    print(f"{'mode':<8} {'sandboxes':>9} {'windows/min':>12} {'median s':>9}  runs (s)")
    for mode, lv in times:
        fig = record["figures"][f"{mode}@{lv}"]  # type: ignore[index]
        print(f"{mode:<8} {lv:>9} {fig['windows_per_minute']:>12.1f} {fig['median_s']:>9.2f}  {fig['runs_s']}")
    print(f"load average before {record['load_before']}, after {record['load_after']}")
    print(json.dumps(record, sort_keys=True))


if __name__ == "__main__":
    main()
