"""The reader experiment published: readers forecast through the write service during a small league's sessions,
the book is published whole, the experiment block of council-league.json matches a hand count, `league verify`
rebuilds it and checks the readers' chain, the stand-alone tool recounts it (and catches a changed figure),
requirement 16 is met, and the readers' address appears nowhere in the data folder."""

from __future__ import annotations

import csv
import json
import random
import shutil
import subprocess
import sys
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any

import pytest
from day_helpers import league_dir, roster, seat
from fastapi.testclient import TestClient

from league.calendar import et_time
from league.clock import SimulatedClock
from league.compose import build_league
from league.config import load_config
from league.jobs.context import Stages
from league.jobs.scheduler import run_session
from league.publish import publish
from league.publish.rebuild import rebuild_step
from league.readers.service import Limits, ReadersService, create_readers_app
from league.verify.reader import verify_published
from league_agents.base import SeatReply

DAYS = (date(2026, 11, 9), date(2026, 11, 10), date(2026, 11, 11))
ADDRESS = "testclient"  # the address FastAPI's test client reports for every request


class Seat:
    def __init__(self, name: str) -> None:
        self.name = name

    def ask(self, ask: Any, now: Any) -> SeatReply:
        t = now()
        p = 70 if self.name == "alpha" else 35
        raw = json.dumps({"forecast": {"SPX": {"1d": {"prob_up": p, "action": "hold"}},
                                       "GOLD": {"1d": {"prob_up": 100 - p, "action": "hold"}}}})
        return SeatReply(seat=self.name, raw=raw, model="m", version="v", mode="x", started_at=t,
                         finished_at=t + timedelta(seconds=20))


def _post(client: TestClient, state: dict[str, Any], path: str, **fields: Any) -> dict[str, Any]:
    got = client.post(path, json={"session": state["session"], "csrf": state["csrf"], **fields})
    assert got.status_code == 200, got.json()
    body: dict[str, Any] = got.json()
    state["csrf"] = body["csrf"]
    return body


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("readers")
    config_dir, data_dir, clock = league_dir(root, roster(seat("alpha", "coin"), seat("bravo", "coin")),
                                             et_time(DAYS[0], time(3, 0)))
    config = load_config(config_dir)
    seats: dict[str, Any] = {s.name: Seat(s.name) for s in config.roster.seat}
    readers: dict[str, TestClient] = {}
    with build_league(config, clock, seats=seats, anchor=DAYS[0], stages=Stages(stamps=False)) as lg:
        run_session(lg, DAYS[0])  # a published consensus the readers are offered on the next days
        service = ReadersService(data_dir, data_dir / "public", ["SPX", "GOLD"], lg.market.calendar, time(9, 30),
                                 clock, rng=random.Random(1), limits=Limits())
        app = create_readers_app(service, secure_cookie=False)
        for day in DAYS[1:]:
            clock.set(et_time(day, time(8, 0)))
            while len({c.get("/state").json()["group"] for c in readers.values()}) < 2 or len(readers) < 2:
                readers[f"r{len(readers)}"] = TestClient(app)
            for name, client in sorted(readers.items()):
                state = client.get("/state").json()
                clock.set(clock.now() + timedelta(seconds=30))
                if state["group"] == "g0" and day == DAYS[1] and name == "r0":
                    _post(client, state, "/peek")
                _post(client, state, "/forecast", market="SPX", side="up", confidence=80)
                _post(client, state, "/forecast", market="SPX", side="down", confidence=60)  # later: not counted
                _post(client, state, "/forecast", market="GOLD", side="down", confidence=55)
            run_session(lg, day)
        service.close()
    report = publish(data_dir, clock=SimulatedClock(et_time(DAYS[-1] + timedelta(days=1), time(3, 0))))
    assert not report.failed, report.failed
    return {"data": data_dir, "public": data_dir / "public", "readers": sorted(readers)}


def test_the_experiment_block_matches_a_hand_count(league: dict[str, Any]) -> None:
    public = league["public"]
    lines = [json.loads(x) for x in (public / "readers" / "readers-book.jsonl").read_bytes().splitlines()]
    groups = {x["reader"]: x["group"] for x in lines if x["kind"] == "reader_assigned"}
    counted = [x for x in lines if x["kind"] == "reader_forecast" and x["counted"]]
    later = [x for x in lines if x["kind"] == "reader_forecast" and not x["counted"]]
    assert len(later) == len(counted) // 2  # one later SPX forecast per reader and session
    outcomes: dict[tuple[str, str], int] = {}
    with (public / "council-forecasts.csv").open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            if row["horizon"] == "1d" and row["ref"] and row["close"]:
                outcomes.setdefault((row["session"], row["asset"]), int(float(row["close"]) > float(row["ref"])))
    block = json.loads((public / "council-league.json").read_text(encoding="utf-8"))["experiment"]
    assert block["blind_group"] == "g0" and "blind" in block["labels"]["g0"]
    for g in ("g0", "g1"):
        mine = [x for x in counted if x["group"] == g]
        scored = [(x, outcomes[(x["session"], x["market"])]) for x in mine if (x["session"], x["market"]) in outcomes]
        by_hand = [((x["confidence"] / 100 if x["side"] == "up" else 1 - x["confidence"] / 100) - y) ** 2
                   for x, y in scored]
        got = block["groups"][g]
        assert got["identifiers"] == sum(1 for v in groups.values() if v == g)
        assert got["first_forecasts"] == len(mine) and got["scored"] == len(scored)
        assert got["brier"] == round(sum(by_hand) / len(by_hand), 6)
        assert got["returns"] == got["forecasting_identifiers"]  # every reader forecast on both days
        views = {(x["reader"], x["session"]): x["at"] for x in lines if x["kind"] == "reader_view"}
        waited = sorted((datetime.fromisoformat(x["at"]) - datetime.fromisoformat(views[(x["reader"], x["session"])]))
                        .total_seconds() for x in mine)
        assert got["median_seconds_to_first"] == waited[len(waited) // 2] and waited[0] >= 30
    assert block["groups"]["g0"]["peeks"] == (1 if groups[_first_reader(lines)] == "g0" else 0)
    assert block["later_forecasts"] == len(later) and block["resets"] == len(groups) - 1  # one address: resets
    compliance = json.loads((public / "arena-compliance.json").read_text(encoding="utf-8"))
    [r16] = [r for r in compliance["requirements"] if r["number"] == 16]
    assert r16["status"] == "met" and "tools/recount_readers.py" in r16["check"]


def _first_reader(lines: list[dict[str, Any]]) -> str:
    return next(x["reader"] for x in lines if x["kind"] == "reader_assigned")


def test_verify_rebuilds_and_the_tool_recounts_and_catches_a_change(league: dict[str, Any], tmp_path: Path) -> None:
    public = league["public"]
    status, detail = rebuild_step(public)
    assert status == "ok" and "council-league.json" in detail, detail
    steps = {r.step: r for r in verify_published(public)}
    assert steps[4].status == "ok" and "readers/readers-book.jsonl" in steps[4].detail, steps[4].detail
    proc = subprocess.run([sys.executable, "-I", "tools/recount_readers.py", "."], cwd=public, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    copy = tmp_path / "copy"
    shutil.copytree(public, copy)
    path = copy / "council-league.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["experiment"]["groups"]["g1"]["first_forecasts"] += 1
    path.write_text(json.dumps(doc), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-I", "tools/recount_readers.py", "."], cwd=copy, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1 and "first_forecasts" in proc.stdout


def test_no_address_anywhere_in_the_data_folder(league: dict[str, Any]) -> None:
    found = [p for p in league["data"].rglob("*") if p.is_file() and ADDRESS.encode() in p.read_bytes()]
    assert found == []
