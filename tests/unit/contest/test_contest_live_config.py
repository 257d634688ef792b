"""The shipped live roster: the four vendors' CLI adapters, the same rules as the default, `bench` allowed."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from league.contest.config import load_config
from league_agents.base import Ask
from league_agents.registry import build_seat

LIVE = Path(str(resources.files("league.contest").joinpath("live.toml")))


class _NoSandbox:
    def exec(self, *args: object, **kwargs: object) -> None:
        raise AssertionError("nothing runs in this test")


def test_the_live_roster_names_the_four_vendor_clis_with_the_default_rules() -> None:
    live, default = load_config(LIVE), load_config()
    assert {a.agent: a.seat.adapter for a in live.agents} == {
        "claude": "claude_code", "codex": "codex", "gemini": "gemini_cli", "grok": "grok_cli"}
    assert live.rules_sha256() == default.rules_sha256()
    assert [(a.model_id, a.reasoning) for a in live.agents] == [(a.model_id, a.reasoning) for a in default.agents]
    for a in live.agents:
        assert a.seat.network == "web" and a.seat.timeout_s >= live.sweep.time_limit_s
        assert a.seat.profile == a.agent and list(a.seat.options["allow_commands"]) == ["bench"]


def test_each_live_seat_builds_as_its_vendor_adapter() -> None:
    live = load_config(LIVE)
    seats = {a.agent: build_seat(a.seat, _NoSandbox()) for a in live.agents}  # type: ignore[arg-type]
    assert {k: type(s).__name__ for k, s in seats.items()} == {
        "claude": "ClaudeCodeSeat", "codex": "CodexSeat", "gemini": "GeminiCliSeat", "grok": "GrokCliSeat"}
    argv = seats["claude"].argv(Ask(text="x", sha256="0" * 64, session="s"))  # type: ignore[attr-defined]
    assert "Bash(bench:*)" in argv and argv[argv.index("WebSearch") - 1] == "--allowedTools"
