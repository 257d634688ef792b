"""Three sessions exported by the demo's own forecasts writer (extra columns, refused rows, second-wave
runs): the published statistics are recomputed from this CSV alone with plain loops."""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from league.scoring import reference
from league.scoring.publish import write_stats

ASSETS = Path(__file__).parents[2] / "assets" / "scoring"
CSV = ASSETS / "demo_forecasts_3_sessions.csv"
FAMILIES = {"aurora": "lab-a", "aurora-mini": "lab-a"}


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    clim = json.loads((ASSETS / "clim_window_good.json").read_text())
    paths = write_stats(CSV, tmp_path_factory.mktemp("demo"), clim, FAMILIES)
    return {name: json.loads(p.read_text()) for name, p in paths.items()}


@pytest.fixture(scope="module")
def rows() -> list[dict[str, str]]:
    with open(CSV, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_league_brier(published: dict[str, Any], rows: list[dict[str, str]]) -> None:
    acc: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in rows:
        if r["status"] == "counted" and r["run_role"] == "counted" and r["prob_up"] and r["ref"] and r["close"] \
                and r["same_event"] == "1" and r["line_kind"] == "answer":
            up = float(r["close"]) > float(r["ref"])
            acc[(r["seat"], r["horizon"])].append((float(r["prob_up"]) / 100 - up) ** 2)
    models = {(m["seat"], m["horizon"]): m for m in published["council-league.json"]["models"]}
    assert models.keys() == acc.keys()
    for key, scores in acc.items():
        assert models[key]["brier"] == pytest.approx(sum(scores) / len(scores), abs=1e-12)


def test_consensus_and_n_eff_pool_second_wave_runs(published: dict[str, Any], rows: list[dict[str, str]]) -> None:
    stats = published["council-stats.json"]
    cons = reference.consensus_per_event(rows, FAMILIES)
    got = {(c["session"], c["event_id"]): c["p"] for c in stats["consensus"]["per_event"]}
    assert got == pytest.approx(cons, abs=1e-12)
    # bitcoin's reference is each answer's own sealing second: its events are never pooled
    btc = [c for c in stats["consensus"]["per_event"] if c["asset"] == "BTC"]
    assert btc and {c["n"] for c in btc} == {1}
    neff = reference.n_eff_per_run(rows)
    per_run = stats["n_eff"]["counted"]["per_run"]
    assert {(r["session"], r["horizon"]): r["n"] for r in per_run} == {k: v[0] for k, v in neff.items()}
    assert any(len(r["run_ids"]) == 2 for r in per_run)  # a second-wave run pooled with the first
