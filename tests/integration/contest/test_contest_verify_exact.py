"""`league contest verify` to the last digit: exact comparison at the published precision, figures left
unchecked said so (and refused under ``--strict``), resolutions that are not the snapshot's named."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_contest_verify import METRICS, published, reference_folder  # noqa: F401 (published: a fixture)

from league.contest.verify import decimals, verify_folder

LEAGUE = [sys.executable, "-c", "from league.cli import main; main()"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LEAGUE_LOG_LEVEL": "WARNING"}
    env.pop("LEAGUE_CONTEST_RESOLUTIONS", None)
    env.pop("LEAGUE_CONTEST_VERIFY_STRICT", None)
    return subprocess.run([*LEAGUE, *args], capture_output=True, text=True, timeout=240, env=env)


def failures(folder: Path, resolutions: Path | None = None) -> list[str]:
    return [f"{c.name}: {c.detail}" for c in verify_folder(folder, resolutions) if c.failed]


def write_metrics(repo: Path, metrics: dict[str, Any]) -> None:
    (repo / "data" / "metrics.json").write_text(json.dumps(metrics, indent=1))


def bumped(doc: dict[str, Any], keys: tuple[str | int, ...], value: object) -> dict[str, Any]:
    copy: Any = json.loads(json.dumps(doc))
    node = copy
    for k in keys[:-1]:
        node = node[k]
    node[keys[-1]] = value
    return dict(copy)


# Every figure of the reference fixture but its intervals (test_contest_reference_procedure.py moves those), with
# the JSON path the report must name and, written out by hand, the figure one unit of its 4th decimal above
# (an integer: one above). The recomputed figures are the fixture's own hand-computed values.
FA = "forecast_accuracy"
ONE_UNIT = [
    (("agents", 0, "brier"), "agents[codex].brier", 0.0801, 0.08),
    (("agents", 0, "coverage"), "agents[codex].coverage", 1.0001, 1.0),
    (("agents", 0, "n"), "agents[codex].n", 3, 2),
    (("agents", 0, "offered"), "agents[codex].offered", 3, 2),
    (("agents", 0, "rank"), "agents[codex].rank", 2, 1),
    (("agents", 0, "vs_crowd", "mean_diff"), "agents[codex].vs_crowd.mean_diff", -0.2449, -0.245),
    (("agents", 0, "vs_crowd", "sign_test_p"), "agents[codex].vs_crowd.sign_test_p", 0.5001, 0.5),
    (("agents", 1, "brier"), "agents[claude].brier", 0.4901, 0.49),
    (("agents", 1, "coverage"), "agents[claude].coverage", 0.5001, 0.5),
    (("agents", 1, "vs_crowd", "mean_diff"), "agents[claude].vs_crowd.mean_diff", 0.3301, 0.33),
    (("agents", 1, "vs_crowd", "sign_test_p"), "agents[claude].vs_crowd.sign_test_p", 0.9999, 1.0),
    (("crowd", "brier"), "crowd.brier", 0.3251, 0.325),
    (("crowd", "n"), "crowd.n", 3, 2),
]


def test_the_fixture_verifies_exactly(tmp_path: Path) -> None:
    repo, resolutions = reference_folder(tmp_path)
    assert failures(repo, resolutions) == []


@pytest.mark.parametrize(("keys", "path", "changed", "recomputed"), ONE_UNIT, ids=[p for _, p, _, _ in ONE_UNIT])
def test_one_unit_of_the_last_decimal_fails_naming_the_field(tmp_path: Path, keys: tuple[str | int, ...], path: str,
                                                             changed: float, recomputed: float) -> None:
    """Compared within 1e-4, 0.49 published as 0.4901 still verified; now it fails, naming file, path, both."""
    repo, resolutions = reference_folder(tmp_path)
    write_metrics(repo, bumped(METRICS, (FA, *keys), changed))
    problems = failures(repo, resolutions)
    assert len(problems) == 1, problems
    shown = f"{changed!r} (4 decimals)" if isinstance(changed, float) else repr(changed)
    assert problems[0] == f"metrics.json: {FA}.{path}: published {shown}, recomputed {recomputed!r}"


def test_decimals_are_read_from_the_published_number() -> None:
    """0.1481 shows 4 decimals; 0.148 three (JSON drops the trailing zero of 0.1480); an integer none."""
    assert decimals(0.1481) == 4 and decimals(0.148) == 3 and decimals(2) == 0 and decimals(1.0) == 1
    assert decimals(True) is None and decimals("0.1") is None


def test_an_interval_bound_is_named_by_its_index(tmp_path: Path) -> None:
    """Intervals are reported bound by bound; the verdict check also catches an interval rewritten so that it
    no longer supports the published verdict."""
    repo, resolutions = reference_folder(tmp_path)
    write_metrics(repo, bumped(METRICS, (FA, "agents", 0, "vs_crowd", "ci"), [0.01, 0.5]))
    problems = failures(repo, resolutions)
    assert any("agents[codex].vs_crowd.verdict: published 'better', but its interval [0.01, 0.5]" in p
               for p in problems)


@pytest.mark.sandbox
def test_our_folder_fails_on_one_unit_of_any_figure(published: Path, tmp_path: Path) -> None:  # noqa: F811
    """Our own folder (intervals recomputed too): every float figure of the first agent and of the crowd moved
    by one unit of the 4th decimal fails, each naming its own JSON path, an interval bound by its index."""
    import shutil

    metrics = json.loads((published / "metrics.json").read_text())
    row = metrics[FA]["agents"][0]
    agent = row["agent"]
    leaves: list[tuple[tuple[str | int, ...], str, float]] = [
        (("agents", 0, "brier"), f"agents[{agent}].brier", row["brier"]),
        (("agents", 0, "ci", 0), f"agents[{agent}].ci[0]", row["ci"][0]),
        (("agents", 0, "ci", 1), f"agents[{agent}].ci[1]", row["ci"][1]),
        (("agents", 0, "vs_crowd", "mean_diff"), f"agents[{agent}].vs_crowd.mean_diff", row["vs_crowd"]["mean_diff"]),
        (("agents", 0, "vs_crowd", "sign_test_p"), f"agents[{agent}].vs_crowd.sign_test_p",
         row["vs_crowd"]["sign_test_p"]),
        (("crowd", "brier"), "crowd.brier", metrics[FA]["crowd"]["brier"]),
        (("crowd", "ci", 1), "crowd.ci[1]", metrics[FA]["crowd"]["ci"][1]),
    ]
    for i, (keys, path, value) in enumerate(leaves):
        copy = tmp_path / f"copy{i}"
        shutil.copytree(published, copy)
        changed = round(value + 0.0001, 4) if value < 0.9999 else round(value - 0.0001, 4)
        doc = bumped(metrics, (FA, *keys), changed)
        (copy / "metrics.json").write_text(json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False))
        problems = failures(copy)
        assert any(f"metrics.json: {FA}.{path}: published {changed!r}" in p and f"recomputed {value!r}" in p
                   for p in problems), (path, problems)


# ------------------------------------------------------------------------------ unchecked
def test_without_resolutions_the_metrics_are_unchecked_with_the_reason(tmp_path: Path) -> None:
    repo, _ = reference_folder(tmp_path)
    checks = verify_folder(repo)
    left = [c for c in checks if c.status == "unchecked"]
    assert [c.name for c in left] == ["metrics.json"]
    assert "no recorded resolutions" in left[0].detail and "--resolutions" in left[0].detail
    assert not any(c.failed for c in checks)


def test_strict_exits_non_zero_when_figures_are_unchecked(tmp_path: Path) -> None:
    repo, resolutions = reference_folder(tmp_path)
    lenient = run("contest", "verify", str(repo))
    assert lenient.returncode == 0, lenient.stdout + lenient.stderr
    assert "unchecked metrics.json: forecast_accuracy not recomputed: no recorded resolutions" in lenient.stdout
    strict = run("contest", "verify", str(repo), "--strict")
    assert strict.returncode == 4, strict.stdout + strict.stderr
    assert "--strict" in strict.stderr and "unchecked" in strict.stderr
    # with the resolutions every figure is recomputed, intervals by the reference's procedure: accepted
    with_res = run("contest", "verify", str(repo), "--resolutions", str(resolutions), "--strict")
    assert with_res.returncode == 0, with_res.stdout + with_res.stderr
    # under the league's procedure the reference's intervals name no seed: unchecked, refused
    league = run("contest", "verify", str(repo), "--resolutions", str(resolutions), "--strict", "--procedure", "league")
    assert league.returncode == 4 and "intervals not recomputed" in league.stdout


# --------------------------------------------------------------- resolutions that are not the snapshot's
def with_count(repo: Path) -> None:
    write_metrics(repo, bumped(METRICS, (FA, "markets_resolved"), 2))


def test_resolutions_missing_a_market_of_the_snapshot_are_named(tmp_path: Path) -> None:
    repo, resolutions = reference_folder(tmp_path)
    with_count(repo)
    assert failures(repo, resolutions) == []
    resolutions.write_text(json.dumps({"A": "Yes", "C": "No"}))  # B unresolved; C was never swept
    problems = failures(repo, resolutions)
    named = [p for p in problems if "markets_resolved" in p]
    assert len(named) == 1
    assert f"{FA}.markets_resolved: published 2, recomputed 1: {resolutions}" in named[0]
    assert "resolves 1: A of them; not in a verified sweep: 1: C" in named[0]


def test_a_winner_that_is_not_an_outcome_is_named(tmp_path: Path) -> None:
    repo, resolutions = reference_folder(tmp_path)
    resolutions.write_text(json.dumps({"A": "Maybe", "B": "Z"}))
    problems = failures(repo, resolutions)
    assert any(f"{resolutions}: market A: winner 'Maybe' is not one of its swept outcomes ['Yes', 'No']" in p
               for p in problems)


def test_extra_markets_in_the_resolutions_are_not_a_mismatch(tmp_path: Path) -> None:
    repo, resolutions = reference_folder(tmp_path)
    with_count(repo)
    resolutions.write_text(json.dumps({"A": "Yes", "B": "Z", "C": "No"}))  # a later market: ignored
    assert failures(repo, resolutions) == []


def test_the_readers_step_13_notes_unchecked_figures_for_strict(tmp_path: Path) -> None:
    """`league verify --strict` refuses a contest step whose figures were left unchecked (no resolutions)."""
    from league.verify.reader import Checker

    repo, _ = reference_folder(tmp_path)
    checker = Checker(repo / "data", None, run_scripts=False, contest=verify_folder)
    status, _detail = checker.step13()
    assert status == "ok"
    assert "contest figures unchecked: metrics.json: forecast_accuracy not recomputed" in checker.strict_notes[13]
