#!/usr/bin/env python3
"""Set-B measures of the league's example registry of predictions (config/predictions.toml).

Standard library only; sealed by its SHA-256 with the registry, so this file IS the definition of each measure
that names it. Run by the league's resolver (tools/resolve_predictions.py) as

    python3 -I measures.py FOLDER --from-session N --to YYYY-MM-DD MEASURE [ARG]

in a folder holding the published files the registry line lists as its ``inputs``; prints one JSON object
``{"value": number or null, "n": integer, "detail": text}``.

The window (every measure): the counted rows of council-forecasts.csv (status ``counted``, run_role
``session_run`` or ``counted``) whose session is at or after the window's N-th session (sessions numbered 1, 2, ...
in date order over the whole file) and on or before the ``--to`` date, sealed in time (``sealed_at`` at or before
``event_reference_at``, ISO text compared as text), with a stated probability (``prob_up`` not empty), seats not
starting with ``_`` (the history-only baselines are not the council). A row's outcome is 1 when ``close`` >
``ref`` (strictly), 0 otherwise (a draw is 0), unresolved while either price is empty; its Brier score is
(prob_up / 100 - outcome)^2.

Measures:
- ``mean_correlation H``: the mean over seat pairs of the Pearson correlation of their probabilities at horizon H
  over the events both stated (pairs with at least 5 common events and some variance on both sides); n = pairs.
- ``on_time``: the share of the council's counted cells (every horizon, stated or not) sealed in time; n = cells.
- ``momentum_rule``: the consensus's mean Brier minus the momentum rule's over the 1d events the rule forecasts.
  The rule says 55 % up after its market's previous session closed up (1d outcome 1), 45 % after it closed down,
  and nothing after a zero move (close equal to ref) or when the previous session is unknown. The consensus is
  council-stats.json ``consensus.per_event`` (``p`` in percent, ``outcome``). n = events compared.
- ``leaders_persist``: the Spearman rank correlation between the seats' mean 1d Brier over the first half of the
  window's sessions and over the second half (the first half has the first floor(k/2) of its k sessions; seats
  with at least 3 scored rows in each half; average ranks for ties); n = seats.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys


def rows_in_window(folder: str, first: int, last: str) -> list[dict[str, str]]:
    with open(os.path.join(folder, "council-forecasts.csv"), encoding="utf-8", newline="") as fh:
        every = list(csv.DictReader(fh))
    sessions = sorted({r["session"] for r in every})
    start = sessions[first - 1] if len(sessions) >= first else None
    if start is None:
        return []
    return [r for r in every if start <= r["session"] <= last and r["status"] == "counted"
            and r["run_role"] in ("session_run", "counted") and not r["seat"].startswith("_")]


def in_time(r: dict[str, str]) -> bool:
    return bool(r["sealed_at"]) and r["sealed_at"] <= (r["event_reference_at"] or r["reference_at"])


def outcome(r: dict[str, str]) -> int | None:
    if not r["ref"] or not r["close"]:
        return None
    return 1 if float(r["close"]) > float(r["ref"]) else 0


def stated(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    return [r for r in rows if in_time(r) and r["prob_up"]]


def pearson(xs: list[float], ys: list[float]) -> float | None:
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / math.sqrt(sxx * syy)


def mean_correlation(rows: list[dict[str, str]], horizon: str) -> tuple[float | None, int, str]:
    by_seat: dict[str, dict[str, float]] = {}
    for r in stated(rows):
        if r["horizon"] == horizon:
            by_seat.setdefault(r["seat"], {}).setdefault(r["event_id_v2"], float(r["prob_up"]))
    seats = sorted(by_seat)
    values = []
    for i, a in enumerate(seats):
        for b in seats[i + 1:]:
            common = sorted(set(by_seat[a]) & set(by_seat[b]))
            if len(common) < 5:
                continue
            c = pearson([by_seat[a][e] for e in common], [by_seat[b][e] for e in common])
            if c is not None:
                values.append(c)
    if not values:
        return None, 0, "no seat pair with 5 common events and variance"
    return sum(values) / len(values), len(values), f"{len(values)} seat pairs at {horizon}"


def on_time(rows: list[dict[str, str]]) -> tuple[float | None, int, str]:
    if not rows:
        return None, 0, "no counted cell in the window"
    ok = sum(1 for r in rows if in_time(r))
    return ok / len(rows), len(rows), f"{ok} of {len(rows)} cells sealed by their reference"


def momentum_rule(folder: str, rows: list[dict[str, str]]) -> tuple[float | None, int, str]:
    with open(os.path.join(folder, "council-stats.json"), encoding="utf-8") as fh:
        stats = json.load(fh)
    moved: dict[tuple[str, str], int | None] = {}  # (asset, session) -> 1 up, 0 down, None a zero move
    every_session: set[str] = set()
    for r in rows:
        if r["horizon"] == "1d" and r["ref"] and r["close"]:
            ref, close = float(r["ref"]), float(r["close"])
            moved[(r["asset"], r["session"])] = None if close == ref else (1 if close > ref else 0)
            every_session.add(r["session"])
    sessions = sorted(every_session)
    window = set(sessions)
    diffs_c, diffs_r = [], []
    for e in stats["consensus"]["per_event"]:
        if e.get("horizon") != "1d" or e.get("session") not in window or e.get("outcome") is None:
            continue
        i = sessions.index(e["session"])
        if i == 0:
            continue
        before = moved.get((e["asset"], sessions[i - 1]), None)
        if before is None:
            continue
        rule = 0.55 if before == 1 else 0.45
        y = float(e["outcome"])
        diffs_c.append((float(e["p"]) / 100 - y) ** 2)
        diffs_r.append((rule - y) ** 2)
    if not diffs_c:
        return None, 0, "no 1d event after a known move"
    n = len(diffs_c)
    return sum(diffs_c) / n - sum(diffs_r) / n, n, f"{n} events: consensus minus the 55% momentum rule"


def ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def leaders_persist(rows: list[dict[str, str]]) -> tuple[float | None, int, str]:
    scored = [r for r in stated(rows) if r["horizon"] == "1d" and outcome(r) is not None]
    sessions = sorted({r["session"] for r in scored})
    half = set(sessions[: len(sessions) // 2])
    sums: dict[str, list[list[float]]] = {}
    for r in scored:
        y = outcome(r)
        assert y is not None
        b = (float(r["prob_up"]) / 100 - y) ** 2
        sums.setdefault(r["seat"], [[], []])[0 if r["session"] in half else 1].append(b)
    seats = sorted(s for s, (a, b) in sums.items() if len(a) >= 3 and len(b) >= 3)
    if len(seats) < 3:
        return None, len(seats), "fewer than 3 seats scored in both halves"
    first = ranks([sum(sums[s][0]) / len(sums[s][0]) for s in seats])
    second = ranks([sum(sums[s][1]) / len(sums[s][1]) for s in seats])
    rho = pearson(first, second)
    return rho, len(seats), f"{len(seats)} seats, halves of {len(sessions)} sessions"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--from-session", type=int, required=True)
    parser.add_argument("--to", required=True)
    parser.add_argument("measure")
    parser.add_argument("arg", nargs="?")
    args = parser.parse_args(argv)
    rows = rows_in_window(args.folder, args.from_session, args.to)
    if args.measure == "mean_correlation":
        value, n, detail = mean_correlation(rows, args.arg or "1d")
    elif args.measure == "on_time":
        value, n, detail = on_time(rows)
    elif args.measure == "momentum_rule":
        value, n, detail = momentum_rule(args.folder, rows)
    elif args.measure == "leaders_persist":
        value, n, detail = leaders_persist(rows)
    else:
        print(f"unknown measure {args.measure}", file=sys.stderr)
        return 2
    print(json.dumps({"value": value, "n": n, "detail": detail}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
