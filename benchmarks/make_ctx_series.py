"""Write league/evals/data/ctx-series.csv: the contextual track's shipped demo series (deterministic).

Three hourly series of 720 steps (30 days, daily season of 24 steps) in the long format the track reads
(``id,timestamp,value``), each with what makes a window hard for a statistical reference: a trend that bends,
level shifts, a transient deviation and a change of period. Same seed, same bytes: run it again and compare.

    .venv/bin/python benchmarks/make_ctx_series.py            # rewrite the shipped file
    .venv/bin/python benchmarks/make_ctx_series.py --check    # exit 1 if the shipped file differs
"""

from __future__ import annotations

import argparse
import io
import math
import random
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "league" / "evals" / "data" / "ctx-series.csv"
STEPS = 720
START = datetime(2026, 1, 1, tzinfo=UTC)


def load(rng: random.Random) -> list[float]:
    """Electricity-like load: daily cycle, slow trend that turns, level shifts late in several windows."""
    out = []
    for t in range(STEPS):
        trend = 0.02 * t if t < 400 else 8.0 - 0.015 * (t - 400)
        season = 6.0 * math.sin(2 * math.pi * t / 24) + 2.0 * math.sin(4 * math.pi * t / 24)
        shift = (5.0 if 680 <= t else 0.0) + (-4.0 if 560 <= t < 600 else 0.0) + (3.0 if 300 <= t < 330 else 0.0)
        out.append(round(50.0 + trend + season + shift + rng.gauss(0, 0.6), 3))
    return out


def traffic(rng: random.Random) -> list[float]:
    """Traffic-like counts: daily cycle whose period changes to 12 steps for a stretch, and a dip."""
    out = []
    for t in range(STEPS):
        period = 12 if 650 <= t < 700 or 470 <= t < 500 else 24
        season = 20.0 * math.sin(2 * math.pi * t / period)
        dip = -25.0 if 600 <= t < 615 else 0.0
        out.append(round(max(0.0, 100.0 + 0.01 * t + season + dip + rng.gauss(0, 2.0)), 2))
    return out


def sales(rng: random.Random) -> list[float]:
    """Sales-like: weak daily cycle, a ramp up late, a spike and a step down."""
    out = []
    for t in range(STEPS):
        ramp = 0.3 * (t - 690) if t >= 690 else 0.0
        spike = 15.0 * math.exp(-((t - 520) ** 2) / 20.0)
        step = -6.0 if 230 <= t < 300 else 0.0
        out.append(round(30.0 + 3.0 * math.sin(2 * math.pi * t / 24) + ramp + spike + step + rng.gauss(0, 1.0), 3))
    return out


def render() -> bytes:
    rng = random.Random(20261206)
    buf = io.StringIO()
    buf.write("id,timestamp,value\n")
    for name, make in (("load", load), ("sales", sales), ("traffic", traffic)):
        for t, v in enumerate(make(rng)):
            stamp = (START + timedelta(hours=t)).strftime("%Y-%m-%dT%H:%M:%SZ")
            buf.write(f"{name},{stamp},{v!r}\n")
    return buf.getvalue().encode("ascii")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the shipped file instead of writing")
    args = parser.parse_args()
    data = render()
    if args.check:
        same = OUT.is_file() and OUT.read_bytes() == data
        print("same" if same else f"{OUT} differs from what the script writes")
        return 0 if same else 1
    OUT.write_bytes(data)
    print(f"wrote {OUT} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
