"""A plain-Python (loops, no numpy/pandas) implementation of the Brier / N_eff / consensus core.

It exists as an independent second implementation: the benchmark times the vectorised module
against it in the same run, and tests check that both give the same numbers from the CSV rows.
It reads the rows exactly as ``csv.DictReader`` yields them (all text).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping

Row = Mapping[str, str]
COUNTED_ROLES = ("session_run", "counted")  # Appendix C's name, and the earlier one
ISSUE = ("issue", "answer")


def _scored(row: Row) -> bool:
    return (row["run_role"] in COUNTED_ROLES and row["status"] == "counted" and row["line_kind"] in ISSUE
            and row["cell_status"] in ("elicited", "explicit_50") and row["prob_up"] != ""
            and row["ref"] != "" and row["close"] != "" and _common(row))


def _common(row: Row) -> bool:
    return row["same_event"].strip().lower() not in ("0", "false", "no", "n")


def brier_by_seat(rows: Iterable[Row]) -> dict[tuple[str, str], tuple[float, int]]:
    """(seat, horizon) -> (mean all-rows Brier, n) over counted stated resolved common-event rows."""
    acc: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for row in rows:
        if not _scored(row):
            continue
        o = 1.0 if float(row["close"]) > float(row["ref"]) else 0.0
        a = acc[(row["seat"], row["horizon"])]
        a[0] += (float(row["prob_up"]) / 100.0 - o) ** 2
        a[1] += 1
    return {k: (v[0] / v[1], int(v[1])) for k, v in acc.items()}


def _council(row: Row) -> bool:
    """Council seat, counted run, stated, common event, sealed at or before the reference (ISO Z text)."""
    ref = row["event_reference_at"] or row["reference_at"]
    return (not row["seat"].startswith("_") and row["run_role"] in COUNTED_ROLES and row["status"] == "counted"
            and row["line_kind"] in ISSUE and row["cell_status"] in ("elicited", "explicit_50")
            and row["prob_up"] != "" and _common(row)
            and ref != "" and row["sealed_at"] != "" and row["sealed_at"] <= ref)


def pearson(xs: list[float], ys: list[float]) -> float | None:
    """Pearson's r of two equal-length lists (None under three points or with no variance), clipped to [-1, 1]."""
    n = len(xs)
    if n < 3:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 0 or syy <= 0:
        return None
    return max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))


def n_eff_per_run(rows: Iterable[Row]) -> dict[tuple[str, str], tuple[int, float | None, float | None]]:
    """(session, horizon) -> (n, rho, N_eff): mean pairwise Pearson over markets both answered.

    The counted answers of one session (first run and second wave) are pooled.
    """
    cells: dict[tuple[str, str], dict[str, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    for row in sorted((r for r in rows if _council(r)), key=lambda r: (r["sealed_at"], r["seat"])):
        cells[(row["session"], row["horizon"])][row["seat"]].setdefault(row["asset"], float(row["prob_up"]))
    out = {}
    for key, seats in cells.items():
        names = sorted(seats)
        corrs = []
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                common = sorted(set(seats[a]) & set(seats[b]))
                r = pearson([seats[a][m] for m in common], [seats[b][m] for m in common])
                if r is not None:
                    corrs.append(r)
        n = len(names)
        rho = sum(corrs) / len(corrs) if corrs else None
        neff = 1.0 if n == 1 else (n / (1 + (n - 1) * rho) if rho is not None else None)
        out[key] = (n, rho, neff)
    return out


def consensus_per_event(
    rows: Iterable[Row], families: Mapping[str, str] | None = None
) -> dict[tuple[str, str], float]:
    """(session, event id) -> consensus probability: trim at >= 5, family 1/3 weights, clamp [2, 98]."""
    events: dict[tuple[str, str], list[tuple[str, str, float]]] = defaultdict(list)
    seen = set()
    for row in sorted((r for r in rows if _council(r)), key=lambda r: (r["sealed_at"], r["seat"])):
        key = (row["session"], row["event_id_v2"] or row["event_id"])
        if (key, row["seat"]) in seen:
            continue
        seen.add((key, row["seat"]))
        events[key].append((row["seat"], row["sealed_at"], float(row["prob_up"])))
    return {key: _one_consensus(answers, families or {}) for key, answers in events.items()}


def _one_consensus(answers: list[tuple[str, str, float]], families: Mapping[str, str]) -> float:
    kept = answers
    if len(answers) >= 5:
        by_p = sorted(range(len(answers)), key=lambda i: (answers[i][2], answers[i][1], answers[i][0]))
        drop = {by_p[0], by_p[-1]}
        kept = [a for i, a in enumerate(answers) if i not in drop]
    used: set[str] = set()
    num = den = 0.0
    for seat, _, p in sorted(kept, key=lambda a: (a[1], a[0])):
        fam = families.get(seat, seat)
        w = 1.0 if fam not in used else 1.0 / 3.0
        used.add(fam)
        num += w * p
        den += w
    return min(98.0, max(2.0, num / den))
