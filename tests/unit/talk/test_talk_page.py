"""The council talk through the API and on the page: ``/api/talk``, ``/api/page``'s ``talk`` and the section the
server writes into the page (readable without JavaScript), from the hand-made weeks of talk_helpers.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from talk_helpers import weeks

from league.api import create_app
from league.talk.report import TALK_JSON, talk_report


@pytest.fixture()
def root(api_root: Path) -> Path:
    return api_root


def publish(root: Path, report: object | None = None) -> None:
    body = talk_report(weeks()) if report is None else report
    (root / "public" / TALK_JSON).write_text(json.dumps(body), encoding="utf-8")


def test_before_the_talk_is_published(root: Path) -> None:
    client = TestClient(create_app(root, db_url=""))
    view = client.get("/api/talk").json()
    assert view["weeks"] == [] and view["source"] == "council-talk.json not published yet"
    assert client.get("/api/page").json()["talk"] == view
    page = client.get("/").text
    assert '<section id="talk"><h2>Council talk</h2>' in page
    assert "No council talk yet (council-talk.json not published yet)." in page


def test_the_view_reads_the_published_weeks_newest_first(root: Path) -> None:
    publish(root)
    view = TestClient(create_app(root, db_url="")).get("/api/talk").json()
    assert [w["week"] for w in view["weeks"]] == ["2026-W50", "2026-W49"] and view["weeks_total"] == 2
    w50, w49 = view["weeks"]
    assert w50["chair_seat"] is None and w50["revealed"] is False and w50["settled"] is False
    assert w49["chair_seat"] == "bravo" and w49["chair_letter"] == "C" and w49["revealed"] is True
    assert w49["council_portfolio"] == {"SPY": 30.0, "GLD": 20.0}
    assert w49["critiques"][0] == {"target": "B", "market": "SPX", "fund": "SPY", "weight": 25.0,
                                   "direction": "down", "resolution": True}
    assert w49["replies"] == [{"letter": "A", "status": "ok", "failure": None},
                              {"letter": "B", "status": "ok", "failure": None},
                              {"letter": "D", "status": "failed", "failure": "no JSON object found in the reply"}]
    # sealed A 0.03, B 0.015, C 0, D 0.01: mean 0.055 / 4 = 0.01375
    assert w49["returns"]["council"] == -0.003 and w49["returns"]["sealed_mean"] == 0.01375
    assert w49["returns"]["seats"][0] == {"letter": "A", "sealed": 0.03, "critiqued": 0.015, "stated": 0.005}
    assert w49["returns"]["seats"][2] == {"letter": "D", "sealed": 0.01, "critiqued": 0.01, "stated": None}
    assert view["season"]["f22"] == {"n": 4, "hits": 3, "share": 0.75, "ci95": [0.300642, 0.954413]}
    assert view["season"]["f23"]["stated_vs_sealed"] == {"n": 2, "mean": -0.0215}


def test_the_page_section_is_plain_escaped_html(root: Path) -> None:
    report = talk_report(weeks())
    report["weeks"][0]["critiques"][0]["market"] = "<script>alert(1)</script>"  # type: ignore[index]
    publish(root, report)
    page = TestClient(create_app(root, db_url="")).get("/").text
    section = page[page.index('<div id="talk-body">'):page.index('<section id="proof">')]
    assert "<script>alert" not in section and "&lt;script&gt;alert(1)&lt;/script&gt; (SPY)" in section
    assert section.index('data-week="2026-W50"') < section.index('data-week="2026-W49"')
    assert "chair C (bravo)" in section and "chair A (seat shown once the letters are revealed)" in section
    assert "Council portfolio: SPY 30%, GLD 20%." in section
    assert ('<tr class="talk-seat" data-letter="A"><td>A</td><td>ok</td><td class="num">+3.00%</td>'
            '<td class="num">+1.50%</td><td class="num">+0.50%</td></tr>') in section
    assert "<td>D</td><td>failed: no JSON object found in the reply</td>" in section
    assert "council -0.30%" in section
    assert "Not settled yet" in section  # W50
    assert "Season F22: 0.750 of 4 resolved critiques came true (95% interval 0.301–0.954)." in section
    assert "stated − sealed -2.15 pp (n 2)" in section
    assert section.count("<tr class=\"talk-critique\"") == 5


def test_at_most_eight_weeks_are_shown(root: Path) -> None:
    listed = [{"week": f"2026-W{n:02d}", "chair_letter": "A", "critiques": [], "replies": [], "shadow_returns": {}}
              for n in range(30, 40)]
    publish(root, {"version": 1, "weeks": listed, "season": {}})
    view = TestClient(create_app(root, db_url="")).get("/api/talk").json()
    assert [w["week"] for w in view["weeks"]] == [f"2026-W{n}" for n in range(39, 31, -1)]
    assert view["weeks_total"] == 10
