"""Who cites what on the page: ``/api/sources`` and the sites x seats table the server writes into the page
(readable without JavaScript), from the hand case of test_sources.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from test_sources import ASK, FETCHES, ROWS

from league.api import create_app
from league.scoring.sources import ask_links, sources_report


@pytest.fixture()
def root(api_root: Path) -> Path:
    return api_root


def test_before_any_fetched_citation(root: Path) -> None:
    client = TestClient(create_app(root, db_url=""))
    view = client.get("/api/sources").json()
    assert view["sites"] == [] and view["source"] == "council-sources.json not published yet"
    page = client.get("/").text
    assert '<section id="sources"><h2>Who cites what</h2>' in page
    assert "No fetched citation yet (council-sources.json not published yet)." in page


def test_the_sites_by_seats_table_without_javascript(root: Path) -> None:
    report = sources_report(ROWS, FETCHES, ask_links([ASK]))
    (root / "public" / "council-sources.json").write_text(json.dumps(report), encoding="utf-8")
    client = TestClient(create_app(root, db_url=""))
    view = client.get("/api/sources").json()
    assert view["seats"] == ["a", "b", "c"] and [s["site"] for s in view["sites"]] == ["reuters.com", "cnbc.com",
                                                                                       "y.com"]
    assert view["season"]["citations"] == 7 and view["runs"][0]["p"] == round(1 / 9, 6)
    page = client.get("/").text
    section = page[page.index('<div id="sources-map">'):page.index('<section id="talk">')]
    rows = re.findall(r'<tr class="sources-row" data-site="([^"]+)"><th scope="row">[^<]+</th>(.*?)</tr>', section)
    counts = {site: re.findall(r">(\d*)</td>", cells) for site, cells in rows}
    # columns a, b, c, total: reuters a 2 b 2; cnbc b 1 c 1; y a 1 (an empty cell for no citation)
    assert counts == {"reuters.com": ["2", "2", "", "4"], "cnbc.com": ["", "1", "1", "2"], "y.com": ["1", "", "", "1"]}
    assert "57.1%" in section and "85.7%" in section and "0.111" in section  # 4/7, 6/7, p = 1/9
    assert "<script" not in section
