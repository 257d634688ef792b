"""The API docs page (the league page's "API" link) is served whole from the installed package: no CDN, no
third-party resource, and it works offline."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from league.api import create_app


@pytest.fixture()
def root(api_root: Path) -> Path:
    return api_root


def test_the_api_docs_page_loads_nothing_from_a_third_party(root: Path) -> None:
    client = TestClient(create_app(root, db_url=""))
    page = client.get("/api/docs").text
    assert "cdn." not in page and "https://" not in page and "http://" not in page
    assert "/api/docs-static/swagger-ui-bundle.js" in page
    assert client.get("/api/docs-static/swagger-ui-bundle.js").status_code == 200
    assert client.get("/api/docs-static/swagger-ui.css").status_code == 200
