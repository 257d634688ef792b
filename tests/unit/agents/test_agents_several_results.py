"""A CLI that prints several final results (two result envelopes, or one that repeats its text key):
every text is in the raw reply, in order, so the parser refuses two different answers and reads the same
one twice with a note, instead of the last one winning silently (docs/answer-format.md "Ambiguous
replies"). Recorded output shapes, no sandbox (the real sandbox runs the same through the hostile
stand-in in tests/integration/jobs/test_hostile_day.py)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from league.answers import parse_reply
from league_agents.base import FailureClass, SeatError, SeatSpec
from league_agents.claude_code import ClaudeCodeSeat
from league_agents.cli_seat import RESULTS_SEPARATOR, loads, values_of
from league_agents.codex import CodexSeat
from league_agents.gemini_cli import GeminiCliSeat
from league_agents.grok_cli import GrokCliSeat
from sandbox.interface import EndedBy, ExecResult

T = datetime(2026, 11, 30, tzinfo=UTC)
MARKETS = {"SPX": ["1d"]}
A10 = '{"forecast": {"SPX": {"1d": {"prob_up": 10}}}}'
A90 = '{"forecast": {"SPX": {"1d": {"prob_up": 90}}}}'
DIFFER = "the reply holds 2 answer objects (JSON objects with a `forecast`) that differ"
SAME = "the reply holds 2 answer objects (JSON objects with a `forecast`), all the same; read once"


def result(stdout: str, code: int = 0) -> ExecResult:
    return ExecResult(("x",), stdout.encode(), b"", code, T, T, EndedBy.EXIT, 0.1)


def lines(*objs: Any) -> str:
    return "\n".join(json.dumps(o) for o in objs)


def twice(key: str, first: str, second: str) -> str:
    """``"key": first, "key": second`` as JSON members: one object giving a key twice."""
    return f"{json.dumps(key)}: {json.dumps(first)}, {json.dumps(key)}: {json.dumps(second)}"


def claude() -> ClaudeCodeSeat:
    return ClaudeCodeSeat(SeatSpec(name="claude", adapter="claude_code", model="claude-fable-5-1"))


def claude_result(text: str, **extra: Any) -> dict[str, Any]:
    return {"type": "result", "subtype": "success", "is_error": False, "result": text, "usage": {}, **extra}


def gemini() -> GeminiCliSeat:
    return GeminiCliSeat(SeatSpec(name="gemini", adapter="gemini_cli", model="g"))


def codex() -> CodexSeat:
    return CodexSeat(SeatSpec(name="codex", adapter="codex", model="m"))


def message(text: str) -> dict[str, Any]:
    return {"type": "item.completed", "item": {"type": "agent_message", "text": text}}


TURN = {"type": "turn.completed", "usage": {"input_tokens": 1}}


@pytest.mark.parametrize("stdout", [
    lines(claude_result(A10), claude_result(A90)),                        # stream of events: two results
    json.dumps([claude_result(A10), {"type": "assistant"}, claude_result(A90)]),  # an array of events
], ids=["lines", "array"])
def test_claude_two_different_results_are_refused_by_the_parser(stdout: str) -> None:
    """Before: the raw reply was the last result's text alone (prob_up 90, answered, no note)."""
    text = claude().parse(result(stdout)).text
    assert text == A10 + RESULTS_SEPARATOR + A90
    p = parse_reply(text, MARKETS)
    assert not p.ok and p.failure.startswith(DIFFER)


def test_claude_the_same_result_twice_is_answered_with_a_note() -> None:
    text = claude().parse(result(lines(claude_result(A10), claude_result(A10)))).text
    p = parse_reply(text, MARKETS)
    assert p.ok and p.items["SPX"]["1d"].prob_up == 10 and p.notes == (SAME,)


def test_claude_result_key_repeated_in_one_envelope() -> None:
    stdout = '{"type": "result", "subtype": "success", "is_error": false, ' + twice("result", A10, A90) + "}"
    text = claude().parse(result(stdout)).text
    assert text == A10 + RESULTS_SEPARATOR + A90 and not parse_reply(text, MARKETS).ok


def test_claude_one_result_is_its_text_alone() -> None:
    assert claude().parse(result(lines(claude_result("Prose.\n" + A10)))).text == "Prose.\n" + A10


def test_claude_the_last_result_decides_failure_and_failed_results_give_no_text() -> None:
    failed = {"type": "result", "subtype": "error_max_turns", "is_error": True, "result": A90}
    with pytest.raises(SeatError) as info:
        claude().parse(result(lines(claude_result(A10), failed)))
    assert info.value.failure is FailureClass.SEAT_FAULT
    assert claude().parse(result(lines(failed, claude_result(A10)))).text == A10


def test_gemini_two_objects_are_read_and_two_different_responses_refused() -> None:
    """Before: two objects were "no JSON object" (a seat_fault silence, the replies lost)."""
    stdout = json.dumps({"response": A10}) + "\n" + json.dumps({"response": A90, "stats": {}}) + "\n"
    text = gemini().parse(result(stdout)).text
    assert text == A10 + RESULTS_SEPARATOR + A90
    assert parse_reply(text, MARKETS).failure.startswith(DIFFER)


def test_gemini_response_key_repeated() -> None:
    """Before: the last value won silently."""
    stdout = "{" + twice("response", A10, A90) + "}"
    assert gemini().parse(result(stdout)).text == A10 + RESULTS_SEPARATOR + A90


def test_gemini_one_object_with_noise_before_and_after() -> None:
    assert gemini().parse(result("Loaded cached credentials.\n" + json.dumps({"response": A10}) + "\n\n")).text == A10
    with pytest.raises(SeatError):  # as before: anything but JSON after the object is not the CLI's output
        gemini().parse(result(json.dumps({"response": A10}) + "\ntrailing words"))


def test_codex_progress_messages_are_not_results_but_two_turns_are() -> None:
    one_turn = lines(message("Looking at the snapshot."), message(A10), TURN)
    assert codex().parse(result(one_turn)).text == A10
    two_turns = lines(message("thinking"), message(A10), TURN, message(A90), TURN)
    text = codex().parse(result(two_turns)).text
    assert text == A10 + RESULTS_SEPARATOR + A90 and not parse_reply(text, MARKETS).ok


def test_codex_text_key_repeated() -> None:
    stdout = ('{"type": "item.completed", "item": {"type": "agent_message", ' + twice("text", A10, A10) + "}}\n"
              + json.dumps(TURN))
    text = codex().parse(result(stdout)).text
    assert parse_reply(text, MARKETS).notes == (SAME,)


def test_grok_content_key_repeated_in_the_last_message() -> None:
    seat = GrokCliSeat(SeatSpec(name="grok", adapter="grok_cli", model="grok-x"))
    stdout = (lines({"role": "assistant", "content": "looking"}) + '\n{"role": "assistant", '
              + twice("content", A10, A90) + "}")
    text = seat.parse(result(stdout)).text
    assert text == A10 + RESULTS_SEPARATOR + A90


def test_values_of() -> None:
    obj = loads('{"a": 1, "b": 2, "a": 3}')
    assert obj == {"a": 3, "b": 2}
    assert values_of(obj, "a") == [1, 3] and values_of(obj, "b") == [2] and values_of(obj, "c") == []
    assert values_of({"a": 1}, "a") == [1]
