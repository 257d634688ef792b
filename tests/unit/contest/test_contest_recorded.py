"""The recorded venue: which markets a poll lists (window, listing time, closed), in file order, parsed once."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from league.contest.markets import recorded
from league.contest.markets.recorded import RecordedSource

NOW = datetime(2026, 12, 7, 6, 0, tzinfo=UTC)


def item(mid: str, end: datetime, *, listed: datetime | None = None, closed: bool = False) -> dict[str, object]:
    z = "%Y-%m-%dT%H:%M:%SZ"
    body: dict[str, object] = {"id": mid, "question": f"Q{mid}?", "endDate": end.strftime(z), "active": not closed,
                               "closed": closed, "acceptingOrders": not closed, "outcomes": '["Yes", "No"]',
                               "outcomePrices": '["0.4", "0.6"]', "clobTokenIds": f'["{mid}0", "{mid}1"]'}
    if listed is not None:
        body["startDate"] = listed.strftime(z)
    return body


def test_a_poll_lists_what_is_open_in_the_window_in_file_order(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    items = [item("late", NOW + timedelta(days=3)), item("past", NOW - timedelta(minutes=1)),
             item("early", NOW + timedelta(days=1)), item("far", NOW + timedelta(days=8)),
             item("unlisted", NOW + timedelta(days=1), listed=NOW + timedelta(hours=1)),
             item("done", NOW + timedelta(days=1), closed=True), item("edge", NOW + timedelta(days=7))]
    (tmp_path / "markets.json").write_text(json.dumps(items))
    source = RecordedSource(tmp_path)
    parsed: list[str] = []
    real = recorded.parse_market
    monkeypatch.setattr(recorded, "parse_market", lambda body, where: parsed.append(where) or real(body, where))
    assert [m.id for m in source.open_markets(NOW, 7)] == ["late", "early", "edge"]  # end <= now + 7 days
    assert [m.id for m in source.open_markets(NOW + timedelta(hours=1), 7)] == ["late", "early", "unlisted", "edge"]
    assert len(parsed) == len(items)  # each recorded market parsed once, not at every poll
