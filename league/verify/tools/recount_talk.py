#!/usr/bin/env python3
"""Recount the council talk's published figures: F22 and resolutions from the critiques, the rest from its inputs.

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

The report's other figures are recounted from the inputs it publishes with them, week by week:

4. Shadow returns, from the week's ``accounts`` (account -> {fund: weight in percent}) and ``closes`` (fund ->
   the list of its closes over the talk session and the five after it, null where a price is missing). Each
   account's simple return = the sum over its funds of weight/100 x (last / first - 1), first and last being
   the first and the last entry of the fund's list; a fund with weight 0 is skipped; the return is null when a
   held fund (weight > 0) has no list, an empty one, or a null or non-positive first or last close. Cash (100
   minus the weights) earns 0, no fees. A weight that is not a number from 0 to 100 is a difference. Every
   account gets a return and only accounts do: the published ``shadow_returns`` must have exactly the
   accounts' names (a name on one side only is a difference).
5. F23, per week, from the recounted (unrounded) returns: council_vs_sealed_mean = the ``council`` return minus
   the mean of every ``sealed:<L>`` return, null when there is no council return, no sealed account, or any
   sealed return is null. Then one entry per critiqued letter (every distinct ``target`` of the week's
   critiques, in letter order: shorter first, then alphabetical, so Z before AA): critiqued_vs_sealed =
   critiqued:<L> - sealed:<L>, stated_vs_sealed = stated:<L> - sealed:<L>, stated_vs_critiqued = stated:<L> -
   critiqued:<L>, each null when either return is missing or null. Each week figure is rounded to 6 decimals.
   The season's F23: for each of the four names, n = the number of non-null week figures of that name (over
   every week, and every letter of it) and mean = the mean of those ROUNDED week figures, rounded to 6
   decimals (null when n = 0). A letter on one side only is a difference.
6. The letters of a revealed week (``letter_map``, seat -> letter, not null): the commitment
   ``letter_map_sha256`` must be the SHA-256 hex digest (of the UTF-8 bytes) of the JSON
   {"letters": letter_map, "salt": salt, "week": week} written with sorted keys, separators (",", ":") and
   ASCII escapes (Python's json.dumps(..., sort_keys=True, separators=(",", ":"))); the map must follow the rule:
   the map's seats sorted by the SHA-256 hex digest of "{salt}:{week}:{seat}" (ties by seat id) get A, B ... Z,
   AA, AB ... in that order (bijective base 26); and ``chair_letter`` must be the letter of ``chair_seat``.
   A week not yet revealed (``letter_map`` null) must have ``salt`` and ``chair_seat`` null too; its
   commitment cannot be checked until the reveal.

Every figure is compared with the published one, each rounded to 6 decimals, for exact equality (a null
against a value is a difference). Not recounted: the portfolios, the council portfolio, the replies, the
portfolio engine's figures (``engine``) and whether the accounts' weights follow from the portfolios and
critiques. Exit status 0 when every figure agrees, 1 on any difference, 2 when a file is missing or cannot be
read. With ``--json`` the recounted figures are printed (rules 4 to 6 only when council-talk.json is there).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
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


F23_FIGURES = ("council_vs_sealed_mean", "critiqued_vs_sealed", "stated_vs_sealed", "stated_vs_critiqued")


def is_number(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def rounded(x: float | None) -> float | None:
    return None if x is None else round(x, PLACES)


def account_return(weights: dict[str, object], closes: dict[str, object]) -> float | None:
    """Rule 4: the simple return of one account (None when a held fund has no first or last price)."""
    total = 0.0
    for fund, w in weights.items():
        if not is_number(w) or not 0 <= float(w) <= 100:
            raise ValueError(f"weight {w!r} of {fund} is not a number from 0 to 100")
        if w == 0:
            continue
        path = closes.get(fund)
        if not isinstance(path, list) or not path:
            return None
        first, last = path[0], path[-1]
        if not is_number(first) or not is_number(last) or first <= 0 or last <= 0:
            return None
        total += float(w) / 100.0 * (float(last) / float(first) - 1.0)
    return total


def week_returns(week: dict[str, object]) -> tuple[dict[str, float | None], list[str]]:
    """Rule 4 for every account of a week: (returns, problems)."""
    accounts, closes = week.get("accounts") or {}, week.get("closes") or {}
    if not isinstance(accounts, dict) or not isinstance(closes, dict):
        return {}, ["accounts or closes is not a JSON object"]
    out: dict[str, float | None] = {}
    problems: list[str] = []
    for name, weights in sorted(accounts.items()):
        try:
            if not isinstance(weights, dict):
                raise ValueError("its weights are not a JSON object")
            out[name] = account_return(weights, closes)
        except ValueError as exc:
            problems.append(f"accounts.{name}: {exc}")
            out[name] = None
    return out, problems


def letter_key(letter: str) -> tuple[int, str]:
    return len(letter), letter


def diff(returns: dict[str, float | None], a: str, b: str) -> float | None:
    x, y = returns.get(a), returns.get(b)
    return None if x is None or y is None else x - y


def week_f23(returns: dict[str, float | None], targets: list[str]) -> dict[str, object]:
    """Rule 5 for one week, from its recounted returns and its critiques' target letters."""
    sealed = [v for k, v in returns.items() if k.startswith("sealed:")]
    council = returns.get("council")
    vs_mean = None
    if council is not None and sealed and all(v is not None for v in sealed):
        vs_mean = council - sum(v for v in sealed if v is not None) / len(sealed)
    seats = [{"letter": L,
              "critiqued_vs_sealed": rounded(diff(returns, f"critiqued:{L}", f"sealed:{L}")),
              "stated_vs_sealed": rounded(diff(returns, f"stated:{L}", f"sealed:{L}")),
              "stated_vs_critiqued": rounded(diff(returns, f"stated:{L}", f"critiqued:{L}"))}
             for L in sorted(set(targets), key=letter_key)]
    return {"council_vs_sealed_mean": rounded(vs_mean), "seats": seats}


def season_f23(weeks: list[dict[str, object]]) -> dict[str, dict[str, object]]:
    """Rule 5's season: n and mean of every week's (rounded) figure of each name."""
    values: dict[str, list[float]] = {name: [] for name in F23_FIGURES}
    for figures in weeks:
        if figures["council_vs_sealed_mean"] is not None:
            values["council_vs_sealed_mean"].append(figures["council_vs_sealed_mean"])
        for seat in figures["seats"]:
            for name in F23_FIGURES[1:]:
                if seat[name] is not None:
                    values[name].append(seat[name])
    return {name: {"n": len(xs), "mean": rounded(sum(xs) / len(xs)) if xs else None} for name, xs in values.items()}


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def bijective(index: int) -> str:
    """0 -> A, 25 -> Z, 26 -> AA (bijective base 26)."""
    out, n = "", index + 1
    while n:
        n, rest = divmod(n - 1, 26)
        out = chr(ord("A") + rest) + out
    return out


def letters(week: dict[str, object]) -> dict[str, object] | None:
    """Rule 6 for a revealed week: the commitment, each seat's letter and the chair's letter as they must be."""
    mapping, salt, label = week.get("letter_map"), week.get("salt"), str(week.get("week"))
    if mapping is None:
        return None
    if not isinstance(mapping, dict) or not isinstance(salt, str):
        raise ValueError(f"{label}: letter_map is not an object or salt is not a string")
    commitment = digest(json.dumps({"letters": mapping, "salt": salt, "week": label}, sort_keys=True,
                                   separators=(",", ":")))
    order = sorted((str(seat) for seat in mapping), key=lambda seat: (digest(f"{salt}:{label}:{seat}"), seat))
    by_rule = {seat: bijective(i) for i, seat in enumerate(order)}
    return {"letter_map_sha256": commitment, "letter_map": by_rule,
            "chair_letter": by_rule.get(str(week.get("chair_seat")))}


def recount_report(report: dict[str, object]) -> dict[str, object]:
    """Rules 4 to 6 from the report's own inputs: {week: {"shadow_returns", "f23", "letters", "problems"}} and the
    season's F23."""
    listed = report.get("weeks")
    weeks: dict[str, dict[str, object]] = {}
    for week in listed if isinstance(listed, list) else []:
        if not isinstance(week, dict):
            continue  # a malformed week: rule 3 already finds its critiques missing
        returns, problems = week_returns(week)
        critiques = week.get("critiques")
        targets = [str(c.get("target")) for c in critiques if isinstance(c, dict)] \
            if isinstance(critiques, list) else []
        weeks[str(week.get("week"))] = {"shadow_returns": {k: rounded(v) for k, v in returns.items()},
                                        "f23": week_f23(returns, targets), "letters": letters(week),
                                        "problems": problems}
    return {"weeks": weeks, "season": {"f23": season_f23([w["f23"] for w in weeks.values()])}}


def compare_value(published: object, mine: object, where: str, found: list[str]) -> int:
    if not same(published, mine):
        found.append(f"{where}: published {json.dumps(published)}, recounted {json.dumps(mine)}")
    return 1


def compare_keyed(published: object, mine: dict[str, object], where: str, found: list[str]) -> int:
    """Compare two {name: figure} objects name by name; a name on one side only is a difference."""
    got = published if isinstance(published, dict) else {}
    count = 0
    for name in sorted(set(got) | set(mine)):
        count += 1
        if name not in got or name not in mine:
            side = "recounted but not published" if name not in got else "published but not recounted"
            found.append(f"{where}.{name}: {side}")
        else:
            compare_value(got[name], mine[name], f"{where}.{name}", found)
    return count


def compare_inputs(report: dict[str, object], recounted: dict[str, object]) -> tuple[int, list[str]]:
    """(figures compared, differences) of rules 4 to 6."""
    count, found = 0, []
    listed = report.get("weeks")
    published = {str(w.get("week")): w for w in (listed if isinstance(listed, list) else []) if isinstance(w, dict)}
    for label, mine in recounted["weeks"].items():
        week, where = published[label], f"{REPORT}.weeks.{label}"
        found += [f"{where}.{p}" for p in mine["problems"]]
        count += compare_keyed(week.get("shadow_returns"), mine["shadow_returns"], f"{where}.shadow_returns", found)
        p_f23 = week.get("f23") if isinstance(week.get("f23"), dict) else {}
        count += compare_value(p_f23.get("council_vs_sealed_mean"), mine["f23"]["council_vs_sealed_mean"],
                               f"{where}.f23.council_vs_sealed_mean", found)
        p_seats = p_f23.get("seats") if isinstance(p_f23.get("seats"), list) else []
        p_by_letter = {str(s.get("letter")): {k: v for k, v in s.items() if k != "letter"}
                       for s in p_seats if isinstance(s, dict)}
        m_by_letter = {s["letter"]: {k: v for k, v in s.items() if k != "letter"} for s in mine["f23"]["seats"]}
        for letter in sorted(set(p_by_letter) | set(m_by_letter), key=letter_key):
            seat_where = f"{where}.f23.seats.{letter}"
            if letter not in p_by_letter or letter not in m_by_letter:
                count += 1
                side = "recounted but not published" if letter not in p_by_letter else "published but not recounted"
                found.append(f"{seat_where}: {side}")
            else:
                count += compare_keyed(p_by_letter[letter], m_by_letter[letter], seat_where, found)
        rule = mine["letters"]
        if rule is None:
            count += 1
            if week.get("salt") is not None or week.get("chair_seat") is not None:
                found.append(f"{where}: letter_map is null (not revealed) but salt or chair_seat is not")
        else:
            count += compare_value(week.get("letter_map_sha256"), rule["letter_map_sha256"],
                                   f"{where}.letter_map_sha256", found)
            count += compare_keyed(week.get("letter_map"), rule["letter_map"], f"{where}.letter_map", found)
            count += compare_value(week.get("chair_letter"), rule["chair_letter"], f"{where}.chair_letter", found)
    season = report.get("season") if isinstance(report.get("season"), dict) else {}
    p_season = season.get("f23") if isinstance(season.get("f23"), dict) else {}
    for name, figures in recounted["season"]["f23"].items():
        got = p_season.get(name)
        count += compare_keyed(got if isinstance(got, dict) else {}, figures, f"{REPORT}.season.f23.{name}", found)
    return count, found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Recount the council talk's published figures.")
    parser.add_argument("folder", help="the open-data folder")
    parser.add_argument("--json", action="store_true", help="print the recounted figures instead of comparing")
    args = parser.parse_args(argv)
    try:
        recounted, problems = recount(read_rows(args.folder))
        path = os.path.join(args.folder, REPORT)
        if args.json and not os.path.exists(path):
            print(json.dumps(recounted, indent=1, ensure_ascii=False))
            return 0
        with open(path, encoding="utf-8") as fh:
            report = json.load(fh)
        if not isinstance(report, dict):
            raise ValueError(f"{REPORT} is not a JSON object")
        from_inputs = recount_report(report)
        if args.json:
            print(json.dumps({**recounted, "report": from_inputs}, indent=1, ensure_ascii=False))
            return 0
        compared, found = compare(report, recounted)
        more, found_more = compare_inputs(report, from_inputs)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, csv.Error) as exc:
        print(f"recount_talk: cannot read the published files: {exc}", file=sys.stderr)
        return 2
    problems += found + found_more
    for line in problems:
        print(f"MISMATCH {line}")
    print(f"recount_talk: {compared + more} figures compared, {len(problems)} differ")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
