#!/usr/bin/env python3
"""Recount every published consensus value and N_eff from the published files alone.

Stand-alone, standard library only, so a reader can run it without installing the project:

    python3 -I tools/recount_consensus.py --data public        (an open-data folder on disk)
    python3 -I tools/recount_consensus.py --data https://host/ (the same folder served over HTTP)

Inputs: ``council-forecasts.csv`` (the answers), ``asks.jsonl`` (each seat's family, sealed in the
roster line before its run's first ask), ``council-book.jsonl`` (each methodology version's sealed
``consensus_clamp``, ``consensus_trim_from`` and ``family_weight`` in the run lines) and
``council-stats.json`` (the published values it compares with). The rules (docs/protocol.md §6):

1. Council rows: not a baseline seat (name starting ``_``); status ``counted``; cell_status
   ``elicited`` or ``explicit_50``; prob_up a number; sealed_at <= the event's reference time
   (``event_reference_at``, else ``reference_at``); line_kind ``issue``; run_role ``session_run``;
   same_event not false. Pooled per methodology version, session and event (``event_id_v2``, else
   ``event_id``, else session|asset|horizon).
2. One answer per seat and event: rows ordered by sealed_at, then seat; a seat's first counts.
3. Trim: with at least ``trim_from`` answers, drop the lowest and the highest prob_up. Ties are
   broken by that order: the earliest-sealed of the lowest and the latest-sealed of the highest go.
4. Family weights over the kept answers, in that order: the first seat of a family weighs 1, every
   later one ``family_weight`` (1/3). A seat without a sealed family is its own family.
5. p_mean = sum(w p) / sum(w); dispersion = sum(w ((p - p_mean)/100)^2) / sum(w); p = p_mean clamped.
6. N_eff per session and horizon: n = seats with at least one answer in the session; rho = mean of
   the Pearson correlations of every seat pair over the markets both answered (pairs with fewer than
   3 common markets or no variation left out); N_eff = n / (1 + (n - 1) rho), 1 for a lone seat.

A value matches when it equals the recount within a relative 1e-9 (the files publish floats in
full). Exit status 0 when every value matched, 1 on any difference or nothing to compare, 2 when
the input cannot be read.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys
import urllib.parse
import urllib.request
from collections import defaultdict
from typing import Any

STATED = {"elicited", "explicit_50"}
SESSION_RUN = {"session_run", "counted"}
ISSUE = {"issue", "answer"}
FALSE_WORDS = {"0", "false", "no", "n"}
DEFAULTS = {"clamp": (2.0, 98.0), "trim_from": 5, "family_weight": 1.0 / 3.0}
MIN_COMMON = 3
REL_TOL = 1e-9
TIMEOUT_S = 60
EVENT_FIELDS = ("p", "p_mean", "n", "n_used", "dispersion", "rho", "n_eff")
RUN_FIELDS = ("n", "rho", "n_eff")


def fetch_text(base: str, name: str) -> str:
    """Read ``name`` from a folder path or a base URL (``http://`` or ``https://``)."""
    if base.startswith(("http://", "https://")):
        url = urllib.parse.urljoin(base.rstrip("/") + "/", name)
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as resp:  # noqa: S310 - the reader's own URL
            body: bytes = resp.read()
            return body.decode("utf-8")
    with open(f"{base.rstrip('/')}/{name}", encoding="utf-8", newline="") as fh:
        return fh.read()


def jsonl(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def optional_jsonl(base: str, name: str) -> list[dict[str, Any]]:
    """A book that may be absent (a folder published without asks.jsonl: every seat its own family)."""
    try:
        return jsonl(fetch_text(base, name))
    except (OSError, ValueError) as exc:
        print(f"note: {name} not read ({exc}); every seat counts as its own family", file=sys.stderr)
        return []


# ------------------------------------------------------------------------------ sealed inputs
def families(asks: list[dict[str, Any]]) -> dict[str, str]:
    """Seat -> family from the roster lines; the first line naming a seat's family decides."""
    out: dict[str, str] = {}
    for line in asks:
        if line.get("kind") == "roster":
            for seat in line.get("seats") or []:
                if seat.get("family"):
                    out.setdefault(str(seat["seat"]), str(seat["family"]))
    return out


def rules(book: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Methodology version -> its consensus rules, from the first run line sealing that version."""
    out: dict[str, dict[str, Any]] = {}
    for line in book:
        m = line.get("methodology")
        if line.get("kind") == "run" and isinstance(m, dict) and str(m.get("version", "")) not in out:
            lo, hi = m.get("consensus_clamp", DEFAULTS["clamp"])
            out[str(m.get("version", ""))] = {
                "clamp": (float(lo), float(hi)), "trim_from": int(m.get("consensus_trim_from", DEFAULTS["trim_from"])),
                "family_weight": float(m.get("family_weight", DEFAULTS["family_weight"]))}
    return out


# ------------------------------------------------------------------------------ council rows
def number(text: str | None) -> float | None:
    try:
        value = float((text or "").strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def is_council_row(r: dict[str, str]) -> bool:
    reference = r.get("event_reference_at") or r.get("reference_at") or ""
    return (not r["seat"].startswith("_") and r["status"] == "counted" and r["cell_status"] in STATED
            and number(r["prob_up"]) is not None and bool(reference) and _time(r["sealed_at"]) <= _time(reference)
            and r["line_kind"] in ISSUE and r["run_role"] in SESSION_RUN
            and r.get("same_event", "").strip().lower() not in FALSE_WORDS)


def _time(text: str) -> str:
    """ISO times as the league writes them (``...Z``, whole seconds) compare as text."""
    return text.replace("+00:00", "Z")


def event_key(r: dict[str, str]) -> str:
    return r.get("event_id_v2") or r.get("event_id") or f"{r['session']}|{r['asset']}|{r['horizon']}"


def outcome(r: dict[str, str]) -> float | None:
    ref, close = number(r.get("ref")), number(r.get("close"))
    return None if ref is None or close is None else float(close > ref)


def council(text: str) -> dict[tuple[str, str, str], list[dict[str, Any]]]:
    """(version, session, event) -> the first answer of each seat, ordered by sealed_at then seat."""
    rows = [r for r in csv.DictReader(io.StringIO(text)) if is_council_row(r)]
    rows.sort(key=lambda r: (r["session"], event_key(r), r["sealed_at"], r["seat"]))
    events: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        key = (r["methodology_version"], r["session"], event_key(r))
        if all(a["seat"] != r["seat"] for a in events[key]):
            events[key].append({"seat": r["seat"], "p": float(r["prob_up"]), "asset": r["asset"],
                                "horizon": r["horizon"], "outcome": outcome(r)})
    return events


# ------------------------------------------------------------------------------ consensus
def trimmed(answers: list[dict[str, Any]], trim_from: int) -> list[dict[str, Any]]:
    """Drop the lowest and the highest (ties: the first lowest and the last highest in seal order)."""
    if len(answers) < trim_from:
        return list(answers)
    ranked = sorted(range(len(answers)), key=lambda i: (answers[i]["p"], i))
    drop = {ranked[0], ranked[-1]}
    return [a for i, a in enumerate(answers) if i not in drop]


def consensus(answers: list[dict[str, Any]], fam: dict[str, str], rule: dict[str, Any]) -> dict[str, Any]:
    kept = trimmed(answers, rule["trim_from"])
    seen: set[str] = set()
    weights = []
    for a in kept:
        family = fam.get(a["seat"], a["seat"])
        weights.append(1.0 if family not in seen else rule["family_weight"])
        seen.add(family)
    total = sum(weights)
    mean = sum(w * a["p"] for w, a in zip(weights, kept, strict=True)) / total
    dispersion = sum(w * ((a["p"] - mean) / 100.0) ** 2 for w, a in zip(weights, kept, strict=True)) / total
    lo, hi = rule["clamp"]
    return {"p": min(max(mean, lo), hi), "p_mean": mean, "n": len(answers), "n_used": len(kept),
            "dispersion": dispersion}


# ------------------------------------------------------------------------------ N_eff
def pearson(xs: list[float], ys: list[float]) -> float | None:
    n = len(xs)
    if n < MIN_COMMON:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    cov = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    vx, vy = sum((x - mx) ** 2 for x in xs), sum((y - my) ** 2 for y in ys)
    if vx <= 0 or vy <= 0:
        return None
    return max(-1.0, min(1.0, cov / math.sqrt(vx * vy)))


def n_eff(cells: dict[str, dict[str, float]]) -> dict[str, Any]:
    """``cells``: seat -> market -> prob_up, for one session and horizon."""
    seats = sorted(cells)
    sims = [s for i, a in enumerate(seats) for b in seats[i + 1:]
            if (s := pearson(*_common(cells[a], cells[b]))) is not None]
    n = len(seats)
    rho = sum(sims) / len(sims) if sims else None
    if n == 1:
        value: float | None = 1.0
    elif rho is None or 1 + (n - 1) * rho == 0:
        value = None
    else:
        value = n / (1 + (n - 1) * rho)
    return {"n": n, "rho": rho, "n_eff": value}


def _common(a: dict[str, float], b: dict[str, float]) -> tuple[list[float], list[float]]:
    markets = sorted(set(a) & set(b))
    return [a[m] for m in markets], [b[m] for m in markets]


# ------------------------------------------------------------------------------ recount and compare
Recount = dict[tuple[str, str, str], dict[str, Any]]


def recount(forecasts: str, asks: list[dict[str, Any]], book: list[dict[str, Any]]) -> tuple[Recount, Recount]:
    """(per event values, per session-horizon N_eff), keyed as the published records are."""
    fam, by_version = families(asks), rules(book)
    events, runs = {}, {}
    cubes: dict[tuple[str, str, str], dict[str, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    for (version, session, key), answers in council(forecasts).items():
        events[(version, session, key)] = consensus(answers, fam, by_version.get(version, DEFAULTS))
        for a in answers:
            cubes[(version, session, a["horizon"])][a["seat"]][a["asset"]] = a["p"]
        events[(version, session, key)]["horizon"] = answers[0]["horizon"]
    for k, cells in cubes.items():
        runs[k] = n_eff(cells)
    for (version, session, _), value in events.items():
        value.update({f: runs[(version, session, value["horizon"])][f] for f in ("rho", "n_eff")})
    return events, runs


def same(published: Any, recounted: Any) -> bool:
    if published is None or recounted is None:
        return published is None and recounted is None
    return math.isclose(float(published), float(recounted), rel_tol=REL_TOL, abs_tol=1e-12)


def compare(published: list[dict[str, Any]], recounted: dict[Any, Any], key: Any, fields: tuple[str, ...],
            what: str) -> tuple[int, list[str]]:
    matched, problems = 0, []
    for record in published:
        k = key(record)
        mine = recounted.get(k)
        if mine is None:
            problems.append(f"{what} {k}: published, but no council answers recount to it")
            continue
        bad = [f"{f} published {record.get(f)!r}, recounted {mine[f]!r}" for f in fields if not same(record.get(f),
                                                                                                   mine[f])]
        if bad:
            problems.append(f"{what} {k}: " + "; ".join(bad))
        else:
            matched += 1
    seen = {key(r) for r in published}
    problems += [f"{what} {k}: recounted from the answers, but not published" for k in recounted if k not in seen]
    return matched, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Recount every published consensus value and N_eff.")
    parser.add_argument("--data", required=True, help="open-data folder or its URL")
    args = parser.parse_args(argv)
    try:
        events, runs = recount(fetch_text(args.data, "council-forecasts.csv"), optional_jsonl(args.data, "asks.jsonl"),
                               jsonl(fetch_text(args.data, "council-book.jsonl")))
        stats = json.loads(fetch_text(args.data, "council-stats.json"))
        per_event = stats["consensus"]["per_event"]
        per_run = stats["n_eff"]["counted"]["per_run"]
    except (OSError, ValueError, KeyError, TypeError, csv.Error) as exc:
        print(f"recount_consensus: cannot read the published files: {exc}", file=sys.stderr)
        return 2
    ev_ok, ev_bad = compare(per_event, events, lambda r: (r.get("methodology_version", ""), r["session"],
                                                          r["event_id"]), EVENT_FIELDS, "consensus")
    run_ok, run_bad = compare(per_run, runs, lambda r: (r.get("methodology_version", ""), r["session"],
                                                        r["horizon"]), RUN_FIELDS, "N_eff")
    for problem in ev_bad + run_bad:
        print(f"MISMATCH {problem}")
    print(f"consensus: {ev_ok} of {len(per_event)} published events reproduced; "
          f"N_eff: {run_ok} of {len(per_run)} published session-horizons reproduced; "
          f"{len(ev_bad) + len(run_bad)} differ")
    return 1 if ev_bad or run_bad or not per_event else 0


if __name__ == "__main__":
    sys.exit(main())
