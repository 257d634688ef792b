"""Time the test suites against their goals: the unit tests (under 90 s on 2 cores) and `make test` (8 minutes).

    python benchmarks/suite_time.py [--suite unit|test] [--runs 1] [--before SRC] [--json-out FILE]

``unit`` is what `make check` runs for the unit tests (pytest-xdist on 3 workers, the fork tests apart, then those
alone); ``test`` is tests/suite.sh, what `make test` runs after its install and lint steps (it needs PostgreSQL,
RabbitMQ, bubblewrap and the vendor CLIs, as `.ci/run` provides). Each run is timed under GNU time (wall, user +
system CPU of the whole process tree) with the 1-minute load before and after it; ``--before SRC`` runs the same
suite of another source tree (a `git archive` of a baseline commit) before each run of this checkout, with this
checkout's environment, so both sides share the machine's state of the moment. The line printed last puts the goal,
the baseline and this checkout side by side. Run it on an otherwise idle machine: the suites wait on sandboxes,
subprocesses and I/O, and a loaded machine stretches their wall time more than their CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
GOALS_S = {"unit": 90.0, "test": 480.0}


def commands(suite: str) -> list[list[str]]:
    """The commands a suite is, in order (as the Makefile and tests/suite.sh run them)."""
    pytest = [str(BIN / "pytest"), "-q", "-p", "no:cacheprovider"]
    if suite == "unit":
        return [[*pytest, "-n", "3", "-m", "not fork", "tests/unit"], [*pytest, "-m", "fork", "tests/unit/publish"]]
    return [["bash", "tests/suite.sh"]]


def run_once(suite: str, tree: Path) -> dict[str, Any]:
    """One run of the suite in ``tree``: wall and CPU seconds summed over its commands, tests passed, load."""
    env = {**os.environ, "BIN": str(BIN), "LEAGUE_TEST_REQUIRE_FORK": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    if tree != ROOT:
        env["PYTHONPATH"] = str(tree)
    wall = cpu = 0.0
    passed = failed = 0
    load_before = os.getloadavg()[0]
    for cmd in commands(suite):
        with tempfile.NamedTemporaryFile("r", suffix=".time") as timing:
            done = subprocess.run(["/usr/bin/time", "-o", timing.name, "-f", "%e %U %S", *cmd], cwd=tree, env=env,
                                  capture_output=True, text=True, check=False)
            e, u, s = (float(x) for x in timing.read().split()[-3:])
        wall, cpu = wall + e, cpu + u + s
        passed += sum(int(m) for m in re.findall(r"(\d+) passed", done.stdout))
        failed += sum(int(m) for m in re.findall(r"(\d+) (?:failed|error)", done.stdout))
    return {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "passed": passed, "failed": failed,
            "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2)}


def commit_of(tree: Path) -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=tree, capture_output=True, text=True,
                          check=False)
    return done.stdout.strip() or tree.name


def median(runs: list[dict[str, Any]], key: str) -> float:
    return float(statistics.median(r[key] for r in runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", choices=sorted(GOALS_S), default="unit")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--before", type=Path, help="a baseline source tree, run before each run of this one")
    parser.add_argument("--json-out", type=Path, help="append one JSON record of the go")
    args = parser.parse_args()
    mine: list[dict[str, Any]] = []
    base: list[dict[str, Any]] = []
    for i in range(args.runs):
        if args.before is not None:
            base.append(run_once(args.suite, args.before.resolve()))
            print(f"run {i + 1} baseline: {base[-1]}", flush=True)
        mine.append(run_once(args.suite, ROOT))
        print(f"run {i + 1} this checkout: {mine[-1]}", flush=True)
    goal = GOALS_S[args.suite]
    side = f"goal {goal:.0f} s"
    if base:
        side += f" | baseline {median(base, 'wall_s'):.1f} s wall, {median(base, 'cpu_s'):.1f} CPU s"
    wall = median(mine, "wall_s")
    print(f"{args.suite}: {side} | this checkout {wall:.1f} s wall, {median(mine, 'cpu_s'):.1f} CPU s, "
          f"{mine[-1]['passed']} passed ({wall / goal:.2f}x the goal)")
    if args.json_out is not None:
        record = {"suite": args.suite, "commit": commit_of(ROOT), "machine": platform.processor() or platform.machine(),
                  "cores": os.cpu_count(), "goal_s": goal, "runs": mine, "baseline": base,
                  "baseline_tree": str(args.before) if args.before else None}
        with args.json_out.open("a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()
