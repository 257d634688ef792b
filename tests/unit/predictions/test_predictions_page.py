"""The registered predictions through the API and on the page: ``/api/predictions``, ``/api/page``'s
``predictions`` and the section the server writes into the page (readable without JavaScript)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from league.api import create_app

REPORT = {"version": 1, "registries": [{"name": "r", "sha256": "ab" * 32, "file": "registry-x.toml"}],
          "predictions": [
              {"id": "F12", "set": "A", "statement": "consensus <beats> the coin", "measure": "bss", "p": 0.6,
               "op": ">", "threshold": 0.0, "check_date": "2027-06-30", "status": "true",
               "resolution": {"value": 0.2, "n": 156, "reason": "", "inputs": {"council-stats.json": "cd" * 32},
                              "session": "2027-06-30"},
               "command": "python3 -I tools/resolve_predictions.py . --id F12"},
              {"id": "F8", "set": "B", "statement": "on time", "measure": "m", "p": 0.7, "op": ">=",
               "threshold": 0.9, "check_date": "2027-06-30", "status": "unresolved",
               "resolution": {"value": None, "n": 3, "reason": "sample too small: 3 < 100", "inputs": {}},
               "command": "python3 -I tools/resolve_predictions.py . --id F8"},
              {"id": "F1", "set": "B", "statement": "alike", "measure": "m", "p": 0.5, "op": ">", "threshold": 0.2,
               "check_date": "2027-12-31", "status": "pending", "resolution": None,
               "command": "python3 -I tools/resolve_predictions.py . --id F1"}],
          "scorecard": {"registered": 3, "due": 2, "resolved": 1, "brier": 0.16, "brier_worst_case": 0.325,
                        "skill_vs_half": 0.36}}


@pytest.fixture()
def root(api_root: Path) -> Path:
    return api_root


def test_before_any_registry_is_published(root: Path) -> None:
    client = TestClient(create_app(root, db_url=""))
    view = client.get("/api/predictions").json()
    assert view["predictions"] == [] and view["source"] == "predictions.json not published yet"
    assert client.get("/api/page").json()["predictions"] == view
    assert "No registered prediction yet (predictions.json not published yet)." in client.get("/").text


def test_each_line_its_status_data_and_command_escaped_on_the_page(root: Path) -> None:
    (root / "public" / "predictions.json").write_text(json.dumps(REPORT), encoding="utf-8")
    client = TestClient(create_app(root, db_url=""))
    view = client.get("/api/predictions").json()
    assert [(x["id"], x["status"], x["value"], x["n"]) for x in view["predictions"]] == [
        ("F12", "true", 0.2, 156), ("F8", "unresolved", None, 3), ("F1", "pending", None, None)]
    assert view["predictions"][0]["inputs"] == ["council-stats.json"]
    page = client.get("/").text
    assert '<section id="predictions"><h2>Registered predictions</h2>' in page
    assert "consensus &lt;beats&gt; the coin" in page and "<beats>" not in page
    assert 'data-id="F8" data-status="unresolved"' in page and "unresolved: sample too small: 3 &lt; 100" in page
    assert "<code>python3 -I tools/resolve_predictions.py . --id F12</code>" in page
    assert "1 of 2 due lines resolved; Brier of the registered probabilities 0.16" in page

