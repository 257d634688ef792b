"""The league page of a demo league: today's whole session (every wave, every seat) and no dead link.

The demo league (tests/e2e/conftest.py) is served by the app `league serve` runs, on loopback. The oracle
for the session is the council book itself, read line by line here; the links are every ``href`` and
``src`` of the page as the server writes it and as headless chromium leaves it after the script ran, each
fetched: every one must answer 200."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "integration" / "api"))

from api_server import serve, stop  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--disable-sync", "--virtual-time-budget=15000"]


class Links(HTMLParser):
    """Every href and src of a page, and the waves and answers the page shows for today's session."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.waves: list[str] = []
        self.answers: list[tuple[str, str]] = []
        self.ready = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        self.urls += [a[k] for k in ("href", "src") if a.get(k)]
        if tag == "li" and "data-wave" in a:
            self.waves.append(a["data-run"])
        if tag == "tr" and "today-answer" in a.get("class", ""):
            self.answers.append((a["data-seat"], a["data-wave"]))
        if tag == "body":
            self.ready = a.get("data-ready", "")


@pytest.fixture(scope="module")
def site(demo_league: dict[str, object]) -> Iterator[tuple[str, Path]]:
    data = Path(str(demo_league["data"]))
    base, server, thread = serve(data)
    try:
        yield base + "/", data
    finally:
        stop(server, thread)


def _book_session(data: Path) -> tuple[str, list[str], set[tuple[str, str]]]:
    """The last session of the book: its runs in book order and its (seat, run) answers."""
    lines = [json.loads(raw) for raw in (data / "books" / "council-book.jsonl").read_bytes().splitlines()]
    runs = [x for x in lines if x["kind"] == "run"]
    day = runs[-1]["session"]
    ids = [r["run_id"] for r in runs if r["session"] == day]
    answers = {(x["seat"], x["run_id"]) for x in lines if x["kind"] == "answer" and x.get("run_id") in ids}
    return day, ids, answers


def test_today_is_the_whole_session_with_each_answers_wave(site: tuple[str, Path]) -> None:
    url, data = site
    day, ids, answers = _book_session(data)
    assert len(ids) >= 2, "the demo's last session has a second wave (…-r2): the case this checks"
    today = httpx.get(urljoin(url, "api/today"), timeout=30).json()
    assert today["session"] == day and today["run_id"] == ids[-1]
    assert [r["run_id"] for r in today["runs"]] == ids
    assert [r["wave"] for r in today["runs"]] == list(range(1, len(ids) + 1))
    assert {(a["seat"], a["run_id"]) for a in today["answers"]} == answers
    assert all(ids[a["wave"] - 1] == a["run_id"] for a in today["answers"])
    first_wave = {seat for seat, run in answers if run == ids[0]}
    assert len(first_wave) > 1 and first_wave <= {a["seat"] for a in today["answers"]}


def _dom(url: str, tmp_path: Path) -> str:
    done = subprocess.run([str(CHROMIUM), *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", url],
                          capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium at /usr/bin/chromium")
def test_the_rendered_page_shows_every_wave_and_every_link_answers(site: tuple[str, Path], tmp_path: Path) -> None:
    url, data = site
    _, ids, answers = _book_session(data)
    served = Links()
    served.feed(httpx.get(url, timeout=30).text)
    rendered = Links()
    rendered.feed(_dom(url, tmp_path))
    assert rendered.ready == "1"
    assert rendered.waves == ids
    assert sorted(rendered.answers) == sorted((seat, str(ids.index(run) + 1)) for seat, run in answers)
    urls = sorted({urljoin(url, u) for u in served.urls + rendered.urls if not u.startswith(("#", "mailto:", "data:"))})
    assert any(u.endswith("/council-book.jsonl") for u in urls) and any("/api/runs/" in u for u in urls)
    assert all(urlsplit(u).netloc == urlsplit(url).netloc for u in urls), urls
    with httpx.Client(timeout=60) as client:
        failed = {u: client.get(u).status_code for u in urls}
    assert {u: s for u, s in failed.items() if s != 200} == {}
    # the links to the CLI contest's files are shown only when the folder publishes them
    for name in ("contest/metrics.json", "contest/sealed.json", "contest/rounds.json"):
        assert (urljoin(url, name) in urls) == (data / "public" / name).is_file()


def test_a_file_not_published_is_named_without_a_link(site: tuple[str, Path]) -> None:
    """The check can fail: a link to a missing file is what the page must not hold."""
    url, data = site
    html = httpx.get(url, timeout=30).text
    for name in ("contest/metrics.json", "council-talk.json", "predictions.json"):
        linked = f'href="{name}"' in html
        assert linked == (data / "public" / name).is_file(), name
        if not linked:
            assert f'<span class="unpublished" title="not published in this folder yet">{name.split("/")[-1]}' \
                   f"</span>" in html
