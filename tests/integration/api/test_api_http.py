"""The API over real HTTP (httpx against uvicorn on loopback)."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest
from api_server import Running

from league.book import Book
from league.clock import SystemClock

REPLAY = Path(__file__).resolve().parents[3] / "league" / "verify" / "tools" / "replay_brier.py"


@pytest.fixture()
def client(running: Running) -> httpx.Client:
    with httpx.Client(base_url=running.base, timeout=20) as c:
        yield c  # type: ignore[misc]


@pytest.mark.parametrize("name", ["council-book.jsonl", "council-forecasts.csv", "index.html", "arena-dataset.json",
                                  "tools/replay_brier.py", "asks.jsonl"])
def test_files_are_served_byte_identical(client: httpx.Client, running: Running, name: str) -> None:
    resp = client.get(f"/{name}")
    assert resp.status_code == 200
    assert resp.content == (running.season.public / name).read_bytes()


def test_head_gives_the_size_without_the_body(client: httpx.Client, running: Running) -> None:
    resp = client.head("/council-forecasts.csv")
    assert resp.status_code == 200 and resp.content == b""
    assert int(resp.headers["content-length"]) == (running.season.public / "council-forecasts.csv").stat().st_size


def test_ask_texts_are_served_under_their_hash(client: httpx.Client, running: Running) -> None:
    ask = sorted((running.season.public / "asks").glob("*.md"))[0]
    assert client.get(f"/asks/{ask.name}").content == ask.read_bytes()


def test_http_ranges(client: httpx.Client, running: Running) -> None:
    book = (running.season.public / "council-book.jsonl").read_bytes()
    part = client.get("/council-book.jsonl", headers={"Range": "bytes=10-109"})
    assert part.status_code == 206
    assert part.content == book[10:110]
    beyond = client.get("/council-book.jsonl", headers={"Range": f"bytes={len(book) + 10}-{len(book) + 20}"})
    assert beyond.status_code == 416


@pytest.mark.parametrize(("path", "status"), [
    ("/no-such-file.csv", 404),
    ("/api/seats/nobody", 404),
    ("/api/runs/run-1999-01-01-am", 404),
    ("/api/sessions/1999-01-04", 404),
    ("/api/sessions/20260105", 400),
    ("/api/sessions/2026-13-01", 400),
    ("/api/lines?from=5&to=2", 400),
    ("/%2e%2e/books/council-book.jsonl", 400),
    ("/asks/%2e%2e/%2e%2e/books/council-book.jsonl", 400),
    ("/tools/..%5c..%5cbooks", 400),
    ("/api/stream?kind=nonsense", 400),
    ("/api/lines?from=1&to=50000", 400),
    ("/api/lines?from=zero", 400),
    ("/api/lines?from=0", 400),
    ("/api/lines?from=100000", 416),
    ("/api/stream?from=100000", 416),
])
def test_refusals_are_clear(client: httpx.Client, path: str, status: int) -> None:
    resp = client.get(path)
    assert resp.status_code == status
    assert resp.json()["error"]


def test_traversal_with_a_raw_path_is_refused(running: Running) -> None:
    """httpx would normalise '..' away, so send the request line by hand."""
    import socket

    host, port = running.base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(b"GET /asks/../../books/council-book.jsonl HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    status = answer.split(b"\r\n", 1)[0]
    assert b" 400 " in status or b" 404 " in status, status
    assert b'"seal"' not in answer


def test_league_table_matches_the_published_models(client: httpx.Client, running: Running) -> None:
    table = client.get("/api/league").json()
    for model in running.season.models:
        rows = [r for r in table["horizons"][model["horizon"]] if r["seat"] == model["seat"]]
        assert len(rows) == 1
        assert rows[0]["n"] == model["n"] and rows[0]["sessions"] == model["sessions"]
        assert rows[0]["brier"] == pytest.approx(model["brier"], abs=1e-6)
    gamma = next(r for r in table["horizons"]["1d"] if r["seat"] == "gamma")
    assert gamma["sessions"] == 9 and gamma["in_table"] is False  # 36 forecasts but only 9 sessions: 30/10 rule


def test_seat_run_and_session(client: httpx.Client, running: Running) -> None:
    alpha = client.get("/api/seats/alpha").json()
    assert set(alpha["horizons"]) == {"1d", "1w"}
    assert len(alpha["grid"]) == 8
    day = running.season.sessions[-1]
    session = client.get(f"/api/sessions/{day}").json()
    assert session["runs"] == [f"run-{day}-am"]
    assert session["forecast_rows"] == 32
    run = client.get(f"/api/runs/run-{day}-am").json()
    assert [a["seat"] for a in run["answers"]] == ["alpha", "beta", "gamma", "_coin"]
    assert run["run"]["session"] == day
    assert [ln["kind"] for ln in run["lines"]] == ["score"]


def test_lines_by_kind(client: httpx.Client, running: Running) -> None:
    resp = client.get("/api/lines", params={"from": 1, "kind": "score"})
    lines = [json.loads(x) for x in resp.text.splitlines()]
    assert len(lines) == len(running.season.sessions)
    assert all(x["kind"] == "score" for x in lines)
    whole = (running.season.book).read_bytes().split(b"\n")
    first = client.get("/api/lines", params={"from": 2, "to": 3}).content
    assert first == whole[1] + b"\n" + whole[2] + b"\n"


def test_one_line_typed_by_its_kind_and_its_schemas_in_the_docs(client: httpx.Client, running: Running) -> None:
    schemas = client.get("/api/openapi.json").json()["components"]["schemas"]
    assert {"RunLine", "AnswerLine", "ScoreLine", "ScoreRow", "MarkLine", "AskLine", "LineView"} <= set(schemas)
    assert schemas["AnswerLine"]["properties"]["status"]["enum"] == ["answered", "refused_shape"]
    raw = running.season.book.read_bytes().split(b"\n")[1]  # line 2, as the fixture's writer sealed it
    got = client.get("/api/lines/2").json()
    sealed = json.loads(raw)
    assert {k: got[k] for k in ("n", "prev", "seal", "link")} == {k: sealed[k] for k in ("n", "prev", "seal", "link")}
    assert got["line"] == {k: v for k, v in sealed.items() if k not in ("n", "prev", "seal", "link")}
    assert client.get("/api/lines/100000").status_code == 404


def test_stream_delivers_a_line_appended_after_connecting(running: Running) -> None:
    start = client_lines = httpx.get(f"{running.base}/api/today", timeout=20).json()["book_lines"] + 1
    got: queue.Queue[bytes | BaseException] = queue.Queue()
    connected = threading.Event()

    def reader() -> None:
        try:
            with httpx.Client(timeout=httpx.Timeout(20, read=30)) as c, c.stream(
                    "GET", f"{running.base}/api/stream", params={"from": start, "kind": "correction",
                                                                  "follow": "true"}) as resp:
                assert resp.status_code == 200
                connected.set()
                for line in resp.iter_lines():
                    if line.strip():
                        got.put(line.encode())
                        return
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            got.put(exc)
            connected.set()

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    assert connected.wait(20)
    with Book(running.season.book, SystemClock()) as book:
        book.append("note", {"text": "not a correction: filtered out"})
        sealed = book.append("correction", {"of": 2, "reason": "test correction", "source": "test"})
    item = got.get(timeout=30)
    assert not isinstance(item, BaseException), item
    assert item == sealed.to_bytes().rstrip(b"\n")
    assert json.loads(item)["n"] == client_lines + 1


def test_replay_brier_runs_against_the_server(running: Running) -> None:
    result = subprocess.run([sys.executable, "-I", str(REPLAY), "--data", running.base + "/"],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 differ" in result.stdout


def test_healthz_and_metrics_count_requests_by_route_template(client: httpx.Client, running: Running) -> None:
    """A health probe for nginx/load balancers, and a Prometheus scrape of the API's requests
    counted by route template (a scan of random paths adds no series)."""
    health = client.get("/healthz")
    assert health.status_code == 200
    assert health.json() == {"status": "ok", "book_lines": len(running.season.data.joinpath(
        "books", "council-book.jsonl").read_bytes().splitlines())}
    before = _scraped(client, 'league_api_requests_total{route="/api/seats/{seat}",status="2xx"}')
    for seat in ("alpha", "beta", "gamma"):
        assert client.get(f"/api/seats/{seat}").status_code == 200
    client.get("/no-such-file-a")
    client.get("/no-such-file-b")
    scrape = client.get("/metrics")
    assert scrape.headers["content-type"].startswith("text/plain")
    assert _scraped(client, 'league_api_requests_total{route="/api/seats/{seat}",status="2xx"}') == before + 3
    assert "/no-such-file-a" not in scrape.text and 'route="/{path:path}",status="4xx"' in scrape.text


def _scraped(client: httpx.Client, series: str) -> float:
    for line in client.get("/metrics").text.splitlines():
        if line.startswith(series + " "):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_the_stream_ends_at_the_last_line_unless_asked_to_follow(client: httpx.Client, running: Running) -> None:
    """A client that does not ask to follow gets a response that ends (it used to be held open)."""
    book_lines = running.season.data.joinpath("books", "council-book.jsonl").read_bytes().count(b"\n")
    resp = client.get("/api/stream", params={"from": 1})
    assert resp.status_code == 200
    assert len([x for x in resp.text.splitlines() if x.strip()]) == book_lines
