"""The example registry on a demo season: registered before the first session, every line resolved at the last
publication and checked by hand here from the files it read; `league verify` rebuilds predictions.json and
re-resolves every line with the published resolver; a registry changed after sealing is caught, and a script
whose bytes differ from its sealed hash is not run."""

from __future__ import annotations

import csv
import json
import math
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from league.demo import run_demo
from league.publish.rebuild import rebuild_step
from league.verify.reader import verify_published
from league.verify.tools import resolve_predictions as resolver

SESSIONS = 13
OPS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    out = tmp_path_factory.mktemp("predictions") / "demo"
    result = run_demo(out, sessions=SESSIONS, split=False)
    return result.public_dir


def _report(folder: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((folder / "predictions.json").read_text(encoding="utf-8"))
    return loaded


def _kept(folder: Path, line: dict[str, Any], name: str) -> Path:
    return folder / "predictions" / "inputs" / line["resolution"]["inputs"][name]


def _first(items: list[dict[str, Any]], **match: str) -> dict[str, Any]:
    return next(x for x in items if all(x.get(k) == v for k, v in match.items()))


def _set_a_by_hand(folder: Path, line: dict[str, Any]) -> tuple[float, int]:
    """Each set-A line's value and sample, read here by hand from the files its resolution kept."""
    def doc(name: str) -> Any:
        return json.loads(_kept(folder, line, name).read_text(encoding="utf-8"))
    if line["id"] == "F10":
        vs = _first(doc("council-stats.json")["consensus"]["summary"], horizon="1d")["vs_best_earlier_seat"]
        return vs["brier_consensus"] - vs["brier_seat"], vs["events"]
    if line["id"] == "F12":
        s = _first(doc("council-stats.json")["consensus"]["summary"], horizon="1d")
        return s["bss_coin"], s["events"]
    if line["id"] == "F16":
        by = doc("council-league.json")["grid"]["by_horizon"]
        return _first(by, horizon="1d")["brier"] - _first(by, horizon="1w")["brier"], _first(by, horizon="1w")["n"]
    if line["id"] == "F20":
        season = doc("arena-cb-experiment.json")["season"]
        return season["closed_book"]["mean_heat"] - season["open"]["mean_heat"], season["closed_book"]["runs"]
    if line["id"] == "F22":
        f22 = doc("council-talk.json")["season"]["f22"]
        return f22["share"], f22["n"]
    assert line["id"] == "F24"
    season = doc("council-repeats.json")["kinds"]["repeat_open"]["season"]
    return season["within_var"] - season["between_var"], season["sessions"]


def _rows(folder: Path, line: dict[str, Any]) -> list[dict[str, str]]:
    """The window's council rows, by hand: from the 2nd session (the demo's copy) to the check date."""
    with _kept(folder, line, "council-forecasts.csv").open(encoding="utf-8", newline="") as fh:
        every = list(csv.DictReader(fh))
    second = sorted({r["session"] for r in every})[line["window"]["from_session"] - 1]
    return [r for r in every if second <= r["session"] <= line["window"]["to"] and r["status"] == "counted"
            and r["run_role"] in ("session_run", "counted") and r["seat"][0] != "_"]


def _timely(r: dict[str, str]) -> bool:
    return bool(r["sealed_at"]) and r["sealed_at"] <= (r["event_reference_at"] or r["reference_at"])


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def _set_b_by_hand(folder: Path, line: dict[str, Any]) -> tuple[float, int]:
    rows = _rows(folder, line)
    stated = [r for r in rows if _timely(r) and r["prob_up"]]
    if line["id"] == "F8":
        return sum(map(_timely, rows)) / len(rows), len(rows)
    if line["id"] == "F1":
        p: dict[str, dict[str, float]] = {}
        for r in stated:
            if r["horizon"] == "1d":
                p.setdefault(r["seat"], {}).setdefault(r["event_id_v2"], float(r["prob_up"]))
        corr = []
        seats = sorted(p)
        for i, a in enumerate(seats):
            for b in seats[i + 1:]:
                both = sorted(set(p[a]) & set(p[b]))
                xs, ys = [p[a][e] for e in both], [p[b][e] for e in both]
                if len(both) >= 5 and statistics.pvariance(xs) > 0 and statistics.pvariance(ys) > 0:
                    corr.append(statistics.correlation(xs, ys))
        return statistics.fmean(corr), len(corr)
    if line["id"] == "F15":
        stats = json.loads(_kept(folder, line, "council-stats.json").read_text(encoding="utf-8"))
        move = {(r["asset"], r["session"]): _sign(float(r["close"]) - float(r["ref"]))
                for r in rows if r["horizon"] == "1d" and r["ref"] and r["close"]}
        days = sorted({d for _, d in move})
        pairs = []
        for e in stats["consensus"]["per_event"]:
            if e["horizon"] != "1d" or e["session"] not in days or e.get("outcome") is None:
                continue
            k = days.index(e["session"])
            sign = move.get((e["asset"], days[k - 1]), 0) if k else 0
            if sign:
                rule = 0.55 if sign > 0 else 0.45
                pairs.append(((e["p"] / 100 - e["outcome"]) ** 2, (rule - e["outcome"]) ** 2))
        return statistics.fmean(c for c, _ in pairs) - statistics.fmean(m for _, m in pairs), len(pairs)
    assert line["id"] == "F25"
    scored = [r for r in stated if r["horizon"] == "1d" and r["ref"] and r["close"]]
    days = sorted({r["session"] for r in scored})
    early = set(days[: len(days) // 2])
    halves: dict[str, tuple[list[float], list[float]]] = {}
    for r in scored:
        y = 1.0 if float(r["close"]) > float(r["ref"]) else 0.0
        halves.setdefault(r["seat"], ([], []))[0 if r["session"] in early else 1].append(
            (float(r["prob_up"]) / 100 - y) ** 2)
    seats = sorted(s for s, (a, b) in halves.items() if len(a) >= 3 and len(b) >= 3)

    def ranked(values: list[float]) -> list[float]:
        return [sum(v < x for v in values) + (sum(v == x for v in values) + 1) / 2 for x in values]
    first = ranked([statistics.fmean(halves[s][0]) for s in seats])
    second = ranked([statistics.fmean(halves[s][1]) for s in seats])
    return statistics.correlation(first, second), len(seats)


def test_every_line_of_the_example_registry_is_resolved_on_the_demo_and_checked_by_hand(demo: Path) -> None:
    report = _report(demo)
    lines = {x["id"]: x for x in report["predictions"]}
    assert sorted(lines) == sorted(["F10", "F12", "F16", "F20", "F22", "F24", "F1", "F8", "F15", "F25"])
    for ident, line in lines.items():
        resolution = line["resolution"]
        assert resolution is not None and line["status"] in ("true", "false"), (ident, resolution)
        value, n = (_set_a_by_hand if line["set"] == "A" else _set_b_by_hand)(demo, line)
        assert math.isclose(resolution["value"], round(value, 6), abs_tol=1e-9), (ident, value, resolution)
        assert resolution["n"] == n, ident
        assert n >= line["min_sample"], ident
        assert line["status"] == ("true" if OPS[line["op"]](value, line["threshold"]) else "false"), ident
        assert line["command"] == f"python3 -I tools/resolve_predictions.py . --id {ident}"
    card = report["scorecard"]
    outcomes = [(x["p"], 1.0 if x["status"] == "true" else 0.0) for x in lines.values()]
    brier = sum((p - y) ** 2 for p, y in outcomes) / len(outcomes)
    assert card["resolved"] == card["due"] == 10 and card["share_resolved"] == 1.0
    assert math.isclose(card["brier"], round(brier, 6), abs_tol=1e-9)
    assert math.isclose(card["skill_vs_half"], round(1 - brier / 0.25, 6), abs_tol=1e-9)


def test_verify_rebuilds_the_report_and_re_resolves_every_line(demo: Path) -> None:
    steps = {r.step: r for r in verify_published(demo)}
    assert steps[5].status == "ok", steps[5].detail
    assert steps[7].status == "ok", steps[7].detail  # every recount, the resolver among them (detail shortened)
    status, detail = rebuild_step(demo)  # league verify's step 11
    assert status == "ok" and "predictions.json" in detail, detail
    proc = subprocess.run([sys.executable, "-I", "tools/resolve_predictions.py", "."], cwd=demo, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0 and "10 resolutions re-resolved, 0 differ" in proc.stdout, proc.stdout + proc.stderr


def test_a_registry_changed_after_sealing_is_caught(demo: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(demo, copy)
    [registry] = (copy / "predictions").glob("registry-*.toml")
    registry.write_text(registry.read_text(encoding="utf-8").replace("threshold = 0.9", "threshold = 0.1"),
                        encoding="utf-8")
    step5 = {r.step: r for r in verify_published(copy)}[5]
    assert step5.status == "FAILED" and registry.name in step5.detail, step5.detail


def test_a_script_whose_bytes_differ_from_its_sealed_hash_is_not_run(demo: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(demo, copy)
    [script] = (copy / "predictions" / "scripts").glob("*.py")
    script.write_text(script.read_text(encoding="utf-8").replace("return 0\n", "open('ran', 'w')\n    return 0\n"),
                      encoding="utf-8")
    proc = subprocess.run([sys.executable, "-I", "tools/resolve_predictions.py", ".", "--id", "F8"], cwd=copy,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1 and "does not have its sealed SHA-256" in proc.stdout and "not run" in proc.stdout
    assert not list(copy.rglob("ran")) and not list(Path("/tmp").glob("league-prediction-*/ran"))
    line = _first(_report(copy)["predictions"], id="F8")
    with pytest.raises(resolver.ScriptChanged):  # what the league's own resolution does with it: never runs it
        resolver.resolve(resolver.Files(str(copy)), line)


def _entry(**fields: Any) -> dict[str, Any]:
    return {"id": "T", "set": "A", "op": ">", "threshold": 0.0, "min_sample": 0,
            "window": {"from_session": 1, "to": "2030-01-01"}, **fields}


def test_an_unresolved_case_for_each_reason_and_a_rename_through_the_dictionary(demo: Path, tmp_path: Path) -> None:
    field = {"file": "council-stats.json", "path": "consensus.summary[horizon=1d].bss_coin"}
    sample = {"file": "council-stats.json", "path": "consensus.summary[horizon=1d].events"}
    small = resolver.resolve(resolver.Files(str(demo)), _entry(field=field, sample=sample, min_sample=10**6))
    assert small["status"] == "unresolved" and small["reason"].startswith("sample too small")
    gone = resolver.resolve(resolver.Files(str(demo)), _entry(field={"file": "council-sides-x.json", "path": "a"}))
    assert gone["status"] == "unresolved" and gone["reason"] == "file missing: council-sides-x.json"
    copy = tmp_path / "copy"
    shutil.copytree(demo, copy)
    stats_path = copy / "council-stats.json"
    stats_path.write_text(stats_path.read_text(encoding="utf-8").replace('"bss_coin"', '"bss_vs_coin"'),
                          encoding="utf-8")
    renamed = resolver.resolve(resolver.Files(str(copy)), _entry(field=field))
    assert renamed["status"] == "unresolved" and "without a documented equivalent" in renamed["reason"]
    dictionary = json.loads((copy / "arena-dataset.json").read_text(encoding="utf-8"))
    dictionary["renamed"] = [{"file": "council-stats.json", "old": "consensus.summary[horizon=1d].bss_coin",
                              "new": "consensus.summary[horizon=1d].bss_vs_coin"}]
    (copy / "arena-dataset.json").write_text(json.dumps(dictionary), encoding="utf-8")
    mapped = resolver.resolve(resolver.Files(str(copy)), _entry(field=field))
    assert mapped["status"] in ("true", "false")
    assert mapped["mapping"] == {"council-stats.json:consensus.summary[horizon=1d].bss_coin":
                                 "consensus.summary[horizon=1d].bss_vs_coin"}
    assert "arena-dataset.json" in mapped["inputs"]  # the dictionary that mapped it is kept with the resolution
