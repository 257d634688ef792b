"""Benchmark: event questions per minute against the stand-in seat at 1, 4 and 16 concurrent sandboxes.

Not a test (no timing assertions anywhere in the suite); run by hand and copy the figures into docs/evals.md:

    python benchmarks/eval_bench.py [--copies 4] [--runs 3] [--levels 1,4,16]

The question file is the shipped one with every question repeated ``copies`` times under new ids (60
questions by default), written once into a temporary folder with the league's own build script. Each run is a
complete ``run_questions`` (plan, prompts, ``eval.open``, one trial per question in the REAL bubblewrap sandbox,
each reply written, parsed and sealed with an fsync, results, open-data folder, ``eval.close``) into a fresh
folder, timed by the wall clock around it. The levels run in turn (1, 4, 16, 1, 4, 16, ...) so that drift in
the machine's load touches every level alike; each figure is the median of ``runs``, and the ratio is against
concurrency 1 of the same go. The load average is printed before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
import tomllib
from datetime import UTC, datetime
from pathlib import Path

from league.clock import SystemClock
from league.evals.build_questions import build, data_dir
from league.evals.config import find_seat, load_config
from league.evals.questions import read_question_file
from league.evals.run import RunOptions, run_questions
from league.log import configure
from sandbox.bwrap import BwrapSandbox


def question_file(folder: Path, copies: int) -> Path:
    """The shipped questions, ``copies`` times, as a TOML source built into SQLite by the league's script."""
    source = tomllib.loads((data_dir() / "league-questions.toml").read_text(encoding="utf-8"))
    lines = [f'{k} = {json.dumps(source[k])}' for k in ("dataset_name", "split_name", "built_at", "description")]
    for i in range(copies):
        for q in source["question"]:
            lines.append("[[question]]")
            lines += [f"{k} = {json.dumps(f'{v}-{i}' if k == 'id' else v)}" for k, v in q.items()]
    toml = folder / "bench-questions.toml"
    toml.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return build(toml, folder / "bench-questions.db")


def one_run(db: Path, folder: Path, level: int, box: BwrapSandbox) -> tuple[float, int]:
    qset = read_question_file(db)
    seat = find_seat(load_config(), "standin-sharp")
    t0 = time.perf_counter()
    result = run_questions(qset, seat, folder, SystemClock(), RunOptions(trials=1, concurrency=level), sandbox=box)
    elapsed = time.perf_counter() - t0
    return elapsed, int(result.results["scores"]["overall"]["answered"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--levels", default="1,4,16")
    args = parser.parse_args()
    configure(json_logs=False, level="WARNING")
    levels = [int(x) for x in args.levels.split(",")]
    box = BwrapSandbox()
    times: dict[int, list[float]] = {lv: [] for lv in levels}
    with tempfile.TemporaryDirectory(prefix="eval-bench-") as tmp:
        root = Path(tmp)
        db = question_file(root, args.copies)
        questions = len(read_question_file(db).questions)
        load_before = os.getloadavg()
        for r in range(args.runs):
            for lv in levels:
                elapsed, answered = one_run(db, root / f"run-{r}-{lv}", lv, box)
                assert answered == questions, f"only {answered} of {questions} answered at concurrency {lv}"
                times[lv].append(elapsed)
        load_after = os.getloadavg()
    base = statistics.median(times[levels[0]])
    record = {
        "at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": f"{os.cpu_count()} cpu, {platform.machine()}",
        "python": platform.python_version(), "questions": questions, "runs": args.runs,
        "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in load_after],
        "levels": {str(lv): {"median_s": round(statistics.median(ts), 3), "runs_s": [round(t, 3) for t in ts],
                             "questions_per_minute": round(questions / statistics.median(ts) * 60, 1),
                             "speedup_vs_first": round(base / statistics.median(ts), 2)}
                   for lv, ts in times.items()},
    }
    for lv, fig in record["levels"].items():  # type: ignore[union-attr]
        print(f"concurrency {lv:>2}: {fig['questions_per_minute']:>7.1f} questions/min "
              f"(median {fig['median_s']:.2f} s for {questions}; runs {fig['runs_s']}; ×{fig['speedup_vs_first']})")
    print(f"load average before {record['load_before']}, after {record['load_after']}")
    print(json.dumps(record, sort_keys=True))


if __name__ == "__main__":
    main()
