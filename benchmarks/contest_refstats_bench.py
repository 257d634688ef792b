"""Benchmark the reference procedure (league.contest.refstats.accuracy): wall time against forecasts per agent.

    python3 benchmarks/contest_refstats_bench.py [--per-agent 250 500 1000] [--agents 4]

The reference's resampler is pure Python (B = 2,000 resamples, one ``rng.choice`` per value, a compensated
sum per resample), so its cost grows as agents × forecasts × B. Synthetic two-outcome markets, one sweep, every
market resolved; figures are printed with the machine, the Python version and the load average.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time

from league.contest.refstats import accuracy
from league.jsonvalue import Json, JsonObject


def season(per_agent: int, agents: list[tuple[str, str]], seed: int = 1) -> tuple[JsonObject, dict[str, str]]:
    rng = random.Random(seed)
    markets: list[Json] = []
    forecasts: list[Json] = []
    winners: dict[str, str] = {}
    for i in range(per_agent):
        mid = f"{i:06d}"
        p = round(rng.uniform(0.05, 0.95), 3)
        markets.append({"id": mid, "outcomes": ["Yes", "No"], "prices_at_sweep": [p, round(1 - p, 3)]})
        winners[mid] = rng.choice(["Yes", "No"])
        for agent, _ in agents:
            q = round(rng.uniform(0.01, 0.99), 6)
            forecasts.append({"agent": agent, "market_id": mid, "probabilities": {"Yes": q, "No": round(1 - q, 6)}})
    return {"date": "2026-10-09", "markets": markets, "forecasts": forecasts}, winners


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-agent", type=int, nargs="+", default=[250, 500, 1000])
    parser.add_argument("--agents", type=int, default=4)
    args = parser.parse_args()
    agents = [(f"agent{i}", f"Agent {i}") for i in range(args.agents)]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {sys.version.split()[0]}, "
          f"load average {os.getloadavg()[0]:.1f}")
    for n in args.per_agent:
        doc, winners = season(n, agents)
        start = time.perf_counter()
        accuracy([doc], winners, agents)
        print(f"{args.agents} agents × {n} resolved forecasts + crowd: {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
