"""The readers' form on the league page, driven in a real browser (Selenium over Debian's chromium-driver).

A live uvicorn server on loopback serves the read-only app with the readers' write service mounted under
``/readers`` (as ``league serve --readers`` does), over a small published season, a SimulatedClock during a
session and a seeded draw. The browser reaches it through a relay that connects from 127.0.0.2, so the
address the service sees is a string that cannot appear by accident: the privacy test then looks for it in the
whole data folder and in everything logged. Installs nothing: skipped with a reason when chromium or
chromedriver is absent (``make deps-test`` installs both).
"""

from __future__ import annotations

import json
import logging
import random
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from datetime import time as dtime
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "unit" / "publish"))

from season_fixture import write_season  # noqa: E402

from league.api import create_app  # noqa: E402
from league.api.app import mount_beside  # noqa: E402
from league.calendar import default_calendar  # noqa: E402
from league.clock import SimulatedClock  # noqa: E402
from league.publish import publish  # noqa: E402
from league.publish.readers import experiment_block  # noqa: E402
from league.readers.service import ReadersService, create_readers_app  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts"
selenium = pytest.importorskip("selenium", reason="needs selenium (the dev extra: pip install -e '.[dev]')")

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium at /usr/bin/chromium"),
              pytest.mark.skipif(not CHROMEDRIVER.exists(),
                                 reason="needs Debian chromium-driver at /usr/bin/chromedriver "
                                        "(apt-get install -y chromium-driver; make deps-test installs it)")]

MARKETS = ["SPX", "NDX", "GOLD"]
OPEN = datetime(2026, 12, 7, 13, 0, tzinfo=UTC)  # Monday 08:00 New York: forecasts for 2026-12-07 are open
LATE = datetime(2026, 12, 7, 14, 31, tzinfo=UTC)  # 09:31 New York: past the session's reference time
CLIENT = "127.0.0.2"  # the address the service sees (the relay connects from it)
SEED = 7  # random.Random(7) draws g1 then g0: the first browser sees, the second is blind
# The council on offer: the 1d consensus of an earlier session (the 1w event must not be shown).
EVENTS = [{"horizon": "1d", "session": "2026-12-04", "asset": "SPX", "p": 62.0},
          {"horizon": "1d", "session": "2026-12-04", "asset": "NDX", "p": 41.0},
          {"horizon": "1w", "session": "2026-12-04", "asset": "SPX", "p": 70.0}]


class SeenAddresses:
    """ASGI wrapper that remembers, in the test's memory only, which client addresses reached the app: the
    proof that the service really saw 127.0.0.2 (else the privacy test would pass for nothing)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app, self.hosts = app, set[str]()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client")
        if client:
            self.hosts.add(str(client[0]))
        await self.app(scope, receive, send)


def _relay(listener: socket.socket, target: tuple[str, int], stop: threading.Event) -> None:
    """Accept on ``listener``; for each connection open one to ``target`` from CLIENT and pipe both ways."""

    def pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while chunk := src.recv(65536):
                dst.sendall(chunk)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    listener.settimeout(0.2)
    while not stop.is_set():
        try:
            inner, _ = listener.accept()
        except TimeoutError:
            continue
        except OSError:
            return
        outer = socket.socket()
        try:
            outer.bind((CLIENT, 0))
            outer.connect(target)
        except OSError:  # the server is going away at the end of the test
            inner.close()
            outer.close()
            continue
        threading.Thread(target=pipe, args=(inner, outer), daemon=True).start()
        threading.Thread(target=pipe, args=(outer, inner), daemon=True).start()


@dataclass
class Site:
    url: str
    data: Path
    clock: SimulatedClock
    service: ReadersService
    seen: SeenAddresses
    drivers: list[WebDriver] = field(default_factory=list)

    def book(self) -> list[dict[str, Any]]:
        return [json.loads(x) for x in self.service.book.path.read_bytes().splitlines()]

    def browser(self) -> WebDriver:
        """A fresh browser: its own profile, so its own cookie jar (a new reader)."""
        options = webdriver.ChromeOptions()
        options.binary_location = str(CHROMIUM)
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--disable-background-networking", "--disable-component-update", "--no-first-run",
                     "--disable-sync", "--window-size=1200,2000"):
            options.add_argument(flag)
        driver = webdriver.Chrome(options=options, service=Service(executable_path=str(CHROMEDRIVER)))
        self.drivers.append(driver)
        driver.get(self.url)
        WebDriverWait(driver, 30).until(
            lambda d: d.find_element(By.ID, "readers").get_attribute("data-readers") in ("ready", "off", "error"))
        assert driver.find_element(By.ID, "readers").get_attribute("data-readers") == "ready", \
            driver.find_element(By.ID, "readers").text
        return driver


@contextmanager
def live_site(root: Path) -> Iterator[Site]:
    season = write_season(root / "data")
    publish(season.data)
    stats = season.data / "public" / "council-stats.json"
    doc = json.loads(stats.read_text(encoding="utf-8"))
    doc.setdefault("consensus", {})["per_event"] = EVENTS
    stats.write_text(json.dumps(doc), encoding="utf-8")
    clock = SimulatedClock(OPEN)
    service = ReadersService(season.data, season.data / "public", MARKETS, default_calendar(), dtime(9, 30), clock,
                             rng=random.Random(SEED))
    app = create_app(season.data)
    mount_beside(app, "/readers", create_readers_app(service, secure_cookie=False))
    seen = SeenAddresses(app)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    # As `league serve` runs it (no access log), but at info level so anything the app logs is captured.
    server = uvicorn.Server(uvicorn.Config(seen, log_level="info", access_log=False, lifespan="off",
                                           timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    stop = threading.Event()
    relay = threading.Thread(target=_relay, args=(listener, sock.getsockname(), stop), daemon=True)
    relay.start()
    site = Site(f"http://127.0.0.1:{listener.getsockname()[1]}/", season.data, clock, service, seen)
    try:
        yield site
    finally:
        for driver in site.drivers:
            driver.quit()
        stop.set()
        listener.close()
        server.should_exit = True
        thread.join(timeout=20)
        relay.join(timeout=5)


def _forecast(driver: WebDriver, market: str, side: str, confidence: int, expect: str) -> str:
    """Fill one market's form as a person would (a radio, the range moved) and send it; the message shown."""
    form = driver.find_element(By.CSS_SELECTOR, f'form.readers-form[data-market="{market}"]')
    form.find_element(By.CSS_SELECTOR, f'input[type="radio"][value="{side}"]').click()
    driver.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'));",
                          form.find_element(By.CSS_SELECTOR, 'input[name="confidence"]'), str(confidence))
    msg = form.find_element(By.CSS_SELECTOR, ".readers-msg")
    before = msg.text
    form.find_element(By.CSS_SELECTOR, "button.readers-submit").click()
    WebDriverWait(driver, 20).until(lambda d: msg.text != before and expect in msg.text)
    return str(msg.text)


def test_two_readers_in_both_groups_the_blind_one_peeks_a_second_forecast_and_a_late_one(tmp_path: Path) -> None:
    with live_site(tmp_path) as site:
        see = site.browser()
        blind = site.browser()
        assert see.find_element(By.ID, "readers").get_attribute("data-group") == "g1"
        assert blind.find_element(By.ID, "readers").get_attribute("data-group") == "g0"
        assigned = [x for x in site.book() if x["kind"] == "reader_assigned"]
        assert sorted(x["group"] for x in assigned) == ["g0", "g1"]  # two cookie jars, two readers

        # The see reader has the council at once: the 1d figures of 2026-12-04, none for GOLD.
        rows = {r.get_attribute("data-market"): r.text for r in
                see.find_elements(By.CSS_SELECTOR, "#readers-council tr.council-row")}
        assert rows == {"SPX": "SPX 62 % up", "NDX": "NDX 41 % up", "GOLD": "GOLD –"}
        assert "2026-12-04" in see.find_element(By.ID, "readers-council").text

        # The blind reader: no council in the DOM before its first forecast, a button that says what it costs.
        assert blind.find_elements(By.ID, "readers-council") == []
        assert "62" not in blind.find_element(By.ID, "readers").text
        assert "looking before forecasting" in blind.find_element(By.ID, "readers-peek-box").text
        assert [x for x in site.book() if x["kind"] == "reader_peek"] == []
        blind.find_element(By.ID, "readers-peek").click()
        WebDriverWait(blind, 20).until(lambda d: d.find_elements(By.ID, "readers-council"))
        assert "SPX 62 % up" in blind.find_element(By.ID, "readers-council").text
        assert "recorded as looking before forecasting" in blind.find_element(By.ID, "readers-peeked").text
        ARTIFACTS.mkdir(exist_ok=True)  # for a person to look at: the section as a blind reader sees it
        section = blind.find_element(By.ID, "readers")
        blind.execute_script("arguments[0].scrollIntoView(true);", section)
        section.screenshot(str(ARTIFACTS / "readers-form.png"))
        blind_reader = next(x["reader"] for x in assigned if x["group"] == "g0")
        peeks = [x for x in site.book() if x["kind"] == "reader_peek"]
        assert [(x["reader"], x["session"]) for x in peeks] == [(blind_reader, "2026-12-07")]

        # The first forecast counts, a second one on the same market does not (the page says so).
        assert "Counted: up at 70 % for 2026-12-07" in _forecast(see, "SPX", "up", 70, "Counted")
        assert "only your first one counts" in _forecast(see, "SPX", "down", 90, "not counted")
        see_reader = next(x["reader"] for x in assigned if x["group"] == "g1")
        spx = [x for x in site.book() if x["kind"] == "reader_forecast" and x["market"] == "SPX"]
        assert [(x["reader"], x["side"], x["confidence"], x["counted"]) for x in spx] == [
            (see_reader, "up", 70, True), (see_reader, "down", 90, False)]
        assert spx[0]["consensus_up"] == 62.0 and spx[0]["consensus_session"] == "2026-12-04"

        # Past the reference time: refused, the service's own words on the page, nothing sealed.
        site.clock.set(LATE)
        shown = _forecast(blind, "NDX", "down", 60, "closed")
        assert "forecasts for '2026-12-07' are closed or not open yet" in shown
        assert "forecasts are open for 2026-12-08 until 2026-12-08T14:30:00Z" in shown
        assert not [x for x in site.book() if x["kind"] == "reader_forecast" and x["market"] == "NDX"]

        # The published experiment figures of this run, against a hand count: one reader per group, the see
        # reader's one counted forecast (its later one apart), the blind reader's peek, no outcome known yet.
        forecasts = tmp_path / "no-outcomes.csv"
        forecasts.write_text("session,asset,horizon,ref,close\n", encoding="utf-8")
        block = experiment_block(site.service.book.path, forecasts)
        g0, g1 = block["groups"]["g0"], block["groups"]["g1"]
        assert (g0["identifiers"], g0["first_forecasts"], g0["peeks"]) == (1, 0, 1)
        assert (g1["identifiers"], g1["first_forecasts"], g1["peeks"], g1["scored"]) == (1, 1, 0, 0)
        assert g1["anchoring"] == 1.0 and g1["anchoring_n"] == 1  # up, consensus 62: agrees
        assert block["later_forecasts"] == 1 and block["identifiers"] == 2


def test_the_client_address_is_kept_nowhere(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                            capfd: pytest.CaptureFixture[str]) -> None:
    caplog.set_level(logging.DEBUG)
    with live_site(tmp_path) as site:
        driver = site.browser()
        if driver.find_elements(By.ID, "readers-peek"):
            driver.find_element(By.ID, "readers-peek").click()
            WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "readers-council"))
        _forecast(driver, "GOLD", "up", 80, "Counted")
        _forecast(driver, "GOLD", "up", 55, "not counted")
        driver.find_element(By.ID, "revision-open").click()
        form = driver.find_element(By.ID, "revision-private")
        form.find_element(By.CSS_SELECTOR, 'input[value="down"]').click()
        form.find_element(By.CSS_SELECTOR, "button").click()
        WebDriverWait(driver, 20).until(lambda d: d.find_element(By.ID, "revision-final").is_displayed())
        final = driver.find_element(By.ID, "revision-final")
        final.find_element(By.CSS_SELECTOR, 'input[value="up"]').click()
        final.find_element(By.CSS_SELECTOR, "button").click()
        WebDriverWait(driver, 20).until(lambda d: "Final forecast of SPX recorded" in d.find_element(
            By.ID, "revision-msg").text)
        kinds = [x["kind"] for x in site.book()]
    assert site.seen.hosts == {CLIENT}  # the service saw the address: the search below can find it
    assert kinds.count("reader_forecast") == 2 and kinds.count("reader_private") == 1 and \
        kinds.count("reader_final") == 1
    needle = CLIENT.encode()
    holding = [p for p in site.data.rglob("*") if p.is_file() and needle in p.read_bytes()]
    assert holding == []
    out, err = capfd.readouterr()
    assert CLIENT not in out and CLIENT not in err
    assert CLIENT not in caplog.text
    assert all(CLIENT not in str(r.__dict__) for r in caplog.records)
