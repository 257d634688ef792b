#!/usr/bin/env python3
"""Recount the arms' and repeats' figures from the published answers alone.

Stand-alone, standard library only, so a reader can run it without installing the project:

    python3 -I tools/recount_arms.py .            (compare with the published reports; run in the open-data folder)
    python3 -I tools/recount_arms.py . --json     (print the recounted reports instead)

Inputs: ``council-forecasts.csv`` (the counted "open" answers), ``arms/arm-forecasts.csv`` (the arms'
and the repeats' answers), and the two reports it checks, ``arena-cb-experiment.json`` and
``council-repeats.json``. Every figure of both reports is recomputed from the two CSV files and compared
with the published one, each rounded to 6 decimals, for exact equality (a null against a value is a
difference). The reports' ``definitions`` hold the rules in words and are not compared. The rules:

1. Rows. Open: run_role ``session_run`` or ``counted``, status ``counted``, line_kind ``issue`` or ``answer``,
   horizon ``1d``, seat not starting with ``_``; in time when sealed_at <= event_reference_at (else
   reference_at), ISO text compared as text. Arms: horizon ``1d``, seat not starting with ``_``; only status
   ``answered`` rows are answers; in time when the row's ``comparable`` is ``true``.
2. A probability is stated when prob_up is not empty and cell_status is ``elicited`` or ``explicit_50``; an
   action when it is buy_strong, buy_dips, hold, trim or sell (scores 2, 1, 0, -1, -2). A seat's answer for
   a market is its earliest-sealed row (ties: run_id, then repeat, then the file's order).
3. Sessions of the experiment: those with a ``closed_book`` or ``price_only`` row, in date order. Per arm:
   answered, comparable (in time) and apart (answered, never in time) seats; its run is the run of its
   earliest-sealed answer. The arms are compared over the seats in time in every compared arm only (at least
   two, else null): open against closed_book, and open, closed_book and price_only together.
4. Heat: 100 x the mean over markets with at least two stated actions of 1 - (count of the most common
   action) / (stated actions). N_eff: rho = mean Pearson correlation over seat pairs with at least 3 common
   stated markets and some variance on both sides; n = seats with a stated probability; N_eff = 1 for one
   seat, n / (1 + (n - 1) rho) otherwise, null when rho is undefined. Spread: mean over seat pairs of the
   mean |score difference| over the markets both stated an action.
5. Repeats, per kind and session: within heat = mean over seats with at least two repeats of the heat of
   their repeats taken as seats; between heat = heat of every seat's repeat 1; within variance = mean over
   seat and market of the sample variance of the repeat probabilities (at least two); between variance =
   mean over markets of the sample variance of the seats' mean repeat probability (at least two seats).
   Season and since-latest-version figures: the mean of the non-null session figures; a seat's versions in
   order of first session; its latest version's figures over the sessions from that version's first one on,
   for the seats whose version changed.

Exit status 0 when every figure agrees, 1 on any difference, 2 when a file is missing or cannot be read.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
from collections import Counter

FORECASTS = "council-forecasts.csv"
ARM_FORECASTS = os.path.join("arms", "arm-forecasts.csv")
EXPERIMENT = "arena-cb-experiment.json"
REPEATS = "council-repeats.json"
SCORES = {"buy_strong": 2, "buy_dips": 1, "hold": 0, "trim": -1, "sell": -2}
STATED = {"elicited", "explicit_50"}
OPEN_ROLES = {"session_run", "counted"}
OPEN_KINDS = {"issue", "answer"}
COMPARED_ARMS = ("closed_book", "price_only")
REPEAT_KINDS = ("repeat_open", "repeat_packet")
FIGURES = ("within_heat", "between_heat", "within_var", "between_var")
PLACES = 6


def rounded(x: float | None) -> float | None:
    return round(x, PLACES) if x is not None else None


def average(xs: list[float]) -> float | None:
    if not xs:
        return None
    return sum(xs) / len(xs)


# ------------------------------------------------------------------------------ reading the answers
def read_rows(folder: str, name: str) -> list[dict[str, str]]:
    with open(os.path.join(folder, name), encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def answer(r: dict[str, str], arm: str, repeat: int, in_time: bool) -> dict[str, object]:
    p = r["prob_up"].strip()
    return {"arm": arm, "session": r["session"], "run": r["run_id"], "seat": r["seat"],
            "version": r.get("version") or "", "repeat": repeat, "sealed": r["sealed_at"], "in_time": in_time,
            "asset": r["asset"], "p": float(p) if p and r["cell_status"] in STATED else None,
            "a": r["action"] if r["action"] in SCORES else None}


def open_answers(rows: list[dict[str, str]]) -> list[dict[str, object]]:
    out = []
    for r in rows:
        if r["seat"].startswith("_") or r["horizon"] != "1d":
            continue
        if r["run_role"] in OPEN_ROLES and r["status"] == "counted" and r["line_kind"] in OPEN_KINDS:
            cutoff = r["event_reference_at"] if r["event_reference_at"] else r["reference_at"]
            out.append(answer(r, "open", 0, r["sealed_at"] <= cutoff))
    return out


def arm_answers(rows: list[dict[str, str]]) -> list[dict[str, object]]:
    return [answer(r, r["arm"], int(r["repeat"]), r["comparable"] == "true") for r in rows
            if r["horizon"] == "1d" and not r["seat"].startswith("_") and r["status"] == "answered"]


Grid = dict[object, dict[str, tuple[object, object]]]


def seal_order(a: dict[str, object]) -> tuple[str, str, int, str]:
    return str(a["sealed"]), str(a["run"]), int(str(a["repeat"])), str(a["asset"])


def grid(answers: list[dict[str, object]], key: str) -> Grid:
    """``key`` (seat or repeat) -> market -> (probability, action): the earliest-sealed answer of each."""
    out: Grid = {}
    for a in sorted(answers, key=seal_order):
        row = out.setdefault(a[key], {})
        if a["asset"] not in row:
            row[str(a["asset"])] = (a["p"], a["a"])
    return out


# ------------------------------------------------------------------------------ the figures
def heat_of(g: Grid) -> float | None:
    markets = sorted({m for row in g.values() for m in row})
    splits = []
    for m in markets:
        said = Counter(row[m][1] for row in g.values() if m in row and row[m][1] is not None)
        total = sum(said.values())
        if total > 1:
            splits.append(1.0 - said.most_common(1)[0][1] / total)
    mean = average(splits)
    return 100.0 * mean if mean is not None else None


def correlation(xs: list[float], ys: list[float]) -> float | None:
    if len(xs) < 3:
        return None
    mx = sum(xs) / len(xs)
    my = sum(ys) / len(ys)
    dx = [x - mx for x in xs]
    dy = [y - my for y in ys]
    sxy = sum(a * b for a, b in zip(dx, dy, strict=True))
    sxx = sum(a ** 2 for a in dx)
    syy = sum(b ** 2 for b in dy)
    if sxx <= 0 or syy <= 0:
        return None
    return min(1.0, max(-1.0, sxy / math.sqrt(sxx * syy)))


def pairs(names: list[object]) -> list[tuple[object, object]]:
    ordered = sorted(names, key=str)
    return [(ordered[i], ordered[j]) for i in range(len(ordered)) for j in range(i + 1, len(ordered))]


def neff_of(g: Grid) -> tuple[int, float | None, float | None]:
    probs = {seat: {m: float(str(c[0])) for m, c in row.items() if c[0] is not None} for seat, row in g.items()}
    probs = {seat: row for seat, row in probs.items() if row}
    rs = []
    for a, b in pairs(list(probs)):
        shared = sorted(probs[a].keys() & probs[b].keys())
        r = correlation([probs[a][m] for m in shared], [probs[b][m] for m in shared])
        if r is not None:
            rs.append(r)
    n = len(probs)
    rho = average(rs)
    if n == 1:
        return n, rho, 1.0
    if rho is None or 1 + (n - 1) * rho == 0:
        return n, rho, None
    return n, rho, n / (1 + (n - 1) * rho)


def spread_of(g: Grid) -> float | None:
    means = []
    for a, b in pairs(list(g)):
        gaps = []
        for m in sorted(g[a]):
            x, y = g[a][m][1], g[b].get(m, (None, None))[1]
            if x is not None and y is not None:
                gaps.append(abs(SCORES[str(x)] - SCORES[str(y)]))
        if gaps:
            means.append(sum(gaps) / len(gaps))
    return average(means)


def arm_figures(g: Grid) -> dict[str, object]:
    n, rho, value = neff_of(g)
    return {"heat": rounded(heat_of(g)), "n_eff": rounded(value), "rho": rounded(rho), "spread": rounded(spread_of(g)),
            "n": n}


def closed_against_open(closed: Grid,
                        opened: Grid, seat: str) -> dict[str, object]:
    c, o = closed.get(seat, {}), opened.get(seat, {})
    diffs, same = [], []
    for m in sorted(c):
        if m not in o:
            continue
        if c[m][0] is not None and o[m][0] is not None:
            diffs.append(float(str(c[m][0])) - float(str(o[m][0])))
        if c[m][1] is not None and o[m][1] is not None:
            same.append(1.0 if c[m][1] == o[m][1] else 0.0)
    return {"seat": seat, "markets": len(diffs), "mean_abs_diff": rounded(average([abs(d) for d in diffs])),
            "mean_diff": rounded(average(diffs)), "action_markets": len(same), "same_action": rounded(average(same))}


# ------------------------------------------------------------------------------ arena-cb-experiment.json
def compared(answers: list[dict[str, object]], in_time: dict[str, set[str]],
             arms: tuple[str, ...]) -> tuple[list[str], dict[str, Grid]]:
    """The seats in time in every one of ``arms``, and each arm's grid over those seats only."""
    seats = set.intersection(*(in_time.get(arm, set()) for arm in arms))
    grids = {arm: grid([a for a in answers if a["arm"] == arm and a["in_time"] and a["seat"] in seats], "seat")
             for arm in arms}
    return sorted(seats), grids


def experiment(forecasts: list[dict[str, str]], arm_rows: list[dict[str, str]]) -> dict[str, object]:
    sessions = sorted({r["session"] for r in arm_rows if r["arm"] in COMPARED_ARMS and r["horizon"] == "1d"
                       and not r["seat"].startswith("_")})
    everything = open_answers(forecasts) + [a for a in arm_answers(arm_rows) if a["arm"] in COMPARED_ARMS]
    runs: list[dict[str, object]] = []
    for session in sessions:
        mine = [a for a in everything if a["session"] == session]
        present = [arm for arm in ("open", *COMPARED_ARMS) if any(a["arm"] == arm for a in mine)]
        counts: dict[str, dict[str, object]] = {}
        in_time: dict[str, set[str]] = {}
        for arm in present:
            rows = [a for a in mine if a["arm"] == arm]
            seats = {str(a["seat"]) for a in rows}
            in_time[arm] = {str(a["seat"]) for a in rows if a["in_time"]}
            counts[arm] = {"run_id": min(rows, key=seal_order)["run"], "answered": len(seats),
                           "comparable": len(in_time[arm]), "apart": len(seats - in_time[arm])}
        two_seats, two = compared(mine, in_time, ("open", "closed_book"))
        cvo: object = None
        if len(two_seats) > 1:
            cvo = {"seats": two_seats, "open": arm_figures(two["open"]), "closed_book": arm_figures(two["closed_book"]),
                   "same_model": [closed_against_open(two["closed_book"], two["open"], s) for s in two_seats]}
        three: object = None
        if "price_only" in present:
            three_seats, grids = compared(mine, in_time, ("open", "closed_book", "price_only"))
            if len(three_seats) > 1:
                three = {"seats": three_seats, **{arm: arm_figures(g) for arm, g in grids.items()}}
        runs.append({"session": session, "open_run": counts["open"]["run_id"] if "open" in counts else None,
                     "arms": counts, "closed_vs_open": cvo, "three_arms": three})
    season: dict[str, object] = {}
    for arm, part in (("open", "closed_vs_open"), ("closed_book", "closed_vs_open"), ("price_only", "three_arms")):
        held = [f for r in runs if isinstance(c := r[part], dict) and isinstance(f := c[arm], dict)]
        season[arm] = {"runs": len(held),
                       "mean_heat": rounded(average([f["heat"] for f in held if f["heat"] is not None])),
                       "mean_n_eff": rounded(average([f["n_eff"] for f in held if f["n_eff"] is not None]))}
    return {"version": 1, "runs": runs, "season": season}


# ------------------------------------------------------------------------------ council-repeats.json
def sample_variance(xs: list[float]) -> float | None:
    if len(xs) < 2:
        return None
    m = sum(xs) / len(xs)
    return sum((x - m) ** 2 for x in xs) / (len(xs) - 1)


def one_session(answers: list[dict[str, object]]) -> dict[str, float | None]:
    seats = sorted({str(a["seat"]) for a in answers})
    by_seat = {s: grid([a for a in answers if a["seat"] == s], "repeat") for s in seats}
    own = []
    for s in seats:
        if len(by_seat[s]) > 1:
            h = heat_of(by_seat[s])
            if h is not None:
                own.append(h)
    firsts: Grid = {s: by_seat[s][1] for s in seats if 1 in by_seat[s]}
    spreads_within: list[float] = []
    means: dict[str, list[float]] = {}
    for s in seats:
        reps = by_seat[s]
        for m in sorted({m for row in reps.values() for m in row}):
            ps = [float(str(reps[r][m][0])) for r in sorted(reps, key=lambda r: int(str(r)))
                  if m in reps[r] and reps[r][m][0] is not None]
            v = sample_variance(ps)
            if v is not None:
                spreads_within.append(v)
            if ps:
                means.setdefault(m, []).append(sum(ps) / len(ps))
    across = [v for m in sorted(means) if (v := sample_variance(means[m])) is not None]
    return {"within_heat": average(own), "between_heat": heat_of(firsts),
            "within_var": average(spreads_within), "between_var": average(across)}


def pooled(figs: list[dict[str, float | None]]) -> dict[str, object]:
    return {f: rounded(average([v for x in figs if (v := x[f]) is not None])) for f in FIGURES}


def repeats(arm_rows: list[dict[str, str]]) -> dict[str, object]:
    answers = arm_answers(arm_rows)
    kinds: dict[str, object] = {}
    for kind in REPEAT_KINDS:
        mine = sorted((a for a in answers if a["arm"] == kind), key=lambda a: (str(a["session"]), *seal_order(a)))
        if not mine:
            continue
        dates = sorted({str(a["session"]) for a in mine})
        per = {d: one_session([a for a in mine if a["session"] == d]) for d in dates}
        versions: dict[str, list[dict[str, str]]] = {}
        for a in mine:
            seen = versions.setdefault(str(a["seat"]), [])
            if str(a["version"]) not in [v["version"] for v in seen]:
                seen.append({"version": str(a["version"]), "since": str(a["session"])})
        latest: dict[str, object] = {}
        for seat in sorted(versions):
            if len(versions[seat]) > 1:
                since = versions[seat][-1]["since"]
                kept = [per[d] for d in dates if d >= since]
                latest[seat] = {"version": versions[seat][-1]["version"], "since": since, "sessions": len(kept),
                                **pooled(kept)}
        kinds[kind] = {
            "sessions": [{"session": d, "seats": sorted({str(a["seat"]) for a in mine if a["session"] == d}),
                          **{f: rounded(per[d][f]) for f in FIGURES}} for d in dates],
            "season": dict(pooled([per[d] for d in dates]), sessions=len(dates)),
            "versions": {seat: versions[seat] for seat in sorted(versions)},
            "since_latest_version": latest}
    return {"version": 1, "kinds": kinds}


# ------------------------------------------------------------------------------ comparing
def keyed(items: list[object]) -> dict[str, object] | None:
    """A list of records named by their session or seat, keyed so; None when the list is not such."""
    for name in ("session", "seat"):
        if items and all(isinstance(i, dict) and name in i for i in items):
            return {str(i[name]): i for i in items if isinstance(i, dict)}
    return None


def differences(published: object, mine: object, where: str) -> tuple[int, list[str]]:
    """(figures compared, one line per difference) between a published value and the recounted one."""
    if isinstance(published, dict) and isinstance(mine, dict):
        count, found = 0, []
        for k in sorted(set(published) | set(mine), key=str):
            if k == "definitions":
                continue
            if k not in published or k not in mine:
                side = "recounted but not published" if k not in published else "published but not recounted"
                found.append(f"{where}.{k}: {side}")
                continue
            c, f = differences(published[k], mine[k], f"{where}.{k}")
            count, found = count + c, found + f
        return count, found
    if isinstance(published, list) and isinstance(mine, list):
        a, b = keyed(published), keyed(mine)
        if a is None or b is None:
            a = {str(i): v for i, v in enumerate(published)}
            b = {str(i): v for i, v in enumerate(mine)}
        return differences(a, b, where)
    if same_figure(published, mine):
        return 1, []
    return 1, [f"{where}: published {json.dumps(published)}, recounted {json.dumps(mine)}"]


def number(x: object) -> float | None:
    """A JSON number as a float; None for anything else (a boolean included)."""
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def same_figure(published: object, mine: object) -> bool:
    a, b = number(published), number(mine)
    if a is not None and b is not None:
        return round(a, PLACES) == round(b, PLACES)
    return type(published) is type(mine) and published == mine


def recount(folder: str) -> dict[str, dict[str, object]]:
    """Both reports, recounted from the folder's two CSV files."""
    forecasts, arm_rows = read_rows(folder, FORECASTS), read_rows(folder, ARM_FORECASTS)
    return {EXPERIMENT: experiment(forecasts, arm_rows), REPEATS: repeats(arm_rows)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Recount the arms' and repeats' figures from the published answers.")
    parser.add_argument("folder", help="the open-data folder")
    parser.add_argument("--json", action="store_true", help="print the recounted reports instead of comparing")
    args = parser.parse_args(argv)
    try:
        mine = recount(args.folder)
        if args.json:
            print(json.dumps(mine, indent=1, ensure_ascii=False))
            return 0
        published = {}
        for name in (EXPERIMENT, REPEATS):
            with open(os.path.join(args.folder, name), encoding="utf-8") as fh:
                published[name] = json.load(fh)
    except (OSError, ValueError, KeyError, TypeError, csv.Error) as exc:
        print(f"recount_arms: cannot read the published files: {exc}", file=sys.stderr)
        return 2
    compared, problems = 0, list[str]()
    for name in (EXPERIMENT, REPEATS):
        c, found = differences(published[name], mine[name], name)
        compared, problems = compared + c, problems + found
    for line in problems:
        print(f"MISMATCH {line}")
    print(f"recount_arms: {compared} figures compared, {len(problems)} differ")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
