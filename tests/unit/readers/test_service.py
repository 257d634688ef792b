"""The readers' write service through HTTP (FastAPI's test client): assignment, the first-forecast rule, the
reference time, peeks, the revision protocol, and a clear 4xx for every hostile request with nothing sealed."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from league.calendar import default_calendar
from league.clock import SimulatedClock
from league.readers.service import COOKIE, Limits, ReadersService, create_readers_app

MARKETS = ["SPX", "NDX", "GOLD"]
OPEN = datetime(2026, 12, 7, 13, 0, tzinfo=UTC)  # Monday 08:00 New York: forecasts for 2026-12-07 open


def _stats(public: Path) -> None:
    public.mkdir(parents=True, exist_ok=True)
    events = [{"horizon": "1d", "session": "2026-12-04", "asset": "SPX", "p": 62.0},
              {"horizon": "1d", "session": "2026-12-04", "asset": "NDX", "p": 41.0},
              {"horizon": "1w", "session": "2026-12-04", "asset": "SPX", "p": 70.0}]
    (public / "council-stats.json").write_text(json.dumps({"consensus": {"per_event": events}}), encoding="utf-8")


@pytest.fixture()
def setup(tmp_path: Path) -> tuple[TestClient, SimulatedClock, ReadersService]:
    _stats(tmp_path / "public")
    clock = SimulatedClock(OPEN)
    service = ReadersService(tmp_path, tmp_path / "public", MARKETS, default_calendar(), time(9, 30), clock,
                             rng=random.Random(3), limits=Limits(requests_per_address_day=50,
                                                                 identifiers_per_address_day=3))
    client = TestClient(create_readers_app(service, secure_cookie=False))
    return client, clock, service


def _book(service: ReadersService) -> list[dict[str, Any]]:
    return [json.loads(x) for x in service.book.path.read_bytes().splitlines()]


def _send(client: TestClient, path: str, state: dict[str, Any], **fields: Any) -> Any:
    return client.post(path, json={"session": state["session"], "csrf": state["csrf"], **fields})


def test_a_reader_is_assigned_once_and_only_its_first_forecast_counts(setup: Any) -> None:
    client, _, service = setup
    state = client.get("/state").json()
    assert state["session"] == "2026-12-07" and state["closes_at"] == "2026-12-07T14:30:00Z"
    assert client.cookies.get(COOKIE)
    group = state["group"]
    again = client.get("/state").json()
    assert again["group"] == group  # the same reader, the same group
    first = _send(client, "/forecast", again, market="SPX", side="up", confidence=70).json()
    assert first["counted"] is True
    second = _send(client, "/forecast", {**again, "csrf": first["csrf"]}, market="SPX", side="down",
                   confidence=90).json()
    assert second["counted"] is False and "only your first one counts" in second["why"]
    lines = _book(service)
    forecasts = [x for x in lines if x["kind"] == "reader_forecast"]
    assert [x["counted"] for x in forecasts] == [True, False]
    assert forecasts[0]["consensus_up"] == 62.0 and forecasts[0]["consensus_session"] == "2026-12-04"
    assert [x["kind"] for x in lines].count("reader_assigned") == 1
    token = client.cookies.get(COOKIE)
    assert token not in service.book.path.read_text()  # the identifier itself is never sealed


def test_blind_readers_see_the_council_after_their_first_forecast_or_when_they_peek(tmp_path: Path) -> None:
    _stats(tmp_path / "public")
    service = ReadersService(tmp_path, tmp_path / "public", MARKETS, default_calendar(), time(9, 30),
                             SimulatedClock(OPEN), rng=random.Random(0))
    groups: dict[str, TestClient] = {}
    for _ in range(12):  # fresh readers until both groups are drawn
        client = TestClient(create_readers_app(service, secure_cookie=False))
        groups.setdefault(client.get("/state").json()["group"], client)
    assert set(groups) == {"g0", "g1"}
    see = groups["g1"].get("/state").json()
    assert see["council_visible"] is True and see["council"]["up"] == {"NDX": 41.0, "SPX": 62.0}
    blind = groups["g0"].get("/state").json()
    assert blind["council_visible"] is False and blind["council"] is None
    peeked = _send(groups["g0"], "/peek", blind).json()
    assert peeked["council"]["up"]["SPX"] == 62.0
    assert [x["kind"] for x in _book(service)].count("reader_peek") == 1
    assert groups["g0"].get("/state").json()["council_visible"] is True


def test_a_forecast_after_the_reference_time_is_refused(setup: Any) -> None:
    client, clock, service = setup
    state = client.get("/state").json()
    clock.set(datetime(2026, 12, 7, 14, 30, tzinfo=UTC))  # 09:30 New York: the session's reference
    late = _send(client, "/forecast", state, market="SPX", side="up", confidence=60)
    assert late.status_code == 409
    assert "closed" in late.json()["error"] and "2026-12-08" in late.json()["fix"]
    assert not [x for x in _book(service) if x["kind"] == "reader_forecast"]


@pytest.mark.parametrize(("fields", "status", "needle"), [
    ({"market": "SPX", "side": "up", "confidence": 99}, 422, "confidence 99"),
    ({"market": "SPX", "side": "up", "confidence": 54}, 422, "from 55 to 95"),
    ({"market": "SPX", "side": "up", "confidence": 70.5}, 422, "whole number"),
    ({"market": "SPX", "side": "sideways", "confidence": 70}, 422, "up or down"),
    ({"market": "DOGE", "side": "up", "confidence": 70}, 422, "not one of the league's markets"),
    ({"market": "SPX", "side": "up", "confidence": 70, "session": "2026-12-01"}, 409, "closed or not open"),
])
def test_bad_fields_are_refused_clearly_and_nothing_is_sealed(setup: Any, fields: dict[str, Any], status: int,
                                                              needle: str) -> None:
    client, _, service = setup
    state = client.get("/state").json()
    got = client.post("/forecast", json={"session": state["session"], "csrf": state["csrf"], **fields})
    assert got.status_code == status and needle in got.json()["error"], got.json()
    assert got.json()["fix"]
    assert not [x for x in _book(service) if x["kind"] == "reader_forecast"]


def test_forged_identifiers_replayed_tokens_and_huge_bodies_are_refused(setup: Any) -> None:
    client, _, service = setup
    state = client.get("/state").json()
    ok = _send(client, "/forecast", state, market="SPX", side="up", confidence=70)
    assert ok.status_code == 200
    replay = _send(client, "/forecast", state, market="NDX", side="up", confidence=70)  # the same token again
    assert replay.status_code == 403 and "anti-forgery" in replay.json()["error"]
    forged = TestClient(create_readers_app(service, secure_cookie=False), cookies={COOKIE: "A" * 32})
    assert forged.get("/state").status_code == 403
    huge = client.post("/forecast", content=b"{" + b" " * 5000 + b"}", headers={"content-type": "application/json"})
    assert huge.status_code == 413
    nobody = TestClient(create_readers_app(service, secure_cookie=False))
    assert nobody.post("/forecast", json={}).status_code == 403
    assert len([x for x in _book(service) if x["kind"] == "reader_forecast"]) == 1


def test_new_identifiers_per_address_are_limited_and_a_second_one_is_a_reset(setup: Any) -> None:
    client, _, service = setup
    for _ in range(3):
        assert TestClient(client.app).get("/state").status_code == 200
    assert TestClient(client.app).get("/state").status_code == 429
    assigned = [x for x in _book(service) if x["kind"] == "reader_assigned"]
    assert [x["reset"] for x in assigned] == [False, True, True]


def test_the_revision_protocol_private_then_a_drawn_display_then_final(setup: Any) -> None:
    client, _, service = setup
    state = client.get("/state").json()
    final_first = _send(client, "/revision/final", state, market="SPX", side="up", confidence=60)
    assert final_first.status_code == 409 and "no private forecast" in final_first.json()["error"]
    state = client.get("/state").json()
    private = _send(client, "/revision/private", state, market="SPX", side="down", confidence=60).json()
    assert private["display"] in ("council", "control")
    if private["display"] == "council":
        assert private["shows"]["council"] == 62.0
    final = _send(client, "/revision/final", {**state, "csrf": private["csrf"]}, market="SPX", side="up",
                  confidence=55).json()
    assert final["recorded"] is True
    kinds = [x["kind"] for x in _book(service)]
    assert kinds.count("reader_private") == 1 and kinds.count("reader_final") == 1
