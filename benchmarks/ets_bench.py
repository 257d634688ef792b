"""Benchmark of the `_ets` seat's fits (league_agents.ets_fit.forecast_path), per fit, and their answers' bits.

Each configuration runs in a fresh subprocess: one warm-up fit (the imports), then FITS fits of demo-like keys
(12 markets' random walks, a sliding window of 250 closes moving a close per session, 126 steps ahead, as
`league demo` asks them), timed with the process's CPU clock. OpenBLAS runs single-threaded, as in the
league's processes (league/__init__.py sets ``OPENBLAS_NUM_THREADS=1``, and the fit worker inherits it; a
benchmark that forgets it measures OpenBLAS's spinning threads instead, ~5x the fits' own CPU here). Printed:
the median over RUNS of the CPU per fit, for

  this - this checkout (statsmodels' public API, league_agents.ets_model);
  base - with --base SRC, the code at SRC (e.g. an unpacked older commit), run by --base-python (default:
         this interpreter; give the base's own virtualenv when its code needs other packages);

and whether every configuration's answers are the same bytes (exit 1 if not). The configurations alternate
within each round (a shared machine drifts), and each child reports the file its fit module came from, so a
base that silently imported this checkout's code shows.

    python benchmarks/ets_bench.py [--runs 3] [--fits 60] [--base /var/tmp/base-src [--base-python PY]]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
CHILD = r"""
import hashlib, json, pickle, random, struct, sys, time
from league_agents import ets_fit

def keys(n):
    rng = random.Random(5)
    markets = [(rng.choice([0.01, 1.0, 100.0, 3000.0, 1e5]), rng.choice([0.003, 0.01, 0.02]),
                rng.choice([0.0, 0.0005, -0.0005])) for _ in range(12)]
    closes = []
    for level, vol, drift in markets:
        x, out = level, []
        for _ in range(250 + n // 12 + 1):
            x *= 1 + drift + rng.gauss(0.0, vol)
            out.append(x)
        closes.append(out)
    return [(tuple(closes[i % 12][i // 12:i // 12 + 250]), 126) for i in range(n)]

work = keys(int(sys.argv[1]))
ets_fit.forecast_path(work[-1])  # imports, first-call costs
digest = hashlib.sha256()
t = time.process_time()
for key in work:
    path = ets_fit.forecast_path(key)
    digest.update(b"-" if path is None else b"".join(struct.pack("<dd", m, v) for m, v in path))
cpu = time.process_time() - t
print(json.dumps({"ms_per_fit": 1000 * cpu / len(work), "digest": digest.hexdigest(), "module": ets_fit.__file__}))
"""


def run(src: Path, python: str, fits: int) -> dict[str, object]:
    """One configuration's fits in a fresh interpreter, the code at ``src`` first on its path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(src)
    env["OPENBLAS_NUM_THREADS"] = "1"
    out = subprocess.run([python, "-c", CHILD, str(fits)], env=env, check=True, capture_output=True,
                         text=True, cwd=src)
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--fits", type=int, default=60)
    parser.add_argument("--base", type=Path, default=None, help="source folder of the code to compare with")
    parser.add_argument("--base-python", default=sys.executable, help="the interpreter that runs --base's code")
    args = parser.parse_args()
    configs = {"this": (HERE, sys.executable)}
    if args.base is not None:
        configs["base"] = (args.base.resolve(), args.base_python)
    times: dict[str, list[float]] = {name: [] for name in configs}
    modules: dict[str, str] = {}
    digests: set[str] = set()
    for _ in range(args.runs):  # alternate the configurations within each round (a shared machine drifts)
        for name, (src, python) in configs.items():
            result = run(src, python, args.fits)
            times[name].append(float(str(result["ms_per_fit"])))
            modules[name] = str(result["module"])
            digests.add(str(result["digest"]))
    print(f"load {os.getloadavg()[0]:.1f}, {args.fits} fits a run, {args.runs} runs (median, then all)")
    for name, values in times.items():
        print(f"  {name:5s} {statistics.median(values):7.1f} ms/fit   {' '.join(f'{v:.1f}' for v in values)}"
              f"   ({modules[name]})")
    same = len(digests) == 1
    print("answers:", "the same bytes in every configuration" if same else f"DIFFER ({len(digests)} digests)")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
