#!/usr/bin/env python3
"""Recount council-sides.json and council-tertiles.json from the published files alone.

Stand-alone, standard library only, so a reader can run it without installing the project:

    python3 -I tools/recount_sides.py .          (compare with the published files; run in the open-data folder)
    python3 -I tools/recount_sides.py . --json   (print the recounted figures instead)

Inputs: ``council-forecasts.csv`` (the answers), ``roster.json`` (each seat's sealed side),
``council-stats.json`` (the published consensus per event, for the tertiles; itself recounted by
tools/recount_consensus.py) and the two files it checks. The rules:

1. Answers: council rows as tools/recount_consensus.py rule 1 reads them (seat not starting ``_``, status
   ``counted``, cell_status ``elicited``/``explicit_50``, prob_up a number, sealed_at <= event_reference_at
   (else reference_at), line_kind ``issue``/``answer``, run_role ``session_run``/``counted``, same_event not
   false); one per run, event (event_id_v2, else event_id, else session|asset|horizon) and seat: the earliest
   sealed (ties: seat). Outcome: 1 when close > ref, 0 otherwise, none while either is empty.
2. Sides: seats whose roster.json entry names a side; exactly two sides, sorted by name (gap = first - second).
   A group is a run and a horizon (cells: its assets) or the run's ``all`` (cells: "horizon asset"). A
   group needs two answering seats on each side, else it is listed with the reason.
3. Correlation: Pearson over the cells both seats answered (at least 3; a variance <= 1e-12 leaves the pair
   out). Within = mean over same-side pairs; between = over cross pairs; difference = within - between.
4. Splits: itertools.combinations(range(k), size of the first side) over the sorted seats when there are at
   most 5000; else 5000 draws ``sorted(rng.sample(range(k), size))`` of one ``random.Random(20261102)``. For
   each split the difference and the largest |cell gap| are recomputed; p = share of splits >= the observed
   value - 1e-9.
5. Eigen figures: the correlation matrix over the cells every seat answered (seats without variance left out;
   at least 2 seats, 3 cells); eigenvalues by the cyclic Jacobi method until the off-diagonal sum of squares
   is below 1e-22; top share = largest / trace; participation ratio = trace^2 / sum of squared entries (= sum
   lambda^2). These two are compared within 1e-6.
6. Gaps (probability, and Brier (p/100 - outcome)^2 on resolved cells): per cell and pooled over every answer
   of each side; leave one seat out in turn (a removal that empties a side is skipped): range [min, max];
   owner = the seat whose removal gives the smallest gap x sign(gap) (ties: name), named when that flips the
   sign or leaves less than half the size.
7. Tertiles, per horizon: events of council-stats.json consensus.per_event with an outcome, matched on
   (run_id, event_id) to at least two answers; spread = population SD of the answers' prob_up (points),
   rounded to 9 decimals for the cuts: c1 = ceil(n/3)-th smallest, c2 = ceil(2n/3)-th smallest; low <= c1 <
   mid <= c2 < high; per tertile count, spread min/max/mean, the consensus's mean Brier.

Every other figure is compared after rounding to 6 decimals (texts and counts exactly). ``source`` is not
compared. Exit status 0 when every figure agrees, 1 on any difference, 2 when a file is missing or unreadable.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
import os
import random
import sys
from collections import Counter, defaultdict

FORECASTS, ROSTER, STATS = "council-forecasts.csv", "roster.json", "council-stats.json"
SIDES_JSON, TERTILES_JSON = "council-sides.json", "council-tertiles.json"
STATED = {"elicited", "explicit_50"}
SESSION_RUN = {"session_run", "counted"}
ISSUE = {"issue", "answer"}
FALSE_WORDS = {"0", "false", "no", "n"}
MAX_SPLITS, SEED, TOL = 5000, 20261102, 1e-9
MIN_COMMON, MIN_VARIANCE = 3, 1e-12
HORIZONS = ("1d", "1w", "1m", "6m")
PLACES, EIGEN_TOL, JACOBI_TOL = 6, 1e-6, 1e-22
EIGEN_KEYS = {"top_share", "participation_ratio"}


# ------------------------------------------------------------------------------ reading
def number(text):
    try:
        value = float((text or "").strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def is_council_row(r):
    ref = (r.get("event_reference_at") or r.get("reference_at") or "").replace("+00:00", "Z")
    return (not r["seat"].startswith("_") and r["status"] == "counted" and r["cell_status"] in STATED
            and number(r["prob_up"]) is not None and bool(ref) and r["sealed_at"].replace("+00:00", "Z") <= ref
            and r["line_kind"] in ISSUE and r["run_role"] in SESSION_RUN
            and (r.get("same_event") or "").strip().lower() not in FALSE_WORDS)


def event_key(r):
    return r.get("event_id_v2") or r.get("event_id") or f"{r['session']}|{r['asset']}|{r['horizon']}"


def answers(folder):
    with open(os.path.join(folder, FORECASTS), encoding="utf-8", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if is_council_row(r)]
    rows.sort(key=lambda r: (r["run_id"], event_key(r), r["sealed_at"], r["seat"]))
    out, seen = [], set()
    for r in rows:
        key = (r["run_id"], event_key(r), r["seat"])
        if key not in seen:
            seen.add(key)
            ref, close = number(r.get("ref")), number(r.get("close"))
            out.append({"run": r["run_id"], "session": r["session"], "seat": r["seat"], "asset": r["asset"],
                        "horizon": r["horizon"], "event": event_key(r), "p": float(r["prob_up"]),
                        "o": None if ref is None or close is None else float(close > ref)})
    return out


def sides_of(folder):
    path = os.path.join(folder, ROSTER)
    if not os.path.isfile(path):
        return {}
    with open(path, encoding="utf-8") as fh:
        seats = json.load(fh).get("seats", {})
    return {k: v["side"] for k, v in seats.items() if isinstance(v, dict) and v.get("side")}


# ------------------------------------------------------------------------------ figures
def mean(xs):
    return math.fsum(xs) / len(xs) if xs else None


def pearson(xs, ys):
    n = len(xs)
    if n < MIN_COMMON:
        return None
    mx, my = math.fsum(xs) / n, math.fsum(ys) / n
    vx, vy = math.fsum((x - mx) ** 2 for x in xs), math.fsum((y - my) ** 2 for y in ys)
    if vx <= MIN_VARIANCE or vy <= MIN_VARIANCE:
        return None
    return max(-1.0, min(1.0, math.fsum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / math.sqrt(vx * vy)))


def jacobi_eigenvalues(a):
    """Eigenvalues of a small symmetric matrix (cyclic Jacobi rotations)."""
    a = [row[:] for row in a]
    n = len(a)
    for _ in range(100):
        off = sum(a[i][j] ** 2 for i in range(n) for j in range(n) if i != j)
        if off < JACOBI_TOL:
            break
        for p in range(n - 1):
            for q in range(p + 1, n):
                if abs(a[p][q]) < 1e-300:
                    continue
                theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
                t = (1.0 if theta >= 0 else -1.0) / (abs(theta) + math.sqrt(theta * theta + 1))
                c = 1 / math.sqrt(t * t + 1)
                s = t * c
                for k in range(n):
                    akp, akq = a[k][p], a[k][q]
                    a[k][p], a[k][q] = c * akp - s * akq, s * akp + c * akq
                for k in range(n):
                    apk, aqk = a[p][k], a[q][k]
                    a[p][k], a[q][k] = c * apk - s * aqk, s * apk + c * aqk
    return [a[i][i] for i in range(n)]


def eigen(y, cells):
    complete = [c for c in cells if all(c in row for row in y.values())]
    seats = []
    for s in sorted(y):
        xs = [y[s][c] for c in complete]
        if len(complete) >= MIN_COMMON and math.fsum((x - mean(xs)) ** 2 for x in xs) > MIN_VARIANCE:
            seats.append(s)
    if len(seats) < 2 or len(complete) < MIN_COMMON:
        return {"seats": len(seats), "cells": len(complete), "top_share": None, "participation_ratio": None}
    r = [[1.0 if a == b else (pearson([y[a][c] for c in complete], [y[b][c] for c in complete]) or 0.0)
          for b in seats] for a in seats]
    lam = jacobi_eigenvalues(r)
    trace = float(len(seats))
    return {"seats": len(seats), "cells": len(complete), "top_share": max(lam) / trace,
            "participation_ratio": trace ** 2 / math.fsum(v * v for row in r for v in row)}


def gap(values, side, labels, drop=None):
    a = [v for s, v in values if s != drop and side[s] == labels[0]]
    b = [v for s, v in values if s != drop and side[s] == labels[1]]
    return math.fsum(a) / len(a) - math.fsum(b) / len(b) if a and b else None


def loso(values, side, labels):
    g = gap(values, side, labels)
    if g is None:
        return None
    without = {}
    for seat in sorted({s for s, _ in values}):
        x = gap(values, side, labels, seat)
        if x is not None:
            without[seat] = x
    owner = None
    if g != 0 and without:
        sign = 1.0 if g > 0 else -1.0
        seat, x = min(without.items(), key=lambda kv: (kv[1] * sign, kv[0]))
        if x * sign < 0 or abs(x) < abs(g) / 2:
            owner = seat
    return {"gap": g, "loso_range": [min(without.values()), max(without.values())] if without else [],
            "owner": owner}


def gaps(values, cells, side, labels):
    pooled = loso([(s, v) for s in sorted(values) for v in values[s].values()], side, labels)
    out = []
    for c in cells:
        g = loso([(s, values[s][c]) for s in sorted(values) if c in values[s]], side, labels)
        if g is not None:
            out.append({"cell": c, **g})
    return {"pooled": pooled, "cells": out}


def split_list(k, size):
    if math.comb(k, size) <= MAX_SPLITS:
        return list(itertools.combinations(range(k), size)), False
    rng = random.Random(SEED)
    return [tuple(sorted(rng.sample(range(k), size))) for _ in range(MAX_SPLITS)], True


def corr_difference(sim, first):
    """within - between for a membership (set of seat indices on the first side)."""
    within, between = [], []
    for (i, j), r in sim.items():
        (within if (i in first) == (j in first) else between).append(r)
    return mean(within) - mean(between) if within and between else None


def largest_gap(y, seats, cells, first):
    best = None
    for c in cells:
        a = [y[s][c] for i, s in enumerate(seats) if i in first and c in y[s]]
        b = [y[s][c] for i, s in enumerate(seats) if i not in first and c in y[s]]
        if a and b:
            g = abs(math.fsum(a) / len(a) - math.fsum(b) / len(b))
            best = g if best is None or g > best else best
    return best


def share(values, observed):
    if observed is None or not values:
        return None
    return sum(1 for v in values if v is not None and v >= observed - TOL) / len(values)


def group(rows, cell_of, side, labels):
    y, brier = defaultdict(dict), defaultdict(dict)
    for a in rows:
        cell = a["asset"] if cell_of == "asset" else f"{a['horizon']} {a['asset']}"
        y[a["seat"]][cell] = a["p"]
        if a["o"] is not None:
            brier[a["seat"]][cell] = (a["p"] / 100.0 - a["o"]) ** 2
    seats = sorted(y)
    cells = sorted({c for row in y.values() for c in row})
    members = {lab: [s for s in seats if side[s] == lab] for lab in labels}
    head = {"sides": members, "cells": len(cells)}
    short = [f"side {lab} has {len(v)} answering seat{'s' if len(v) != 1 else ''} (2 needed)"
             for lab, v in members.items() if len(v) < 2]
    if short:
        return {**head, "computed": False, "reason": "; ".join(short)}
    sim = {}
    for i, j in itertools.combinations(range(len(seats)), 2):
        common = [c for c in cells if c in y[seats[i]] and c in y[seats[j]]]
        r = pearson([y[seats[i]][c] for c in common], [y[seats[j]][c] for c in common])
        if r is not None:
            sim[(i, j)] = r
    by_side = {lab: mean([r for (i, j), r in sim.items() if side[seats[i]] == side[seats[j]] == lab])
               for lab in labels}
    within = mean([r for (i, j), r in sim.items() if side[seats[i]] == side[seats[j]]])
    between = mean([r for (i, j), r in sim.items() if side[seats[i]] != side[seats[j]]])
    diff = within - between if within is not None and between is not None else None
    combos, sampled = split_list(len(seats), len(members[labels[0]]))
    firsts = [set(c) for c in combos]
    found = [(c, g) for c in cells
             if (g := gap([(s, y[s][c]) for s in seats if c in y[s]], side, labels)) is not None]
    largest = None
    for c, g in found:
        if largest is None or abs(g) > abs(largest[1]):
            largest = (c, g)
    return {**head, "computed": True, "seats": len(seats), "splits": len(combos), "sampled": sampled,
            "correlation": {"within": within, "between": between, "difference": diff, "within_by_side": by_side,
                            "p_value": share([corr_difference(sim, f) for f in firsts], diff)},
            "largest_gap": None if largest is None else {
                "cell": largest[0], "gap": largest[1],
                "p_value": share([largest_gap(y, seats, cells, f) for f in firsts], abs(largest[1]))},
            "eigen": eigen(y, cells),
            "gaps": {"probability": gaps(y, cells, side, labels), "brier": gaps(brier, cells, side, labels)}}


def horizon_rank(h):
    return (HORIZONS.index(h) if h in HORIZONS else len(HORIZONS), h)


def owners_of(run):
    out = []
    for kind in ("probability", "brier"):
        block = run["gaps"][kind]
        for g in [block["pooled"], *block["cells"]]:
            if g and g.get("owner"):
                out.append(g["owner"])
    return out


def below(run, name):
    b = run.get(name)
    return bool(b) and b.get("p_value") is not None and b["p_value"] < 0.05


def sides_report(ans, side):
    labels = sorted(set(side.values()))
    if len(labels) != 2:
        return {"computed": False, "reason": f"the roster seals {len(labels)} side(s) ({', '.join(labels) or 'none'})"
                f"; the tests need exactly two", "runs": [], "season": None}
    rows_by_run = defaultdict(list)
    for a in ans:
        if a["seat"] in side:
            rows_by_run[a["run"]].append(a)
    runs = []
    for run in sorted(rows_by_run, key=lambda r: (rows_by_run[r][0]["session"], r)):
        rows = rows_by_run[run]
        for h in sorted({a["horizon"] for a in rows}, key=horizon_rank):
            runs.append({"run_id": run, "session": rows[0]["session"], "horizon": h,
                         **group([a for a in rows if a["horizon"] == h], "asset", side, labels)})
        runs.append({"run_id": run, "session": rows[0]["session"], "horizon": "all",
                     **group(rows, "horizon asset", side, labels)})
    summary = []
    for h in sorted({r["horizon"] for r in runs}, key=horizon_rank):
        mine = [r for r in runs if r["horizon"] == h]
        done = [r for r in mine if r["computed"]]
        owners = Counter(o for r in done for o in owners_of(r))
        summary.append({"horizon": h, "runs": len(mine), "computed": len(done),
                        "not_computed": [{"run_id": r["run_id"], "reason": r["reason"]} for r in mine
                                         if not r["computed"]],
                        "correlation_p_below_0_05": sum(below(r, "correlation") for r in done),
                        "largest_gap_p_below_0_05": sum(below(r, "largest_gap") for r in done),
                        "owners": [{"seat": s, "gaps": n} for s, n in sorted(owners.items(),
                                                                            key=lambda kv: (-kv[1], kv[0]))]})
    return {"computed": True, "gap": f"{labels[0]} minus {labels[1]}", "labels": labels, "max_splits": MAX_SPLITS,
            "seed": SEED, "runs": runs, "season": {"runs": len(rows_by_run), "by_horizon": summary}}


def tertiles(ans, folder):
    with open(os.path.join(folder, STATS), encoding="utf-8") as fh:
        per_event = json.load(fh)["consensus"]["per_event"]
    probs, horizon = defaultdict(list), {}
    for a in ans:
        probs[(a["run"], a["event"])].append(a["p"])
        horizon[(a["run"], a["event"])] = a["horizon"]
    cons = {}
    for e in per_event:
        if isinstance(e.get("p"), (int, float)) and isinstance(e.get("outcome"), (int, float)):
            cons.setdefault((str(e["run_id"]), str(e["event_id"])), (float(e["p"]), float(e["outcome"])))
    events = defaultdict(list)
    for key, (p, o) in sorted(cons.items()):
        xs = probs.get(key, [])
        if len(xs) >= 2:
            m = math.fsum(xs) / len(xs)
            events[horizon[key]].append((math.sqrt(math.fsum((x - m) ** 2 for x in xs) / len(xs)),
                                         (p / 100.0 - o) ** 2))
    out = []
    for h in sorted(events, key=horizon_rank):
        ev = events[h]
        if len(ev) < 3:
            out.append({"horizon": h, "events": len(ev), "computed": False, "reason": "fewer than 3 events"})
            continue
        s = sorted(round(x, 9) for x, _ in ev)
        c1, c2 = s[math.ceil(len(s) / 3) - 1], s[math.ceil(2 * len(s) / 3) - 1]
        parts = {"low": [], "mid": [], "high": []}
        for x, b in ev:
            r = round(x, 9)
            parts["low" if r <= c1 else "mid" if r <= c2 else "high"].append((x, b))
        out.append({"horizon": h, "events": len(ev), "computed": True, "cuts": [c1, c2], "tertiles": [
            {"tertile": name, "events": len(part), "spread_min": min((x for x, _ in part), default=None),
             "spread_max": max((x for x, _ in part), default=None), "spread_mean": mean([x for x, _ in part]),
             "brier_consensus": mean([b for _, b in part])} for name, part in parts.items()]})
    return {"by_horizon": out}


# ------------------------------------------------------------------------------ comparing
KEYS = ("run_id/horizon", "horizon", "cell", "tertile", "seat")


def keyed(items):
    for name in KEYS:
        fields = name.split("/")
        if items and all(isinstance(i, dict) and all(f in i for f in fields) for i in items):
            return {"/".join(str(i[f]) for f in fields): i for i in items}
    return None


def differences(published, mine, where, key=""):
    if isinstance(published, dict) and isinstance(mine, dict):
        count, found = 0, []
        for k in sorted(set(published) | set(mine), key=str):
            if k in ("source", "spread", "cut_rule"):
                continue
            if k not in published or k not in mine:
                found.append(f"{where}.{k}: " + ("recounted but not published" if k not in published
                                                 else "published but not recounted"))
                continue
            c, f = differences(published[k], mine[k], f"{where}.{k}", str(k))
            count, found = count + c, found + f
        return count, found
    if isinstance(published, list) and isinstance(mine, list):
        a, b = keyed(published), keyed(mine)
        if a is None or b is None:
            a, b = dict(enumerate(published)), dict(enumerate(mine))
        return differences(a, b, where, key)
    if same(published, mine, key in EIGEN_KEYS):
        return 1, []
    return 1, [f"{where}: published {json.dumps(published)}, recounted {json.dumps(mine)}"]


def same(a, b, eigen_figure):
    x = a if isinstance(a, (int, float)) and not isinstance(a, bool) else None
    y = b if isinstance(b, (int, float)) and not isinstance(b, bool) else None
    if x is not None and y is not None:
        return abs(x - y) <= EIGEN_TOL if eigen_figure else round(x, PLACES) == round(y, PLACES)
    return type(a) is type(b) and a == b


def recount(folder):
    ans = answers(folder)
    out = {SIDES_JSON: sides_report(ans, sides_of(folder))}
    if os.path.isfile(os.path.join(folder, TERTILES_JSON)) or os.path.isfile(os.path.join(folder, STATS)):
        out[TERTILES_JSON] = tertiles(ans, folder)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description="Recount council-sides.json and council-tertiles.json.")
    parser.add_argument("folder", help="the open-data folder")
    parser.add_argument("--json", action="store_true", help="print the recounted figures instead of comparing")
    args = parser.parse_args(argv)
    try:
        mine = recount(args.folder)
        if args.json:
            print(json.dumps(mine, indent=1, ensure_ascii=False))
            return 0
        published = {}
        for name in mine:
            with open(os.path.join(args.folder, name), encoding="utf-8") as fh:
                published[name] = json.load(fh)
    except (OSError, ValueError, KeyError, TypeError, csv.Error) as exc:
        print(f"recount_sides: cannot read the published files: {exc}", file=sys.stderr)
        return 2
    compared, problems = 0, []
    for name in mine:
        c, found = differences(published[name], mine[name], name)
        compared, problems = compared + c, problems + found
    for line in problems:
        print(f"MISMATCH {line}")
    print(f"recount_sides: {compared} figures compared, {len(problems)} differ")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
