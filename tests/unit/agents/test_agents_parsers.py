"""The CLI adapters' parsers on recorded output shapes (no sandbox needed)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from league_agents.base import Ask, FailureClass, SeatError, SeatSpec
from league_agents.claude_code import ClaudeCodeSeat
from league_agents.codex import CodexSeat
from league_agents.gemini_cli import GeminiCliSeat, merged_settings
from sandbox.interface import EndedBy, ExecResult

T = datetime(2026, 11, 30, tzinfo=UTC)


def result(stdout: str, code: int = 0, stderr: str = "") -> ExecResult:
    return ExecResult(("x",), stdout.encode(), stderr.encode(), code, T, T, EndedBy.EXIT, 0.1)


def claude() -> ClaudeCodeSeat:
    return ClaudeCodeSeat(SeatSpec(name="claude", adapter="claude_code", model="claude-fable-5-1", effort="max"))


def test_claude_array_of_events() -> None:
    events = [
        {"type": "system", "subtype": "init", "model": "claude-fable-5-1-20261001"},
        {"type": "assistant", "message": {"content": [{"type": "text", "text": "hi"}]}},
        {"type": "result", "subtype": "success", "is_error": False, "result": "the answer", "usage": {}},
    ]
    parsed = claude().parse(result(json.dumps(events)))
    assert (parsed.text, parsed.model) == ("the answer", "claude-fable-5-1-20261001")


def test_claude_stream_json_lines() -> None:
    lines = [
        {"type": "system", "subtype": "init", "model": "claude-fable-5-1-20261001"},
        {"type": "result", "subtype": "success", "is_error": False, "result": "streamed", "usage": {}},
    ]
    parsed = claude().parse(result("\n".join(json.dumps(x) for x in lines)))
    assert (parsed.text, parsed.model) == ("streamed", "claude-fable-5-1-20261001")


def test_claude_max_turns_is_seat_fault() -> None:
    out = {"type": "result", "subtype": "error_max_turns", "is_error": False, "num_turns": 10}
    with pytest.raises(SeatError) as info:
        claude().parse(result(json.dumps(out), code=1))
    assert info.value.failure is FailureClass.SEAT_FAULT


def test_codex_keeps_last_agent_message() -> None:
    seat = CodexSeat(SeatSpec(name="codex", adapter="codex", model="gpt-6-luna"))
    lines = [
        {"type": "item.completed", "item": {"id": "item_0", "type": "agent_message", "text": "first"}},
        {"type": "item.completed", "item": {"id": "item_1", "type": "command_execution", "command": "ls"}},
        {"type": "item.completed", "item": {"id": "item_2", "type": "agent_message", "text": "final"}},
        {"type": "turn.completed", "usage": {"input_tokens": 1, "output_tokens": 2}},
    ]
    assert seat.parse(result("\n".join(json.dumps(x) for x in lines))).text == "final"


def test_gemini_settings_merge_keeps_operator_keys() -> None:
    base = {"security": {"auth": {"selectedType": "oauth-personal"}}, "tools": {"exclude": ["run_shell_command"]}}
    merged = merged_settings(base, "gemini-3.1-pro", "HIGH", web=False)
    assert merged["security"] == base["security"]
    assert set(merged["tools"]["exclude"]) == {"run_shell_command", "google_web_search", "web_fetch"}
    assert merged["modelConfigs"]["overrides"][0]["modelConfig"]["generateContentConfig"] == {
        "thinkingConfig": {"thinkingLevel": "HIGH"}
    }
    assert "tools" not in merged_settings({}, "m", "HIGH", web=True)
    assert merged["privacy"] == {"usageStatisticsEnabled": False} and merged["telemetry"] == {"enabled": False}
    assert merged_settings({}, "m", "HIGH", web=False, api_key=True)["security"]["auth"]["selectedType"] == (
        "gemini-api-key")


def test_gemini_error_object() -> None:
    seat = GeminiCliSeat(SeatSpec(name="gemini", adapter="gemini_cli", model="g"))
    out = {"error": {"type": "Error", "message": "Quota exceeded for quota metric", "code": 1}}
    with pytest.raises(SeatError) as info:
        seat.parse(result(json.dumps(out), code=1))
    assert info.value.failure is FailureClass.USAGE_LIMIT


def test_claude_web_tools_follow_network_policy() -> None:
    closed = claude().argv(make("x"))
    spec = SeatSpec(name="claude", adapter="claude_code", model="claude-fable-5-1", effort="max", network="web")
    open_ = ClaudeCodeSeat(spec).argv(make("x"))
    assert closed[closed.index("WebSearch") - 1] == "--disallowedTools"
    assert open_[open_.index("WebSearch") - 1] == "--allowedTools"


def test_claude_may_run_only_the_commands_its_seat_allows() -> None:
    assert "Bash(bench:*)" not in claude().argv(make("x"))
    spec = SeatSpec(name="claude", adapter="claude_code", model="m", options={"allow_commands": ["bench"]})
    argv = ClaudeCodeSeat(spec).argv(make("x"))
    assert argv[-2:] == ["--allowedTools", "Bash(bench:*)"]  # a prefix rule: `bench bet ...` and nothing else


def test_codex_drops_its_inner_read_only_sandbox_only_for_a_seat_that_runs_commands() -> None:
    plain = CodexSeat(SeatSpec(name="codex", adapter="codex", model="m")).argv(make("x"))
    assert plain[plain.index("-s") + 1] == "read-only"
    spec = SeatSpec(name="codex", adapter="codex", model="m", options={"allow_commands": ["bench"]})
    argv = CodexSeat(spec).argv(make("x"))
    assert argv[argv.index("-s") + 1] == "danger-full-access"  # bubblewrap stays the boundary


def test_gemini_may_run_only_the_commands_its_seat_allows() -> None:
    plain = GeminiCliSeat(SeatSpec(name="gemini", adapter="gemini_cli", model="g")).argv(make("x"))
    assert "--allowed-tools" not in plain
    spec = SeatSpec(name="gemini", adapter="gemini_cli", model="g", options={"allow_commands": ["bench"]})
    assert GeminiCliSeat(spec).argv(make("x"))[-2:] == ["--allowed-tools", "run_shell_command(bench)"]


def make(text: str) -> Ask:
    return Ask(text=text, sha256="0" * 64, session="2026-11-30")
