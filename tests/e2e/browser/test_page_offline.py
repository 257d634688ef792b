"""The league page and /api/docs in a real browser that has no route out: nothing is fetched from elsewhere.

A reader of a league that asks to trust no operator is not sent to third parties (no CDN, no font service,
no analytics), and the page works on a machine without internet. offline_child.py runs the real
`league serve` and Debian chromium (through Selenium) inside a network namespace with loopback only
(``unshare -n``, then ``ip link set lo up``); Chrome's performance log lists every request each page made.
Every one must go to the loopback server and succeed, and both pages must have rendered. Skipped with a
reason when chromium, chromedriver, unshare or the right to make a namespace is missing."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

CHILD = Path(__file__).with_name("offline_child.py")
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
#: Schemes that make no network request (a page's inline images and objects).
LOCAL_SCHEMES = ("data", "blob", "about")

pytest.importorskip("selenium", reason="needs selenium (the dev extra: pip install -e '.[dev]')")
pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium at /usr/bin/chromium"),
              pytest.mark.skipif(not CHROMEDRIVER.exists(),
                                 reason="needs Debian chromium-driver at /usr/bin/chromedriver "
                                        "(apt-get install -y chromium-driver)")]


def _namespace_or_skip() -> None:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        pytest.skip("needs unshare and ip (util-linux, iproute2) to make a network namespace")
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        pytest.skip(f"cannot make a network namespace here (root needed): {probe.stderr.strip()[:200]}")


@pytest.fixture(scope="module")
def offline(demo_league: dict[str, object]) -> dict[str, Any]:
    _namespace_or_skip()
    with socket.socket() as sock:  # any free number: the namespace has its own ports, this one is only a choice
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k.lower() not in ("http_proxy", "https_proxy", "all_proxy")}
    done = subprocess.run(["unshare", "-n", sys.executable, str(CHILD), str(demo_league["data"]), str(port)],
                          capture_output=True, text=True, timeout=600, check=False, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    report["port"] = port
    return report


def _problems(requests: list[dict[str, Any]], port: int) -> list[str]:
    out = []
    for r in requests:
        parts = urlsplit(r["url"])
        if parts.scheme in LOCAL_SCHEMES:
            continue
        if (parts.hostname, parts.port) != ("127.0.0.1", port):
            out.append(f"{r['url']}: not the loopback server")
        elif r["failed"] or r["status"] != 200:
            out.append(f"{r['url']}: status {r['status']}, failed {r['failed']}")
    return out


def test_the_namespace_has_no_route_out(offline: dict[str, Any]) -> None:
    """The run proves something only if leaving loopback was impossible."""
    assert offline["routes"].strip() == ""
    assert offline["outside"].startswith("refused")


def test_the_page_renders_and_every_request_it_makes_is_to_the_server_and_succeeds(
        offline: dict[str, Any], demo_league: dict[str, object]) -> None:
    page = offline["page"]
    assert page["ready"] == "1"
    days = demo_league["days"]
    assert isinstance(days, list) and days[-1] in page["today"] and "seats answered" in page["today"]
    urls = [r["url"] for r in page["requests"]]
    assert any(u.endswith("/page/app.js") for u in urls) and any("/api/page" in u for u in urls)
    assert _problems(page["requests"], offline["port"]) == [], page["requests"]


def test_the_api_docs_render_from_the_package_with_every_request_to_the_server(offline: dict[str, Any]) -> None:
    docs = offline["docs"]
    assert docs["title"].startswith("Forecasting league") and docs["operations"] > 10
    assert any("/api/docs-static/" in r["url"] for r in docs["requests"])
    assert any(r["url"].endswith("/api/openapi.json") for r in docs["requests"])
    assert _problems(docs["requests"], offline["port"]) == []


def test_a_request_elsewhere_would_be_reported() -> None:
    """The check can fail: a CDN request, a failed one and a 404 are each named."""
    seen = [{"url": "https://cdn.jsdelivr.net/npm/swagger-ui-dist/swagger-ui.css", "status": None,
             "failed": "net::ERR_INTERNET_DISCONNECTED"},
            {"url": "http://127.0.0.1:9/x.json", "status": 404, "failed": None},
            {"url": "data:image/png;base64,AAAA", "status": None, "failed": None}]
    assert len(_problems(seen, 9)) == 2 and "not the loopback server" in _problems(seen, 9)[0]
