"""The wire format between the league and a lab's worker: exact bytes, what the book keeps of usage,
no secret in a task, and a malformed or tampered message refused with the reason."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from kombu.serialization import dumps, loads

from league.answers import json_safe
from league.jobs.seal import raw_bytes
from league.workers import wire
from league.workers.errors import WireError
from league_agents.base import Ask, FailureClass, SeatReply, SeatSpec

T0 = datetime(2026, 11, 25, 13, 0, tzinfo=UTC)
SPEC = SeatSpec(name="lab-seat", adapter="scripted", timeout_s=30, options={"seed": 3})


def make_ask(text: str = "Forecast SPX.") -> Ask:
    return Ask(text=text, sha256=hashlib.sha256(text.encode()).hexdigest(), session="2026-11-25",
               context={"markets": {"SPX": {"horizons": ["1d"], "price": 6000.5}}})


def over_the_wire(body: dict[str, Any]) -> Any:
    """Through kombu's JSON serializer and back, as the broker carries it (and only JSON is accepted)."""
    content_type, encoding, data = dumps(body, serializer="json")
    return loads(data, content_type, encoding, accept={"application/json"})


def ask_msg(spec: SeatSpec = SPEC, ask: Ask | None = None) -> wire.AskMessage:
    body = wire.ask_message(spec, ask or make_ask(), queue="lab-a", deadline=T0 + timedelta(minutes=30), sent_at=T0)
    msg = wire.parse(over_the_wire(body))
    assert isinstance(msg, wire.AskMessage)
    return msg


def reply(raw: str, usage: dict[str, Any] | None = None, fetches: Any = None) -> SeatReply:
    return SeatReply(seat=SPEC.name, raw=raw, model="m", version="v", mode="max", started_at=T0,
                     finished_at=T0 + timedelta(seconds=3), usage=usage or {}, fetches=fetches)


RAWS = {
    "ascii": "Plain answer {\"forecast\": {}}",
    "unicode": "Prévision — 株価 📈",
    "lone surrogates": "a\ud800b\udfff",
    "undecodable bytes": b"\xff\xfe ok \xc3".decode("utf-8", "surrogateescape"),
    "empty": "",
}


@pytest.mark.parametrize("name", sorted(RAWS))
def test_a_reply_crosses_the_wire_as_its_exact_bytes(name: str) -> None:
    raw = RAWS[name]
    body = wire.reply_message(ask_msg(), reply(raw), worker="lab-a@host", redelivered=False, sent_at=T0)
    msg = wire.parse(over_the_wire(body))
    assert isinstance(msg, wire.ReplyMessage)
    got = wire.seat_reply(msg, received_at=T0 + timedelta(seconds=9))
    assert got.raw == raw
    data, encoding = raw_bytes(raw)  # what the day stores: the oracle of "exact bytes"
    assert msg.raw_bytes() == data and msg.raw_encoding == encoding
    assert msg.raw_sha256 == hashlib.sha256(data).hexdigest()
    assert (got.started_at, got.finished_at) == (T0, T0 + timedelta(seconds=3))  # the worker's own times


def test_what_the_book_keeps_of_usage_is_the_same_after_the_wire() -> None:
    deep: Any = []
    for _ in range(900):
        deep = [deep]
    usage = {"input_tokens": float("nan"), "cost": float("inf"), "deep": deep, 7: "int key",
             "model-\ud800": {"outputTokens": 99}, "pair": (1, 2), "wide": {str(i): i for i in range(250)},
             "text": "x" * 5000}
    fetches = ({"host": "api.example.org", "port": 443, "method": "CONNECT", "allowed": True, "reason": "allow",
                "at": "2026-11-25T13:00:01Z"},)
    body = wire.reply_message(ask_msg(), reply("ok", usage, fetches), worker="w", redelivered=True, sent_at=T0)
    got = wire.seat_reply(wire.parse(over_the_wire(body)), received_at=T0)  # type: ignore[arg-type]
    assert json_safe(dict(got.usage)) == json_safe(usage)
    assert json_safe(list(got.fetches or ())) == json_safe(list(fetches))


def test_a_failure_reply_keeps_its_class_and_detail() -> None:
    failed = SeatReply(seat=SPEC.name, raw="", model="m", version="unreported", mode="", started_at=T0,
                       finished_at=T0, failure=FailureClass.LOGIN, detail="Invalid API key \udc80")
    msg = wire.parse(over_the_wire(wire.reply_message(ask_msg(), failed, worker="w", redelivered=False, sent_at=T0)))
    got = wire.seat_reply(msg, received_at=T0)  # type: ignore[arg-type]
    assert got.failure is FailureClass.LOGIN and got.detail == failed.detail and got.silent


def test_an_unrun_reply_is_dated_by_its_arrival() -> None:
    identity = ask_msg().identity
    body = wire.unrun_message(identity, queue="lab-a", worker="w", outcome="expired", failure=FailureClass.TIMEOUT,
                              detail="not started", sent_at=T0)
    msg = wire.parse(over_the_wire(body))
    assert isinstance(msg, wire.ReplyMessage) and msg.outcome == "expired"
    got = wire.seat_reply(msg, received_at=T0 + timedelta(minutes=1))
    assert got.silent and got.finished_at == T0 + timedelta(minutes=1) and got.seat == SPEC.name


@pytest.mark.parametrize(("options", "env", "why"), [
    ({"api_key": "sk-live-123"}, (), "options.api_key looks like a secret"),
    ({"nested": {"Authorization": "Bearer x"}}, (), "options.nested.Authorization looks like a secret"),
    ({"base_url": "https://user:pw@gateway.example.org/v1"}, (), "options.base_url is a URL with credentials"),
    ({}, ("ANTHROPIC_API_KEY=sk-live-123",), "is not a variable name"),
])
def test_a_roster_entry_carrying_a_secret_never_leaves(options: dict[str, Any], env: tuple[str, ...],
                                                       why: str) -> None:
    spec = SeatSpec(name="leaky", adapter="claude_code", options=options, env=env)
    with pytest.raises(WireError) as info:
        wire.ask_message(spec, make_ask(), queue="lab-a", deadline=T0, sent_at=T0)
    assert why in info.value.message and "keep the value on the worker's host" in info.value.message


def test_names_of_secrets_travel_their_values_do_not(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    secret = "sk-league-host-0123456789"
    monkeypatch.setenv("ANTHROPIC_API_KEY", secret)
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / ".credentials.json").write_text(json.dumps({"token": secret}))
    monkeypatch.setenv("LEAGUE_CREDENTIALS_HOME", str(tmp_path))
    spec = SeatSpec(name="claude", adapter="claude_code", env=("ANTHROPIC_API_KEY",),
                    credentials=("~/.claude/.credentials.json",),
                    options={"api_key_env": "ANTHROPIC_API_KEY", "max_tokens": 4096})
    body = wire.ask_message(spec, make_ask(), queue="lab-a", deadline=T0, sent_at=T0)
    data = dumps(body, serializer="json")[2]
    assert secret not in str(data) and "ANTHROPIC_API_KEY" in str(data)


def test_tampered_or_foreign_messages_are_refused_with_the_reason() -> None:
    good = wire.ask_message(SPEC, make_ask(), queue="lab-a", deadline=T0, sent_at=T0)
    cases = {
        "text changed after hashing": ({**good, "text": "Forecast NDX."}, "ask_sha256 is not the SHA-256"),
        "identity of another seat": ({**good, "identity": good["ask_sha256"] + ".other"}, "identity"),
        "a newer wire": ({**good, "v": 2}, "wire version 2"),
        "an unknown field": ({**good, "pickle": "x"}, "Extra inputs are not permitted"),
        "a naive deadline": ({**good, "deadline": "2026-11-25T13:30:00"}, "deadline"),
        "not an object": (["ask"], "JSON object"),
    }
    for name, (body, why) in cases.items():
        with pytest.raises(WireError) as info:
            wire.parse(body)
        assert why in info.value.message, name
    bad_reply = wire.reply_message(ask_msg(), reply("abc"), worker="w", redelivered=False, sent_at=T0)
    with pytest.raises(WireError, match="raw_sha256"):
        wire.parse({**bad_reply, "raw_b64": "YWJk"})  # "abd": bytes that are not the hashed ones


def test_an_identity_is_the_ask_hash_qualified_by_the_seat() -> None:
    sha = "ab" * 32
    assert wire.split_identity(wire.identity_of("seat-1", sha)) == (sha, "seat-1")
    with pytest.raises(WireError, match="not a league ask identity"):
        wire.split_identity("celery-uuid-4f6a")
