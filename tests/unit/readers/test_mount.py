"""The readers' service mounted beside the read-only API (as ``league serve --readers`` does): its GETs reach it.

The read-only app answers every GET it does not know with its open-data catch-all, so a mount appended after it
saw only POSTs: ``GET /readers/state`` was a 404 "no file 'readers/state' in the open data".
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, time
from pathlib import Path

from fastapi.testclient import TestClient

from league.api import create_app
from league.api.app import mount_beside
from league.book import Book
from league.calendar import default_calendar
from league.clock import SimulatedClock
from league.readers.service import COOKIE, ReadersService, create_readers_app

OPEN = datetime(2026, 12, 7, 13, 0, tzinfo=UTC)


def _app(tmp_path: Path) -> TestClient:
    with Book(tmp_path / "books" / "council-book.jsonl", SimulatedClock(OPEN)) as council:
        council.append("run", {"run_id": "r1", "session": "2026-12-04"})
    (tmp_path / "public").mkdir()
    service = ReadersService(tmp_path, tmp_path / "public", ["SPX"], default_calendar(), time(9, 30),
                             SimulatedClock(OPEN), rng=random.Random(1))
    app = create_app(tmp_path)
    mount_beside(app, "/readers", create_readers_app(service, secure_cookie=False))
    return TestClient(app)


def test_get_state_reaches_the_mounted_service_and_the_open_data_still_answers(tmp_path: Path) -> None:
    client = _app(tmp_path)
    state = client.get("/readers/state")
    assert state.status_code == 200, state.text
    assert state.json()["session"] == "2026-12-07" and state.json()["markets"] == ["SPX"]
    assert client.cookies.get(COOKIE)
    sent = client.post("/readers/forecast", json={"session": "2026-12-07", "market": "SPX", "side": "up",
                                                  "confidence": 60, "csrf": state.json()["csrf"]})
    assert sent.status_code == 200 and sent.json()["counted"] is True
    assert client.get("/healthz").json()["status"] == "ok"
    missing = client.get("/no-such-file.json")
    assert missing.status_code == 404 and "no file" in missing.json()["error"]


def test_without_the_mount_the_page_gets_a_404_for_readers_state(tmp_path: Path) -> None:
    """What the page reads as "the experiment is not open on this server"."""
    (tmp_path / "books").mkdir()
    with Book(tmp_path / "books" / "council-book.jsonl", SimulatedClock(OPEN)) as council:
        council.append("run", {"run_id": "r1", "session": "2026-12-04"})
    (tmp_path / "public").mkdir()
    assert TestClient(create_app(tmp_path)).get("/readers/state").status_code == 404
