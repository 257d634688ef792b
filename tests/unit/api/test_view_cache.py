"""The JSON views' cache (league.api.viewcache): an answer is kept while the files its view read are unchanged, the
embargo's lift (a score line sealed in the book) is seen at once, an expiry is honoured by the Clock, the cache is
bounded, and the ETag and 304 still hold."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from league.api import views
from league.api.app import create_app
from league.api.server import WORKER_ARGS_ENV, worker_app, worker_args
from league.api.viewcache import Answer, Reads, ViewCache, encode
from league.clock import SimulatedClock

DAY = "2026-11-27"
START = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
CSV_HEAD = "session,seat,asset,horizon,prob_up,ref,close,status,cell_status\n"
CSV_ROWS = [f"{DAY},s{i},SPX,1d,60,100,101,counted,elicited\n" for i in range(3)]


def _line(**fields: object) -> str:
    return json.dumps(fields) + "\n"


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A league data folder: the live book with one run of DAY (no score line yet) and the published CSV."""
    (tmp_path / "books").mkdir()
    (tmp_path / "public").mkdir()
    (tmp_path / "books" / "council-book.jsonl").write_text(
        _line(kind="run", run_id="r1", session=DAY, at="2026-11-27T14:00:00Z")
        + _line(kind="answer", run_id="r1", session=DAY, seat="s0", items={"SPX": {"1d": {"prob_up": 60}}}))
    (tmp_path / "public" / "council-forecasts.csv").write_text(CSV_HEAD + "".join(CSV_ROWS))
    return tmp_path


def _league(brier: float) -> str:
    return json.dumps({"models": [{"seat": "s0", "horizon": "1d", "brier": brier, "n": 40, "sessions": 12,
                                   "in_table": True, "rank": 1}]})


def _replace(path: Path, text: str) -> None:
    """Republish ``path`` as the publisher does: a new file renamed over the old one."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def _counting(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    calls: list[int] = []
    real: Callable[..., object] = getattr(views, name)

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(views, name, counted)
    return calls


def test_a_kept_answer_is_sent_until_a_file_the_view_read_changes(data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    league = data / "public" / "council-league.json"
    league.write_text(_league(0.2))
    calls = _counting(monkeypatch, "league_table")
    client = TestClient(create_app(data, db_url="", clock=SimulatedClock(START)))
    first = client.get("/api/league")
    assert first.json()["horizons"]["1d"][0]["brier"] == 0.2
    assert client.get("/api/league").content == first.content
    assert len(calls) == 1
    _replace(league, _league(0.3))  # same size, another inode
    assert client.get("/api/league").json()["horizons"]["1d"][0]["brier"] == 0.3
    league.write_text(_league(0.25))  # written in place: another size
    assert client.get("/api/league").json()["horizons"]["1d"][0]["brier"] == 0.25
    assert len(calls) == 3


def test_a_file_that_appears_or_goes_changes_the_answer(data: Path) -> None:
    client = TestClient(create_app(data, db_url="", clock=SimulatedClock(START)))
    league = data / "public" / "council-league.json"
    assert client.get("/api/league").json()["source"].startswith("computed from council-forecasts.csv")
    league.write_text(_league(0.2))
    assert client.get("/api/league").json()["source"] == "council-league.json"
    league.unlink()
    assert client.get("/api/league").json()["source"].startswith("computed from council-forecasts.csv")


def test_a_score_line_sealed_in_the_book_lifts_the_embargo_at_once(data: Path) -> None:
    client = TestClient(create_app(data, db_url="", clock=SimulatedClock(START)))
    during = client.get(f"/api/sessions/{DAY}").json()
    assert during["forecast_rows"] == 0 and during["league"] == []
    assert client.get(f"/api/sessions/{DAY}").json() == during
    with open(data / "books" / "council-book.jsonl", "a", encoding="utf-8") as fh:
        fh.write(_line(kind="score", session=DAY, at="2026-11-27T21:05:00Z"))
    after = client.get(f"/api/sessions/{DAY}").json()
    assert after["forecast_rows"] == len(CSV_ROWS)
    assert {row["seat"] for row in after["league"]} == {"s0", "s1", "s2"}


def test_a_proof_published_for_the_session_is_listed(data: Path) -> None:
    client = TestClient(create_app(data, db_url="", clock=SimulatedClock(START)))
    assert client.get(f"/api/sessions/{DAY}").json()["proof"] == []
    (data / "public" / "proof" / DAY).mkdir(parents=True)
    assert client.get(f"/api/sessions/{DAY}").json()["proof"] == []
    (data / "public" / "proof" / DAY / "status.json").write_text("{}")
    assert client.get(f"/api/sessions/{DAY}").json()["proof"] == [f"proof/{DAY}/status.json"]


def test_the_etag_is_the_bodys_sha256_and_a_match_is_answered_304(data: Path) -> None:
    league = data / "public" / "council-league.json"
    league.write_text(_league(0.2))
    client = TestClient(create_app(data, db_url="", clock=SimulatedClock(START)))
    first = client.get("/api/league")
    etag = first.headers["etag"]
    assert etag == f'"{hashlib.sha256(first.content).hexdigest()}"'
    assert first.headers["cache-control"] == "no-cache" and "last-modified" in first.headers
    again = client.get("/api/league", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    _replace(league, _league(0.3))
    changed = client.get("/api/league", headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["etag"] != etag


def test_a_refusal_is_never_kept(data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = create_app(data, db_url="", clock=SimulatedClock(START))
    client = TestClient(app)
    calls = _counting(monkeypatch, "seat")
    assert client.get("/api/seats/nobody").status_code == 404
    assert client.get("/api/seats/nobody").status_code == 404
    assert len(calls) == 2 and len(app.state.view_cache) == 0


def test_with_the_cache_off_every_request_computes_its_view(data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch, "grid")
    client = TestClient(create_app(data, db_url="", clock=SimulatedClock(START), view_cache=False))
    bodies = {client.get("/api/grid").content for _ in range(3)}
    assert len(calls) == 3 and len(bodies) == 1


def test_an_answer_with_an_expiry_is_kept_until_the_clock_reaches_it() -> None:
    clock = SimulatedClock(START)
    cache = ViewCache(clock)
    made: list[datetime] = []

    def view(reads: Reads) -> object:
        made.append(clock.now())
        reads.expire_at(START + timedelta(hours=2))
        reads.expire_at(START + timedelta(hours=1))  # the earliest expiry holds
        return {"made": len(made)}

    assert json.loads(cache.answer("k", view).body) == {"made": 1}
    clock.set(START + timedelta(minutes=59, seconds=59))
    assert json.loads(cache.answer("k", view).body) == {"made": 1}
    clock.set(START + timedelta(hours=1))
    assert json.loads(cache.answer("k", view).body) == {"made": 2}
    assert made == [START, START + timedelta(hours=1)]


def test_the_cache_is_bounded_in_answers_and_in_bytes() -> None:
    cache = ViewCache(SimulatedClock(START), max_entries=3, max_bytes=1000)
    for i in range(5):
        cache.answer(("seat", str(i)), lambda _reads, i=i: {"i": i})
    assert len(cache) == 3
    assert cache.lookup(("seat", "0")) is None and cache.lookup(("seat", "1")) is None
    cache.lookup(("seat", "2"))  # used: the least recently used is now 3
    cache.answer(("seat", "5"), lambda _reads: {"i": 5})
    assert cache.lookup(("seat", "3")) is None and cache.lookup(("seat", "2")) is not None
    cache.answer("big", lambda _reads: {"x": "y" * 600})
    cache.answer("big2", lambda _reads: {"x": "z" * 600})
    assert cache.size_bytes <= 1000 and cache.lookup("big") is None and cache.lookup("big2") is not None
    cache.answer("huge", lambda _reads: {"x": "w" * 2000})  # larger than the bound: sent, never kept
    assert cache.lookup("huge") is None and cache.size_bytes <= 1000


def test_a_missing_file_a_view_looked_for_is_noted_as_missing(tmp_path: Path) -> None:
    reads = Reads()
    assert reads.stat(tmp_path / "absent.json") is None
    (tmp_path / "there.json").write_text("{}")
    assert reads.stat(tmp_path / "there.json") is not None
    assert reads.files[tmp_path / "absent.json"] is None and reads.files[tmp_path / "there.json"] is not None


def test_the_encoding_is_starlettes_and_a_nan_is_sent_as_null() -> None:
    assert encode({"a": [1, 2.5, "é"], "b": None}) == '{"a":[1,2.5,"é"],"b":null}'.encode()
    assert encode({"a": float("nan"), "b": [float("inf")]}) == b'{"a":null,"b":[null]}'


@pytest.mark.parametrize("on", [True, False])
def test_the_worker_processes_get_the_view_cache_setting(data: Path, on: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(WORKER_ARGS_ENV, worker_args(data, "", None, view_cache=on))
    assert worker_app().state.view_cache.enabled is on


def test_requests_arriving_while_a_view_is_computed_share_that_computation() -> None:
    cache = ViewCache(SimulatedClock(START))
    started, release = threading.Event(), threading.Event()
    calls: list[int] = []

    def view(_reads: Reads) -> object:
        calls.append(1)
        started.set()
        release.wait(30)
        return {"x": 1}

    async def two_requests() -> list[Answer]:
        first = asyncio.ensure_future(cache.get("k", view))
        assert await asyncio.to_thread(started.wait, 30)
        second = asyncio.ensure_future(cache.get("k", view))
        await asyncio.sleep(0)  # the second request reaches its wait while the view is still being computed
        release.set()
        return list(await asyncio.gather(first, second))

    first, second = asyncio.run(two_requests())
    assert calls == [1] and first is second
