"""The council talk with two real vendor CLIs (from npm, each in its own sandbox and network namespace, pointed at
its own stand-in of its vendor's API on 127.0.0.1) through a whole week of an offline league: one chairs, both are
critiqued and reply, every line is sealed in the arms' book, the letters are revealed the next session, the
shadow accounts are settled on the fifth session after the talk, and both files are published. The chair's ask,
as the stand-in received it, names no seat, model or family: letters only.

``LEAGUE_CLI_VERSIONS=newest`` runs the same test against the npm registry's newest CLIs (tests/realcli/clis.py).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import date, time, timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import COUNTING, OPERATOR_SECRETS, VENDORS, council_reply, received_nothing_of, seat_table
from standin_models import StandIn

from league.calendar import et_time
from league.clock import SimulatedClock
from league.compose import build_league
from league.config import load_config
from league.folder import init_folder
from league.jobs.context import Stages
from league.jobs.scheduler import run_session
from league.publish import publish
from sandbox.profiles import PROFILES

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration" / "jobs"))

from arms_helpers import book_lines, enable_talk  # noqa: E402

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]
#: Friday 2026-11-06 (the talk), the five sessions after it (the fifth settles the week's shadow accounts).
DAYS = (date(2026, 11, 6), date(2026, 11, 9), date(2026, 11, 10), date(2026, 11, 11), date(2026, 11, 12),
        date(2026, 11, 13))
ADAPTERS = ("claude_code", "codex")
CHAIR_MARK = "you chair"
REPLY_MARK = "a critique of your portfolio"


def chair_reply() -> str:
    doc = {"council_portfolio": {"SPY": 20, "GLD": 10},
           "critiques": [{"target": "A", "market": "SPX", "risk": "one index carries the book", "weight": 10,
                          "direction": "up"},
                         {"target": "B", "market": "NDX", "risk": "tech at a peak", "weight": 5, "direction": "down"}]}
    return "I read the letters.\n```json\n" + json.dumps(doc) + "\n```\n"


def stated_reply() -> str:
    return "Fair point.\n```json\n" + json.dumps({"portfolio": {"SPY": 15, "GLD": 10}}) + "\n```\n"


def respond(seed: int) -> Any:
    """What each stand-in answers: the chair's JSON to a chair's ask, a stated portfolio to a critique, else a
    full council answer."""
    def reply(body: bytes) -> str:
        text = body.decode("utf-8", "replace")
        if CHAIR_MARK in text:
            return chair_reply()
        if REPLY_MARK in text:
            return stated_reply()
        return council_reply(seed)
    return reply


def asked_texts(body: bytes, mark: str) -> list[str]:
    """Every string of a model call's JSON body holding ``mark``: the league's ask as the vendor received it."""
    found: list[str] = []

    def walk(x: Any) -> None:
        if isinstance(x, str) and mark in x:
            found.append(x)
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(json.loads(body))
    return found


@pytest.fixture(scope="module")
def week(tmp_path_factory: pytest.TempPathFactory, cli_prefix: Path) -> Iterator[dict[str, Any]]:
    mp = pytest.MonkeyPatch()
    for name in ("claude", "codex"):
        mp.setitem(PROFILES, name, dataclasses.replace(PROFILES[name], memory_mb=1 << 20))
    for key, value in OPERATOR_SECRETS.items():
        mp.setenv(key, value)
    for _, (seat, _, key, _) in VENDORS.items():
        mp.setenv(key, f"sk-seat-{seat}")
    root = tmp_path_factory.mktemp("realtalk")
    mp.setenv("LEAGUE_CREDENTIALS_HOME", str(root / "empty-home"))
    clock = SimulatedClock(et_time(DAYS[0], time(3, 0)))
    config_dir, data_dir = init_folder(root, demo=True, clock=clock)
    enable_talk(config_dir, weekday="fri")
    with ExitStack() as stack:
        servers = {a: stack.enter_context(StandIn(council_reply(seed), respond=respond(seed)))
                   for seed, a in enumerate(ADAPTERS)}
        seats = "".join(seat_table(a, servers[a].url, cli_prefix, network="api", timeout_s=180) for a in ADAPTERS)
        (config_dir / "roster.toml").write_text(COUNTING + seats)
        with build_league(load_config(config_dir), clock, anchor=DAYS[0], stages=Stages(stamps=False)) as lg:
            for day in DAYS:
                run_session(lg, day)
        report = publish(data_dir, clock=SimulatedClock(et_time(DAYS[-1] + timedelta(days=1), time(3, 0))))
        assert not report.failed, report.failed
        yield {"data": data_dir, "servers": servers}
    mp.undo()


def talk_lines(m: dict[str, Any]) -> list[dict[str, Any]]:
    return [dict(x) for x in book_lines(m["data"] / "books" / "arms-book.jsonl")
            if str(x["kind"]).startswith("talk_")]


def test_a_real_cli_chairs_and_the_critiqued_real_clis_reply_through_a_whole_week(week: dict[str, Any]) -> None:
    lines = talk_lines(week)
    first = [x for x in lines if x.get("week") == "2026-W45"]
    assert [x["kind"] for x in first] == ["talk_week", "talk_chair", "talk_round", "talk_reply", "talk_reply",
                                          "talk_reveal", "talk_accounts"]
    opened, chair, round_, *replies, reveal, accounts = first
    seats = {VENDORS[a][0] for a in ADAPTERS}
    assert opened["chair"] in seats and chair["seat"] == opened["chair"]
    assert chair["answered"] and chair["ok"], chair["failure"]
    assert chair["council_portfolio"] == {"SPY": 20.0, "GLD": 10.0}
    assert chair["own_sha256"] and chair["seat_ask_sha256"]  # the raw reply kept under its hash, the ask's hash
    letters = reveal["letter_map"]
    assert set(letters) == seats and set(round_["asked"]) == seats  # the chair critiqued A and B: both seats
    for reply in replies:
        assert reply["answered"] and reply["ok"], reply["failure"]
        assert reply["portfolio"] == {"SPY": 15.0, "GLD": 10.0}
        assert letters[reply["seat"]] == reply["letter"]
    assert accounts["sessions"][0] == "2026-11-06" and accounts["sessions"][-1] == "2026-11-13"
    assert {row["account"] for row in accounts["engine"]["arena-3"]} >= {"council", "stated:A", "stated:B"}
    # the next week's talk was held too, on the fifth session after the first
    assert any(x["kind"] == "talk_chair" and x["week"] == "2026-W46" and x["ok"] for x in lines)


def test_the_chairs_ask_as_the_vendor_received_it_names_no_seat(week: dict[str, Any]) -> None:
    asked = [t for server in week["servers"].values() for call in server.model_calls()
             for t in asked_texts(call.body, "Council talk, week")]
    chairs = [t for t in asked if CHAIR_MARK in t]
    assert chairs, "no stand-in received a chair's ask"
    names = {w for a in ADAPTERS for w in (VENDORS[a][0], VENDORS[a][1], f"{VENDORS[a][0]}-lab")}
    for text in chairs:
        start = text.index("# Council talk")
        ask = text[start:]
        assert not [n for n in names if n in ask.lower()], ask[:400]
        assert "| A |" in ask and "| B |" in ask
    # nothing of the operator reached a model server
    for server in week["servers"].values():
        assert received_nothing_of(server, OPERATOR_SECRETS) == []


def test_both_files_are_published_from_the_sealed_lines(week: dict[str, Any]) -> None:
    public = week["data"] / "public"
    report = json.loads((public / "council-talk.json").read_text(encoding="utf-8"))
    [w45] = [w for w in report["weeks"] if w["week"] == "2026-W45"]
    lines = {x["kind"]: x for x in talk_lines(week) if x.get("week") == "2026-W45"}
    assert w45["chair_line"] == lines["talk_chair"]["n"]
    assert w45["letter_map"] == lines["talk_reveal"]["letter_map"]
    assert w45["f22"]["n"] == 2
    rows = list(csv.DictReader((public / "council-talk-critiques.csv").open(encoding="utf-8")))
    assert [(r["week"], r["target_letter"], r["market"]) for r in rows[:2]] == [("2026-W45", "A", "SPX"),
                                                                               ("2026-W45", "B", "NDX")]
    assert all(r["resolution"] in ("true", "false") for r in rows[:2])
