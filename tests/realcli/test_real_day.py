"""An offline league day with the four real CLIs and the baselines against stand-ins: answers sealed on
arrival, scored, published, and `league verify` passing; CLIs that hang, crash, print garbage, are
refused or exceed their deadline become the right incident or `refused_shape`, and the day goes on."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import date, time, timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import COUNTING, OPERATOR_SECRETS, VENDORS, council_reply, received_nothing_of, seat_table
from standin_models import StandIn

from league.calendar import et_time
from sandbox.profiles import PROFILES

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]
SESSION = date(2026, 11, 24)
BASELINES = '[[seat]]\nname = "_coin"\nadapter = "coin"\n[[seat]]\nname = "_momentum"\nadapter = "momentum"\n'
#: extra seats: (name, adapter, stand-in mode or reply, deadline)
TROUBLE = (
    ("claude-hangs", "claude_code", "hang", 6),       # the model never answers: deadline
    ("codex-garbage", "codex", "garbage", 20),        # the server's bytes make the CLI fail: seat fault
    ("gemini-unknown-model", "gemini_cli", "error404", 20),   # the CLI exits with an error: seat fault
    ("claude-refused", "claude_code", "error401", 20),  # authentication refused: login incident
    ("grok-prose", "grok_cli", "I would rather not say.", 20),  # a reply without JSON: refused_shape
)


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory, cli_prefix: Path) -> Iterator[dict[str, Any]]:
    from league.clock import SimulatedClock
    from league.compose import build_league
    from league.config import load_config
    from league.folder import init_folder
    from league.jobs.context import Stages
    from league.jobs.publish import publish_now
    from league.jobs.scheduler import run_session

    mp = pytest.MonkeyPatch()
    for name in ("claude", "codex", "gemini", "grok"):
        mp.setitem(PROFILES, name, dataclasses.replace(PROFILES[name], memory_mb=1 << 20))
    for key, value in OPERATOR_SECRETS.items():
        mp.setenv(key, value)
    for _, (seat, _, key, _) in VENDORS.items():
        mp.setenv(key, f"sk-seat-{seat}")
    root = tmp_path_factory.mktemp("realday")
    mp.setenv("LEAGUE_CREDENTIALS_HOME", str(root / "empty-home"))
    with ExitStack() as stack:
        good = {a: stack.enter_context(StandIn(council_reply(seed))) for seed, a in enumerate(sorted(VENDORS))}
        seats = "".join(seat_table(a, good[a].url, cli_prefix, timeout_s=120) for a in sorted(VENDORS))
        bad: dict[str, StandIn] = {}
        for name, adapter, mode, deadline in TROUBLE:
            server = StandIn(mode, mode="ok") if " " in mode else StandIn(council_reply(), mode=mode)
            bad[name] = stack.enter_context(server)
            seats += seat_table(adapter, bad[name].url, cli_prefix, timeout_s=deadline, name=name)
        clock = SimulatedClock(et_time(SESSION, time(3, 0)))
        config_dir, data_dir = init_folder(root, demo=True, clock=clock)
        (config_dir / "roster.toml").write_text(COUNTING + seats + BASELINES)
        with build_league(load_config(config_dir), clock, anchor=SESSION - timedelta(days=1),
                          stages=Stages(publish=False)) as lg:
            run_session(lg, SESSION)
            public = publish_now(lg).out_dir
        yield {"public": public, "good": good, "bad": bad, "data": data_dir, "secrets": dict(OPERATOR_SECRETS)}
    mp.undo()


def book(day: dict[str, Any]) -> list[dict[str, Any]]:
    import json

    return [json.loads(x) for x in (day["public"] / "council-book.jsonl").read_text().splitlines()]


def test_four_real_clis_and_baselines_answer_and_are_scored(day: dict[str, Any]) -> None:
    lines = book(day)
    answered = {a["seat"]: a for a in lines if a["kind"] == "answer" and a["status"] == "answered"}
    assert {"claude", "codex", "gemini", "grok", "_coin", "_momentum"} <= set(answered)
    ingest = next(x for x in lines if x["kind"] == "ingest_close")
    for seat in ("claude", "codex", "gemini", "grok"):
        assert answered[seat]["n"] in ingest["answer_lines"]  # sealed before the open: counted
    score = next(x for x in lines if x["kind"] == "score" and x.get("horizon") == "1d")
    assert score["n"] > max(a["n"] for a in answered.values())
    rows = (day["public"] / "council-forecasts.csv").read_text().splitlines()
    assert any(",claude," in r for r in rows) and any(",grok," in r for r in rows)


def test_failures_become_the_right_line_and_the_day_goes_on(day: dict[str, Any]) -> None:
    lines = book(day)
    first = {}
    for x in lines:
        if x["kind"] in ("answer", "incident", "silence") and x.get("attempt") == 1:
            first.setdefault(x["seat"], x)
    assert first["claude-hangs"]["kind"] == "silence" and first["claude-hangs"]["failure"] == "timeout"
    assert first["codex-garbage"]["kind"] == "silence" and first["codex-garbage"]["failure"] in (
        "seat_fault", "transient")
    assert first["gemini-unknown-model"]["kind"] == "silence"
    assert first["gemini-unknown-model"]["failure"] == "seat_fault"
    assert first["claude-refused"]["kind"] == "incident" and first["claude-refused"]["failure"] == "login_incident"
    prose = first["grok-prose"]
    assert prose["kind"] == "answer" and prose["status"] == "refused_shape"
    assert any(x["kind"] == "score" for x in lines)  # the day went on to its score


def test_league_verify_passes_on_the_published_day(day: dict[str, Any]) -> None:
    from league.verify.reader import verify_published

    steps = verify_published(day["public"])
    assert all(s.status != "FAILED" for s in steps), [s.line() for s in steps]


def test_no_operator_secret_reached_any_stand_in(day: dict[str, Any]) -> None:
    for server in (*day["good"].values(), *day["bad"].values()):
        assert received_nothing_of(server, day["secrets"]) == []
    assert all(len(server.model_calls()) >= 1 for server in day["good"].values())
