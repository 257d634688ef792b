"""The shared-sources figures on a case small enough to count by hand: 3 seats, 2 markets, known links.

Every expected value below is worked out in the comments from the rows, not taken from the code."""

from __future__ import annotations

import csv
import json
import random
import subprocess
import sys
from fractions import Fraction
from itertools import combinations
from pathlib import Path

import pytest

from league.scoring.sources import ask_links, permutation_test, sources_report

REF = "2026-10-20T13:30:00Z"
TOOL = Path(__file__).resolve().parents[3] / "league" / "verify" / "tools" / "recount_sources.py"


def row(seat: str, market: str, action: str, urls: str, labels: str, **over: str) -> dict[str, str]:
    base = {"run_id": "2026-10-20-am", "session": "2026-10-20", "seat": seat, "asset": market, "horizon": "1d",
            "run_role": "counted", "status": "counted", "line_kind": "issue", "sealed_at": "2026-10-20T12:40:00Z",
            "event_reference_at": REF, "reference_at": REF, "action": action, "source_urls": urls,
            "source_domains": labels}
    return {**base, **over}


def rec(url: str, host: str, status: str) -> dict[str, str]:
    return {"session": "2026-10-20", "url": url, "host": host, "status": status, "label": ""}


U = {k: f"http://s{k}.test/a{k}" for k in range(1, 10)}
ROWS = [
    row("a", "M1", "hold", f"{U[1]};{U[2]}", "reuters.com;y.com"),
    row("a", "M2", "buy_dips", f"{U[1]};{U[8]};{U[1]}", "reuters.com;finance.yahoo.com;reuters.com"),
    row("b", "M1", "hold", f"{U[1]};{U[3]}", "reuters.com;z.com"),
    row("b", "M2", "sell", U[4], "cnbc.com"),
    row("c", "M1", "trim", f"{U[5]};{U[7]}", "x.com;league.test"),
    row("c", "M2", "sell", f"{U[4]};{U[6]}", "cnbc.com;w.com"),
    # never counted: a later horizon, a late seal, a baseline, a reference run
    row("a", "M1", "hold", U[9], "q.com", horizon="1w"),
    row("b", "M1", "hold", U[9], "q.com", sealed_at="2026-10-20T13:31:00Z"),
    row("_clim", "M1", "hold", U[9], "q.com"),
    row("c", "M1", "hold", U[9], "q.com", run_role="earlier_run"),
]
FETCHES = [rec(U[1], "www.Reuters.com", "200"), rec(U[2], "y.com", "200"), rec(U[3], "reuters.com", "200"),
           rec(U[4], "cnbc.com", "200"), rec(U[5], "x.com", "404"), rec(U[8], "finance.yahoo.com", "200"),
           rec(U[9], "q.com", "200")]
ASK = f"Prices are at {U[7]}. The table | code |"


def test_ask_links_are_read_from_the_ask_text() -> None:
    assert ask_links([ASK]) == {U[7]}


def test_the_run_figures_by_hand() -> None:
    report = sources_report(ROWS, FETCHES, ask_links([ASK]))
    (run,) = report["runs"]  # type: ignore[misc]
    assert run["seats"] == ["a", "b", "c"] and run["rows"] == 6
    # counted: a/M1 u1 u2, a/M2 u1 (u1 again in the cell once; u8 on finance.yahoo.com removed), b/M1 u1 u3,
    # b/M2 u4, c/M2 u4 -> 7; c/M1 u5 is a 404 (unreached), u7 is in the ask (removed), c/M2 u6 has no record
    assert (run["citations"], run["removed"], run["unfetched"], run["unreached"]) == (7, 2, 1, 1)
    assert run["relabelled"] == 1  # u3 labelled z.com, led to reuters.com
    # sites: reuters.com 4 (a twice, b twice), cnbc.com 2 (b, c), y.com 1
    assert run["top_site"] == "reuters.com" and run["top_share"] == round(4 / 7, 6)
    assert run["shared_site_share"] == round(6 / 7, 6)
    # links a {u1,u2} b {u1,u3,u4} c {u4}: ab 1/4, ac 0, bc 1/3
    assert run["jaccard_links"] == round(float((Fraction(1, 4) + 0 + Fraction(1, 3)) / 3), 6) and \
        run["jaccard_link_pairs"] == 3
    # sites a {reuters,y} b {reuters,cnbc} c {cnbc}: ab 1/3, ac 0, bc 1/2
    assert run["jaccard_sites"] == round(float((Fraction(1, 3) + 0 + Fraction(1, 2)) / 3), 6)
    assert run["seat_sites"] == [{"site": "reuters.com", "total": 4, "seats": {"a": 2, "b": 2}},
                                 {"site": "cnbc.com", "total": 2, "seats": {"b": 1, "c": 1}},
                                 {"site": "y.com", "total": 1, "seats": {"a": 1}}]


def test_the_permutation_p_enumerated_by_hand() -> None:
    """M1: a hold, b hold, c trim; a and b share u1. M2: a buy_dips, b sell, c sell; b and c share u4.
    Both sharing pairs agree, no other pair does: statistic 1 - 0 = 1. Permuting the actions within each
    market, a sharing pair agrees in 2 of 6 orders (the odd action on the third seat); the statistic reaches 1
    only when both do: p = 1/3 * 1/3 = 1/9, over 3! * 3! = 36 orders, enumerated."""
    test = sources_report(ROWS, FETCHES, ask_links([ASK]))["runs"][0]["permutation"]  # type: ignore[index]
    assert test == {"strata": 2, "pairs": 6, "sharing_pairs": 2, "statistic": 1.0, "p": round(1 / 9, 6),
                    "exact": True, "permutations": 36}


def test_the_sampled_permutation_replays_with_the_documented_procedure() -> None:
    strata = [(["hold", "hold", "trim"], [(0, 1, True), (0, 2, False), (1, 2, False)]),
              (["buy_dips", "sell", "sell"], [(0, 1, False), (0, 2, False), (1, 2, True)])]
    got = permutation_test(strata, seed=7, permutations=20)  # 20 < 36: sampled
    # the procedure in words: Random(seed); each round shuffle each stratum's list in order; count >= observed
    rng, lists, hits = random.Random(7), [["hold", "hold", "trim"], ["buy_dips", "sell", "sell"]], 0
    for _ in range(20):
        for acts in lists:
            rng.shuffle(acts)
        hits += lists[0][0] == lists[0][1] and lists[1][1] == lists[1][2]  # both sharing pairs agree: 1
    assert got["exact"] is False and got["permutations"] == 20 and got["p"] == round((1 + hits) / 21, 6)


def test_no_figure_without_both_kinds_of_pair() -> None:
    got = permutation_test([(["hold", "sell"], [(0, 1, True)])])
    assert got["statistic"] is None and got["p"] is None


def test_the_season_sums_the_runs() -> None:
    second = [{**r, "run_id": "2026-10-21-am", "session": "2026-10-21"} for r in ROWS[:2]]
    fetches = FETCHES + [{**f, "session": "2026-10-21"} for f in (*FETCHES[:2], FETCHES[5])]
    report = sources_report(ROWS + second, fetches, ask_links([ASK]))
    season = report["season"]
    assert [r["run_id"] for r in report["runs"]] == ["2026-10-20-am", "2026-10-21-am"]  # type: ignore[union-attr,index]
    # second run: a/M1 u1 u2, a/M2 u1 (u8 removed): 3 counted, one seat -> no pair
    assert season["citations"] == 10 and season["removed"] == 3  # type: ignore[index]
    assert season["top_sites"][0] == {"site": "reuters.com", "citations": 6, "share": 0.6}  # type: ignore[index]
    second_run = report["runs"][1]  # type: ignore[index]
    assert second_run["jaccard_links"] is None and second_run["jaccard_link_pairs"] == 0
    assert len(list(combinations("abc", 2))) == season["permutation"]["pairs"] // 2  # type: ignore[index]


@pytest.mark.parametrize("status", ["", "301", "500"])
def test_a_fetch_without_a_2xx_is_unreached(status: str) -> None:
    fetches = [rec(U[4], "cnbc.com", status)]
    report = sources_report([row("b", "M2", "sell", U[4], "cnbc.com")], fetches, [])
    assert report["runs"][0]["unreached"] == 1 and report["runs"][0]["citations"] == 0  # type: ignore[index]


def _folder(root: Path, report: object) -> Path:
    """The hand case as an open-data folder: the CSV, the fetch records, one ask text and the report."""
    columns = sorted({k for r in ROWS for k in r})
    with open(root / "council-forecasts.csv", "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(ROWS)
    (root / "arms").mkdir()
    with open(root / "arms" / "fetch-records.csv", "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=["session", "url", "label", "host", "status"])
        writer.writeheader()
        writer.writerows(FETCHES)
    (root / "asks").mkdir()
    (root / "asks" / "abc.md").write_text(ASK, encoding="utf-8")
    (root / "council-sources.json").write_text(json.dumps(report), encoding="utf-8")
    return root


def _recount(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-I", str(TOOL), "."], cwd=folder, capture_output=True, text=True,
                          check=False)


def test_the_recount_tool_agrees_and_catches_a_changed_figure(tmp_path: Path) -> None:
    report = json.loads(json.dumps(sources_report(ROWS, FETCHES, ask_links([ASK]))))
    (tmp_path / "same").mkdir()
    assert _recount(_folder(tmp_path / "same", report)).returncode == 0
    for path, value in ((("runs", 0, "permutation", "p"), 0.2), (("season", "removed"), 3),
                        (("runs", 0, "seat_sites", 0, "seats", "a"), 1)):
        changed = json.loads(json.dumps(report))
        node = changed
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        folder = tmp_path / "-".join(map(str, path))
        folder.mkdir()
        done = _recount(_folder(folder, changed))
        assert done.returncode == 1 and "MISMATCH" in done.stdout, (path, done.stdout)
    missing = tmp_path / "missing"
    missing.mkdir()
    (missing / "council-sources.json").write_text(json.dumps(report), encoding="utf-8")
    assert _recount(missing).returncode == 2  # no council-forecasts.csv


def test_a_link_without_a_label_is_not_relabelled() -> None:
    report = sources_report([row("b", "M2", "sell", f"{U[4]};{U[3]}", "cnbc.com")], FETCHES, [])
    run = report["runs"][0]  # type: ignore[index]
    assert run["citations"] == 2 and run["relabelled"] == 0  # U[3] has no label (none at its position)
