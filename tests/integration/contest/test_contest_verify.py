"""`league contest verify` on our published folder, on one in the reference's layout, and on tampered copies."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import Day

from league.contest.demo import run_day
from league.contest.publish import publish
from league.contest.resolve import resolve_due
from league.contest.verify import verify_folder


def dump(doc: Any) -> bytes:
    return json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False).encode("utf-8")


def failures(folder: Path, resolutions: Path | None = None) -> list[str]:
    return [f"{c.name}: {c.detail}" for c in verify_folder(folder, resolutions) if c.failed]


# ------------------------------------------------------------------------------- our own folder
@pytest.fixture()
def published(day: Day) -> Path:
    from datetime import timedelta

    with day.ledger() as ledger:
        ctx = day.context(ledger)
        run_day(ctx, day.clock, day.clock.now().date(), lambda _: None)
        day.clock.advance(timedelta(days=8))
        resolve_due(ctx)
        publish(ctx)
    return day.root / "public"


@pytest.mark.sandbox
def test_our_folder_verifies(published: Path) -> None:
    checks = verify_folder(published)
    assert [c for c in checks if c.failed] == []
    assert {c.name for c in checks if c.status == "ok"} >= {"forecasts/2026-12-07.json", "contest-book.jsonl",
                                                             "metrics.json"}
    assert not any(c.status == "skipped" for c in checks)


@pytest.mark.sandbox
def test_a_changed_forecast_names_the_file(published: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(published, copy)
    path = copy / "forecasts" / "2026-12-07.json"
    doc = json.loads(path.read_text())
    first = doc["forecasts"][0]["probabilities"]
    label = next(iter(first))
    first[label] = round(1 - first[label], 6)
    path.write_bytes(dump(doc))
    problems = failures(copy)
    assert any(p.startswith("forecasts/2026-12-07.json: sha256") for p in problems)


@pytest.mark.sandbox
def test_a_changed_metric_names_the_field(published: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(published, copy)
    metrics = json.loads((copy / "metrics.json").read_text())
    row = metrics["forecast_accuracy"]["agents"][0]
    row["brier"] = round(row["brier"] - 0.01, 4)
    metrics["betting_record"]["agents"][0]["net_pnl"] += 1
    (copy / "metrics.json").write_bytes(dump(metrics))
    problems = failures(copy)
    assert any(f"forecast_accuracy.agents[{row['agent']}].brier: published" in p for p in problems)
    assert any(".net_pnl: published" in p for p in problems)


@pytest.mark.sandbox
def test_a_rewritten_sealed_list_disagrees_with_the_book(published: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(published, copy)
    path = copy / "forecasts" / "2026-12-07.json"
    doc = json.loads(path.read_text())
    doc["forecasts"] = doc["forecasts"][1:]
    data = dump(doc)
    path.write_bytes(data)
    import hashlib

    sealed = json.loads((copy / "sealed.json").read_text())
    sealed[0].update(sha256=hashlib.sha256(data).hexdigest(), forecasts=len(doc["forecasts"]))
    (copy / "sealed.json").write_bytes(dump(sealed))
    problems = failures(copy)
    assert any(p.startswith("contest-book.jsonl: sweep 2026-12-07: book seals") for p in problems)
    assert any("metrics.json" in p for p in problems)  # one forecast fewer: n no longer matches


# ------------------------------------------------------------------- the reference's layout
MARKETS = [
    {"id": "A", "question": "Will it rain?", "outcomes": ["Yes", "No"], "prices_at_sweep": [0.6, 0.4],
     "closes": "2026-10-10T00:00:00Z"},
    {"id": "B", "question": "Who wins?", "outcomes": ["X", "Y", "Z"], "prices_at_sweep": [0.5, 0.3, 0.2],
     "closes": "2026-10-11T00:00:00Z"},
]
FORECASTS = [
    {"agent": "claude", "market_id": "A", "model": "claude-fable-5-1", "probabilities": {"No": 0.7, "Yes": 0.3}},
    {"agent": "codex", "market_id": "A", "model": "gpt-6-luna", "probabilities": {"No": 0.2, "Yes": 0.8}},
    {"agent": "codex", "market_id": "B", "model": "gpt-6-luna", "probabilities": {"X": 0.2, "Y": 0.2, "Z": 0.6}},
]
# By hand (winners A: Yes, B: Z). Crowd: A (0.4)² = 0.16; B ½(0.5² + 0.3² + 0.8²) = 0.49; mean 0.325.
# codex: A 0.2² = 0.04, B ½(0.2² + 0.2² + 0.4²) = 0.12 -> 0.08; diffs −0.12, −0.37 -> −0.245; sign p = 2·¼ = 0.5
# claude: A 0.7² = 0.49 (B not answered: coverage ½); diff +0.33; sign p = 1.0
METRICS = {
    "benchmark": "AgentpitBench", "methodology_version": "1.0",
    "forecast_accuracy": {
        "agents": [
            {"agent": "codex", "name": "Codex", "n": 2, "offered": 2, "coverage": 1.0, "brier": 0.08,
             "ci": [0.04, 0.12], "vs_crowd": {"mean_diff": -0.245, "ci": [-0.37, -0.12], "sign_test_p": 0.5,
                                              "verdict": "better"}, "rank": 1},
            {"agent": "claude", "name": "Claude", "n": 1, "offered": 2, "coverage": 0.5, "brier": 0.49,
             "ci": [0.49, 0.49], "vs_crowd": {"mean_diff": 0.33, "ci": [0.33, 0.33], "sign_test_p": 1.0,
                                              "verdict": "worse"}, "rank": 2},
        ],
        "crowd": {"name": "The Crowd", "n": 2, "brier": 0.325, "ci": [0.16, 0.49]},
    },
}


def reference_folder(root: Path) -> tuple[Path, Path]:
    import hashlib

    data = root / "repo" / "data"
    doc = {"benchmark": "AgentpitBench", "date": "2026-10-09", "kind": "forecast sweep",
           "methodology_version": "1.0", "forecasts": FORECASTS, "markets": MARKETS}
    body = dump(doc)
    (data / "forecasts").mkdir(parents=True)
    (data / "forecasts" / "2026-10-09.json").write_bytes(body)
    sealed = [{"date": "2026-10-09", "sha256": hashlib.sha256(body).hexdigest(),
               "file": "data/forecasts/2026-10-09.json", "forecasts": 3, "sealed_at": 1791561138.4884648}]
    (data / "sealed.json").write_text(json.dumps(sealed, indent=1))
    (data / "metrics.json").write_text(json.dumps(METRICS, indent=1))
    resolutions = root / "resolutions.json"
    resolutions.write_text(json.dumps({"A": "Yes", "B": "Z"}))
    return root / "repo", resolutions


def test_a_reference_layout_folder_verifies(tmp_path: Path) -> None:
    repo, resolutions = reference_folder(tmp_path)
    checks = verify_folder(repo, resolutions)
    assert [c for c in checks if c.failed] == []
    # the reference's intervals are recomputed by its own procedure (league.contest.refstats); the hand-made
    # ones of this fixture are what any resampler gives: n = 1 is zero-width, n = 2 spans the two values
    assert not any(c.status == "unchecked" and "intervals" in c.detail for c in checks)
    assert any(c.name == "data/forecasts/2026-10-09.json" and c.status == "ok" for c in checks)
    league = verify_folder(repo, resolutions, "league")  # the league's procedure names no seed here
    assert any(c.status == "unchecked" and "intervals not recomputed" in c.detail for c in league)


def test_without_resolutions_the_metrics_are_not_claimed_verified(tmp_path: Path) -> None:
    repo, _ = reference_folder(tmp_path)
    checks = verify_folder(repo)
    assert any(c.name == "metrics.json" and c.status == "unchecked" for c in checks)


def test_a_tampered_reference_copy_fails_naming_file_and_field(tmp_path: Path) -> None:
    repo, resolutions = reference_folder(tmp_path)
    metrics = json.loads((repo / "data" / "metrics.json").read_text())
    metrics["forecast_accuracy"]["agents"][0]["vs_crowd"]["sign_test_p"] = 0.0213
    metrics["forecast_accuracy"]["agents"][1]["vs_crowd"]["verdict"] = "better"
    (repo / "data" / "metrics.json").write_text(json.dumps(metrics))
    problems = failures(repo, resolutions)
    assert len(problems) == 3  # the verdict is now recomputed too: named as a field and as inconsistent
    assert any("forecast_accuracy.agents[codex].vs_crowd.sign_test_p: published 0.0213" in p for p in problems)
    assert any("agents[claude].vs_crowd.verdict: published 'better', recomputed 'worse'" in p for p in problems)
    assert any("agents[claude].vs_crowd.verdict: published 'better', but its interval" in p for p in problems)


def test_a_tampered_reference_forecast_names_the_file_and_is_not_scored(tmp_path: Path) -> None:
    repo, resolutions = reference_folder(tmp_path)
    forecasts = repo / "data" / "forecasts" / "2026-10-09.json"
    forecasts.write_bytes(forecasts.read_bytes().replace(b"0.8", b"0.9"))
    problems = failures(repo, resolutions)
    assert any(p.startswith("data/forecasts/2026-10-09.json: sha256") for p in problems)
    # a file that fails its seal is not used: the published figures no longer follow from what is sealed
    assert any("forecast_accuracy.agents[codex].n: published 2, recomputed 0" in p for p in problems)


def test_a_file_not_in_the_exact_byte_form_is_refused(tmp_path: Path) -> None:
    import hashlib

    repo, resolutions = reference_folder(tmp_path)
    path = repo / "data" / "forecasts" / "2026-10-09.json"
    body = json.dumps(json.loads(path.read_text())).encode()  # compact: same content, other bytes
    path.write_bytes(body)
    sealed = json.loads((repo / "data" / "sealed.json").read_text())
    sealed[0]["sha256"] = hashlib.sha256(body).hexdigest()
    (repo / "data" / "sealed.json").write_text(json.dumps(sealed))
    assert any("exact byte form" in p for p in failures(repo, resolutions))
