"""Benchmark of the scoring module on a synthetic 126-session season of 14 seats (~85,000 cells).

Measures, each in a fresh subprocess (so that peak RSS and caches are per run), median of N runs:
  full   - load council-forecasts.csv and compute every published statistic (write_stats), with the
           10,000-resample bootstraps;
  core   - the Brier / N_eff / consensus core, vectorised (pandas/numpy) from the CSV;
  plain  - the same core as plain-Python loops (league.scoring.reference) from the same CSV.
It also checks that core and plain agree, and prints the core/plain speed ratio.

    python benchmarks/scoring_bench.py [--runs 3] [--sessions 126]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any


def _prepare(folder: Path, sessions: int) -> None:
    from league.scoring.climatology import clim_probabilities, default_table
    from league.scoring.synthetic import synthetic_season

    clim = default_table(date(2026, 1, 5))
    (folder / "clim.json").write_text(json.dumps(clim))
    frame = synthetic_season(sessions, clim=clim_probabilities(clim))
    frame.to_csv(folder / "council-forecasts.csv", index=False)
    print(f"season: {sessions} sessions, {frame['seat'].nunique()} seats, {len(frame)} cells")


def _vector_parse(csv_path: Path) -> object:
    from league.scoring.frame import load_forecasts

    return load_forecasts(csv_path)


def _vector_core(df: Any) -> dict[str, object]:
    from league.scoring.consensus import consensus, dedupe
    from league.scoring.council import n_eff_table
    from league.scoring.frame import council_rows, scored_rows
    from league.scoring.synthetic import synthetic_families

    s = scored_rows(df)
    b = ((s["p"] / 100 - s["outcome"]) ** 2).groupby([s["seat"], s["horizon"]]).agg(["mean", "size"])
    rows = dedupe(council_rows(df).loc[lambda x: x["common"]])
    cons = consensus(rows, synthetic_families())
    neff = n_eff_table(rows)
    return {
        "brier": {k: (float(v["mean"]), int(v["size"])) for k, v in b.iterrows()},
        "cons": {(r.unit, r.event_key): float(r.p) for r in cons.itertuples()},
        "neff": {(r["session"], r["horizon"]): r["n_eff"] for r in neff},
    }


def _plain_parse(csv_path: Path) -> object:
    with open(csv_path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _plain_core(rows: Any) -> dict[str, object]:
    from league.scoring import reference
    from league.scoring.synthetic import synthetic_families

    return {
        "brier": reference.brier_by_seat(rows),
        "cons": reference.consensus_per_event(rows, synthetic_families()),
        "neff": {k: v[2] for k, v in reference.n_eff_per_run(rows).items()},
    }


def _one(kind: str, folder: Path) -> None:
    """Run one measurement in this process and print a JSON line: seconds and peak RSS."""
    csv_path = folder / "council-forecasts.csv"
    import league.scoring.publish  # noqa: F401 - import cost is not part of the measurement

    start = time.perf_counter()
    parsed = 0.0
    if kind == "full":
        from league.scoring.publish import write_stats
        from league.scoring.synthetic import synthetic_families, synthetic_sides

        clim = json.loads((folder / "clim.json").read_text())
        write_stats(csv_path, folder / "out", clim, synthetic_families(), synthetic_sides())
        result: dict[str, object] = {}
    else:
        data = _vector_parse(csv_path) if kind == "core" else _plain_parse(csv_path)
        parsed = time.perf_counter() - start
        result = _vector_core(data) if kind == "core" else _plain_core(data)
    seconds = time.perf_counter() - start
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if kind != "full":
        (folder / f"{kind}.json").write_text(
            json.dumps(
                {
                    k: {repr(a): b for a, b in v.items()}  # type: ignore[attr-defined]
                    for k, v in result.items()
                }
            )
        )
    print(json.dumps({"kind": kind, "seconds": seconds, "parse": parsed, "compute": seconds - parsed,
                      "peak_rss_mb": rss_mb}))


def _run(kind: str, folder: Path) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--one", kind, "--folder", str(folder)], check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _agree(folder: Path) -> str:
    core = json.loads((folder / "core.json").read_text())
    plain = json.loads((folder / "plain.json").read_text())
    worst = 0.0
    for part in ("brier", "cons", "neff"):
        assert core[part].keys() == plain[part].keys(), f"{part}: different keys"
        for k, v in core[part].items():
            a, b = (v[0], plain[part][k][0]) if part == "brier" else (v, plain[part][k])
            worst = max(worst, abs(a - b))
    return f"core and plain agree on every Brier, consensus and N_eff (max abs diff {worst:.1e})"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sessions", type=int, default=126)
    ap.add_argument("--one")
    ap.add_argument("--folder", type=Path)
    args = ap.parse_args()
    if args.one:
        _one(args.one, args.folder)
        return
    print(f"machine: {platform.machine()} {os.cpu_count()} cores, python {platform.python_version()}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _prepare(folder, args.sessions)
        results: dict[str, list[dict[str, float]]] = {"full": [], "core": [], "plain": []}
        for _ in range(args.runs):
            for kind in results:
                results[kind].append(_run(kind, folder))
        med = {k: statistics.median(r["seconds"] for r in v) for k, v in results.items()}
        comp = {k: statistics.median(r["compute"] for r in v) for k, v in results.items()}
        for kind, runs in results.items():
            times = ", ".join(f"{r['seconds']:.2f}" for r in runs)
            peak = max(r["peak_rss_mb"] for r in runs)
            print(f"{kind:5s}: median {med[kind]:.2f} s (runs: {times}); compute median {comp[kind]:.2f} s; "
                  f"peak RSS {peak:.0f} MB")
        print(f"core vs plain Python, CSV to numbers: {med['plain'] / med['core']:.1f}x; "
              f"compute only (parsed rows given): {comp['plain'] / comp['core']:.1f}x")
        print(_agree(folder))


if __name__ == "__main__":
    main()
