"""The sides' figures of seeded synthetic runs, timed: what council-sides.json costs per counted run.

    PYTHONPATH=CHECKOUT python benchmarks/sides_bench.py --seats 100 --runs 2 [--seed 3] [--repeat 3]

Why: the publish's sides step computes each run's entries once (later nights take them from the memo), so a
new league's first publish, or the first after ``league/scoring/sides.py`` changes, computes every run of the
season; at 100 seats that is 5,000 seeded splits per horizon and for the run's cells together. The runs here have
12 markets x 4 horizons, about 3 % of answers missing, probabilities mostly whole points, two sides drawn by seed,
a third of the outcomes still open. Run it from two checkouts in turns (PYTHONPATH) to compare them in one go.
Prints one JSON line: seconds per run (median of ``--repeat``), CPU seconds, and a digest of the figures rounded to
6 places (equal digests: the same figures as the stand-alone recount compares them).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import time
from typing import Any

from league.scoring import sides

MARKETS = 12


def synthetic(seats: int, runs: int, seed: int) -> tuple[list[sides.Answer], dict[str, str]]:
    rng = random.Random(seed)
    names = [f"seat-{i:03d}" for i in range(seats)]
    side_of = {s: rng.choice(("a", "b")) for s in names}
    answers = []
    for run in range(runs):
        for h in sides.HORIZON_ORDER:
            for m in range(MARKETS):
                for s in names:
                    if rng.random() < 0.03:
                        continue
                    p = float(rng.randint(1, 99)) if rng.random() < 0.8 else rng.random() * 100
                    answers.append(sides.Answer(f"r{run:04d}", f"s{run:04d}", s, f"M{m:02d}", h, f"e{run}-{m}-{h}",
                                                p, rng.choice((0.0, 1.0, None))))
    return answers, side_of


def rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 6)
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v) for v in value]
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=100)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    answers, side_of = synthetic(args.seats, args.runs, args.seed)
    walls, cpus, digest = [], [], ""
    for _ in range(args.repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        report = sides.sides_report(answers, side_of)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        digest = hashlib.sha256(json.dumps(rounded(report), sort_keys=True).encode()).hexdigest()[:16]
    print(json.dumps({"seats": args.seats, "runs": args.runs,
                      "s_per_run": round(statistics.median(walls) / args.runs, 3),
                      "cpu_s_per_run": round(statistics.median(cpus) / args.runs, 3), "repeat": args.repeat,
                      "digest": digest}))


if __name__ == "__main__":
    main()
