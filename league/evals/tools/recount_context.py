#!/usr/bin/env python3
"""Recount a published contextual point-forecast run (GIFT-Eval-CTX) from its open-data folder.

Stand-alone, standard library only (no numpy), so a reader can run it without installing the project:

    python3 -I recount_context.py --data public/context/c001

It:

1. checks the eval book's hash chain (protocol.md §3: every seal and link);
2. checks that ``context-windows.json`` has the SHA-256 sealed in the run's ``ctx.open`` line and
   ``context-results.json`` the one sealed in its ``ctx.close``;
3. recomputes every window's SHA-256 (canonical JSON, floats by ``repr``), every effects record's SHA-256, the
   set's seal, each stated range (the future's minimum and maximum) and each effect's bounds, and compares them
   with the published and the sealed ones;
4. checks every prompt file against the hash sealed in ``ctx.open`` and each reply's prompt against it;
   re-reads every path from ``paths/<sha256>.txt`` and every raw reply from ``replies/<sha256>.txt`` (the hashes
   must match) and the path's fit to the horizon;
5. recomputes every figure of ``context-scores.csv`` (MASE per configuration, the seasonal naive's, the
   relative MASE, the geometric means overall, per bucket and per arm × mode, the compliance counts and shares,
   the effect-level breakdown) and compares each with the published one at its published precision, exactly;
   the overall figures of ``context-results.json`` likewise.

Exit status 0 when everything matched, 1 on any difference (each named on a DIFFERS line), 2 when the folder
cannot be read.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import sys
from collections import defaultdict
from pathlib import Path

ARMS = ("history", "macro", "micro", "both")
MODES = ("direct", "editing")
TOLERANCE = 5.0
DIGITS = 6
COMPLIANCE = ("answers", "exact", "exact_share", "truncated", "padded", "missing", "range_checked", "within_range",
              "within_range_share", "effects_checked", "effects_met", "effects_met_share")


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def canon(doc: object) -> bytes:
    return json.dumps(doc, sort_keys=True, ensure_ascii=False).encode("utf-8")


def compact(doc: object) -> bytes:
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def read_book(path: Path) -> list:
    lines, prev = [], ""
    with open(path, encoding="utf-8") as fh:
        for i, text in enumerate(fh, 1):
            x = json.loads(text)
            body = {k: v for k, v in x.items() if k not in ("n", "prev", "seal", "link")}
            if x["n"] != i or x["prev"] != prev or x["seal"] != sha(canon(body)):
                raise ValueError(f"eval book line {i}: n, prev or seal does not hold")
            if x["link"] != sha(canon({k: v for k, v in x.items() if k != "link"})):
                raise ValueError(f"eval book line {i}: link does not hold")
            prev = x["link"]
            lines.append(x)
    return lines


def cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, int):
        return str(value)
    return f"{value:.{DIGITS}f}"


# ---------------------------------------------------------------------------------------- the measure
def scale_of(history: list, m: int) -> float | None:
    if m < 1 or len(history) <= m:
        return None
    diffs = [abs(history[t] - history[t - m]) for t in range(m, len(history))]
    s = sum(diffs) / len(diffs)
    return s if s > 0 else None


def naive(history: list, horizon: int, m: int) -> list:
    n = len(history)
    return [history[n - 1 + h - m * math.ceil(h / m)] for h in range(1, horizon + 1)]


def to_points(values: list, history: list) -> list | None:
    if not history:
        return None
    low, high = min(history), max(history)
    if high <= low:
        return None
    return [100 * (v - low) / (high - low) for v in values]


def fitted(path: list | None, horizon: int) -> tuple:
    if not path:
        return None, "missing"
    if len(path) == horizon:
        return list(path), "exact"
    if len(path) > horizon:
        return list(path[:horizon]), "truncated"
    return [*path, *([path[-1]] * (horizon - len(path)))], "padded"


def gmean(values: list) -> float | None:
    if not values:
        return None
    if any(v == 0 for v in values):
        return 0.0
    return math.exp(sum(math.log(v) for v in values) / len(values))


def relative(windows: list) -> dict:
    """windows: (config tuple, bucket, path, future, naive, scale); as league.evals.mase.relative_mase."""
    groups: dict = defaultdict(list)
    for w in windows:
        groups[w[0]].append(w)

    def err(path: list, w: tuple) -> float:
        return sum(abs(f - a) for f, a in zip(path, w[3], strict=True)) / len(w[3]) / w[5]

    configs = []
    for config, ws in sorted(groups.items()):
        mase = sum(err(w[2], w) for w in ws) / len(ws)
        nv = sum(err(w[4], w) for w in ws) / len(ws)
        configs.append({"config": list(config), "bucket": ws[0][1], "windows": len(ws), "mase": mase,
                        "mase_naive": nv, "relative": mase / nv if nv > 0 else None})
    usable = [c for c in configs if c["relative"] is not None]
    buckets: dict = defaultdict(list)
    for c in usable:
        buckets[c["bucket"]].append(c["relative"])
    return {"configs": configs, "overall": gmean([c["relative"] for c in usable]),
            "buckets": {b: gmean(v) for b, v in sorted(buckets.items())}}


def share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


# ---------------------------------------------------------------------------------------- the windows
def check_windows(doc: dict, opened: dict) -> tuple[dict, list]:
    problems = []
    by_id, digests = {}, []
    sealed = {w["id"]: w for w in opened["windows"]}
    for k, w in enumerate(doc["windows"]):
        wid = w["id"]
        canonical = {"bucket": w["bucket"], "future": [repr(float(v)) for v in w["future"]],
                     "future_timestamps": w["future_timestamps"], "history": [repr(float(v)) for v in w["history"]],
                     "history_timestamps": w["history_timestamps"], "horizon": w["horizon"],
                     "series_id": w["series_id"], "start": w["start"]}
        digest = sha(compact(canonical))
        digests.append(digest)
        if digest != w["sha256"] or digest != sealed.get(wid, {}).get("sha256"):
            problems.append(f"window {wid}: sha256 does not hold")
        rec = w["effects"]
        if sha(compact(rec)) != w["effects_sha256"] or w["effects_sha256"] != sealed.get(wid, {}).get("effects_sha256"):
            problems.append(f"window {wid}: effects_sha256 does not hold")
        hist, fut = w["history"], w["future"]
        if w["stated_range"] != [min(fut), max(fut)]:
            problems.append(f"window {wid}: stated_range is not the future's minimum and maximum")
        if w["macro_bounds"] != [0, len(fut) - 1, rec["macro.min"], rec["macro.max"]]:
            problems.append(f"window {wid}: macro_bounds do not hold")
        micro = []
        for i in range(1, rec["micro.count"] + 1):
            s, e = rec[f"micro.{i}.start"], rec[f"micro.{i}.end"]
            pts = to_points(fut[s:e + 1], hist)
            micro.append([s, e, min(pts), max(pts)] if pts else None)
        if w["micro_bounds"] != micro:
            problems.append(f"window {wid}: micro_bounds do not hold")
        by_id[wid] = {"index": k, "history": hist, "future": fut, "season": w["season"], "bucket": w["bucket"],
                      "stated": w["stated_range"], "macro": w["macro_bounds"],
                      "micro": [[*b, rec[f"micro.{i}.kind"]] for i, b in enumerate(w["micro_bounds"], 1)]}
    if sha("".join(d + "\n" for d in digests).encode("ascii")) != opened["set_sha256"]:
        problems.append("the window set's seal (set_sha256) does not hold")
    if len(sealed) != len(doc["windows"]):
        problems.append("ctx.open names another number of windows")
    return by_id, problems


def bounds(w: dict, arm: str) -> dict:
    out: dict = {}
    if arm in ("macro", "both"):
        out[(w["macro"][0], w["macro"][1])] = (w["macro"][2], w["macro"][3])
    if arm in ("micro", "both"):
        for s, e, lo, hi, _ in w["micro"]:
            if (s, e) in out:
                lo, hi = max(lo, out[(s, e)][0]), min(hi, out[(s, e)][1])
            out[(s, e)] = (lo, hi)
    return out


# ---------------------------------------------------------------------------------------- the figures
def seat_rows(seat: str, answers: list) -> tuple[list, dict]:
    counts: dict = defaultdict(lambda: defaultdict(int))
    windows: dict = defaultdict(list)
    pools: dict = defaultdict(lambda: defaultdict(lambda: [0, 0.0, 0.0]))
    arm_order: list = []
    for arm, mode, w, path in answers:
        key = f"{arm}/{mode}"
        if key not in arm_order:
            arm_order.append(key)
        c = counts[key]
        c["answers"] += 1
        horizon = len(w["future"])
        p, how = fitted(path, horizon)
        c[how] += 1
        if p is None:
            continue
        pts = to_points(p, w["history"])
        if mode == "direct" and pts is not None:
            stated = to_points(w["stated"], w["history"])
            c["range_checked"] += 1
            c["within_range"] += all(stated[0] - TOLERANCE <= x <= stated[1] + TOLERANCE for x in pts)
        eff = bounds(w, arm)
        if eff and pts is not None:
            for (s, e), (lo, hi) in eff.items():
                mean = sum(pts[s:e + 1]) / (e + 1 - s)
                c["effects_checked"] += 1
                c["effects_met"] += lo - TOLERANCE <= mean <= hi + TOLERANCE
        scale = scale_of(w["history"], w["season"])
        if scale is None:
            c["unscaled"] += 1
            continue
        nv = naive(w["history"], horizon, w["season"])
        windows[key].append(((key, w["bucket"]), w["bucket"], p, w["future"], nv, scale))
        kind_of: dict = {}
        for s, e, _, _, kind in w["micro"]:
            for step in range(s, e + 1):
                kind_of.setdefault(step, kind)
        for step, (a, x, n) in enumerate(zip(p, w["future"], nv, strict=True)):
            for k in (["outside"] if step not in kind_of else ["inside", f"kind={kind_of[step]}"]):
                pool = pools[key][k]
                pool[0] += 1
                pool[1] += abs(a - x) / scale
                pool[2] += abs(n - x) / scale
    every = [win for key in arm_order for win in windows[key]]
    top = relative(every)
    rows = [(seat, "overall", "all", "relative_mase", cell(top["overall"]))]
    rows += [(seat, "bucket", b, "relative_mase", cell(v)) for b, v in top["buckets"].items()]
    for c in top["configs"]:
        rows += [(seat, "config", "|".join(c["config"]), f, cell(c[f])) for f in ("windows", "mase", "mase_naive",
                                                                                  "relative")]
    for key in sorted(arm_order):
        r, c = relative(windows[key]), counts[key]
        rows.append((seat, "arm", key, "relative_mase", cell(r["overall"])))
        rows += [(seat, "arm", key, f"relative_mase.{b}", cell(v)) for b, v in r["buckets"].items()]
        rows += [(seat, "arm", key, "windows", cell(len(windows[key]))), (seat, "arm", key, "unscaled",
                                                                           cell(c["unscaled"]))]
        figs = {"answers": c["answers"], "exact": c["exact"], "exact_share": share(c["exact"], c["answers"]),
                "truncated": c["truncated"], "padded": c["padded"], "missing": c["missing"],
                "range_checked": c["range_checked"], "within_range": c["within_range"],
                "within_range_share": share(c["within_range"], c["range_checked"]),
                "effects_checked": c["effects_checked"], "effects_met": c["effects_met"],
                "effects_met_share": share(c["effects_met"], c["effects_checked"])}
        rows += [(seat, "arm", key, f, cell(figs[f])) for f in COMPLIANCE]
    for key in sorted(pools):
        for k in sorted(pools[key]):
            steps, err, nerr = pools[key][k]
            mase, nm = err / steps, nerr / steps
            figs = {"steps": steps, "mase": mase, "mase_naive": nm, "relative": mase / nm if nm > 0 else None}
            rows += [(seat, "effects", f"{key}|{k}", f, cell(v)) for f, v in figs.items()]
    return rows, top


def recount(base: Path) -> list:
    results_bytes = (base / "context-results.json").read_bytes()
    res = json.loads(results_bytes)
    run_id = res["run_id"]
    book = read_book(base / "eval-book.jsonl")
    opened = next(x for x in book if x["kind"] == "ctx.open" and x["run_id"] == run_id)
    closed = next((x for x in book if x["kind"] == "ctx.close" and x["run_id"] == run_id), None)
    problems = []
    if closed is None or closed["results_sha256"] != sha(results_bytes):
        problems.append(f"{run_id}: context-results.json is not the file sealed in ctx.close")
    windows_bytes = (base / "context-windows.json").read_bytes()
    if sha(windows_bytes) != opened["windows_sha256"]:
        problems.append(f"{run_id}: context-windows.json is not the file sealed in ctx.open")
    windows, found = check_windows(json.loads(windows_bytes), opened)
    problems += [f"{run_id}: {p}" for p in found]
    for sub in ("prompts", "replies", "paths", "steps"):
        for stored in sorted((base / sub).glob("*.txt")) if (base / sub).is_dir() else []:
            if sha(stored.read_bytes()) != stored.stem:
                problems.append(f"{run_id}: {sub}/{stored.name} does not have the hash it is named by")
    for key, digest in opened["prompts"].items():
        prompt = base / "prompts" / f"{digest}.txt"
        if not prompt.is_file() or sha(prompt.read_bytes()) != digest:
            problems.append(f"{run_id}: the prompt of {key} is missing or does not have its sealed hash")
    replies = [x for x in book if x["kind"] == "ctx.reply" and x["run_id"] == run_id]
    for r in replies:
        sealed = opened["prompts"].get(f"{r['window_id']}|{r['arm']}|{r['mode']}")
        if r.get("prompt_sha256") is not None and r["prompt_sha256"] != sealed:
            problems.append(f"{run_id}: line {r['n']}: the reply's prompt is not the one sealed in ctx.open")
    answers: dict = defaultdict(list)
    for r in sorted(replies, key=lambda r: (r["seat"], windows[r["window_id"]]["index"], ARMS.index(r["arm"]),
                                            MODES.index(r["mode"]))):
        where = f"{run_id}: line {r['n']} ({r['seat']} {r['window_id']} {r['arm']}/{r['mode']})"
        path = None
        if r.get("raw_sha256"):
            if sha((base / "replies" / f"{r['raw_sha256']}.txt").read_bytes()) != r["raw_sha256"]:
                problems.append(f"{where}: the raw reply does not have its sealed hash")
        if r.get("path_sha256"):
            data = (base / "paths" / f"{r['path_sha256']}.txt").read_bytes()
            if sha(data) != r["path_sha256"]:
                problems.append(f"{where}: the path does not have its sealed hash")
            path = [float(v) for v in json.loads(data)]
        w = windows[r["window_id"]]
        if fitted(path, len(w["future"]))[1] != r["fit"]:
            problems.append(f"{where}: fit {r['fit']!r} does not hold")
        answers[r["seat"]].append((r["arm"], r["mode"], w, path))
    rows, tops = [], {}
    for seat in sorted(answers):
        seat_table, tops[seat] = seat_rows(seat, answers[seat])
        rows += seat_table
    with open(base / "context-scores.csv", newline="", encoding="utf-8") as fh:
        published = {(r["seat"], r["scope"], r["key"], r["figure"]): r["value"] for r in csv.DictReader(fh)}
    mine = {(s, sc, k, f): v for s, sc, k, f, v in rows}
    for key in sorted(set(published) | set(mine)):
        if published.get(key) != mine.get(key):
            problems.append(f"{run_id}: {' '.join(key)}: published {published.get(key)!r}, "
                            f"recounted {mine.get(key)!r}")
    for seat, top in tops.items():
        fig = res["figures"].get(seat, {})
        want = None if top["overall"] is None else round(top["overall"], DIGITS)
        if fig.get("overall") != want:
            problems.append(f"{run_id}: context-results.json {seat} overall: published {fig.get('overall')!r}, "
                            f"recounted {want!r}")
    return problems


def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(description="Recount a published contextual point-forecast run.")
    parser.add_argument("--data", required=True, help="the run's open-data folder (holding context-results.json)")
    args = parser.parse_args(argv)
    base = Path(args.data)
    try:
        problems = recount(base)
    except (OSError, ValueError, KeyError, StopIteration, TypeError) as exc:
        sys.stdout.write(f"cannot read {base}: {type(exc).__name__}: {exc}\n")
        return 2
    for p in problems:
        sys.stdout.write(f"DIFFERS {p}\n")
    sys.stdout.write(f"recount: {len(problems)} difference(s)\n")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
