"""Live vendor tests: the real CLIs and APIs. Opt in with LEAGUE_LIVE_TESTS=1 (they cost money)."""

from __future__ import annotations

import os
from datetime import UTC, datetime

import pytest

from league_agents.base import SeatSpec
from league_agents.selfcheck import run_trivial_ask

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(os.environ.get("LEAGUE_LIVE_TESTS") != "1", reason="live vendor test: set LEAGUE_LIVE_TESTS=1"),
]

LIVE = [
    SeatSpec(
        name="claude",
        adapter="claude_code",
        model=os.environ.get("LEAGUE_LIVE_CLAUDE_MODEL", "opus"),
        effort="max",
        timeout_s=600,
    ),
    SeatSpec(
        name="codex",
        adapter="codex",
        model=os.environ.get("LEAGUE_LIVE_CODEX_MODEL", "gpt-5-codex"),
        effort="high",
        timeout_s=600,
    ),
    SeatSpec(
        name="gemini",
        adapter="gemini_cli",
        model=os.environ.get("LEAGUE_LIVE_GEMINI_MODEL", "gemini-2.5-pro"),
        effort="high",
        timeout_s=600,
    ),
    SeatSpec(name="grok", adapter="grok_cli", model=os.environ.get("LEAGUE_LIVE_GROK_MODEL", "grok-4"), timeout_s=600),
    SeatSpec(
        name="anthropic",
        adapter="anthropic_sdk",
        model=os.environ.get("LEAGUE_LIVE_ANTHROPIC_MODEL", "claude-opus-4-5"),
        effort="high",
        timeout_s=600,
    ),
    SeatSpec(
        name="openai",
        adapter="openai_sdk",
        model=os.environ.get("LEAGUE_LIVE_OPENAI_MODEL", "gpt-5"),
        effort="high",
        timeout_s=600,
    ),
    SeatSpec(
        name="genai",
        adapter="genai_sdk",
        model=os.environ.get("LEAGUE_LIVE_GENAI_MODEL", "gemini-3-pro-preview"),
        effort="high",
        timeout_s=600,
    ),
]


@pytest.mark.parametrize("spec", LIVE, ids=[s.name for s in LIVE])
def test_live_trivial_ask(spec: SeatSpec) -> None:
    result = run_trivial_ask(spec, lambda: datetime.now(UTC))
    assert result.reply.failure is None, result.reply.detail
    assert '"prob_up"' in result.reply.raw
    assert result.reply.model
