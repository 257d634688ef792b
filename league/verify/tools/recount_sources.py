#!/usr/bin/env python3
"""Recount the shared-sources figures (council-sources.json) from the published rows and fetch records.

Stand-alone, standard library only, so a reader can run it without installing the project:

    python3 -I tools/recount_sources.py .            (compare with council-sources.json; run in the open-data folder)
    python3 -I tools/recount_sources.py . --json     (print the recounted report instead)

Inputs: ``council-forecasts.csv`` (the counted answers' cited links and actions), ``arms/fetch-records.csv``
(the league's own fetch of each cited link; absent: every link is unfetched), ``asks/*.md`` (the ask texts:
their links are the ask's own) and the file it checks, whose ``method`` gives the seed, the number of
permutations and ``ask_sites`` (the league's own data sources, declared by the league). Every figure is
recomputed and compared, rounded to 6 decimals, for exact equality; ``method.definitions`` is not compared.
The rules:

1. Rows: run_role ``session_run`` or ``counted``, status ``counted``, line_kind ``issue`` or ``answer``, horizon
   ``1d``, seat not starting with ``_``, sealed_at <= event_reference_at (else reference_at), text compared.
2. A citation: one link of a row (source_urls split on ';', stripped, blanks dropped, a repeat in the row
   dropped); its label is source_domains at the same position. Site of a host: lower case; with exactly one ':'
   the part before it; a trailing '.' and a leading 'www.' dropped. The citation's record is the first
   fetch-records row with its session and url.
3. Removed: the link is in an ask text (every ``https?://`` run up to whitespace, <>()[]"'`| with trailing
   .,;: dropped), or its site (the record's host, else the link's own host) equals or ends with '.' + an
   ask site. Else unfetched (no record), else unreached (status not starting with '2', or no host), else
   counted; relabelled when the label is not empty and site(label) != site.
4. Per run (runs in id order): citations; top site (highest count, ties by name) and its share; share on
   sites with at least two seats; mean Jaccard over seat pairs (the run's seats, id order) of their link and
   site sets, pairs with an empty union left out; site x seat counts, sites by total then name.
5. Permutation: per run, markets in order; in each, the seats (id order) whose row's action is one of
   buy_strong, buy_dips, hold, trim, sell (first row each); at least two seats. Pair (i < j) shares when
   their row's counted link sets meet. Statistic: agreement rate of sharing pairs - that of the others,
   pooled; none unless both exist. If the product of (seats)! over the strata is <= permutations: every
   combination of permutations (itertools.product of itertools.permutations of each stratum's actions), p =
   share with statistic >= observed - 1e-12. Else rng = random.Random(seed); permutations times: for each
   stratum in order rng.shuffle(its action list); p = (1 + hits) / (1 + permutations). The season test uses
   every run's strata in run order, with its own Random(seed).

Exit status 0 when every figure agrees, 1 on any difference, 2 when a file is missing or cannot be read.
"""

from __future__ import annotations

import argparse
import csv
import glob
import itertools
import json
import math
import os
import random
import re
import sys
from collections.abc import Sequence
from urllib.parse import urlsplit

FORECASTS = "council-forecasts.csv"
FETCHES = os.path.join("arms", "fetch-records.csv")
REPORT = "council-sources.json"
ACTIONS = ("buy_strong", "buy_dips", "hold", "trim", "sell")
URL = re.compile(r"https?://[^\s<>()\[\]\"'`|]+")
TOP = 10
#: one stratum: its seats' actions (seats in id order) and its pairs (i, j, share a link)
Stratum = tuple[list[str], list[tuple[int, int, bool]]]


def read_csv(path: str) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def site(host: str) -> str:
    h = (host or "").strip().lower()
    if h.count(":") == 1:
        h = h.split(":")[0]
    h = h.rstrip(".")
    return h[4:] if h.startswith("www.") else h


def own_host(url: str) -> str:
    try:
        return site(urlsplit(url).hostname or "")
    except ValueError:
        return ""


def r6(x: float | None) -> float | None:
    return None if x is None else round(x, 6)


def counted_row(r: dict[str, str]) -> bool:
    ref = r.get("event_reference_at") or r.get("reference_at") or ""
    return (r.get("run_role") in ("session_run", "counted") and r.get("status") == "counted"
            and r.get("line_kind") in ("issue", "answer") and r.get("horizon") == "1d"
            and not r.get("seat", "").startswith("_") and ref != "" and r.get("sealed_at", "") <= ref)


def stat(strata: list[Stratum], orders: Sequence[Sequence[str]]) -> float | None:
    n_share = n_other = a_share = a_other = 0
    for (_, pairs), acts in zip(strata, orders, strict=True):
        for i, j, shares in pairs:
            same = 1 if acts[i] == acts[j] else 0
            if shares:
                n_share += 1
                a_share += same
            else:
                n_other += 1
                a_other += same
    if n_share == 0 or n_other == 0:
        return None
    return a_share / n_share - a_other / n_other


def perm_test(strata: list[Stratum], seed: int, count: int) -> dict[str, object]:
    observed = stat(strata, [s[0] for s in strata])
    out: dict[str, object] = {"strata": len(strata), "pairs": sum(len(s[1]) for s in strata),
           "sharing_pairs": sum(1 for s in strata for p in s[1] if p[2]), "statistic": r6(observed), "p": None,
           "exact": None, "permutations": None}
    if observed is None:
        return out
    space = 1
    for s in strata:
        space *= math.factorial(len(s[0]))
    hits = 0
    if space <= count:
        for combo in itertools.product(*[list(itertools.permutations(s[0])) for s in strata]):
            v = stat(strata, combo)
            if v is not None and v >= observed - 1e-12:
                hits += 1
        out.update(p=r6(hits / space), exact=True, permutations=space)
        return out
    rng = random.Random(seed)
    lists = [list(s[0]) for s in strata]
    for _ in range(count):
        for acts in lists:
            rng.shuffle(acts)
        v = stat(strata, lists)
        if v is not None and v >= observed - 1e-12:
            hits += 1
    out.update(p=r6((1 + hits) / (1 + count)), exact=False, permutations=count)
    return out


def table(counts: dict[tuple[str, str], int]) -> list[dict[str, object]]:
    per: dict[str, dict[str, int]] = {}
    for (s, seat), k in counts.items():
        per.setdefault(s, {})[seat] = k
    order = sorted(per, key=lambda s: (-sum(per[s].values()), s))
    return [{"site": s, "total": sum(per[s].values()), "seats": dict(sorted(per[s].items()))} for s in order]


def mean_jaccard(sets: dict[str, set[str]]) -> tuple[float | None, int]:
    vals = []
    for a, b in itertools.combinations(sorted(sets), 2):
        union = sets[a] | sets[b]
        if union:
            vals.append(len(sets[a] & sets[b]) / len(union))
    return (sum(vals) / len(vals) if vals else None), len(vals)


def recount(folder: str, method: dict[str, object]) -> dict[str, object]:
    rows = read_csv(os.path.join(folder, FORECASTS))
    fetch_path = os.path.join(folder, FETCHES)
    records: dict[tuple[str, str], dict[str, str]] = {}
    for f in read_csv(fetch_path) if os.path.isfile(fetch_path) else []:
        records.setdefault((f.get("session", ""), f.get("url", "")), f)
    asked: set[str] = set()
    for path in sorted(glob.glob(os.path.join(folder, "asks", "*.md"))):
        with open(path, encoding="utf-8") as fh:
            asked.update(m.group(0).rstrip(".,;:") for m in URL.finditer(fh.read()))
    listed, seed_text, count_text = method["ask_sites"], method["seed"], method["permutations"]
    if not isinstance(listed, list) or not isinstance(seed_text, int) or not isinstance(count_text, int):
        raise TypeError("method: ask_sites must be a list, seed and permutations whole numbers")
    ask_sites = sorted({site(str(s)) for s in listed if str(s).strip()})
    seed, count = seed_text, count_text
    runs: dict[str, list[dict[str, str]]] = {}
    for r in rows:
        if counted_row(r):
            runs.setdefault(r["run_id"], []).append(r)
    out_runs: list[dict[str, object]] = []
    all_counts: dict[tuple[str, str], int] = {}
    all_strata: list[Stratum] = []
    totals = {"citations": 0, "removed": 0, "unfetched": 0, "unreached": 0, "relabelled": 0}
    for run_id in sorted(runs):
        rr = runs[run_id]
        t = {"removed": 0, "unfetched": 0, "unreached": 0, "relabelled": 0}
        kept = []  # (seat, market, url, site)
        for r in rr:
            urls = (r.get("source_urls") or "").split(";")
            labels = (r.get("source_domains") or "").split(";")
            seen = set()
            for i, raw in enumerate(urls):
                url = raw.strip()
                if url == "" or url in seen:
                    continue
                seen.add(url)
                label = labels[i].strip() if i < len(labels) else ""
                rec = records.get((r.get("session", ""), url))
                s = site(rec.get("host", "")) if rec else ""
                probe = s if s else own_host(url)
                if url in asked or any(probe == a or probe.endswith("." + a) for a in ask_sites):
                    t["removed"] += 1
                elif rec is None:
                    t["unfetched"] += 1
                elif not (rec.get("status") or "").startswith("2") or s == "":
                    t["unreached"] += 1
                else:
                    kept.append((r["seat"], r.get("asset", ""), url, s))
                    if label != "" and site(label) != s:
                        t["relabelled"] += 1
        seats = sorted({r["seat"] for r in rr})
        counts: dict[tuple[str, str], int] = {}
        by_site: dict[str, int] = {}
        seat_of_site: dict[str, set[str]] = {}
        links: dict[str, set[str]] = {s: set() for s in seats}
        sites: dict[str, set[str]] = {s: set() for s in seats}
        cell: dict[tuple[str, str], set[str]] = {}
        for seat, market, url, s in kept:
            counts[(s, seat)] = counts.get((s, seat), 0) + 1
            by_site[s] = by_site.get(s, 0) + 1
            seat_of_site.setdefault(s, set()).add(seat)
            links[seat].add(url)
            sites[seat].add(s)
            cell.setdefault((seat, market), set()).add(url)
        n = len(kept)
        top = sorted(by_site.items(), key=lambda kv: (-kv[1], kv[0]))[0] if by_site else None
        shared = sum(k for s, k in by_site.items() if len(seat_of_site[s]) >= 2)
        actions: dict[str, dict[str, str]] = {}
        for r in rr:
            if r.get("action") in ACTIONS:
                actions.setdefault(r.get("asset", ""), {}).setdefault(r["seat"], r["action"])
        strata = []
        for market in sorted(actions):
            ss = sorted(actions[market])
            if len(ss) < 2:
                continue
            pairs = []
            for i, j in itertools.combinations(range(len(ss)), 2):
                meet = cell.get((ss[i], market), set()) & cell.get((ss[j], market), set())
                pairs.append((i, j, len(meet) > 0))
            strata.append(([actions[market][s] for s in ss], pairs))
        jl, pl = mean_jaccard(links)
        js, ps = mean_jaccard(sites)
        out_runs.append({
            "run_id": run_id, "session": rr[0].get("session", ""), "seats": seats, "rows": len(rr), "citations": n,
            **t, "top_site": top[0] if top else None, "top_share": r6(top[1] / n) if top else None,
            "shared_site_share": r6(shared / n) if n else None, "jaccard_links": r6(jl), "jaccard_link_pairs": pl,
            "jaccard_sites": r6(js), "jaccard_site_pairs": ps, "permutation": perm_test(strata, seed, count),
            "seat_sites": table(counts)})
        for key, k in counts.items():
            all_counts[key] = all_counts.get(key, 0) + k
        all_strata.extend(strata)
        for name in t:
            totals[name] += t[name]
        totals["citations"] += n
    site_totals: dict[str, int] = {}
    for (s, _), k in all_counts.items():
        site_totals[s] = site_totals.get(s, 0) + k
    tops = sorted(site_totals.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP]
    return {"method": {"seed": seed, "permutations": count, "ask_sites": ask_sites, "ask_links": sorted(asked)},
            "runs": out_runs,
            "season": {"runs": len(out_runs), **totals,
                       "top_sites": [{"site": s, "citations": k, "share": r6(k / totals["citations"])}
                                     for s, k in tops],
                       "permutation": perm_test(all_strata, seed, count), "seat_sites": table(all_counts)}}


def norm(x: object) -> object:
    if isinstance(x, float):
        return round(x, 6)
    if isinstance(x, bool) or x is None or isinstance(x, (int, str)):
        return x
    if isinstance(x, list):
        return [norm(v) for v in x]
    if isinstance(x, dict):
        return {k: norm(v) for k, v in x.items()}
    return x


def differences(published: object, mine: object, path: str = "") -> tuple[int, list[str]]:
    """(figures compared, differences) between two JSON values; definitions are skipped."""
    if isinstance(published, dict) and isinstance(mine, dict):
        compared, found = 0, []
        for key in sorted(set(published) | set(mine)):
            if key == "definitions":
                continue
            if key not in published or key not in mine:
                found.append(f"{path}.{key}: only in {'the recount' if key in mine else 'the published file'}")
                continue
            c, f = differences(published[key], mine[key], f"{path}.{key}")
            compared, found = compared + c, found + f
        return compared, found
    if isinstance(published, list) and isinstance(mine, list):
        if len(published) != len(mine):
            return 1, [f"{path}: {len(published)} entries published, {len(mine)} recounted"]
        compared, found = 0, []
        for i, (a, b) in enumerate(zip(published, mine, strict=True)):
            c, f = differences(a, b, f"{path}[{i}]")
            compared, found = compared + c, found + f
        return compared, found
    if isinstance(published, (int, float)) and isinstance(mine, (int, float)) \
            and not isinstance(published, bool) and not isinstance(mine, bool):
        same = norm(float(published)) == norm(float(mine))
    else:
        same = norm(published) == norm(mine)
    return 1, ([] if same else [f"{path}: published {published!r}, recounted {mine!r}"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Recount council-sources.json from the published files.")
    parser.add_argument("folder", help="the open-data folder")
    parser.add_argument("--json", action="store_true", help="print the recounted report instead of comparing")
    args = parser.parse_args(argv)
    try:
        with open(os.path.join(args.folder, REPORT), encoding="utf-8") as fh:
            published = json.load(fh)
        mine = recount(args.folder, published["method"])
    except (OSError, ValueError, KeyError, TypeError, csv.Error) as exc:
        print(f"recount_sources: cannot read the published files: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(mine, indent=1, ensure_ascii=False))
        return 0
    compared, problems = differences(published, mine, "council-sources.json")
    for line in problems:
        print(f"MISMATCH {line}")
    print(f"recount_sources: {compared} figures compared, {len(problems)} differ")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
