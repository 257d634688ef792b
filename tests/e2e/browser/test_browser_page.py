"""The league page rendered by headless Debian chromium against a live `league serve` app.

Installs nothing: skipped with a reason when /usr/bin/chromium is absent. The screenshot is kept
under test-artifacts/ for a person to look at.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import httpx
import pytest
import uvicorn

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "unit" / "publish"))

from season_fixture import Season, write_season  # noqa: E402

from league.api import create_app  # noqa: E402
from league.publish import publish  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--disable-sync", "--hide-scrollbars",
         "--virtual-time-budget=10000"]

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium at /usr/bin/chromium")]


class Dom(HTMLParser):
    """Collects the elements the test checks: league rows and heat-map cells, by their data attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict[str, str]] = []
        self.cells: list[dict[str, str]] = []
        self.contest: list[dict[str, str]] = []
        self.cards: list[dict[str, str]] = []
        self.ready = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        classes = a.get("class", "").split()
        if tag == "tr" and "seat-row" in classes:
            self.rows.append(a)
        if tag == "g" and "cell" in classes:
            self.cells.append(a)
        if tag == "tr" and "contest-row" in classes:
            self.contest.append(a)
        if tag == "div" and "contest-card" in classes:
            self.cards.append(a)
        if tag == "body":
            self.ready = a.get("data-ready", "")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Season]]:
    season = write_season(tmp_path_factory.mktemp("page") / "data")
    publish(season.data)
    write_contest(season.data / "public" / "contest")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(create_app(season.data), log_level="warning", lifespan="off",
                                           timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/", season
    finally:
        server.should_exit = True
        thread.join(timeout=20)


CONTEST_AGENTS = {"claude": 0.1229, "codex": 0.148}


def write_contest(folder: Path) -> None:
    """The three contest files the page's section reads (shapes as league/contest/publish.py writes them)."""
    (folder / "cards").mkdir(parents=True)
    agents = [{"agent": k, "name": k.title(), "n": 16, "brier": b, "ci": [0.05, 0.22], "rank": i,
               "vs_crowd": {"verdict": "inconclusive"}} for i, (k, b) in enumerate(CONTEST_AGENTS.items(), 1)]
    metrics = {"forecast_accuracy": {"agents": agents, "crowd": {"name": "The Crowd", "n": 16, "brier": 0.217}},
               "betting_record": {"rounds_counted": 0, "agents": []}}
    (folder / "metrics.json").write_text(json.dumps(metrics))
    (folder / "rounds.json").write_text(json.dumps([{"round_id": 3, "question": "Q?", "state": "running",
                                                     "winner": None, "excluded": ["debut"]}]))
    (folder / "cards" / "3.json").write_text(json.dumps({"round_id": 3, "cards": [
        {"agent": "claude", "name": "Claude", "model": "m", "outcome": "Yes", "price": 0.4, "confidence": 0.7,
         "quote": "q", "pnl": None}]}))


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    profile = tmp_path / "profile"
    profile.mkdir(exist_ok=True)
    return subprocess.run([str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True,
                          text=True, timeout=120, check=False)


def test_page_shows_the_table_rows_and_the_grid(site: tuple[str, Season], tmp_path: Path) -> None:
    url, season = site
    result = chromium(tmp_path, "--dump-dom", url)
    assert result.returncode == 0, result.stderr[-2000:]
    dom = Dom()
    dom.feed(result.stdout)
    assert dom.ready == "1", result.stdout[-2000:]
    shown = Counter((r["data-seat"], r["data-horizon"]) for r in dom.rows)
    expected = Counter((m["seat"], m["horizon"]) for m in season.models)
    assert shown == expected
    gamma = [r for r in dom.rows if r["data-seat"] == "gamma"]
    assert all("unranked" in r["class"] for r in gamma)  # 9 sessions: below the 30/10 rule
    cells = {(c["data-seat"], c["data-asset"], c["data-horizon"]) for c in dom.cells}
    assert cells == {(s, a, h) for s in season.seats for a in season.assets for h in season.horizons}
    assert all(c["data-brier"] not in ("", "null") for c in dom.cells)
    assert {r["data-agent"]: float(r["data-brier"]) for r in dom.contest} == CONTEST_AGENTS
    assert [c["data-round"] for c in dom.cards] == ["3"]
    assert "The reader experiment is not open on this server." in result.stdout  # no readers' service mounted


def test_screenshot_is_kept(site: tuple[str, Season], tmp_path: Path) -> None:
    url, _ = site
    ARTIFACTS.mkdir(exist_ok=True)
    shot = tmp_path / "league-page.png"
    result = chromium(tmp_path, "--window-size=1200,2400", f"--screenshot={shot}", url)
    assert result.returncode == 0, result.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    shutil.copyfile(shot, ARTIFACTS / "league-page.png")


def test_the_tables_read_without_javascript(site: tuple[str, Season]) -> None:
    """The server writes today's run and the league table into the HTML itself."""
    url, season = site
    html = httpx.get(url, timeout=20).text
    dom = Dom()
    dom.feed(html)
    assert dom.ready == ""  # no script ran: this is the server's HTML
    shown = Counter((r["data-seat"], r["data-horizon"]) for r in dom.rows)
    assert shown == Counter((m["seat"], m["horizon"]) for m in season.models)
    assert "No run sealed yet." in html or 'class="prerendered"' in html
    assert 'href="/' not in html and 'src="/' not in html  # relative links only: any URL prefix works


NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


@pytest.fixture(scope="module")
def under_prefix(site: tuple[str, Season], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The shipped deploy/nginx-league.conf, run by real nginx in front of the app, the page at /league/."""
    if not Path(NGINX).exists():
        pytest.skip("nginx is not installed: apt-get install -y nginx (make deps-test installs it)")
    url, _ = site
    app_port = url.rstrip("/").rsplit(":", 1)[1]
    work = tmp_path_factory.mktemp("nginx")
    deploy = Path(__file__).resolve().parents[3] / "deploy"
    shipped = (deploy / "nginx-league.conf").read_text()
    (work / "league.conf").write_text(shipped.replace("127.0.0.1:8765", f"127.0.0.1:{app_port}"))
    # the http-block half (the JSON views' cache zone), its cache in the temp folder
    http = (deploy / "nginx-league-http.conf").read_text()
    (work / "http.conf").write_text(http.replace("/var/cache/nginx/league", f"{work}/cache"))
    user = pwd.getpwuid(os.geteuid()).pw_name  # workers as this user: nobody cannot write pytest's 0700 folders
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    (work / "nginx.conf").write_text(
        f"daemon off; user {user}; pid {work}/nginx.pid; error_log {work}/error.log; worker_processes 1;\n"
        "events { worker_connections 64; }\n"
        f"http {{ access_log off; client_body_temp_path {work}/body; proxy_temp_path {work}/proxy;\n"
        f"  fastcgi_temp_path {work}/f; uwsgi_temp_path {work}/u; scgi_temp_path {work}/s;\n"
        f"  include {work}/http.conf;\n"
        f"  server {{ listen 127.0.0.1:{port}; include {work}/league.conf; }} }}\n")
    proc = subprocess.Popen([NGINX, "-c", str(work / "nginx.conf"), "-p", str(work)], stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}/league/"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            httpx.get(base, timeout=2)
            break
        except httpx.TransportError:
            time.sleep(0.1)
    try:
        yield base
    finally:
        proc.terminate()
        proc.wait(10)


def test_the_page_works_under_the_shipped_nginx_prefix(under_prefix: str, site: tuple[str, Season],
                                                       tmp_path: Path) -> None:
    _, season = site
    assert httpx.get(under_prefix.rstrip("/"), timeout=10).status_code == 301
    result = chromium(tmp_path, "--dump-dom", under_prefix)
    assert result.returncode == 0, result.stderr[-2000:]
    dom = Dom()
    dom.feed(result.stdout)
    assert dom.ready == "1", result.stdout[-2000:]  # api/page was reached through the prefix
    assert Counter((r["data-seat"], r["data-horizon"]) for r in dom.rows) == Counter(
        (m["seat"], m["horizon"]) for m in season.models)
    assert len(dom.cells) == len(season.seats) * len(season.assets) * len(season.horizons)
    book = httpx.get(under_prefix + "council-book.jsonl", timeout=20)
    assert book.content == season.book.read_bytes()


def test_every_chart_has_axes_a_key_and_a_table(site: tuple[str, Season], tmp_path: Path) -> None:
    """The N_eff chart has axis values and a colour key with line patterns; each calibration
    square has both axes; the heat map a colour key; every chart a table with its values."""
    url, _ = site
    html = chromium(tmp_path, "--dump-dom", url).stdout
    assert html.count('class="neff-tick"') >= 2 and 'class="legend-key"' in html
    assert html.count('class="axis-x"') == 3 * html.count('class="calibration"') > 0
    assert html.count('class="axis-y"') == 3 * html.count('class="calibration"')
    assert 'class="legend"' in html  # the heat map's colour key
    assert html.count('class="data-table"') >= 3  # N_eff, each heat map, calibration
    assert "hsl(" not in html  # the red-to-green scale is gone
