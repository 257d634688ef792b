"""Per-step CPU and peak resident memory of one ``publish()`` (docs/costs.md, "The publisher")::

    PYTHONPATH=CHECKOUT python benchmarks/publish_steps.py DATA [--workers 1]

Runs the publisher in this process on DATA (publish it on a copy: it writes DATA/public and the forecasts cache)
and, at each step's start (the progress callback), reads the peak resident size since the last step (VmHWM),
then resets it by writing 5 to /proc/self/clear_refs (Linux). Prints one ``STEP name cpu_s peak_mb rss_mb wall_s``
line per step as the step ends (so a run stopped half-way still shows the steps it finished) and a ``RESULT {json}``
line: the whole CPU and wall, the largest step peak, the report's failures.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path
from typing import Any


def _status() -> tuple[float, float]:
    """(VmHWM, VmRSS) of this process in MB."""
    text = Path("/proc/self/status").read_text(encoding="utf-8")
    hwm = re.search(r"^VmHWM:\s+(\d+)", text, re.M)
    rss = re.search(r"^VmRSS:\s+(\d+)", text, re.M)
    return (int(hwm.group(1)) / 1024 if hwm else 0.0), (int(rss.group(1)) / 1024 if rss else 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    from league.publish import publish

    steps: list[tuple[str, float, int, int, float]] = []
    state: dict[str, Any] = {"name": "import", "cpu": time.process_time(), "wall": time.perf_counter()}

    def progress(step: str, done: int, total: int) -> None:
        peak, rss = _status()
        steps.append((state["name"], round(time.process_time() - state["cpu"], 2), round(peak), round(rss),
                      round(time.perf_counter() - state["wall"], 2)))
        print("STEP", *steps[-1], flush=True)
        Path("/proc/self/clear_refs").write_text("5", encoding="ascii")
        state.update(name=step, cpu=time.process_time(), wall=time.perf_counter())

    start, start_wall = time.process_time(), time.perf_counter()
    report = publish(args.data, workers=args.workers, progress=progress)
    print("RESULT", json.dumps({"steps": steps, "cpu": round(time.process_time() - start, 1),
                                "wall": round(time.perf_counter() - start_wall, 1),
                                "step_peak_max": max(s[2] for s in steps), "ok": report.ok,
                                "failed": report.failed}))


if __name__ == "__main__":
    main()
