"""Published statistics are recomputable from council-forecasts.csv alone (csv module, plain loops)."""

from __future__ import annotations

import csv
import hashlib
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from league.scoring import reference
from league.scoring.publish import write_stats
from league.scoring.synthetic import synthetic_families, synthetic_sides


@pytest.fixture(scope="module")
def published(season_csv: Path, clim_table: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("out")
    paths = write_stats(season_csv, out, clim_table, synthetic_families(), synthetic_sides())
    return {name: json.loads(path.read_text()) for name, path in paths.items()}


@pytest.fixture(scope="module")
def rows(season_csv: Path) -> list[dict[str, str]]:
    with open(season_csv, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_four_files_with_the_reader_shapes(published: dict[str, Any]) -> None:
    assert set(published) == {"council-stats.json", "council-calibration.json", "council-clim-window.json",
                              "council-league.json"}
    first = published["council-stats.json"]["n_eff"]["counted"]["per_run"][0]
    assert {"run_id", "horizon", "n", "rho", "n_eff"} <= set(first)
    assert published["council-stats.json"]["n_eff"]["per_run"]
    model = published["council-league.json"]["models"][0]
    assert {"seat", "horizon", "brier", "n", "sessions"} <= set(model)


def test_league_brier_recomputed_from_csv(published: dict[str, Any], rows: list[dict[str, str]]) -> None:
    acc: dict[tuple[str, str], list[float]] = defaultdict(list)
    sessions: dict[tuple[str, str], set[str]] = defaultdict(set)
    for r in rows:
        if r["status"] == "counted" and r["run_role"] == "counted" and r["prob_up"] and r["same_event"] == "1":
            up = 1.0 if float(r["close"]) > float(r["ref"]) else 0.0
            acc[(r["seat"], r["horizon"])].append((float(r["prob_up"]) / 100 - up) ** 2)
            sessions[(r["seat"], r["horizon"])].add(r["session"])
    models = published["council-league.json"]["models"]
    assert len(models) == len(acc)
    for m in models:
        key = (m["seat"], m["horizon"])
        assert m["brier"] == pytest.approx(sum(acc[key]) / len(acc[key]), abs=1e-12)
        assert m["n"] == len(acc[key]) and m["sessions"] == len(sessions[key])


def test_n_eff_recomputed_with_plain_python(published: dict[str, Any], rows: list[dict[str, str]]) -> None:
    ref = reference.n_eff_per_run(rows)
    per_run = published["council-stats.json"]["n_eff"]["counted"]["per_run"]
    assert len(per_run) == len(ref)
    for rec in per_run:
        n, rho, neff = ref[(rec["session"], rec["horizon"])]
        assert rec["n"] == n and rec["rho"] == pytest.approx(rho, abs=1e-12)
        assert rec["n_eff"] == pytest.approx(neff, abs=1e-12)


def test_consensus_recomputed_with_plain_python(published: dict[str, Any], rows: list[dict[str, str]]) -> None:
    ref = reference.consensus_per_event(rows, synthetic_families())
    where = {(r["session"], r["event_id_v2"]): (r["asset"], r["horizon"]) for r in rows}
    expected = {(day, *where[(day, ev)]): p for (day, ev), p in ref.items()}
    published_rows = published["council-stats.json"]["consensus"]["per_event"]
    assert len(published_rows) == len(expected)
    for c in published_rows:
        assert c["p"] == pytest.approx(expected[(c["session"], c["asset"], c["horizon"])], abs=1e-12)
        assert c["n"] >= c["n_used"] and c["rho"] is not None and c["n_eff"] is not None


def test_climatology_seal_recomputed(published: dict[str, Any]) -> None:
    fixed = published["council-calibration.json"]["climatology_fixed"]
    digest = hashlib.sha256(json.dumps(fixed["table"], sort_keys=True).encode()).hexdigest()
    assert fixed["sha256_ok"] is True and digest == fixed["sha256"]
    assert published["council-clim-window.json"]["sha256"] == digest


def test_coverage_recomputed(published: dict[str, Any], rows: list[dict[str, str]]) -> None:
    expected: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        if r["run_role"] == "counted" and r["same_event"] == "1":
            expected[(r["seat"], r["horizon"])][0] += 1
            expected[(r["seat"], r["horizon"])][1] += r["status"] == "counted"
    for m in published["council-stats.json"]["missing"]:
        total, answered = expected[(m["seat"], m["horizon"])]
        assert m["coverage"] == pytest.approx(answered / total)


def test_intervals_follow_the_session_rules(published: dict[str, Any]) -> None:
    by_h = {s["horizon"]: s["interval"]["method"] for s in published["council-stats.json"]["scores"]}
    # 25 sessions: bootstrap for 1d, HAC for 1w (25 >= 5*5), none for 1m and 6m.
    assert by_h == {"1d": "session_cluster_bootstrap", "1w": "hac_newey_west", "1m": None, "6m": None}
