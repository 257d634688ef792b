"""The four real vendor CLIs (pinned, from npm) inside the real sandbox under policy `api`, each
against a stand-in of its vendor's API on 127.0.0.1, through the league's ask, parser and book."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from datetime import date, time
from pathlib import Path

import pytest
from conftest import VENDORS, received_nothing_of, run_morning, seat_table
from standin_models import StandIn

from league.calendar import et_time
from league.config import load_markets, shipped_config_dir

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]
SESSION = date(2026, 11, 24)
ADAPTERS = sorted(VENDORS)
BEFORE_SECOND_WAVE = et_time(SESSION, time(8, 59))  # one ask each: a failed seat is not asked again yet


class Probe(http.server.ThreadingHTTPServer):
    """A host service on loopback that no seat may reach; it counts every connection it gets."""

    hits = 0


@pytest.fixture
def probe() -> Iterator[Probe]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            return

        def handle(self) -> None:
            srv.hits += 1

    srv = Probe(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_real_cli_answer_is_parsed_and_sealed_as_counted(adapter: str, tmp_path: Path, cli_prefix: Path,
                                                        standin: StandIn, secrets: dict[str, str]) -> None:
    lines = run_morning(tmp_path, seat_table(adapter, standin.url, cli_prefix), SESSION)
    answers = [x for x in lines if x["kind"] == "answer"]
    assert [a["seat"] for a in answers] == [VENDORS[adapter][0]], [x for x in lines if x["kind"] != "answer"]
    answer = answers[0]
    run = next(x for x in lines if x["kind"] == "run" and x["run_id"] == answer["run_id"])
    assert run["role"] == "counted"
    assert answer["status"] == "answered", answer["parse_failure"]
    markets = load_markets(shipped_config_dir() / "markets.toml").markets
    assert {m: set(h) for m, h in answer["items"].items()} == {m.code: set(m.horizons) for m in markets}
    # the model call went to the stand-in, through the proxy, and is the seat's whole fetch record
    assert len(standin.model_calls()) >= 1
    assert SESSION.isoformat() in standin.model_calls()[0].body.decode("utf-8", "replace")  # the council ask
    assert answer["fetches"] and all(f["allowed"] and f["port"] == standin.port for f in answer["fetches"])
    assert received_nothing_of(standin, secrets) == []
    key_seen = f"sk-seat-{VENDORS[adapter][0]}" in standin.everything_received()
    assert key_seen  # the seat's own key does reach its (stand-in) API


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_real_cli_under_api_cannot_reach_another_host(adapter: str, tmp_path: Path, cli_prefix: Path,
                                                      standin: StandIn, probe: Probe,
                                                      secrets: dict[str, str]) -> None:
    """The CLI is pointed at a probe on loopback that is not on its allow-list: the proxy refuses it
    before any connection (the probe sees none) and the refused attempt is in the sealed record."""
    probe_url = f"http://127.0.0.1:{probe.server_address[1]}"
    seats = seat_table(adapter, probe_url, cli_prefix, allow=[f"127.0.0.1:{standin.port}"], timeout_s=8)
    lines = run_morning(tmp_path, seats, SESSION, BEFORE_SECOND_WAVE)
    failed = [x for x in lines if x["kind"] in ("incident", "silence") and x["seat"] == VENDORS[adapter][0]]
    assert failed and not [x for x in lines if x["kind"] == "answer"]
    assert probe.hits == 0
    refused = [f for f in failed[0]["fetches"] if f["port"] == probe.server_address[1]]
    assert refused and not any(f["allowed"] for f in refused)
    assert standin.requests == []


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_real_cli_under_none_reaches_nothing(adapter: str, tmp_path: Path, cli_prefix: Path, standin: StandIn,
                                             secrets: dict[str, str]) -> None:
    lines = run_morning(tmp_path, seat_table(adapter, standin.url, cli_prefix, network="none", timeout_s=5),
                        SESSION, BEFORE_SECOND_WAVE)
    failed = [x for x in lines if x["kind"] in ("incident", "silence") and x["seat"] == VENDORS[adapter][0]]
    assert failed and not [x for x in lines if x["kind"] == "answer"]
    assert standin.requests == []
    assert "fetches" not in failed[0]  # no network at all: no proxy, no record
