"""Stand-in vendor CLIs (tests/assets/clis) run inside the real sandbox through the real adapters."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agents_helpers import CLIS, FakeClock, make_ask

from league_agents.base import FailureClass, SeatReply, SeatSpec
from league_agents.registry import build_seat
from sandbox.bwrap import BwrapSandbox

pytestmark = pytest.mark.sandbox

VENDORS = {
    "claude_code": ("claude", "claude-fable-5-1", "max", ".claude/.credentials.json"),
    "codex": ("codex", "gpt-6-luna", "xhigh", ".codex/auth.json"),
    "gemini_cli": ("gemini", "gemini-3.1-pro-high", "high", ".gemini/oauth_creds.json"),
    "grok_cli": ("grok", "grok-4.7", "very high", ".grok/user-settings.json"),
}


@pytest.fixture
def creds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A credentials home holding every vendor's login (each seat must see only its own)."""
    for _, _, _, rel in VENDORS.values():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(json.dumps({"secret": rel}))
    monkeypatch.setenv("LEAGUE_CREDENTIALS_HOME", str(tmp_path))
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GROK_API_KEY", "CODEX_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    return tmp_path


def seat_for(adapter: str, sandbox: BwrapSandbox, **over: Any) -> Any:
    binary, model, effort, rel = VENDORS[adapter]
    spec = SeatSpec(
        name=binary,
        adapter=adapter,
        model=model,
        effort=effort,
        timeout_s=over.pop("timeout_s", 20),
        credentials=(f"~/{rel}",),
        options={"executable": str(CLIS / binary), "bin_files": [str(CLIS / "_standin.py")], **over},
    )
    return build_seat(spec, sandbox=sandbox)


def seen(reply: SeatReply) -> dict[str, Any]:
    line = next(x for x in reply.raw.splitlines() if x.startswith("SEEN "))
    return json.loads(line[5:])  # type: ignore[no-any-return]


@pytest.mark.parametrize("adapter", sorted(VENDORS))
def test_standin_answers_through_adapter(adapter: str, sandbox: BwrapSandbox, creds: Path, clock: FakeClock) -> None:
    reply = seat_for(adapter, sandbox).ask(make_ask("Forecast SPX."), clock)
    assert reply.failure is None, reply.detail
    assert '"prob_up": 61' in reply.raw
    assert reply.started_at < reply.finished_at
    view = seen(reply)
    own = VENDORS[adapter][3]
    assert own in view["home"]
    others = [v[3] for k, v in VENDORS.items() if k != adapter]
    assert not set(others) & set(view["home"])


def test_claude_reports_main_model_effort_usage(sandbox: BwrapSandbox, creds: Path, clock: FakeClock) -> None:
    reply = seat_for("claude_code", sandbox).ask(make_ask(), clock)
    assert reply.model == "claude-fable-5-1-20261001"
    assert reply.version == "claude-fable-5-1-20261001"
    assert reply.mode == "max"
    assert reply.usage["output_tokens"] == 412
    assert reply.usage["total_cost_usd"] == 0.0421
    flags = seen(reply)["flags"]
    assert flags[flags.index("--effort") + 1] == "max"
    assert flags[flags.index("--output-format") + 1] == "json"
    assert "WebSearch" in flags  # closed book: web tools disallowed
    assert "CLAUDE_CODE_EFFORT_LEVEL" in seen(reply)["env"]


def test_codex_model_unreported_and_usage(sandbox: BwrapSandbox, creds: Path, clock: FakeClock) -> None:
    reply = seat_for("codex", sandbox).ask(make_ask(), clock)
    assert (reply.model, reply.version) == ("gpt-6-luna", "unreported")
    tokens = {k: v for k, v in reply.usage.items() if k != "sandbox"}
    assert tokens == {"input_tokens": 5210, "cached_input_tokens": 4096, "output_tokens": 733}
    assert len(reply.usage["sandbox"]["stdout_sha256"]) == 64
    flags = seen(reply)["flags"]
    assert "model_reasoning_effort=xhigh" in flags
    assert 'web_search="disabled"' in flags


def test_gemini_thinking_level_via_settings(sandbox: BwrapSandbox, creds: Path, clock: FakeClock) -> None:
    reply = seat_for("gemini_cli", sandbox).ask(make_ask(), clock)
    assert "thinking=HIGH" in reply.raw
    assert "google_web_search" in reply.raw
    assert reply.model == "gemini-3.1-pro-high"  # the stand-in echoes -m as the main model's stats key
    assert reply.usage["models"]["gemini-3.1-pro-high"]["tokens"]["thoughts"] == 1550


def test_grok_has_no_model_or_usage(sandbox: BwrapSandbox, creds: Path, clock: FakeClock) -> None:
    reply = seat_for("grok_cli", sandbox).ask(make_ask(), clock)
    assert (reply.model, reply.version, reply.mode) == ("grok-4.7", "unreported", "cli-default")
    assert set(reply.usage) == {"sandbox"}  # no token usage: only how the run went


@pytest.mark.parametrize(
    ("adapter", "steer", "failure"),
    [
        ("claude_code", "login", FailureClass.LOGIN),
        ("claude_code", "usage", FailureClass.USAGE_LIMIT),
        ("claude_code", "crash", FailureClass.SEAT_FAULT),
        ("claude_code", "garbage", FailureClass.SEAT_FAULT),
        ("codex", "login", FailureClass.LOGIN),
        ("codex", "usage", FailureClass.USAGE_LIMIT),
        ("codex", "ratelimit", FailureClass.RATE_LIMIT),
        ("gemini_cli", "login", FailureClass.LOGIN),
        ("gemini_cli", "usage", FailureClass.USAGE_LIMIT),
        ("grok_cli", "login", FailureClass.LOGIN),
        ("grok_cli", "ratelimit", FailureClass.RATE_LIMIT),
        ("grok_cli", "crash", FailureClass.SEAT_FAULT),
    ],
)
def test_failures_are_classified(
    adapter: str, steer: str, failure: FailureClass, sandbox: BwrapSandbox, creds: Path, clock: FakeClock
) -> None:
    reply = seat_for(adapter, sandbox).ask(make_ask(f"Forecast. STANDIN:{steer}"), clock)
    assert reply.failure is failure, reply.detail
    assert reply.raw == ""
    assert reply.detail


def test_missing_credentials_is_a_login_incident(
    sandbox: BwrapSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: FakeClock
) -> None:
    monkeypatch.setenv("LEAGUE_CREDENTIALS_HOME", str(tmp_path))  # empty: nothing to copy in
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    reply = seat_for("claude_code", sandbox).ask(make_ask(), clock)
    assert reply.failure is FailureClass.LOGIN
    assert reply.failure.is_incident


def test_deadline_is_a_timeout_not_an_incident(sandbox: BwrapSandbox, creds: Path, clock: FakeClock) -> None:
    reply = seat_for("codex", sandbox, timeout_s=1).ask(make_ask("STANDIN:sleep"), clock)
    assert reply.failure is FailureClass.TIMEOUT
    assert not reply.failure.is_incident
    assert reply.silent


def test_missing_cli_is_a_sandbox_incident(sandbox: BwrapSandbox, creds: Path, clock: FakeClock) -> None:
    spec = SeatSpec(
        name="claude", adapter="claude_code", model="m", timeout_s=10, options={"executable": "/nonexistent/claude"}
    )
    reply = build_seat(spec, sandbox=sandbox).ask(make_ask(), clock)
    assert reply.failure is FailureClass.SANDBOX
    assert reply.failure.is_incident and reply.raw == ""


def test_cli_not_installed_in_sandbox_is_a_sandbox_incident(
    sandbox: BwrapSandbox, creds: Path, clock: FakeClock
) -> None:
    spec = SeatSpec(name="grok", adapter="grok_cli", model="grok-4.7", timeout_s=10, options={"executable": ""})
    seat = build_seat(spec, sandbox=sandbox)
    seat.binary = "grok-not-installed-here"
    reply = seat.ask(make_ask(), clock)
    assert reply.failure is FailureClass.SANDBOX
    assert "execvp" in reply.detail
