"""The scripted seat: a real child process in the real sandbox, deterministic, with modes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from agents_helpers import FakeClock, make_ask
from hypothesis import given, settings
from hypothesis import strategies as st

from league_agents.base import FailureClass, SeatSpec
from league_agents.registry import build_seat
from league_agents.scripted import ScriptedSeat
from sandbox.bwrap import BwrapSandbox
from sandbox.interface import EndedBy, ExecResult, SandboxError, system_now

MARKETS = {
    "SPX": {"horizons": ["1d", "1w", "1m", "6m"], "last_change_pct": 0.4, "price": 6000.0},
    "BTC": {"horizons": ["1d", "1w"], "last_change_pct": None, "price": 91000.0},
}


def answer_of(raw: str) -> dict[str, Any]:
    block = re.search(r"```json\n(.*)\n```", raw, re.S)
    assert block, raw
    return json.loads(block.group(1))["forecast"]  # type: ignore[no-any-return]


class PlainProcess:
    """A plain-subprocess Sandbox for the child's logic on machines without bwrap (the real sandbox
    is exercised in test_runs_inside_the_real_sandbox)."""

    def exec(self, argv: Any, *, stdin: bytes | None = None, timeout: float, env: Any = None, egress: Any = None,
             profile: Any = "default", files_in_home: Any = None, owner: str | None = None) -> ExecResult:
        started = system_now()
        (name, program), = files_in_home.items()  # the child's source, or the system python's .pyc of it
        with tempfile.TemporaryDirectory() as home:
            Path(home, name).write_bytes(program)
            proc = subprocess.run([sys.executable, Path(home, name)], input=stdin, capture_output=True,
                                  timeout=timeout, check=False)
        return ExecResult(tuple(argv), proc.stdout, proc.stderr, proc.returncode, started, system_now(),
                          EndedBy.EXIT, 0.0)


def scripted(name: str = "s1", **options: Any) -> ScriptedSeat:
    spec = SeatSpec(name=name, adapter="scripted", options={"seed": 7, **options})
    return ScriptedSeat(spec, sandbox=PlainProcess())


def test_every_market_and_horizon_answered(clock: FakeClock) -> None:
    reply = scripted().ask(make_ask(markets=MARKETS), clock)
    forecast = answer_of(reply.raw)
    assert {c: sorted(k for k in row if k != "years") for c, row in forecast.items()} == {
        "SPX": ["1d", "1m", "1w", "6m"],
        "BTC": ["1d", "1w"],
    }
    assert all(1 <= cell["prob_up"] <= 99 for row in forecast.values() for h, cell in row.items() if h != "years")


def test_deterministic_and_seed_sensitive(clock: FakeClock) -> None:
    ask = make_ask(markets=MARKETS)
    first, again = scripted().ask(ask, clock).raw, scripted().ask(ask, clock).raw
    other_seed = scripted(seed=8).ask(ask, clock).raw
    other_seat = scripted(name="s2").ask(ask, clock).raw
    assert first == again
    assert answer_of(first) != answer_of(other_seed)
    assert answer_of(first) != answer_of(other_seat)


def test_full_skill_follows_the_hint(clock: FakeClock) -> None:
    ask = make_ask(markets=MARKETS, hint={"SPX": {"1d": 83.0, "6m": 12.0}})
    forecast = answer_of(scripted(skill=1.0).ask(ask, clock).raw)
    assert forecast["SPX"]["1d"]["prob_up"] == 83.0
    assert forecast["SPX"]["6m"]["prob_up"] == 12.0


def test_zero_skill_ignores_the_hint(clock: FakeClock) -> None:
    plain = answer_of(scripted().ask(make_ask(markets=MARKETS), clock).raw)
    hinted = answer_of(scripted(skill=0.0).ask(make_ask(markets=MARKETS, hint={"SPX": {"1d": 99}}), clock).raw)
    assert plain == hinted


def test_latency_is_simulated_not_slept(clock: FakeClock) -> None:
    reply = scripted(latency_s=1800.5).ask(make_ask(markets=MARKETS), clock)
    assert reply.finished_at - reply.started_at == timedelta(seconds=1800.5)


def test_modes(clock: FakeClock) -> None:
    ask = make_ask(markets=MARKETS)
    assert scripted(mode="silent").ask(ask, clock).silent
    malformed = scripted(mode="malformed").ask(ask, clock)
    assert malformed.raw and "```json" not in malformed.raw and not malformed.silent
    with pytest.raises(json.JSONDecodeError):
        json.loads(malformed.raw[malformed.raw.index("{") :])
    late = scripted(mode="late").ask(ask, clock)
    assert late.finished_at - late.started_at >= timedelta(hours=1)
    assert answer_of(late.raw)


def test_reports_model_and_version(clock: FakeClock) -> None:
    reply = scripted(model="scripted-oracle", version="v9").ask(make_ask(markets=MARKETS), clock)
    assert (reply.model, reply.version, reply.mode) == ("scripted-oracle", "v9", "normal")


def test_bad_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="mode"):
        scripted(mode="chatty")


@pytest.mark.sandbox
def test_runs_inside_the_real_sandbox(sandbox: BwrapSandbox, clock: FakeClock) -> None:
    spec = SeatSpec(name="s1", adapter="scripted", options={"seed": 7})
    boxed = build_seat(spec, sandbox=sandbox).ask(make_ask(markets=MARKETS), clock)
    plain = scripted().ask(make_ask(markets=MARKETS), clock)
    assert boxed.failure is None, boxed.detail
    assert boxed.raw == plain.raw


class Broken:
    def exec(self, *args: Any, **kwargs: Any) -> Any:
        raise SandboxError("bwrap: Creating new namespace failed")


def test_sandbox_failure_is_an_incident(clock: FakeClock) -> None:
    seat = ScriptedSeat(SeatSpec(name="s", adapter="scripted"), sandbox=Broken())  # type: ignore[arg-type]
    reply = seat.ask(make_ask(markets=MARKETS), clock)
    assert reply.failure is FailureClass.SANDBOX and reply.raw == ""
    assert "namespace" in reply.detail


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), session=st.dates().map(str))
def test_probabilities_stay_in_range(seed: int, session: str) -> None:
    from league_agents.scripted_child import probability

    req = {"seed": seed, "seat": "s", "session": session, "skill": 0.0}
    for code in MARKETS:
        assert 30.0 <= probability(req, code, "1d") <= 70.0


@pytest.mark.sandbox
def test_preflight_before_a_batch(sandbox: BwrapSandbox, clock: FakeClock) -> None:
    from league_agents.selfcheck import preflight

    specs = [
        SeatSpec(name="s1", adapter="scripted"),
        SeatSpec(name="quiet", adapter="scripted", options={"mode": "silent"}),
        SeatSpec(name="_coin", adapter="coin"),
    ]
    checks = {c.name: c for c in preflight(specs, clock, sandbox=sandbox, ask_each=True)}
    assert checks["isolation: net_cut"].ok
    assert checks["s1: trivial ask"].ok
    assert checks["_coin: trivial ask"].ok
    assert not checks["quiet: trivial ask"].ok and "silent" in checks["quiet: trivial ask"].detail
