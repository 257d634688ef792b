"""The council talk over two weeks of a small league (in-process seats): what is sealed where and in which order,
every figure of both published files checked by hand, rebuilt by `league verify` and recounted by the stand-alone
tool, a changed critique caught, and the daily council's published files the same bytes with and without the talk.

Sessions: Friday 2026-11-06 (the first talk), 9, 10, 11, 12 and Friday 13 (the fifth session after the first talk:
its shadow accounts are settled, then the second talk is held).
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import shutil
import subprocess
import sys
from datetime import date, time, timedelta
from pathlib import Path
from typing import Any

import pytest
from arms_helpers import enable_talk
from day_helpers import league_dir, roster, seat

from league.calendar import et_time
from league.clock import SimulatedClock
from league.compose import build_league
from league.config import load_config
from league.jobs.context import Stages
from league.jobs.scheduler import run_session
from league.publish import publish
from league.publish.rebuild import rebuild_step
from league.verify.reader import verify_published
from league_agents.base import Ask, SeatReply, SeatSpec
from league_agents.base import Seat as AgentSeat

DAYS = (date(2026, 11, 6), date(2026, 11, 9), date(2026, 11, 10), date(2026, 11, 11), date(2026, 11, 12),
        date(2026, 11, 13))
STAGES = Stages(stamps=False)
#: Each seat's long-only book (arena-3 targets, percent of equity); charlie holds nothing.
BOOKS = {"alpha": {"SPX": 20, "GOLD": 20}, "bravo": {"NDX": 25, "BTC": 10}, "charlie": {}}
SEAT_NAMES = ("alpha", "bravo", "charlie")
TALK_ONLY = ("council-talk.json", "council-talk-critiques.csv")
FOLDER_WIDE = ("release-manifest.json", "index.html", "arena-compliance.json", "arena-dataset.json")
Z = 1.959963984540054


class Seat:
    """An in-process seat: its council answer holds its book; as chair it keeps 20% SPY and 10% GLD and critiques
    the letter holding SPY (SPX to 10%, up) and the one holding QQQ (NDX to 5%, down); critiqued, alpha states
    {SPY 15, GLD 20} and bravo answers without any JSON (sealed as received, a failed reply)."""

    def __init__(self, spec: SeatSpec) -> None:
        self.spec = spec
        self.talk_texts: list[tuple[str, str]] = []  # (role, text)

    def ask(self, ask: Ask, now: Any) -> SeatReply:
        t = now()
        talk = ask.context.get("talk")
        if talk:
            self.talk_texts.append((talk["role"], ask.text))
            raw = self._talk(talk)
        else:
            raw = json.dumps({"forecast": {"SPX": {"1d": {"prob_up": 60, "action": "hold"}}},
                              "targets": {"arena-3": BOOKS[self.spec.name]}})
        return SeatReply(seat=self.spec.name, raw=raw, model=f"m-{self.spec.name}", version="v1", mode="x",
                         started_at=t, finished_at=t + timedelta(seconds=30))

    def _talk(self, talk: dict[str, Any]) -> str:
        if talk["role"] == "chair":
            holding = {f: k for k, p in talk["portfolios"].items() for f in p}
            critiques = [{"target": holding["SPY"], "market": "SPX", "risk": "one index carries the book",
                          "weight": 10, "direction": "up"},
                         {"target": holding["QQQ"], "market": "NDX", "risk": "tech at a peak", "weight": 5,
                          "direction": "down"}]
            return "My view.\n```json\n" + json.dumps({"council_portfolio": {"SPY": 20, "GLD": 10},
                                                       "critiques": critiques}) + "\n```"
        if self.spec.name == "alpha":
            return json.dumps({"portfolio": {"SPY": 15, "GLD": 20}})
        return "I keep my book as it is."


def _league(root: Path, *, talk: bool) -> tuple[Path, dict[str, Seat]]:
    seats_toml = roster(*(seat(n, "coin") for n in SEAT_NAMES), seat("_base", "coin"))
    config_dir, data_dir, clock = league_dir(root, seats_toml, et_time(DAYS[0], time(3, 0)))
    if talk:
        enable_talk(config_dir)
    config = load_config(config_dir)
    assert config.settings.talk.enabled is talk
    seats = {s.name: Seat(s) for s in config.roster.seat}
    agents: dict[str, AgentSeat] = dict(seats)
    with build_league(config, clock, seats=agents, anchor=DAYS[0], stages=STAGES) as lg:
        for day in DAYS:
            run_session(lg, day)
    end = et_time(DAYS[-1] + timedelta(days=1), time(3, 0))
    report = publish(data_dir, clock=SimulatedClock(end))
    assert not report.failed, report.failed
    return data_dir, seats


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict[str, Seat]]]:
    root = tmp_path_factory.mktemp("talkweek")
    return {"plain": _league(root / "plain", talk=False), "talk": _league(root / "talk", talk=True)}


def _lines(data_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (data_dir / "books" / "arms-book.jsonl").read_bytes().splitlines()]


def _talk(data_dir: Path) -> list[dict[str, Any]]:
    return [x for x in _lines(data_dir) if x["kind"].startswith("talk_")]


def _week(lines: list[dict[str, Any]], kind: str, week: str) -> list[dict[str, Any]]:
    return [x for x in lines if x["kind"] == kind and x.get("week") == week]


def test_the_talk_is_sealed_in_order_in_the_arms_book(runs: dict[str, Any]) -> None:
    data_dir, seats = runs["talk"]
    talk = _talk(data_dir)
    kinds = [x["kind"] for x in talk]
    assert kinds == ["talk_schedule", "talk_week", "talk_chair", "talk_round", "talk_reply", "talk_reply",
                     "talk_reveal", "talk_accounts", "talk_week", "talk_chair", "talk_round", "talk_reply",
                     "talk_reply"]
    w45, w46 = (x for x in talk if x["kind"] == "talk_week")
    assert (w45["week"], w45["session"], w46["week"], w46["session"]) == ("2026-W45", "2026-11-06", "2026-W46",
                                                                          "2026-11-13")
    # the rotation: block 0 orders the three seats by SHA-256 of "seed:0:seat"; week 0 and 1 take the first two
    order = sorted(SEAT_NAMES, key=lambda s: hashlib.sha256(f"20261206:0:{s}".encode()).hexdigest())
    assert (w45["chair"], w46["chair"]) == (order[0], order[1])
    # the council book and its ask chain never see the talk
    for name in ("council-book.jsonl", "asks.jsonl"):
        assert b"talk" not in (data_dir / "books" / name).read_bytes()
    # the chair's ask names no seat and no model; only letters
    chair_texts = [t for s in seats.values() for role, t in s.talk_texts if role == "chair"]
    assert len(chair_texts) == 2
    for text in chair_texts:
        for word in (*SEAT_NAMES, "_base", "m-alpha", "m-bravo", "m-charlie"):
            assert word not in text
        assert "| A |" in text and "| C |" in text
    # the letters were committed before the chair's ask and the chair's reply, and revealed on the next session
    [reveal] = _week(talk, "talk_reveal", "2026-W45")
    letters, salt = reveal["letter_map"], reveal["salt"]
    committed = json.dumps({"letters": letters, "salt": salt, "week": "2026-W45"}, sort_keys=True,
                           separators=(",", ":"))
    assert hashlib.sha256(committed.encode()).hexdigest() == w45["letter_map_sha256"]
    by_hand = sorted(SEAT_NAMES, key=lambda s: hashlib.sha256(f"{salt}:2026-W45:{s}".encode()).hexdigest())
    assert letters == {s: "ABC"[i] for i, s in enumerate(by_hand)}
    assert letters[w45["chair"]] == w45["chair_letter"]
    assert reveal["at"].startswith("2026-11-09")  # after the week's talk, never before the chair answered
    assert not _week(talk, "talk_reveal", "2026-W46")  # the second week is not over
    asks = [json.loads(x) for x in (data_dir / "books" / "arm-asks.jsonl").read_bytes().splitlines()]
    chair_ask = next(x for x in asks if x["kind"] == "ask" and x["run_id"] == "2026-11-06-talk-chair")
    assert w45["n"] < next(x["n"] for x in talk if x["kind"] == "talk_chair")
    assert chair_ask["seat"] == w45["chair"] and chair_ask["ask_sha256"] == w45["ask_sha256"]


def test_replies_are_sealed_as_received_once_per_critiqued_seat(runs: dict[str, Any]) -> None:
    data_dir, seats = runs["talk"]
    talk = _talk(data_dir)
    [reveal] = _week(talk, "talk_reveal", "2026-W45")
    letters = reveal["letter_map"]
    [chair] = _week(talk, "talk_chair", "2026-W45")
    assert chair["ok"] and chair["council_portfolio"] == {"SPY": 20.0, "GLD": 10.0}
    assert [(c["target"], c["market"]) for c in chair["critiques"]] == [(letters["alpha"], "SPX"),
                                                                       (letters["bravo"], "NDX")]
    [round_] = _week(talk, "talk_round", "2026-W45")
    assert round_["asked"] == {"alpha": letters["alpha"], "bravo": letters["bravo"]}
    replies = {x["seat"]: x for x in _week(talk, "talk_reply", "2026-W45")}
    assert replies["alpha"]["ok"] and replies["alpha"]["portfolio"] == {"SPY": 15.0, "GLD": 20.0}
    bravo = replies["bravo"]
    assert not bravo["ok"] and bravo["answered"] and "no JSON" in bravo["failure"]
    raw = data_dir / "replies" / f"{bravo['own_sha256']}.txt"
    assert raw.read_bytes() == b"I keep my book as it is."  # the malformed reply kept byte for byte
    # each critiqued seat was asked once, with its critique of its own letter
    reply_texts = {n: [t for role, t in s.talk_texts if role == "reply"] for n, s in seats.items()}
    assert len(reply_texts["alpha"]) == 2 and len(reply_texts["bravo"]) == 2 and not reply_texts["charlie"]
    assert "- market: SPX" in reply_texts["alpha"][0] and "weight the chair would give it: 10%" in \
        reply_texts["alpha"][0]


def _closes(lg_data: Path, fund: str, day: date) -> float:
    config = load_config(lg_data.parent / "config")
    with build_league(config, SimulatedClock(et_time(DAYS[-1], time(20, 0))), anchor=DAYS[0],
                      stages=Stages(stamps=False, publish=False)) as lg:
        cal = lg.market.calendar
        bars = lg.market.prices.bars(fund, cal.session_open(day), cal.session_close(day))
    return float(bars[-1].close)


def test_every_figure_of_the_week_checked_by_hand(runs: dict[str, Any]) -> None:
    data_dir, _ = runs["talk"]
    talk = _talk(data_dir)
    [w45] = _week(talk, "talk_week", "2026-W45")
    [reveal] = _week(talk, "talk_reveal", "2026-W45")
    letters = reveal["letter_map"]
    a, b, c = letters["alpha"], letters["bravo"], letters["charlie"]
    [accounts] = _week(talk, "talk_accounts", "2026-W45")
    assert accounts["sessions"] == ["2026-11-06", "2026-11-09", "2026-11-10", "2026-11-11", "2026-11-12",
                                    "2026-11-13"]
    # the closes that resolve the critiques are the league's own prices
    for fund in ("SPY", "QQQ"):
        assert accounts["closes"][fund] == [_closes(data_dir, fund, date.fromisoformat(d))
                                           for d in accounts["sessions"]]
    # the portfolios the chair read: each seat's arena-3 weights at the talk session's close; charlie holds cash
    sealed = w45["portfolios"]
    assert sealed[c] == {} and set(sealed[a]) == {"SPY", "GLD"} and set(sealed[b]) == {"QQQ", "IBIT"}
    # critiqued: alpha's SPY set to 10 (the total stays under 100: nothing else moves); bravo's QQQ to 5
    weights = accounts["weights"]
    assert weights[f"critiqued:{a}"] == {"SPY": 10.0, "GLD": sealed[a]["GLD"]}
    assert weights[f"critiqued:{b}"] == {"QQQ": 5.0, "IBIT": sealed[b]["IBIT"]}
    assert weights[f"stated:{a}"] == {"SPY": 15.0, "GLD": 20.0} and f"stated:{b}" not in weights
    assert weights["council"] == {"SPY": 20.0, "GLD": 10.0}
    assert {f"sealed:{x}" for x in (a, b, c)} <= set(weights)

    report = json.loads((data_dir / "public" / "council-talk.json").read_text(encoding="utf-8"))
    week = next(w for w in report["weeks"] if w["week"] == "2026-W45")
    closes = accounts["closes"]

    def simple(w: dict[str, float]) -> float:
        return sum(x / 100 * (closes[f][-1] / closes[f][0] - 1) for f, x in w.items())

    for name, w in weights.items():
        assert math.isclose(week["shadow_returns"][name], round(simple(w), 6), abs_tol=1e-12), name
    r = {k: simple(v) for k, v in weights.items()}
    sealed_mean = (r[f"sealed:{a}"] + r[f"sealed:{b}"] + r[f"sealed:{c}"]) / 3
    f23 = week["f23"]
    assert math.isclose(f23["council_vs_sealed_mean"], round(r["council"] - sealed_mean, 6), abs_tol=2e-6)
    seat_a = next(s for s in f23["seats"] if s["letter"] == a)
    assert math.isclose(seat_a["stated_vs_sealed"], round(r[f"stated:{a}"] - r[f"sealed:{a}"], 6), abs_tol=2e-6)
    seat_b = next(s for s in f23["seats"] if s["letter"] == b)
    assert seat_b["stated_vs_sealed"] is None  # bravo's reply failed: no stated account
    # the critiques: SPX up, NDX down, each against the fund's close five sessions after the talk's
    spy_up = closes["SPY"][5] > closes["SPY"][0]
    qqq_up = closes["QQQ"][5] > closes["QQQ"][0]
    hits = [spy_up, not qqq_up]
    assert [x["resolution"] for x in week["critiques"]] == hits
    assert [(x["reference_close"], x["close_5"]) for x in week["critiques"]] == [
        (closes["SPY"][0], closes["SPY"][5]), (closes["QQQ"][0], closes["QQQ"][5])]
    n, k = 2, sum(hits)
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    assert week["f22"] == {"n": 2, "hits": k, "share": p,
                           "ci95": [round(max(0.0, centre - half), 6), round(min(1.0, centre + half), 6)]}
    assert report["season"]["f22"]["n"] == 2  # the second week's critiques are not resolved yet
    second = next(w for w in report["weeks"] if w["week"] == "2026-W46")
    assert second["letter_map"] is None and second["chair_seat"] is None and second["salt"] is None
    assert all(x["resolution"] is None for x in second["critiques"])
    # the portfolio engine, both leagues' rules: alpha's stated book is a valid arena-3 book, held; every
    # long-only book with cash is refused in pro-1 (gross 100-200%) and stays in cash
    engine = {lg: {row["account"]: row for row in rows} for lg, rows in week["engine"].items()}
    held = engine["arena-3"][f"stated:{a}"]
    assert held["status"] == "held" and held["reason"] == ""
    assert math.isclose(held["gain"], float(held["value"]) / 100000 - 1, abs_tol=1e-8)
    council = engine["arena-3"]["council"]  # SPY 20%, GLD 10%: inside 5-25%, long-only
    assert council["status"] == "held" and float(council["fees"]) > 0
    for account, row in engine["pro-1"].items():
        assert row["status"] == "rejected" and "below 100%" in row["reason"], account
    # the CSV: one row per critique, its line numbers those of the book
    rows = list(csv.DictReader((data_dir / "public" / "council-talk-critiques.csv").open(encoding="utf-8")))
    assert [(x["week"], x["target_letter"], x["market"]) for x in rows][:2] == [("2026-W45", a, "SPX"),
                                                                              ("2026-W45", b, "NDX")]
    [chair] = _week(talk, "talk_chair", "2026-W45")
    replies = {x["letter"]: x["n"] for x in _week(talk, "talk_reply", "2026-W45")}
    assert rows[0]["chair_line"] == str(chair["n"]) and rows[0]["reply_line"] == str(replies[a])
    assert rows[0]["resolution"] == str(hits[0]).lower() and rows[1]["resolution"] == str(hits[1]).lower()


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_council_files_are_the_same_bytes_with_and_without_the_talk(runs: dict[str, Any]) -> None:
    plain, talk = _files(runs["plain"][0] / "public"), _files(runs["talk"][0] / "public")
    council = {name for name in talk if not name.startswith(("arms/", "proof/", *TALK_ONLY))
               and name not in FOLDER_WIDE}
    assert {name for name in plain if not name.startswith(("proof/", "arms/"))} - set(FOLDER_WIDE) == council
    assert "council-forecasts.csv" in council and "arena-accounts.csv" in council and "asks.jsonl" in council
    changed = sorted(name for name in council if plain[name] != talk[name])
    assert changed == [], changed
    assert not any(name.startswith(TALK_ONLY) for name in plain)
    assert not any(name.startswith(("arena-cb-experiment", "council-repeats")) for name in talk)  # no arm ran


def test_rebuilt_by_verify_recounted_by_the_tool_and_a_changed_critique_is_caught(runs: dict[str, Any],
                                                                                  tmp_path: Path) -> None:
    folder = runs["talk"][0] / "public"
    status, detail = rebuild_step(folder)
    assert status == "ok", detail
    assert "council-talk.json" in detail and "council-talk-critiques.csv" in detail
    proc = subprocess.run([sys.executable, "-I", "tools/recount_talk.py", "."], cwd=folder, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = {r.step: r for r in verify_published(folder)}
    assert results[5].status == "ok" and results[7].status == "ok", (results[5].detail, results[7].detail)
    # a critique's direction changed in the CSV: the rebuild differs and the recount finds it
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    path = copy / "council-talk-critiques.csv"
    text = path.read_text(encoding="utf-8")
    first = text.splitlines()[1]
    flipped = first.replace(",up,", ",down,") if ",up," in first else first.replace(",down,", ",up,")
    path.write_text(text.replace(first, flipped, 1), encoding="utf-8")
    status, detail = rebuild_step(copy)
    assert status == "FAILED" and "council-talk-critiques.csv" in detail
    proc = subprocess.run([sys.executable, "-I", "tools/recount_talk.py", "."], cwd=copy, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    # a critique changed in the book itself breaks its chain
    book = copy / "arms" / "arms-book.jsonl"
    book.write_bytes(book.read_bytes().replace(b'"direction":"up"', b'"direction":"down"', 1))
    assert {r.step: r for r in verify_published(copy)}[4].status == "FAILED"
