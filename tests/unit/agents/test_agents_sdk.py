"""SDK seats with the real client objects pointed at a local stand-in server on 127.0.0.1."""

from __future__ import annotations

from typing import Any

import pytest
from agents_helpers import REPLY, FakeClock, StandIn, make_ask

from league_agents.base import FailureClass, SeatSpec
from league_agents.registry import build_seat
from league_agents.sdk_seat import SdkSeat

pytest.importorskip("anthropic")
pytest.importorskip("openai")
pytest.importorskip("google.genai")

SEATS = {
    "anthropic_sdk": ("claude-fable-5-1", "", "/v1/messages"),
    "openai_sdk": ("gpt-6-luna", "/v1", "/responses"),
    "genai_sdk": ("gemini-3.1-pro", "", ":generateContent"),
}


def sdk_seat(adapter: str, stand_in: StandIn, monkeypatch: pytest.MonkeyPatch, **options: Any) -> SdkSeat:
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.setenv(key, "test-key")
    model, path, _ = SEATS[adapter]
    spec = SeatSpec(
        name=adapter.split("_")[0],
        adapter=adapter,
        model=model,
        effort="high",
        timeout_s=10,
        options={"base_url": stand_in.url + path, **options},
    )
    seat = build_seat(spec)
    assert isinstance(seat, SdkSeat)
    seat._sleep = lambda _s: None  # the retry policy's back-off, without waiting
    return seat


@pytest.mark.parametrize("adapter", sorted(SEATS))
def test_sdk_seat_answers_with_reported_model(
    adapter: str, stand_in: StandIn, monkeypatch: pytest.MonkeyPatch, clock: FakeClock
) -> None:
    reply = sdk_seat(adapter, stand_in, monkeypatch).ask(make_ask("Forecast SPX."), clock)
    assert reply.failure is None, reply.detail
    assert reply.raw == REPLY
    expected_model = {
        "anthropic_sdk": "claude-fable-5-1-20261001",
        "openai_sdk": "gpt-6-luna-2026-10-01",
        "genai_sdk": "gemini-3.1-pro-preview-11-2026",
    }[adapter]
    assert reply.model == expected_model
    assert reply.mode == "high"
    assert reply.usage


def test_reasoning_settings_are_sent(stand_in: StandIn, monkeypatch: pytest.MonkeyPatch, clock: FakeClock) -> None:
    for adapter in SEATS:
        sdk_seat(adapter, stand_in, monkeypatch).ask(make_ask(), clock)
    bodies = {path.rsplit("/", 1)[-1]: body for path, body in stand_in.requests}
    assert bodies["messages"]["thinking"] == {"type": "adaptive"}
    assert bodies["messages"]["output_config"] == {"effort": "high"}
    assert bodies["responses"]["reasoning"] == {"effort": "high"}
    genai = next(b for p, b in bodies.items() if p.endswith(":generateContent"))
    thinking = genai["generationConfig"]["thinkingConfig"]  # this SDK version sends the snake-case key
    assert (thinking.get("thinkingLevel") or thinking.get("thinking_level")) == "HIGH"


@pytest.mark.parametrize("adapter", sorted(SEATS))
def test_transport_errors_are_retried_then_succeed(
    adapter: str, stand_in: StandIn, monkeypatch: pytest.MonkeyPatch, clock: FakeClock
) -> None:
    suffix = SEATS[adapter][2]
    stand_in.fail(suffix, 503, {"error": {"message": "overloaded", "code": 503, "status": "UNAVAILABLE"}}, times=2)
    reply = sdk_seat(adapter, stand_in, monkeypatch).ask(make_ask(), clock)
    assert reply.failure is None, reply.detail
    assert len(stand_in.requests) == 3


@pytest.mark.parametrize(
    ("status", "message", "failure", "calls"),
    [
        (401, "invalid x-api-key", FailureClass.LOGIN, 1),
        (400, "Your credit balance is too low to access the API", FailureClass.USAGE_LIMIT, 1),
        (429, "You exceeded your current quota, please check your plan and billing", FailureClass.USAGE_LIMIT, 1),
        (429, "Rate limit reached", FailureClass.RATE_LIMIT, 3),
        (400, "prompt is too long", FailureClass.SEAT_FAULT, 1),
    ],
)
@pytest.mark.parametrize("adapter", sorted(SEATS))
def test_errors_classified_and_only_transport_retried(
    adapter: str,
    status: int,
    message: str,
    failure: FailureClass,
    calls: int,
    stand_in: StandIn,
    monkeypatch: pytest.MonkeyPatch,
    clock: FakeClock,
) -> None:
    body = {"type": "error", "error": {"type": "x", "message": message, "code": status, "status": "X"}}
    stand_in.fail(SEATS[adapter][2], status, body, times=5)
    reply = sdk_seat(adapter, stand_in, monkeypatch).ask(make_ask(), clock)
    assert reply.failure is failure, reply.detail
    assert reply.raw == ""
    assert len(stand_in.requests) == calls


def test_connection_refused_is_transient(monkeypatch: pytest.MonkeyPatch, clock: FakeClock) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    spec = SeatSpec(
        name="o",
        adapter="openai_sdk",
        model="m",
        timeout_s=5,
        options={"base_url": "http://127.0.0.1:9/v1", "retries": 2},
    )
    seat = build_seat(spec)
    assert isinstance(seat, SdkSeat)
    seat._sleep = lambda _s: None
    reply = seat.ask(make_ask(), clock)
    assert reply.failure is FailureClass.TRANSIENT


@pytest.mark.parametrize("adapter", sorted(SEATS))
def test_missing_key_is_a_login_incident(adapter: str, monkeypatch: pytest.MonkeyPatch, clock: FakeClock) -> None:
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    reply = build_seat(SeatSpec(name="x", adapter=adapter, model="m")).ask(make_ask(), clock)
    assert reply.failure is FailureClass.LOGIN and reply.failure.is_incident
    assert "API_KEY" in reply.detail
