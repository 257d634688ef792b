"""Fetch records of cited links: after counted ingest closes the league fetches each link the counted answers
cite, once, and seals what it got in the arms' book; the council's books do not change; the records are
published and rebuilt by `league verify`."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import shutil
import threading
from collections.abc import Iterator
from datetime import date, time, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from arms_helpers import book_lines
from day_helpers import league_dir, roster, seat

from league.calendar import et_time
from league.clock import SimulatedClock
from league.compose import build_league
from league.config import load_config
from league.jobs.context import BARE
from league.jobs.scheduler import catch_up
from league.jobs.seal import pump
from league.publish import publish
from league.publish.rebuild import rebuild_step

SESSION = date(2026, 11, 24)
PAGE = b'<html><head><meta property="og:published_time" content="2026-11-24T11:00:00Z"></head><body>x</body></html>'


HITS: dict[str, int] = {}


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        return None

    def do_GET(self) -> None:  # noqa: N802
        HITS[self.path] = HITS.get(self.path, 0) + 1
        status, body = (200, PAGE) if self.path == "/story" else (404, b"gone")
        self.send_response(status)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def _day(root: Path, base: str, *, fetch: bool) -> Path:
    seats = roster(seat("aurora", "scripted", seed=1, latency_s=60, cite=[f"{base}/story", f"{base}/missing"]),
                   seat("basalt", "scripted", seed=2, latency_s=100, cite=[f"{base}/story"]), seat("_coin", "coin"))
    config_dir, data_dir, _ = league_dir(root, seats, et_time(SESSION, time(7, 0)))
    if fetch:
        with open(config_dir / "league.toml", "a", encoding="utf-8") as fh:
            fh.write("\n[sources]\nfetch = true\nallow_private = true  # the test's pages are on loopback\n")
    end = et_time(SESSION + timedelta(days=1), time(3, 0))
    with build_league(load_config(config_dir), SimulatedClock(et_time(SESSION, time(8, 0))), stages=BARE) as lg:
        catch_up(lg, et_time(SESSION, time(3, 0)), end, before_each=lambda f: pump(lg, f.at))
        pump(lg, end)
    assert not publish(data_dir, clock=SimulatedClock(end)).failed
    return data_dir


@pytest.fixture(scope="module")
def days(tmp_path_factory: pytest.TempPathFactory, base: str) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("fetch")
    return _day(root / "plain", base, fetch=False), _day(root / "fetch", base, fetch=True)


def test_each_cited_link_is_fetched_once_after_the_answers_and_sealed(days: tuple[Path, Path], base: str) -> None:
    _, data = days
    records = [x for x in book_lines(data / "books" / "arms-book.jsonl") if x["kind"] == "fetch_record"]
    by_url = {x["url"]: x for x in records}
    assert sorted(by_url) == [f"{base}/missing", f"{base}/story"] and len(records) == 2
    assert HITS == {"/story": 1, "/missing": 1}  # cited by two seats in every market, fetched once
    story, missing = by_url[f"{base}/story"], by_url[f"{base}/missing"]
    assert (story["status"], story["sha256"], story["size"]) == (200, hashlib.sha256(PAGE).hexdigest(), len(PAGE))
    assert story["declared_published"] == "2026-11-24T11:00:00Z" and story["host"] == "127.0.0.1"
    assert story["label"] == f"127.0.0.1:{base.rsplit(':', 1)[1]}" and story["cited_by"] == ["aurora", "basalt"]
    assert missing["status"] == 404 and missing["cited_by"] == ["aurora"]
    council = book_lines(data / "books" / "council-book.jsonl")
    answers = [x for x in council if x["kind"] == "answer" and x["seat"] in ("aurora", "basalt")]
    assert all(a["at"] <= story["at"] for a in answers)  # fetched after the answers were sealed
    assert story["at"] >= next(x for x in council if x["kind"] == "ingest_close")["at"]


def test_the_council_books_do_not_change(days: tuple[Path, Path]) -> None:
    plain, data = days
    for name in ("council-book.jsonl", "asks.jsonl"):
        assert (plain / "books" / name).read_bytes() == (data / "books" / name).read_bytes(), name


def test_published_met_in_the_compliance_and_rebuilt_by_verify(days: tuple[Path, Path], base: str) -> None:
    plain, data = days
    public = data / "public"
    rows = list(csv.DictReader(io.StringIO((public / "arms" / "fetch-records.csv").read_text(encoding="utf-8"))))
    assert {r["url"]: r["status"] for r in rows} == {f"{base}/missing": "404", f"{base}/story": "200"}
    status, detail = rebuild_step(public)
    assert status == "ok" and "arms/fetch-records.csv" in detail, detail
    [r17] = [r for r in json.loads((public / "arena-compliance.json").read_text(encoding="utf-8"))["requirements"]
             if r["number"] == 17]
    [part] = [p for p in r17["parts"] if p["part"] == "citation fetch records"]
    assert part["status"] == "met" and "council-sources.json" in part["evidence"]
    assert "python3 -I tools/recount_sources.py ." in part["check"]
    [r17_plain] = [r for r in json.loads((plain / "public" / "arena-compliance.json").read_text(encoding="utf-8"))
                   ["requirements"] if r["number"] == 17]
    assert {p["part"]: p["status"] for p in r17_plain["parts"]}["citation fetch records"] == "not met"


def test_the_sources_figures_published_rebuilt_and_recounted(days: tuple[Path, Path], base: str,
                                                             tmp_path: Path) -> None:
    """Two seats cite /story (fetched, 200), aurora also /missing (404: unreached): every market's 1d cell of
    each seat cites them, so per run 2 counted citations a market, all on 127.0.0.1, one shared link."""
    import subprocess
    import sys

    public = days[1] / "public"
    report = json.loads((public / "council-sources.json").read_text(encoding="utf-8"))
    [run] = report["runs"]
    markets = len({r["asset"] for r in csv.DictReader(io.StringIO((public / "council-forecasts.csv")
                                                                  .read_text(encoding="utf-8")))
                   if r["run_id"] == run["run_id"] and r["horizon"] == "1d" and r["seat"] == "aurora"
                   and r["status"] == "counted"})
    assert run["citations"] == 2 * markets and run["unreached"] == markets and run["unfetched"] == 0
    assert run["top_site"] == "127.0.0.1" and run["top_share"] == 1.0 and run["shared_site_share"] == 1.0
    assert run["jaccard_links"] == 1.0 and run["jaccard_sites"] == 1.0  # both counted sets are {/story}
    assert run["seat_sites"] == [{"site": "127.0.0.1", "total": 2 * markets,
                                  "seats": {"aurora": markets, "basalt": markets}}]
    status, detail = rebuild_step(public)
    assert status == "ok" and "council-sources.json" in detail, detail
    tool = public / "tools" / "recount_sources.py"
    done = subprocess.run([sys.executable, "-I", str(tool), "."], cwd=public, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    copy = tmp_path / "public"
    shutil.copytree(public, copy)
    report["runs"][0]["jaccard_sites"] = 0.5
    (copy / "council-sources.json").write_text(json.dumps(report), encoding="utf-8")
    done = subprocess.run([sys.executable, "-I", str(tool), "."], cwd=copy, capture_output=True, text=True)
    assert done.returncode == 1 and "jaccard_sites" in done.stdout, done.stdout
    (copy / "council-forecasts.csv").unlink()
    done = subprocess.run([sys.executable, "-I", str(tool), "."], cwd=copy, capture_output=True, text=True)
    assert done.returncode == 2
