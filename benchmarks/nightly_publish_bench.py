"""The nightly publish by step, two checkouts side by side (docs/costs.md, "The nightly publish")::

    python benchmarks/nightly_publish_bench.py LEAGUE --base BASE_CHECKOUT [--change CHECKOUT] [--scratch /var/tmp]
        [--json-out F]

LEAGUE is a generated league (benchmarks/synth_league.py); BASE_CHECKOUT a source tree of the code to compare
with (e.g. ``git archive main | tar -x -C /var/tmp/base``), ``--change`` the one measured (default: this checkout;
an archive of a commit keeps edits made meanwhile out of the runs). Each checkout publishes its own copy of the league
(``benchmarks/publish_steps.py`` with ``PYTHONPATH`` set to the checkout), in turns: the first publish (no cache),
the nightly publish (nothing changed), then one more session is sealed on both copies (growth_bench's morning and
score jobs, with this checkout's code) and each publishes again. Prints each run's steps and one JSON record.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import growth_bench  # noqa: E402  (benchmarks/ is not a package)


def _steps(checkout: Path, data: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    load = Path("/proc/loadavg").read_text(encoding="ascii").split()[0]
    start = time.monotonic()
    out = subprocess.run([sys.executable, str(HERE / "publish_steps.py"), str(data)], env=env, check=True,
                         capture_output=True, text=True).stdout
    wall = time.monotonic() - start
    result = json.loads(next(ln for ln in out.splitlines() if ln.startswith("RESULT "))[7:])
    return {**result, "wall": round(wall, 1), "load_before": float(load)}


def _seal_session(folder: Path) -> str:
    """One more session on ``folder``: growth_bench's morning and score jobs (this checkout's code)."""
    session = growth_bench.next_session(growth_bench.league_info(folder)["last"]).isoformat()
    for op in ("morning", "score"):
        subprocess.run([sys.executable, str(HERE / "growth_bench.py"), "--child", op, str(folder), session],
                       check=True, capture_output=True)
    return session


def figures(runs: dict[str, dict[str, Any]]) -> dict[str, float]:
    """The whole CPU and the largest steps' CPU of each side and phase (``<side>_<phase>_<what>_cpu_s``)."""
    out: dict[str, float] = {}
    for side, phases in runs.items():
        for phase, run in phases.items():
            out[f"{side}_{phase}_cpu_s"] = run["cpu"]
            for name, cpu, *_ in run["steps"]:
                if name in ("books", "forecasts", "stats", "sides_files"):
                    out[f"{side}_{phase}_{name}_cpu_s"] = cpu
    return out


def _commit(checkout: Path) -> str:
    try:
        return subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "archive"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("league", type=Path)
    parser.add_argument("--base", type=Path, required=True)
    parser.add_argument("--change", type=Path, default=ROOT)
    parser.add_argument("--scratch", type=Path, default=Path("/var/tmp"))
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    sides = {"base": args.base.resolve(), "change": args.change.resolve()}
    copies = {name: args.scratch / f"nightly-bench-{os.getpid()}-{name}" for name in sides}
    runs: dict[str, dict[str, Any]] = {name: {} for name in sides}
    try:
        for copy in copies.values():
            shutil.copytree(args.league, copy)
        for phase in ("cold", "nightly"):
            for name, checkout in sides.items():
                runs[name][phase] = _steps(checkout, copies[name] / "data")
                print(name, phase, runs[name][phase]["cpu"], "CPU s", flush=True)
        sessions = {name: _seal_session(copy) for name, copy in copies.items()}
        for name, checkout in sides.items():
            runs[name]["one_more_session"] = _steps(checkout, copies[name] / "data")
            print(name, "one more session", sessions[name], runs[name]["one_more_session"]["cpu"], "CPU s", flush=True)
    finally:
        for copy in copies.values():
            shutil.rmtree(copy, ignore_errors=True)
    record = {"id": "nightly-publish-steps", "date": time.strftime("%Y-%m-%d", time.gmtime()),
              "time": time.strftime("%H:%M:%SZ", time.gmtime()),
              "commit": _commit(ROOT), "base": str(args.base), "change": str(args.change), "league": str(args.league),
              "machine": platform.machine(), "cpus": os.cpu_count(), "command": " ".join(sys.argv),
              "figures": figures(runs), "runs": runs}
    text = json.dumps(record)
    print("RECORD", text)
    if args.json_out:
        with open(args.json_out, "a", encoding="utf-8") as fh:
            fh.write(text + "\n")


if __name__ == "__main__":
    main()
