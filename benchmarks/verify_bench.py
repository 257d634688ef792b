"""What the rebuild of step 11 costs beside the open-data steps 2-10 of `league verify`, on one folder.

    python benchmarks/verify_bench.py FOLDER [--runs 3]

Times, in one process and the same go, (a) steps 2-10 (`verify_published`, the baseline) and (b) step 11
(`rebuild_step`: every derived file rebuilt from the books and compared), each the median of --runs;
prints both and the ratio. The first rebuild also pays the statistics' imports (numpy, pandas,
statsmodels), so it is timed apart as "cold".
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from league.publish.rebuild import rebuild_step
    from league.verify.reader import verify_published

    cold = timed(lambda: rebuild_step(args.folder))
    base = statistics.median(timed(lambda: verify_published(args.folder)) for _ in range(args.runs))
    step11 = statistics.median(timed(lambda: rebuild_step(args.folder)) for _ in range(args.runs))
    print(f"steps 2-10: {base:.1f} s; step 11 (rebuild + compare): {step11:.1f} s (cold {cold:.1f} s); "
          f"ratio {step11 / base:.2f} (median of {args.runs})")


if __name__ == "__main__":
    main()
