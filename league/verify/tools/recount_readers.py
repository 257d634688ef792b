#!/usr/bin/env python3
"""Recount the reader experiment's figures from the readers' book and the forecasts CSV alone.

Stand-alone, standard library only:

    python3 -I tools/recount_readers.py .          (compare with council-league.json's experiment block)
    python3 -I tools/recount_readers.py . --json   (print the recounted block instead)

Inputs: ``readers/readers-book.jsonl`` (every reader's group, peeks and forecasts), ``council-forecasts.csv`` (each
market's one-day outcome: close strictly above ref is up) and ``council-league.json`` (the ``experiment`` block it
checks). The rules (docs/readers.md):

1. Readers: the ``reader_assigned`` lines (first group per reader); ``resets`` counts those with ``reset`` true,
   ``reset_share`` = resets / identifiers. Peeks: the readers with a ``reader_peek`` line.
2. First forecasts: the ``reader_forecast`` lines with ``counted`` true; the others are ``later_forecasts``. A
   forecast's probability of up is c/100 for up, 1 - c/100 for down; its Brier (p_up - outcome)^2, scored when its
   session and market have a one-day outcome in the CSV (the first row of that session, market and horizon 1d
   with both ref and close).
3. Per group (g0, g1): identifiers; forecasting identifiers; returns (readers with counted forecasts in more than
   one session); peeks (the group's readers who peeked); first_forecasts; scored; brier (mean); hit_rate (side up
   and outcome 1, or down and 0); mean_confidence (c/100); overconfidence = mean_confidence - hit_rate;
   median_seconds_to_first = the element at index n // 2 of the sorted non-null ``seconds``; anchoring = share of
   first forecasts whose side is up exactly when ``consensus_up`` > 50, over those with a consensus_up other than
   50 and not null (anchoring_n).
4. Matched: over market x session cells where both groups have scored first forecasts, sum of w x (mean Brier g1
   - mean Brier g0) / sum of w, w = the smaller group's count in the cell; ``cells`` and ``weight`` (sum of w).
5. Revision: each ``reader_final`` joined to the first ``reader_private`` of the same reader, session and market;
   per display: pairs, scored, brier_change = mean of Brier(final) - Brier(private); toward the council = |private
   p_up - c| - |final p_up - c|, c = consensus_up / 100 (pairs with consensus_up other than 50), split by whether
   the council was right (c > 0.5 exactly when the outcome is up); primary = council minus control brier_change.

Every figure is compared after rounding to 6 decimals, exactly; exit 0 when all agree, 1 on any difference, 2 when
a file is missing or cannot be read.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys

BOOK = os.path.join("readers", "readers-book.jsonl")
PLACES = 6


def r6(x):
    return None if x is None else round(x, PLACES)


def mean(xs):
    return sum(xs) / len(xs) if xs else None


def p_up(side, c):
    return c / 100 if side == "up" else 1 - c / 100


def outcomes(folder):
    out = {}
    with open(os.path.join(folder, "council-forecasts.csv"), encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            if row["horizon"] == "1d" and row["ref"] and row["close"]:
                out.setdefault((row["session"], row["asset"]), 1 if float(row["close"]) > float(row["ref"]) else 0)
    return out


def recount(folder):
    ups = outcomes(folder)
    groups, peeks, firsts, private, pairs = {}, set(), [], {}, []
    resets = later = 0
    with open(os.path.join(folder, BOOK), encoding="utf-8") as fh:
        lines = [json.loads(x) for x in fh if x.strip()]
    for x in lines:
        k = x["kind"]
        if k == "reader_assigned":
            groups.setdefault(x["reader"], x["group"])
            resets += 1 if x["reset"] else 0
        elif k == "reader_peek":
            peeks.add(x["reader"])
        elif k == "reader_forecast":
            if x["counted"]:
                firsts.append(dict(x, up=ups.get((x["session"], x["market"]))))
            else:
                later += 1
        elif k == "reader_private":
            private.setdefault((x["reader"], x["session"], x["market"]), x)
        elif k == "reader_final":
            p = private.get((x["reader"], x["session"], x["market"]))
            if p is not None:
                pairs.append((p, x, ups.get((x["session"], x["market"]))))
    block = {"groups": {}, "later_forecasts": later, "resets": resets, "identifiers": len(groups),
             "reset_share": r6(resets / len(groups)) if groups else None}
    for g in ("g0", "g1"):
        mine = [f for f in firsts if f["group"] == g]
        scored = [f for f in mine if f["up"] is not None]
        hits = [1.0 if (f["side"] == "up") == (f["up"] == 1) else 0.0 for f in scored]
        conf = [f["confidence"] / 100 for f in scored]
        hit, mc = mean(hits), mean(conf)
        secs = sorted(f["seconds"] for f in mine if f["seconds"] is not None)
        cons = [f for f in mine if f["consensus_up"] is not None and f["consensus_up"] != 50]
        readers = [r for r, grp in groups.items() if grp == g]
        sessions = {}
        for f in firsts:
            sessions.setdefault(f["reader"], set()).add(f["session"])
        block["groups"][g] = {
            "identifiers": len(readers), "forecasting_identifiers": len({f["reader"] for f in mine}),
            "returns": len([r for r in readers if len(sessions.get(r, ())) > 1]),
            "peeks": len([r for r in readers if r in peeks]), "first_forecasts": len(mine), "scored": len(scored),
            "brier": r6(mean([(p_up(f["side"], f["confidence"]) - f["up"]) ** 2 for f in scored])),
            "hit_rate": r6(hit), "mean_confidence": r6(mc),
            "overconfidence": r6(mc - hit) if hit is not None else None,
            "median_seconds_to_first": r6(secs[len(secs) // 2]) if secs else None,
            "anchoring": r6(mean([1.0 if (f["side"] == "up") == (f["consensus_up"] > 50) else 0.0 for f in cons])),
            "anchoring_n": len(cons)}
    cells = {}
    for f in firsts:
        if f["up"] is not None:
            cells.setdefault((f["market"], f["session"]), {"g0": [], "g1": []})[f["group"]].append(
                (p_up(f["side"], f["confidence"]) - f["up"]) ** 2)
    num = den = 0.0
    used = 0
    for c in cells.values():
        if c["g0"] and c["g1"]:
            w = min(len(c["g0"]), len(c["g1"]))
            num += w * (sum(c["g1"]) / len(c["g1"]) - sum(c["g0"]) / len(c["g0"]))
            den += w
            used += 1
    block["matched"] = {"g1_minus_g0": r6(num / den) if den else None, "cells": used, "weight": int(den)}
    rev, change = {}, {}
    for d in ("council", "control"):
        mine = [t for t in pairs if t[0]["display"] == d]
        scored = [t for t in mine if t[2] is not None]
        deltas = [(p_up(f["side"], f["confidence"]) - y) ** 2 - (p_up(p["side"], p["confidence"]) - y) ** 2
                  for p, f, y in scored]
        change[d] = mean(deltas)
        right, wrong = [], []
        for p, f, y in scored:
            if p["consensus_up"] is None or p["consensus_up"] == 50:
                continue
            c = p["consensus_up"] / 100
            move = abs(p_up(p["side"], p["confidence"]) - c) - abs(p_up(f["side"], f["confidence"]) - c)
            (right if (c > 0.5) == (y == 1) else wrong).append(move)
        rev[d] = {"pairs": len(mine), "scored": len(scored), "brier_change": r6(change[d]),
                  "toward_council_when_right": r6(mean(right)), "toward_council_when_wrong": r6(mean(wrong)),
                  "n_right": len(right), "n_wrong": len(wrong)}
    a, b = change["council"], change["control"]
    rev["primary"] = {"council_minus_control": r6(a - b) if a is not None and b is not None else None}
    block["revision"] = rev
    return block


def compare(published, mine, where, out):
    if isinstance(mine, dict):
        for k, v in mine.items():
            compare(published.get(k) if isinstance(published, dict) else None, v, f"{where}.{k}", out)
        return
    same = (published == mine if not isinstance(mine, float) and not isinstance(published, float)
            else published is not None and mine is not None and round(published, PLACES) == round(mine, PLACES))
    out[0] += 1
    if not same:
        out[1].append(f"{where}: published {published!r}, recounted {mine!r}")


def main(argv=None):
    parser = argparse.ArgumentParser(description="Recount the reader experiment's figures.")
    parser.add_argument("folder")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        mine = recount(args.folder)
        if args.json:
            print(json.dumps(mine, indent=1))
            return 0
        with open(os.path.join(args.folder, "council-league.json"), encoding="utf-8") as fh:
            published = json.load(fh).get("experiment")
        if not isinstance(published, dict):
            raise ValueError("council-league.json has no experiment block")
    except (OSError, ValueError, KeyError, TypeError, csv.Error) as exc:
        print(f"recount_readers: cannot read the published files: {exc}", file=sys.stderr)
        return 2
    tally = [0, []]
    compare(published, mine, "experiment", tally)
    for line in tally[1]:
        print(f"MISMATCH {line}")
    print(f"recount_readers: {tally[0]} figures compared, {len(tally[1])} differ")
    return 1 if tally[1] else 0


if __name__ == "__main__":
    sys.exit(main())
