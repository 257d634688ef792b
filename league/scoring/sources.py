"""Shared sources: how much the seats' cited links and sites overlap, and whether sharing goes with agreeing.

The inputs are what a reader holds: the counted one-day rows of ``council-forecasts.csv`` sealed before their
reference (``source_urls``, ``source_domains``, ``action``), the league's own fetch records of those links
(``arms/fetch-records.csv``) and the links the asks themselves contained (``asks/*.md``). They are read as
``csv.DictReader`` yields them (all text), so that the stand-alone ``league/verify/tools/recount_sources.py``
recounts every figure from the same files without the league. The definitions are published in the file,
word for word, so the rule stands beside the number.

Why each rule:

- A citation is one link of one answer cell (a link twice in a cell counts once). A link is a string a model
  wrote; it proves nothing until the league itself fetched it, so only a link whose fetch record got a 2xx
  answer enters the figures; a link without a record is counted apart (``unfetched``), one whose fetch failed
  or was refused apart again (``unreached``).
- The site of a citation is the host the league's fetch really reached (after redirects), not the label the
  answer gave: a citation named after one outlet can link to another. Both are kept (``relabelled`` counts the
  citations whose label is not their host).
- What the ask itself gave every seat (the snapshot, pre-market futures) is shared by construction, not by
  research: a citation of a link that appears in an ask text, or of a site on the league's own data-source
  list (``ask_sites``, published in the file), is removed before any shared figure is counted.
"""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, product
from itertools import permutations as all_orders
from math import factorial, prod
from urllib.parse import urlsplit

from league.jsonvalue import Json

Row = Mapping[str, str]
COUNTED_ROLES = ("session_run", "counted")
ISSUE = ("issue", "answer")
HORIZON = "1d"
ACTIONS = ("buy_strong", "buy_dips", "hold", "trim", "sell")
#: The permutation test's fixed seed and size (published in the file's ``method``).
SEED = 20261016
PERMUTATIONS = 2000
DIGITS = 6
#: The league's own data sources: the hosts its snapshot's prices come from (config ``[sources] ask_sites``).
DEFAULT_ASK_SITES = ("finance.yahoo.com", "query1.finance.yahoo.com", "query2.finance.yahoo.com")
TOP_SITES = 10

DEFINITIONS: dict[str, str] = {
    "rows": "council-forecasts.csv rows with run_role session_run or counted, status counted, line_kind issue or "
            "answer, horizon 1d, seat not starting with '_', sealed_at <= event_reference_at (else reference_at), "
            "ISO text compared as text",
    "citation": "one link of one such row (source_urls split on ';', blanks dropped, a link repeated in the row "
                "counted once); its label is the source_domains entry at the same position (empty when none)",
    "removed": "a citation whose link appears in an ask text (asks/*.md: every http(s) URL in it) or whose site "
               "(the fetch record's host, else the link's own host) is, or is under, a host in "
               "method.ask_sites: what the ask itself gave the seats",
    "unfetched": "a citation of a link with no fetch record for its session (arms/fetch-records.csv)",
    "unreached": "a citation whose fetch record has no 2xx status (refused, timed out, not found)",
    "site": "the fetch record's host (lower case; a ':port' when it has one colon, a trailing '.' and a leading "
            "'www.' dropped): where the link really led",
    "relabelled": "counted citations with a label whose label (normalised as a site) is not their site",
    "citations": "counted citations: not removed, fetched with a 2xx status",
    "top_share": "the most-cited site's count / citations (ties: the alphabetically first site)",
    "shared_site_share": "citations on sites cited by at least two seats of the run / citations",
    "jaccard": "per seat the set of its counted links (sites) over the run's rows; mean over seat pairs of "
               "|A and B| / |A or B|, pairs with both sets empty left out (pairs: how many entered)",
    "permutation": "strata: run x market; in each, the seats with an action among buy_strong, buy_dips, hold, "
                   "trim, sell; a pair shares when their rows' counted link sets meet. statistic = agreement "
                   "rate (same action) of sharing pairs - that of non-sharing pairs, pooled over the strata; "
                   "null unless both kinds of pair exist. What is permuted: the actions among the seats of each "
                   "stratum (the links stay with the seats). Exact when the product over strata of "
                   "(seats)! is at most method.permutations: every permutation enumerated (strata in (run, "
                   "market) order, each stratum's seats in id order, itertools.permutations order), "
                   "p = share with statistic >= observed - 1e-12. Otherwise random.Random(method.seed); "
                   "method.permutations times: for each stratum in order, shuffle that stratum's list of "
                   "actions (seats in id order) with rng.shuffle; p = (1 + count >= observed - 1e-12) / "
                   "(1 + permutations). Per run the strata of that run (its own Random(seed)); season: all.",
    "seat_sites": "site x seat counts of counted citations (the 'who cites what' chart)",
}


def site_of(host: str) -> str:
    """A host as a site: lower case, no port (a label may carry one), no trailing dot, no leading ``www.``."""
    h = host.strip().lower()
    if h.count(":") == 1:  # host:port (an IPv6 address has more colons and no port here)
        h = h.split(":")[0]
    h = h.rstrip(".")
    return h[4:] if h.startswith("www.") else h


def _host(url: str) -> str:
    try:
        return site_of(urlsplit(url).hostname or "")
    except ValueError:
        return ""


def _under(site: str, sites: Iterable[str]) -> bool:
    return any(site == s or site.endswith("." + s) for s in sites)


@dataclass(frozen=True)
class Citation:
    run_id: str
    market: str
    seat: str
    url: str
    label: str


def in_time(row: Row) -> bool:
    """A counted one-day cell sealed before its reference (the rows whose citations count)."""
    ref = row.get("event_reference_at") or row.get("reference_at") or ""
    return (row.get("run_role") in COUNTED_ROLES and row.get("status") == "counted"
            and row.get("line_kind") in ISSUE and row.get("horizon") == HORIZON
            and not row.get("seat", "").startswith("_") and bool(ref) and row.get("sealed_at", "") <= ref)


def citations(row: Row) -> list[Citation]:
    """The row's citations, each link once, in the row's order, with its label."""
    urls = (row.get("source_urls") or "").split(";")
    labels = (row.get("source_domains") or "").split(";")
    out: list[Citation] = []
    seen: set[str] = set()
    for i, raw in enumerate(urls):
        url = raw.strip()
        if not url or url in seen:
            continue
        seen.add(url)
        label = labels[i].strip() if i < len(labels) else ""
        out.append(Citation(row["run_id"], row.get("asset", ""), row["seat"], url, label))
    return out


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, DIGITS)


def _jaccard(sets: Mapping[str, set[str]]) -> tuple[float | None, int]:
    values = [len(sets[a] & sets[b]) / len(sets[a] | sets[b])
              for a, b in combinations(sorted(sets), 2) if sets[a] | sets[b]]
    return (sum(values) / len(values) if values else None), len(values)


#: One stratum: its seats' actions (seats in id order) and, per seat pair (i, j), whether they share a link.
Stratum = tuple[list[str], list[tuple[int, int, bool]]]


def _statistic(strata: Sequence[Stratum], actions: Sequence[Sequence[str]]) -> float | None:
    agree = {True: 0, False: 0}
    total = {True: 0, False: 0}
    for (_, pairs), acts in zip(strata, actions, strict=True):
        for i, j, share in pairs:
            total[share] += 1
            agree[share] += acts[i] == acts[j]
    if not total[True] or not total[False]:
        return None
    return agree[True] / total[True] - agree[False] / total[False]


def permutation_test(strata: Sequence[Stratum], seed: int = SEED, permutations: int = PERMUTATIONS) -> Json:
    """Do sharing pairs agree more often than non-sharing ones? (see DEFINITIONS["permutation"])."""
    observed = _statistic(strata, [s[0] for s in strata])
    sharing = sum(1 for s in strata for p in s[1] if p[2])
    base: dict[str, Json] = {"strata": len(strata), "pairs": sum(len(s[1]) for s in strata),
                             "sharing_pairs": sharing, "statistic": _round(observed), "p": None,
                             "exact": None, "permutations": None}
    if observed is None:
        return base
    space = prod(factorial(len(s[0])) for s in strata)
    hits = 0
    if space <= permutations:
        for combo in product(*(list(all_orders(s[0])) for s in strata)):
            value = _statistic(strata, combo)
            hits += value is not None and value >= observed - 1e-12
        return {**base, "p": _round(hits / space), "exact": True, "permutations": space}
    # Permuting within a stratum keeps its count of agreeing pairs: only the sharing pairs need counting, the
    # others' agreement is the rest (the same integers as a full count, hence the same statistic, bit for bit).
    shared = [[(i, j) for i, j, share in s[1] if share] for s in strata]
    agreeing = sum(acts[i] == acts[j] for acts, pairs in ((s[0], s[1]) for s in strata) for i, j, _ in pairs)
    n_share = sum(len(x) for x in shared)
    n_other = sum(len(s[1]) for s in strata) - n_share
    rng = random.Random(seed)
    lists = [list(s[0]) for s in strata]
    for _ in range(permutations):
        a_share = 0
        for acts, pairs in zip(lists, shared, strict=True):
            rng.shuffle(acts)
            for i, j in pairs:
                a_share += acts[i] == acts[j]
        hits += a_share / n_share - (agreeing - a_share) / n_other >= observed - 1e-12
    return {**base, "p": _round((1 + hits) / (1 + permutations)), "exact": False, "permutations": permutations}


def ask_links(texts: Iterable[str]) -> set[str]:
    """Every http(s) URL an ask text contains (up to whitespace, a closing bracket or quote)."""
    found: set[str] = set()
    for text in texts:
        for m in re.finditer(r"https?://[^\s<>()\[\]\"'`|]+", text):
            found.add(m.group(0).rstrip(".,;:"))
    return found


def sources_report(rows: Iterable[Row], fetches: Iterable[Row], asked_links: Iterable[str],
                   ask_sites: Sequence[str] = DEFAULT_ASK_SITES, *, seed: int = SEED,
                   permutations: int = PERMUTATIONS) -> dict[str, Json]:
    """``council-sources.json``: per run and for the season, the overlap figures of the counted citations."""
    sites_off = sorted({site_of(s) for s in ask_sites if s.strip()})
    links_off = set(asked_links)
    records: dict[tuple[str, str], Row] = {}
    for f in fetches:
        records.setdefault((f.get("session", ""), f.get("url", "")), f)  # the first record of a link counts
    by_run: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        if in_time(row):
            by_run[row["run_id"]].append(row)
    runs: list[Json] = []
    season_counts: Counter[tuple[str, str]] = Counter()
    season_strata: list[Stratum] = []
    season_tally: Counter[str] = Counter()
    for run_id in sorted(by_run):
        run_rows = by_run[run_id]
        tally: Counter[str] = Counter()
        counted: list[tuple[Citation, str]] = []
        cell_links: dict[tuple[str, str], set[str]] = defaultdict(set)
        for row in run_rows:
            for c in citations(row):
                rec = records.get((row.get("session", ""), c.url))
                site = site_of(rec.get("host", "")) if rec is not None else ""
                if c.url in links_off or _under(site or _host(c.url), sites_off):
                    tally["removed"] += 1
                elif rec is None:
                    tally["unfetched"] += 1
                elif not (rec.get("status") or "").startswith("2") or not site:
                    tally["unreached"] += 1
                else:
                    counted.append((c, site))
                    cell_links[(c.seat, c.market)].add(c.url)
                    tally["relabelled"] += bool(c.label) and site_of(c.label) != site
        seats = sorted({r["seat"] for r in run_rows})
        site_count = Counter(site for _, site in counted)
        site_seats: dict[str, set[str]] = defaultdict(set)
        seat_sites: Counter[tuple[str, str]] = Counter()
        links: dict[str, set[str]] = {s: set() for s in seats}
        sites: dict[str, set[str]] = {s: set() for s in seats}
        for c, site in counted:
            site_seats[site].add(c.seat)
            seat_sites[(site, c.seat)] += 1
            links[c.seat].add(c.url)
            sites[c.seat].add(site)
        n = len(counted)
        top = min(site_count.items(), key=lambda kv: (-kv[1], kv[0])) if site_count else None
        shared = sum(k for s, k in site_count.items() if len(site_seats[s]) >= 2)
        strata = _strata(run_rows, cell_links)
        j_links, p_links = _jaccard(links)
        j_sites, p_sites = _jaccard(sites)
        runs.append({
            "run_id": run_id, "session": run_rows[0].get("session", ""), "seats": list[Json](seats),
            "rows": len(run_rows),
            "citations": n, "removed": tally["removed"], "unfetched": tally["unfetched"],
            "unreached": tally["unreached"], "relabelled": tally["relabelled"],
            "top_site": top[0] if top else None, "top_share": _round(top[1] / n) if top else None,
            "shared_site_share": _round(shared / n) if n else None,
            "jaccard_links": _round(j_links), "jaccard_link_pairs": p_links,
            "jaccard_sites": _round(j_sites), "jaccard_site_pairs": p_sites,
            "permutation": permutation_test(strata, seed, permutations),
            "seat_sites": _table(seat_sites),
        })
        season_counts.update(seat_sites)
        season_strata.extend(strata)
        season_tally.update(tally)
        season_tally["citations"] += n
    site_totals = Counter[str]()
    for (site, _), k in season_counts.items():
        site_totals[site] += k
    total = season_tally["citations"]
    return {
        "method": {"seed": seed, "permutations": permutations, "ask_sites": list[Json](sites_off),
                   "ask_links": list[Json](sorted(links_off)), "definitions": dict(DEFINITIONS)},
        "runs": runs,
        "season": {
            "runs": len(runs), "citations": total, "removed": season_tally["removed"],
            "unfetched": season_tally["unfetched"], "unreached": season_tally["unreached"],
            "relabelled": season_tally["relabelled"],
            "top_sites": [{"site": s, "citations": k, "share": _round(k / total)}
                          for s, k in sorted(site_totals.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_SITES]],
            "permutation": permutation_test(season_strata, seed, permutations),
            "seat_sites": _table(season_counts),
        },
    }


def _strata(run_rows: Sequence[Row], cell_links: Mapping[tuple[str, str], set[str]]) -> list[Stratum]:
    """The run's markets in order, each with its seats' actions and its pairs' sharing."""
    acts: dict[str, dict[str, str]] = defaultdict(dict)
    for row in run_rows:
        if row.get("action") in ACTIONS:
            acts[row.get("asset", "")].setdefault(row["seat"], row["action"])
    out: list[Stratum] = []
    for market in sorted(acts):
        seats = sorted(acts[market])
        if len(seats) < 2:
            continue
        pairs = [(i, j, bool(cell_links.get((seats[i], market), set()) & cell_links.get((seats[j], market), set())))
                 for i, j in combinations(range(len(seats)), 2)]
        out.append(([acts[market][s] for s in seats], pairs))
    return out


def _table(counts: Mapping[tuple[str, str], int]) -> list[Json]:
    """site x seat counts as rows, sites by total (then name), seats by id."""
    per: dict[str, dict[str, int]] = defaultdict(dict)
    for (site, seat), k in counts.items():
        per[site][seat] = k
    order = sorted(per, key=lambda s: (-sum(per[s].values()), s))
    return [{"site": s, "total": sum(per[s].values()), "seats": {k: per[s][k] for k in sorted(per[s])}}
            for s in order]
