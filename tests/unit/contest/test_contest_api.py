"""The contest through the API and `league tail`: the view of the published files, the embargoed stream."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from league.api import create_app
from league.api.follow import follow_url
from league.book import Book
from league.clock import SimulatedClock
from league.contest import ledger as L
from league.contest.ledger import Ledger

T0 = datetime(2026, 12, 7, 6, 0, tzinfo=UTC)


@pytest.fixture()
def data(tmp_path: Path) -> Iterator[tuple[Path, Ledger]]:
    clock = SimulatedClock(T0)
    with Book(tmp_path / "books" / "council-book.jsonl", clock) as council:
        council.append("run", {"run_id": "r1", "session": "2026-12-07"})
    (tmp_path / "public").mkdir()
    with Ledger(tmp_path / "books" / "contest-book.jsonl", clock) as ledger:
        ledger.append(L.ROUND_OPEN, {"round_id": 1, "market_id": "m1"})
        ledger.append(L.BET, {"round_id": 1, "agent": "claude", "outcome": "Yes"})
        yield tmp_path, ledger


def ns(body: bytes) -> list[int]:
    return [json.loads(x)["n"] for x in body.splitlines() if x.strip()]


def test_the_stream_holds_a_bet_until_its_round_closes(data: tuple[Path, Ledger]) -> None:
    root, ledger = data
    client = TestClient(create_app(root))
    assert ns(client.get("/api/contest/stream", params={"follow": "false"}).content) == [1]
    ledger.append(L.ROUND_CLOSED, {"round_id": 1, "market_id": "m1", "entries": []})
    assert ns(client.get("/api/contest/stream", params={"follow": "false"}).content) == [1, 2, 3]
    only = client.get("/api/contest/stream", params={"follow": "false", "kind": "contest.bet"})
    assert ns(only.content) == [2]
    bad = client.get("/api/contest/stream", params={"kind": "answer"})
    assert bad.status_code == 400 and "unknown kind answer" in bad.json()["error"]


def test_the_view_reads_the_published_contest_files(data: tuple[Path, Ledger]) -> None:
    root, _ = data
    client = TestClient(create_app(root))
    assert client.get("/api/contest").json() == {"contest": False}
    folder = root / "public" / "contest"
    (folder / "cards").mkdir(parents=True)
    metrics = {"forecast_accuracy": {"agents": [{"agent": "claude", "brier": 0.1}]}, "betting_record": {},
               "season": 1}
    (folder / "metrics.json").write_text(json.dumps(metrics))
    (folder / "rounds.json").write_text(json.dumps([{"round_id": 7, "question": "Q?"}]))
    (folder / "cards" / "7.json").write_text(json.dumps({"round_id": 7, "cards": [{"agent": "claude"}]}))
    view = client.get("/api/contest").json()
    assert view["contest"] is True and view["forecast_accuracy"]["agents"][0]["brier"] == 0.1
    assert view["cards"]["7"]["cards"] == [{"agent": "claude"}]
    assert client.get("/contest/metrics.json").content == (folder / "metrics.json").read_bytes()


def test_tail_follows_the_contest_stream_by_url(data: tuple[Path, Ledger]) -> None:
    root, ledger = data
    ledger.append(L.ROUND_CLOSED, {"round_id": 1, "market_id": "m1", "entries": []})
    client = TestClient(create_app(root))
    got = list(follow_url("http://testserver", 2, frozenset({"contest.bet"}), client=client,
                          stream="/api/contest/stream"))
    assert [n for n, _ in got] == [2]


def test_league_tail_prints_contest_kinds_from_the_contest_book(data: tuple[Path, Ledger]) -> None:
    from league.cli import app

    root, _ = data
    book = str(root / "books" / "contest-book.jsonl")
    out = CliRunner().invoke(app, ["tail", book, "--kind", "contest.bet"])
    assert out.exit_code == 0, out.output
    assert [json.loads(x)["kind"] for x in out.output.splitlines()] == ["contest.bet"]
    everything = CliRunner().invoke(app, ["tail", book, "--kind", "contest.*"])
    assert len(everything.output.splitlines()) == 2
    mixed = CliRunner().invoke(app, ["tail", book, "--kind", "contest.bet", "--kind", "answer"])
    assert mixed.exit_code != 0 and "two books" in str(mixed.exception or mixed.output)
