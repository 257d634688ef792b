"""Corrections (paper §3.10) on a one-session league (the demo's offline configuration, two history-only
seats): ``league correct price`` and ``league correct cell`` through the real CLI, then the open data
published again.

The expected figures are computed here from the CSV published BEFORE the corrections, with the corrected
reference price put in by hand: the outcome of the corrected event is flipped on purpose, so a scorer that
ignored the correction would give a different Brier. The corrected lines must stay byte for byte as sealed,
and the corrected cell is a ``correction`` row that no score reads.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from collections import defaultdict
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from league.clock import SimulatedClock
from league.compose import build_league
from league.config import load_config
from league.folder import init_folder
from league.jobs.context import Stages
from league.jobs.scheduler import run_session, session_start
from league.jobs.seal import pump
from league.publish import publish
from league.store import open_store

MARKET = "SPX"
DAY = date(2026, 6, 1)


def _rows(public: Path) -> list[dict[str, str]]:
    with open(public / "council-forecasts.csv", encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _book(public: Path) -> dict[int, str]:
    lines = (public / "council-book.jsonl").read_text(encoding="utf-8").splitlines()
    return {json.loads(text)["n"]: text for text in lines}


def _league(cmd: list[str], config: Path) -> str:
    """The installed ``league`` next to this interpreter (the worktree's own), as an operator runs it."""
    exe = Path(sys.executable).with_name("league")
    out = subprocess.run([str(exe), *cmd, "--config", str(config)], capture_output=True, text=True,
                         env={**os.environ, "NO_COLOR": "1"}, check=False)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _brier(rows: list[dict[str, str]], up_of: dict[str, bool]) -> dict[str, float]:
    """1d Brier per seat from the counted issue rows, each event's outcome given by ``up_of``."""
    acc: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        if (r["horizon"] == "1d" and r["status"] == "counted" and r["run_role"] == "session_run"
                and r["line_kind"] == "issue" and r["prob_up"] and r["same_event"] == "1"):
            acc[r["seat"]].append((float(r["prob_up"]) / 100 - up_of[r["event_id_v2"]]) ** 2)
    return {seat: sum(v) / len(v) for seat, v in acc.items()}


ROSTER = """counting_rule = "The scheduled 08:30 ET morning run counts."
[[seat]]
name = "_coin"
adapter = "coin"
[[seat]]
name = "_climatology"
adapter = "climatology"
"""


def _one_session(out: Path) -> tuple[Path, Path]:
    """A one-session league of the demo's offline configuration (replay prices, local authorities) with
    two history-only seats (no sandbox: fast), run through the scheduler and published."""
    clock = SimulatedClock(session_start(DAY))
    config_dir, data_dir = init_folder(out, demo=True, clock=clock)
    (config_dir / "roster.toml").write_text(ROSTER)
    config = load_config(config_dir)
    with build_league(config, clock, stages=Stages(publish=False), store=open_store(config.database_url),
                      anchor=DAY) as lg:
        run_session(lg, DAY)
        pump(lg, clock.now() + timedelta(days=1))
    assert publish(data_dir).ok
    return config_dir, data_dir


@pytest.fixture(scope="module")
def corrected(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("corr") / "league"
    config, data_dir = _one_session(out)
    public = data_dir / "public"
    before_rows, before_book = _rows(public), _book(public)
    score = next(json.loads(t) for t in before_book.values()
                 if json.loads(t)["kind"] == "score" and json.loads(t)["horizon"] == "1d")
    event = next(e for e in score["markets"] if e["market"] == MARKET)
    # a reference on the other side of the close: the corrected event's outcome is the opposite one
    new_ref = round(event["close"] * (0.99 if not event["up"] else 1.01), 2)
    cell_row = next(r for r in before_rows if r["asset"] == MARKET and r["horizon"] == "1d"
                    and r["line_kind"] == "issue" and r["status"] == "counted" and r["seat"] == "_climatology")
    new_p = 100.0 - float(cell_row["prob_up"]) if float(cell_row["prob_up"]) != 50 else 90.0
    said_price = _league(["correct", "price", "--of", str(score["n"]), "--market", MARKET, "--field", "reference",
                          "--value", repr(new_ref), "--reason", "vendor re-issued the opening bar",
                          "--source", "exchange official open"], config)
    said_cell = _league(["correct", "cell", "--of", cell_row["line"], "--market", MARKET, "--horizon", "1d",
                         "--prob-up", repr(new_p), "--reason", "restored from the run's receipt",
                         "--source", "receipt"], config)
    report = publish(data_dir)
    assert report.ok, report.failed
    from league.api.paths import DataPaths
    from league.api.views import Store, page

    shown = page(Store(DataPaths.resolve(data_dir)))
    return {"page": shown, "public": public, "before_rows": before_rows, "before_book": before_book, "score": score,
            "event": event, "new_ref": new_ref, "cell_row": cell_row, "new_p": new_p,
            "said": (said_price, said_cell), "rows": _rows(public), "book": _book(public),
            "league": json.loads((public / "council-league.json").read_text())}


def test_the_corrected_lines_stay_byte_identical(corrected: dict[str, Any]) -> None:
    before, after = corrected["before_book"], corrected["book"]
    assert all(after[n] == text for n, text in before.items())
    new = [json.loads(after[n]) for n in sorted(set(after) - set(before))]
    assert [(x["kind"], x["target"], x["of"]) for x in new] == [
        ("correction", "price", corrected["score"]["n"]), ("correction", "cell", int(corrected["cell_row"]["line"]))]
    assert new[0]["value"] == corrected["new_ref"] and new[0]["reason"] == "vendor re-issued the opening bar"
    assert f"of line {corrected['score']['n']}" in corrected["said"][0]


def test_a_price_correction_moves_the_event_in_every_row(corrected: dict[str, Any]) -> None:
    ev, new_ref = corrected["event"], corrected["new_ref"]
    price_n = min(n for n in corrected["book"] if n not in corrected["before_book"])
    rows = [r for r in corrected["rows"] if r["event_id_v2"] == ev["event_id_v2"] and r["line_kind"] == "issue"]
    assert rows
    for r in rows:
        assert float(r["ref"]) == new_ref and float(r["close"]) == ev["close"]
        assert float(r["actual_pct"]) == pytest.approx(100 * (ev["close"] / new_ref - 1), abs=1e-9)
        assert str(price_n) in r["corrected_by"].split(";")
    untouched = [r for r in corrected["rows"] if r["asset"] != MARKET and r["line_kind"] == "issue"]
    assert untouched and all(r["corrected_by"] == "" for r in untouched)


def test_a_cell_correction_is_a_correction_row_never_scored(corrected: dict[str, Any]) -> None:
    issue = corrected["cell_row"]
    fixes = [r for r in corrected["rows"] if r["line_kind"] == "correction"]
    assert len(fixes) == 1
    fix = fixes[0]
    cell_n = max(corrected["book"])
    assert (fix["seat"], fix["asset"], fix["horizon"], fix["run_id"]) == (
        issue["seat"], MARKET, "1d", issue["run_id"])
    assert float(fix["prob_up"]) == corrected["new_p"] and fix["line"] == str(cell_n)
    assert fix["status"] == "not_counted" and "restored from the run's receipt" in fix["why_missing"]
    kept = next(r for r in corrected["rows"] if r["line"] == issue["line"] and r["asset"] == MARKET
                and r["horizon"] == "1d" and r["line_kind"] == "issue")
    assert kept["prob_up"] == issue["prob_up"] and str(cell_n) in kept["corrected_by"].split(";")


def test_scoring_honours_the_price_and_ignores_the_cell(corrected: dict[str, Any]) -> None:
    """Every seat's 1d Brier = the hand figure from the old rows with the corrected outcome of SPX."""
    before = corrected["before_rows"]
    ev = corrected["event"]
    up_of = {r["event_id_v2"]: float(r["close"]) > float(r["ref"]) for r in before if r["ref"] and r["close"]}
    up_of[ev["event_id_v2"]] = ev["close"] > corrected["new_ref"]
    assert up_of[ev["event_id_v2"]] is not ev["up"]  # the correction flips the outcome
    expected = _brier(before, up_of)
    published = {m["seat"]: m["brier"] for m in corrected["league"]["models"] if m["horizon"] == "1d"}
    assert published.keys() == expected.keys()
    for seat, brier in expected.items():
        assert published[seat] == pytest.approx(brier, abs=1e-7), seat
    uncorrected = _brier(before, {**up_of, ev["event_id_v2"]: ev["up"]})
    answered = {r["seat"] for r in before if r["asset"] == MARKET and r["status"] == "counted" and r["prob_up"]
                and float(r["prob_up"]) != 50 and r["horizon"] == "1d"}
    assert answered and all(published[s] != pytest.approx(uncorrected[s], abs=1e-7) for s in answered)


def test_the_page_lists_the_corrections_and_shows_the_corrected_figures(corrected: dict[str, Any]) -> None:
    shown = corrected["page"]
    fixes = shown["corrections"]
    assert [(c["target"], c["of"]) for c in fixes] == [  # newest first
        ("cell", int(corrected["cell_row"]["line"])), ("price", corrected["score"]["n"])]
    assert fixes[0]["cell"]["prob_up"] == corrected["new_p"] and fixes[0]["embargoed"] is False  # scored session
    assert fixes[1]["value"] == corrected["new_ref"] and fixes[1]["reason"] == "vendor re-issued the opening bar"
    table = {r["seat"]: r["brier"] for r in shown["league"]["horizons"]["1d"]}
    published = {m["seat"]: m["brier"] for m in corrected["league"]["models"] if m["horizon"] == "1d"}
    assert table == published  # the page's table is the corrected one
