#!/usr/bin/env python3
"""Recount every figure of council-points.json (the point-forecast track, MASE) from the published council book.

Stand-alone, standard library only, so a reader can run it without installing the project:

    python3 -I tools/recount_points.py .          (compare with council-points.json; run in the open-data folder)
    python3 -I tools/recount_points.py . --json   (print the recounted report instead)

Input: ``council-book.jsonl`` (one JSON object per line; the lines of kind ``score`` and ``score_h`` are read,
each line's chain fields are ignored: `league verify` checks the chain in its own steps). It checks
``council-points.json`` and, when council-stats.json carries it, that file's ``points`` block (the same report).
The parameters ``season`` (m) and ``min_history`` are read from the file checked (they are stated there); the
horizons and buckets are this tool's own and compared. The rules (docs/evals.md, "B. Point forecasts"):

1. Score lines: the ``score``/``score_h`` lines whose ``markets`` and ``seats`` are lists (or absent);
   ``score_lines`` counts them. A line's events are the objects in ``markets``; its rows the objects in
   ``seats`` (a row that is not an object is skipped). A "number" is a JSON number that is not a boolean.
2. History: each market's one-day closes: for every line of horizon ``1d`` and each event with a number
   ``close`` and no true ``late_ref``, the close of that (market, session), the first in book order winning;
   sorted by session (text order). A window at session S knows the n closes of sessions before S.
3. Scale of a window: with m = season, when n - m >= min_history and n > m: mean |y_t - y_{t-m}| over
   t = m .. n-1 (summed in order from 0, divided by n - m); a scale <= 0 leaves the window unscaled. The
   seasonal naive forecast for a horizon of h steps (1d 1, 1w 5, 1m 21, 6m 126) is y[n-1+h-m*ceil(h/m)].
4. Rows: only rows whose ``status`` is ``counted``, ``counted_50``, ``refused_shape`` or ``no_answer`` (asked)
   count. Answered = status ``counted``/``counted_50`` and a number ``target`` > 0. The row's event is the
   line's event whose str(``event_id_v2``) equals the row's str(``event_id_v2``) (missing in the row: "").
   In range (answered rows): with prob_up p and the event's reference r both numbers: target > r when
   p > 50, target < r when p < 50, true at 50; unknown otherwise. An answered row whose event has no number
   close is ``unresolved``; one whose window cannot be scaled (rule 3, market unknown, horizon not one of the
   four) is ``unscaled``; else it is a window of configuration (market, horizon), bucket short (1d), medium
   (1w), long (1m, 6m), error |target - close| / scale. The seasonal naive gets one window per (session,
   horizon, market), the first in book order, error |naive - close| / scale.
5. Per configuration (sorted by market, then horizon), for a seat or the naive: windows, mase = the sum of
   the window errors in book order / windows, mase_naive = the same with the naive's forecast on the same
   windows, relative = mase / mase_naive (null when mase_naive is 0). ``overall`` = geometric mean of the
   non-null relatives (exp of the mean log; 0 when one is 0; null when none); per bucket the same over its
   configurations; ``configs_without_naive_error`` counts the null ones.
6. Compliance per seat: asked = asked rows; with_forecast = answered rows (a target is a path of one step, so
   every given target has the expected length: wrong_length = 0); range_checked = answered rows with a
   known in-range; within_range = those in range; the shares are with_forecast/asked and
   within_range/range_checked (null over zero). ``windows``, ``unscaled``, ``unresolved`` per seat; the
   naive's ``windows`` = its windows.

The file writes full-precision floats (json.dumps, no rounding), and this recount adds in the same order, so
the figures should be equal; floats are compared after rounding to 12 significant digits (to absorb a last-bit
difference of exp/log between machines), texts and counts exactly. ``book`` is not compared. Exit status 0
when every figure agrees, 1 on any difference (``MISMATCH`` lines), 2 when a file is missing or unreadable.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from bisect import bisect_left
from collections import defaultdict

BOOK, POINTS, STATS = "council-book.jsonl", "council-points.json", "council-stats.json"
KINDS = ("score", "score_h")
HORIZON_STEPS = {"1d": 1, "1w": 5, "1m": 21, "6m": 126}
BUCKETS = {"1d": "short", "1w": "medium", "1m": "long", "6m": "long"}
ASKED = {"counted", "counted_50", "refused_shape", "no_answer"}
ANSWERED = {"counted", "counted_50"}
DIGITS = 12
MAX_SHOWN = 20
IGNORED = {"book"}


class Missing(Exception):
    """A file is missing or cannot be read (exit 2)."""


def number(value):
    """A JSON number that is not a boolean, as a float; else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def text(value):
    return value if isinstance(value, str) else ""


def objects(value):
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


# ------------------------------------------------------------------------------ reading
def score_lines(folder):
    """Rule 1: the score lines of the book, in book order."""
    path = os.path.join(folder, BOOK)
    try:
        fh = open(path, encoding="utf-8")
    except OSError as exc:
        raise Missing(f"{BOOK}: {exc}") from None
    lines = []
    with fh:
        for i, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            try:
                line = json.loads(raw)
            except ValueError as exc:
                raise Missing(f"{BOOK} line {i} is not JSON ({exc})") from None
            if not isinstance(line, dict) or line.get("kind") not in KINDS:
                continue
            if isinstance(line.get("markets", []), list) and isinstance(line.get("seats", []), list):
                lines.append(line)
    return lines


def read_json(folder, name):
    try:
        with open(os.path.join(folder, name), encoding="utf-8") as fh:
            return json.load(fh)
    except OSError as exc:
        raise Missing(f"{name}: {exc}") from None
    except ValueError as exc:
        raise Missing(f"{name} is not JSON ({exc})") from None


# ------------------------------------------------------------------------------ the rules
def daily_closes(lines):
    """Rule 2: per market, (sessions, closes) in session order."""
    seen = defaultdict(dict)
    for line in lines:
        if line.get("horizon") != "1d":
            continue
        for ev in objects(line.get("markets")):
            close = number(ev.get("close"))
            if close is not None and not ev.get("late_ref"):
                seen[text(ev.get("market"))].setdefault(text(line.get("session")), close)
    out = {}
    for market, by_session in seen.items():
        pairs = sorted(by_session.items())
        out[market] = ([s for s, _ in pairs], [c for _, c in pairs])
    return out


def scale_and_naive(history, session, horizon, m, min_history):
    """Rule 3: (scale, seasonal naive) of a window, or None when it cannot be scaled."""
    if history is None or horizon not in HORIZON_STEPS:
        return None
    sessions, closes = history
    n = bisect_left(sessions, session)
    if n - m < min_history or m < 1 or n <= m:
        return None
    total = 0
    for t in range(m, n):
        total += abs(closes[t] - closes[t - m])
    scale = total / (n - m)
    if scale <= 0:
        return None
    h = HORIZON_STEPS[horizon]
    return scale, closes[n - 1 + h - m * math.ceil(h / m)]


def in_range(prob, target, reference):
    p, r = number(prob), number(reference)
    if p is None or r is None:
        return None
    return target > r if p > 50 else target < r if p < 50 else True


def geometric_mean(values):
    if not values:
        return None
    if any(v == 0 for v in values):
        return 0.0
    return math.exp(sum(math.log(v) for v in values) / len(values))


def table(windows):
    """Rule 5 over windows (config, bucket, forecast, actual, naive, scale)."""
    groups = defaultdict(list)
    for w in windows:
        groups[w[0]].append(w)
    rows = []
    for config in sorted(groups):
        ws = groups[config]
        mase = sum(abs(w[2] - w[3]) / w[5] for w in ws) / len(ws)
        naive = sum(abs(w[4] - w[3]) / w[5] for w in ws) / len(ws)
        rows.append({"config": list(config), "bucket": ws[0][1], "windows": len(ws), "mase": mase,
                     "mase_naive": naive, "relative": mase / naive if naive > 0 else None})
    usable = [r for r in rows if r["relative"] is not None]
    buckets = defaultdict(list)
    for r in usable:
        buckets[r["bucket"]].append(r["relative"])
    return {"configs": rows, "overall": geometric_mean([r["relative"] for r in usable]),
            "buckets": {b: geometric_mean(v) for b, v in sorted(buckets.items())},
            "configs_without_naive_error": len(rows) - len(usable)}


def recount(lines, season, min_history):
    """Rules 1-6: the report council-points.json should hold (without ``book``)."""
    closes = daily_closes(lines)
    known = {}
    seats = defaultdict(lambda: {"windows": [], "asked": 0, "given": 0, "checked": 0, "inside": 0,
                                 "unscaled": 0, "unresolved": 0})
    naive = {}
    for line in lines:
        session, horizon = text(line.get("session")), text(line.get("horizon"))
        events = {str(e.get("event_id_v2")): e for e in objects(line.get("markets"))}
        for row in objects(line.get("seats")):
            if row.get("status") not in ASKED:
                continue
            seat = seats[str(row.get("seat"))]
            seat["asked"] += 1
            target = number(row.get("target"))
            if row["status"] not in ANSWERED or target is None or target <= 0:
                continue
            seat["given"] += 1
            ev = events.get(str(row.get("event_id_v2", "")), {})
            side = in_range(row.get("prob_up"), target, ev.get("reference"))
            if side is not None:
                seat["checked"] += 1
                seat["inside"] += bool(side)
            close = number(ev.get("close"))
            if close is None:
                seat["unresolved"] += 1
                continue
            market = text(row.get("market"))
            key = (market, session, horizon)
            if key not in known:
                known[key] = scale_and_naive(closes.get(market), session, horizon, season, min_history)
            if known[key] is None:
                seat["unscaled"] += 1
                continue
            scale, forecast_naive = known[key]
            config, bucket = (market, horizon), BUCKETS[horizon]
            seat["windows"].append((config, bucket, target, close, forecast_naive, scale))
            naive.setdefault((session, horizon, market), (config, bucket, forecast_naive, close, forecast_naive,
                                                          scale))
    report_seats = {}
    for name in sorted(seats):
        s = seats[name]
        report_seats[name] = {
            **table(s["windows"]),
            "compliance": {"asked": s["asked"], "with_forecast": s["given"],
                           "with_forecast_share": s["given"] / s["asked"] if s["asked"] else None,
                           "wrong_length": 0, "range_checked": s["checked"], "within_range": s["inside"],
                           "within_range_share": s["inside"] / s["checked"] if s["checked"] else None},
            "windows": len(s["windows"]), "unscaled": s["unscaled"], "unresolved": s["unresolved"]}
    return {"score_lines": len(lines), "season": season, "min_history": min_history,
            "horizon_steps": dict(HORIZON_STEPS), "buckets": dict(BUCKETS), "seats": report_seats,
            "naive": {**table(list(naive.values())), "windows": len(naive)}}


# ------------------------------------------------------------------------------ comparing
def same(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(f"{a:.{DIGITS - 1}e}") == float(f"{b:.{DIGITS - 1}e}")
    return a == b


def compare(published, recounted, where, out):
    """Every difference between the two documents, as ``MISMATCH where: published ... recounted ...`` lines."""
    if isinstance(published, dict) and isinstance(recounted, dict):
        for key in sorted(set(published) | set(recounted)):
            if where == "" and key in IGNORED:
                continue
            path = f"{where}.{key}" if where else key
            if key not in published:
                out.append(f"MISMATCH {path}: missing in the file, recounted {json.dumps(recounted[key])}")
            elif key not in recounted:
                out.append(f"MISMATCH {path}: in the file ({json.dumps(published[key])}) but not recounted")
            else:
                compare(published[key], recounted[key], path, out)
    elif isinstance(published, list) and isinstance(recounted, list):
        if len(published) != len(recounted):
            out.append(f"MISMATCH {where}: {len(published)} entries published, {len(recounted)} recounted")
        for i, (p, r) in enumerate(zip(published, recounted, strict=False)):
            compare(p, r, f"{where}[{i}]", out)
    elif not same(published, recounted):
        out.append(f"MISMATCH {where}: published {json.dumps(published)}, recounted {json.dumps(recounted)}")
    return out


def stated_int(doc, key):
    value = doc.get(key) if isinstance(doc, dict) else None
    if isinstance(value, bool) or not isinstance(value, int):
        raise Missing(f"{POINTS} states no integer {key!r}")
    return value


def main(argv=None):
    parser = argparse.ArgumentParser(description="Recount council-points.json from council-book.jsonl.")
    parser.add_argument("folder", nargs="?", default=".", help="the open-data folder (default: .)")
    parser.add_argument("--json", action="store_true", help="print the recounted report instead of comparing")
    args = parser.parse_args(argv)
    try:
        published = read_json(args.folder, POINTS)
        report = recount(score_lines(args.folder), stated_int(published, "season"),
                         stated_int(published, "min_history"))
        stats = read_json(args.folder, STATS) if os.path.isfile(os.path.join(args.folder, STATS)) else None
    except Missing as exc:
        print(f"recount_points: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report, indent=1, sort_keys=True))
        return 0
    problems = compare(published, report, "", [])
    checked = [POINTS]
    if isinstance(stats, dict) and "points" in stats:
        problems += [p.replace("MISMATCH ", f"MISMATCH {STATS} points.", 1)
                     for p in compare(stats["points"], report, "", [])]
        checked.append(f"{STATS} points")
    for line in problems[:MAX_SHOWN]:
        print(line)
    if len(problems) > MAX_SHOWN:
        print(f"... and {len(problems) - MAX_SHOWN} more differences")
    seats, windows = len(report["seats"]), sum(s["windows"] for s in report["seats"].values())
    if problems:
        print(f"recount_points: {len(problems)} differences in {' and '.join(checked)}")
        return 1
    print(f"recount_points: {' and '.join(checked)} agree ({report['score_lines']} score lines, {seats} seats, "
          f"{windows} seat windows, {report['naive']['windows']} naive windows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
