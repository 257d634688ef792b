"""Embargo: during a simulated day, before the session's score line, no route of the API returns a
probability (or any answer content) of that day; after the score line the same lines are served whole."""

from __future__ import annotations

import json
import re
import shutil
from datetime import date, time, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from league.api.app import create_app
from league.calendar import et_time
from league.clock import SimulatedClock
from league.compose import build_league
from league.config import load_config
from league.folder import init_folder
from league.jobs.context import Stages
from league.jobs.correct import cell_correction, seal_correction
from league.jobs.scheduler import catch_up
from league.jobs.seal import pump

SESSION = date(2026, 11, 24)
DAY = SESSION.isoformat()


def everything(client: TestClient, data: Path) -> dict[str, str]:
    """Every route's answer (and every file of the data folder) as text."""
    out = {}
    runs = client.get("/api/today").json()
    for route in ("/api/lines", "/api/stream?follow=false", "/api/today", "/api/page", "/api/league", "/api/grid",
                  f"/api/sessions/{DAY}", f"/api/runs/{runs.get('run_id')}", "/api/seats/aurora"):
        out[route] = client.get(route).text
    for n in range(1, len(client.get("/api/lines").text.splitlines()) + 1):
        out[f"/api/lines/{n}"] = client.get(f"/api/lines/{n}").text  # one line, typed by its kind
    for path in sorted(p for p in data.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".txt", ".csv")):
        rel = path.relative_to(data).as_posix()
        out[rel] = client.get(f"/{rel}").text
    return out


def test_no_probability_leaves_the_api_before_the_score_line(tmp_path: Path) -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    clock = SimulatedClock(et_time(SESSION, time(3, 0)))
    config_dir, data = init_folder(tmp_path, demo=True, clock=clock)
    with build_league(load_config(config_dir), clock, anchor=SESSION - timedelta(days=1),
                      stages=Stages(publish=False)) as lg:
        catch_up(lg, et_time(SESSION, time(3, 0)), et_time(SESSION, time(10, 0)), before_each=lambda f: pump(lg, f.at))
        pump(lg, et_time(SESSION, time(10, 0)))
        answers = lg.books.index.of_kind("answer", DAY)
        assert answers and not lg.books.index.of_kind("score", DAY)
        fix = cell_correction(lg, of=answers[-1].n, market="SPX", horizon="1d", reason="restored from receipt",
                              cell={"prob_up": 42.0, "cell_status": "elicited"}, source="receipt")
        corrected = seal_correction(lg, fix).n  # a corrected cell is a probability: held back like the answer
        assert (data / "replies").is_dir()
        client = TestClient(create_app(data))
        during = everything(client, data)
        assert any("embargoed" in text for text in during.values())
        for route, text in during.items():
            assert "prob_up" not in text, route
            assert not re.search(r'"items"\s*:', text), route
        reply = next(iter((data / "replies").iterdir()))
        assert client.get(f"/replies/{reply.name}").status_code == 404
        lines = [json.loads(x) for x in client.get("/api/lines").text.splitlines()]
        shown = [x for x in lines if x["kind"] == "answer"]
        assert len(shown) == len(answers) and all(x["embargoed"] and x["seal"] for x in shown)
        assert {x["n"] for x in shown} == {a.n for a in answers}
        catch_up(lg, et_time(SESSION, time(10, 0)), et_time(SESSION, time(16, 30)),
                 before_each=lambda f: pump(lg, f.at))
        assert lg.books.index.of_kind("score", DAY)
        after = [json.loads(x) for x in client.get("/api/lines").text.splitlines()]
        whole = [x for x in after if x["kind"] == "answer"]
        assert whole and not any(x.get("embargoed") for x in whole)
        assert any("prob_up" in json.dumps(x["items"]) for x in whole)
        shown_fix = next(x for x in after if x["n"] == corrected)
        assert shown_fix["cell"]["prob_up"] == 42.0 and not shown_fix.get("embargoed")
        typed = client.get(f"/api/lines/{whole[0]['n']}").json()  # the same line, as its kind's model
        assert typed["seal"] == whole[0]["seal"]
        assert typed["line"] == {k: v for k, v in whole[0].items() if k not in ("n", "prev", "seal", "link")}
        assert client.get(f"/replies/{reply.name}").status_code == 200
