#!/usr/bin/env python3
"""Recount the council talk's F22 and every critique's resolution from the published critiques alone.

Stand-alone, standard library only, so a reader can run it without installing the project:

    python3 -I tools/recount_talk.py .            (compare with council-talk.json; run in the open-data folder)
    python3 -I tools/recount_talk.py . --json     (print the recounted figures instead)

Inputs: ``council-talk-critiques.csv`` (one row per critique) and the report it checks, ``council-talk.json``.
The rules:

1. A critique is resolved when its row has both ``reference_close`` and ``close_5`` (the fund's close five
   sessions after the reference); the fund went up when close_5 > reference_close (strictly: an equal close is
   not up). Its resolution is true when the row's ``direction`` (up or down) matches, false otherwise, and
   unresolved while either close is empty. A direction other than up or down is a difference.
2. The row's own ``resolution`` column must say the same (true, false or unresolved), and so must the
   report's critique of the same week, target letter and market (null for unresolved); a critique on one side
   only is a difference.
3. F22, per week and for the season (every resolved critique of every week): n resolved critiques, hits (true
   resolutions), share = hits / n, and the Wilson score interval at 95% (z = 1.959963984540054):
   centre = (p + z^2/2n) / (1 + z^2/n), half = z sqrt(p(1-p)/n + z^2/4n^2) / (1 + z^2/n), ci95 = [centre -
   half, centre + half] clipped to [0, 1]; share and ci95 are null when n = 0.

Every figure is compared with the published one, each rounded to 6 decimals, for exact equality (a null
against a value is a difference). The report's other parts (portfolios, shadow returns, F23) are not recounted.
Exit status 0 when every figure agrees, 1 on any difference, 2 when a file is missing or cannot be read.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys

CRITIQUES = "council-talk-critiques.csv"
REPORT = "council-talk.json"
Z95 = 1.959963984540054
PLACES = 6
F22_FIELDS = ("n", "hits", "share", "ci95")


def read_rows(folder: str) -> list[dict[str, str]]:
    with open(os.path.join(folder, CRITIQUES), encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def resolution(row: dict[str, str]) -> bool | None:
    """True / False when the critique's direction came true or not; None while unresolved."""
    ref, last = row["reference_close"].strip(), row["close_5"].strip()
    if not ref or not last:
        return None
    up = float(last) > float(ref)
    return up == (row["direction"] == "up")


def as_text(r: bool | None) -> str:
    return "unresolved" if r is None else ("true" if r else "false")


def wilson(hits: int, n: int) -> list[float] | None:
    if n == 0:
        return None
    p = hits / n
    z2 = Z95 * Z95
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    return [round(max(0.0, centre - half), PLACES), round(min(1.0, centre + half), PLACES)]


def f22(outcomes: list[bool]) -> dict[str, object]:
    n, hits = len(outcomes), sum(1 for o in outcomes if o)
    return {"n": n, "hits": hits, "share": round(hits / n, PLACES) if n else None, "ci95": wilson(hits, n)}


def recount(rows: list[dict[str, str]]) -> tuple[dict[str, object], list[str]]:
    """The recounted figures ({"weeks": {week: {"critiques": {target/market: resolution}, "f22"}}, "season"})
    and the rows' own inconsistencies (a bad direction, a resolution column that says otherwise)."""
    problems: list[str] = []
    weeks: dict[str, dict[str, bool | None]] = {}
    for i, row in enumerate(rows, start=2):
        where = f"{CRITIQUES} line {i} ({row['week']} {row['target_letter']}/{row['market']})"
        if row["direction"] not in ("up", "down"):
            problems.append(f"{where}: direction {row['direction']!r} is not up or down")
        r = resolution(row)
        if row["resolution"] != as_text(r):
            problems.append(f"{where}: resolution column says {row['resolution']}, recounted {as_text(r)}")
        critiques = weeks.setdefault(row["week"], {})
        key = f"{row['target_letter']}/{row['market']}"
        if key in critiques:
            problems.append(f"{where}: a second critique of the same position")
        critiques[key] = r
    recounted: dict[str, object] = {
        "weeks": {week: {"critiques": critiques, "f22": f22([r for r in critiques.values() if r is not None])}
                  for week, critiques in sorted(weeks.items())},
        "season": {"f22": f22([r for c in weeks.values() for r in c.values() if r is not None])}}
    return recounted, problems


def same(published: object, mine: object) -> bool:
    if isinstance(published, bool) or isinstance(mine, bool) or published is None or mine is None:
        return type(published) is type(mine) and published == mine
    if isinstance(published, (int, float)) and isinstance(mine, (int, float)):
        return round(float(published), PLACES) == round(float(mine), PLACES)
    if isinstance(published, list) and isinstance(mine, list):
        return len(published) == len(mine) and all(same(a, b) for a, b in zip(published, mine, strict=True))
    return published == mine


def compare_f22(published: object, mine: dict[str, object], where: str) -> tuple[int, list[str]]:
    found = []
    got = published if isinstance(published, dict) else {}
    for name in F22_FIELDS:
        if not same(got.get(name), mine[name]):
            found.append(f"{where}.{name}: published {json.dumps(got.get(name))}, recounted {json.dumps(mine[name])}")
    return len(F22_FIELDS), found


def compare(report: dict[str, object], recounted: dict[str, object]) -> tuple[int, list[str]]:
    """(figures compared, one line per difference) between the published report and the recount."""
    count, found = 0, []
    mine_weeks = recounted["weeks"]
    assert isinstance(mine_weeks, dict)
    listed = report.get("weeks")
    published_weeks = {str(w["week"]): w for w in listed if isinstance(w, dict)} if isinstance(listed, list) else {}
    for week in sorted(set(published_weeks) | set(mine_weeks)):
        where = f"{REPORT}.weeks.{week}"
        p_week, m_week = published_weeks.get(week), mine_weeks.get(week)
        listed_critiques = p_week.get("critiques") if p_week is not None else []
        p_critiques = {f"{c['target']}/{c['market']}": c.get("resolution")
                       for c in (listed_critiques if isinstance(listed_critiques, list) else []) if isinstance(c, dict)}
        m_critiques = m_week["critiques"] if m_week else {}
        for key in sorted(set(p_critiques) | set(m_critiques)):
            count += 1
            if key not in p_critiques or key not in m_critiques:
                side = "recounted but not published" if key not in p_critiques else "published but not recounted"
                found.append(f"{where}.critiques.{key}: {side}")
            elif not same(p_critiques[key], m_critiques[key]):
                found.append(f"{where}.critiques.{key}.resolution: published {json.dumps(p_critiques[key])}, "
                             f"recounted {json.dumps(m_critiques[key])}")
        if p_week is not None and m_week is not None:
            c, f = compare_f22(p_week.get("f22"), m_week["f22"], f"{where}.f22")
            count, found = count + c, found + f
    season = report.get("season")
    p_f22 = season.get("f22") if isinstance(season, dict) else None
    m_season = recounted["season"]
    assert isinstance(m_season, dict)
    c, f = compare_f22(p_f22, m_season["f22"], f"{REPORT}.season.f22")
    return count + c, found + f


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Recount the council talk's F22 and resolutions from the CSV.")
    parser.add_argument("folder", help="the open-data folder")
    parser.add_argument("--json", action="store_true", help="print the recounted figures instead of comparing")
    args = parser.parse_args(argv)
    try:
        recounted, problems = recount(read_rows(args.folder))
        if args.json:
            print(json.dumps(recounted, indent=1, ensure_ascii=False))
            return 0
        with open(os.path.join(args.folder, REPORT), encoding="utf-8") as fh:
            report = json.load(fh)
        if not isinstance(report, dict):
            raise ValueError(f"{REPORT} is not a JSON object")
        compared, found = compare(report, recounted)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, csv.Error) as exc:
        print(f"recount_talk: cannot read the published files: {exc}", file=sys.stderr)
        return 2
    problems += found
    for line in problems:
        print(f"MISMATCH {line}")
    print(f"recount_talk: {compared} figures compared, {len(problems)} differ")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
