"""The extra reference runs over a weekend: the Friday evening run, the Saturday and Sunday bitcoin runs and the
Sunday radar, each asked at its own time about Monday's session, sealed in the arms' book with its label, never
counted, and scored on its own references once Monday's horizon ends."""

from __future__ import annotations

import json
import shutil
from datetime import date, time, timedelta
from pathlib import Path

import pytest
from arms_helpers import book_lines, enable_arms
from day_helpers import league_dir, roster, seat

from league.calendar import et_time
from league.clock import SimulatedClock, parse_iso
from league.compose import build_league
from league.config import load_config
from league.jobs.context import BARE
from league.jobs.scheduler import run_session

FRIDAY, MONDAY = date(2026, 11, 20), date(2026, 11, 23)
SEATS = roster(seat("aurora", "scripted", seed=1, latency_s=60), seat("basalt", "scripted", seed=2, latency_s=200),
               seat("_coin", "coin"))


@pytest.fixture(autouse=True)
def _bwrap() -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")


def _season(root: Path, *, extra: bool) -> Path:
    config_dir, data_dir, _ = league_dir(root, SEATS, et_time(FRIDAY, time(7, 0)))
    enable_arms(config_dir, data_dir, MONDAY, arms=(), extra_runs=("evening", "weekend_btc", "sunday_radar")
                if extra else ())
    with build_league(load_config(config_dir), SimulatedClock(et_time(FRIDAY, time(8, 0))), stages=BARE) as lg:
        for day in (FRIDAY, MONDAY):
            run_session(lg, day)
    return data_dir


@pytest.fixture(scope="module")
def seasons(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("extra")
    return _season(root / "plain", extra=False), _season(root / "extra", extra=True)


def test_each_run_is_asked_at_its_own_time_about_the_next_session(seasons: tuple[Path, Path]) -> None:
    _, data = seasons
    runs = {x["run_id"]: x for x in book_lines(data / "books" / "arms-book.jsonl") if x["kind"] == "arm_run"}
    want = {"2026-11-20-evening": ("evening", "earlier_run", time(18, 30)),
            "2026-11-21-weekend_btc": ("weekend_btc", "reference", time(12, 0)),
            "2026-11-22-weekend_btc": ("weekend_btc", "reference", time(12, 0)),
            "2026-11-22-sunday_radar": ("sunday_radar", "earlier_run", time(18, 0)),
            "2026-11-23-evening": ("evening", "earlier_run", time(18, 30))}
    assert sorted(runs) == sorted(want)
    for rid, (kind, label, at) in want.items():
        run = runs[rid]
        asked_on = date.fromisoformat(rid[:10])
        assert (run["arm"], run["label"], run["asked_on"]) == (kind, label, asked_on.isoformat())
        assert parse_iso(str(run["at"])) == et_time(asked_on, at)
        assert run["session"] == ("2026-11-24" if asked_on == MONDAY else "2026-11-23")
    asks = [x for x in book_lines(data / "books" / "arm-asks.jsonl") if x["kind"] == "roster"]
    btc_roster = next(x for x in asks if x["run_id"] == "2026-11-21-weekend_btc")
    assert all(list(s["horizons"]) == ["BTC"] for s in btc_roster["seats"])  # bitcoin alone at the weekend


def test_the_council_is_untouched_by_the_extra_runs(seasons: tuple[Path, Path]) -> None:
    plain, extra = seasons
    for name in ("council-book.jsonl", "asks.jsonl"):
        assert (plain / "books" / name).read_bytes() == (extra / "books" / name).read_bytes(), name


def test_each_answer_is_scored_on_its_own_reference(seasons: tuple[Path, Path]) -> None:
    _, data = seasons
    book = book_lines(data / "books" / "arms-book.jsonl")
    answers = {(x["run_id"], x["seat"]): x for x in book if x["kind"] == "arm_answer"}
    scores = [x for x in book if x["kind"] == "extra_score"]
    # Monday's 1d ends at its close: the four runs about Monday are scored at its score job; the Monday evening
    # run (about Tuesday) is not yet
    assert sorted((x["run_id"], x["horizon"]) for x in scores) == sorted(
        (rid, "1d") for rid in ("2026-11-20-evening", "2026-11-21-weekend_btc", "2026-11-22-weekend_btc",
                                "2026-11-22-sunday_radar"))
    checked = 0
    for line in scores:
        for row in line["rows"]:
            answer = answers[(line["run_id"], row["seat"])]
            sealed = max(parse_iso(answer["at"]), parse_iso(answer["booked_at"]))
            assert parse_iso(row["reference_at"]) >= sealed
            assert row["reference"] is not None and row["close"] is not None, row  # the replay has every bar
            assert parse_iso(row["reference_bar"]) >= sealed  # the first bar at or after the seal
            if row["market"] != "BTC":  # a session market's own reference after an evening or weekend seal
                assert parse_iso(row["reference_bar"]) == et_time(MONDAY, time(9, 30))
            else:  # bitcoin trades: its own reference is the answer's seal, to the second above
                assert parse_iso(row["reference_at"]) - sealed < timedelta(seconds=1)
            assert row["outcome"] == int(row["close"] > row["reference"])
            p = answer["items"][row["market"]]["1d"]["prob_up"]
            assert row["prob_up"] == p and row["brier"] == pytest.approx((p / 100 - row["outcome"]) ** 2, abs=1e-6)
            checked += 1
    assert checked == sum(len(x["rows"]) for x in scores) > 0
    btc = next(r for x in scores if x["run_id"] == "2026-11-21-weekend_btc" for r in x["rows"])
    assert parse_iso(btc["reference_bar"]).date() == date(2026, 11, 21)  # bitcoin trades on Saturday


def test_published_with_their_labels(seasons: tuple[Path, Path]) -> None:
    from league.publish import publish

    _, data = seasons
    assert not publish(data).failed
    rows = (data / "public" / "arms" / "extra-runs.csv").read_text(encoding="utf-8").splitlines()
    header = rows[0].split(",")
    labels = {dict(zip(header, r.split(","), strict=False))["label"] for r in rows[1:]}
    assert labels == {"earlier_run", "reference"}
    doc = json.loads((data / "public" / "arena-compliance.json").read_text(encoding="utf-8"))
    assert doc["requirements"]
