"""A reference-layout folder checked to the last digit, intervals included (the reference's bootstrap
procedure, league.contest.refstats), and ``league contest metrics`` recomputing a folder's metrics file.

The folder is tests/assets/contest-ref (built by its make.py). Its figures are cross-checked against
reference_independent.py, a straightforward re-implementation sharing no code with league/, run by a
Python >= 3.12 interpreter (whose built-in sum() is the compensated one); skipped where none is installed.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_contest_verify import published  # noqa: F401 (a fixture: our demo day, published)

from league.contest.errors import ContestError
from league.contest.refstats import compensated_sum
from league.contest.remetrics import recompute_metrics
from league.contest.verify import snapshot_date, verify_folder

ASSET = Path(__file__).resolve().parents[2] / "assets" / "contest-ref"
INDEPENDENT = Path(__file__).resolve().parent / "reference_independent.py"
PUBLISHED = json.loads((ASSET / "data" / "metrics.json").read_text())
LEAGUE = [sys.executable, "-c", "from league.cli import main; main()"]
VERDICTS = ("better", "inconclusive", "worse")


def python312() -> str | None:
    """An interpreter whose sum() is CPython 3.12's: this one, one on PATH, or one pyenv installed (each
    candidate asked for its version: a pyenv shim of a version not selected fails)."""
    if sys.version_info >= (3, 12):
        return sys.executable
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates = [shutil.which(n) for n in ("python3.13", "python3.12")]
    candidates += [str(p) for p in sorted(root.glob("3.1[2-9]*/bin/python"))] if root.is_dir() else []
    for found in (c for c in candidates if c):
        probe = subprocess.run([found, "-c", "import sys; print(sys.version_info >= (3, 12))"],
                               capture_output=True, text=True, timeout=60, check=False)
        if probe.returncode == 0 and probe.stdout.strip() == "True":
            return found
    return None


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LEAGUE_LOG_LEVEL": "WARNING"}
    for name in ("LEAGUE_CONTEST_RESOLUTIONS", "LEAGUE_CONTEST_VERIFY_STRICT", "LEAGUE_CONTEST_PROCEDURE",
                 "LEAGUE_CONTEST_AS_OF", "LEAGUE_CONTEST_METRICS_OUT"):
        env.pop(name, None)
    return subprocess.run([*LEAGUE, *args], capture_output=True, text=True, timeout=240, env=env)


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    copy = tmp_path / "repo"
    shutil.copytree(ASSET / "data", copy / "data")
    return copy


RESOLUTIONS = ASSET / "resolutions.json"


def failures(folder: Path) -> list[str]:
    return [f"{c.name}: {c.detail}" for c in verify_folder(folder, RESOLUTIONS) if c.failed]


# ------------------------------------------------------------------ the asset against an independent computation
def test_the_asset_agrees_with_an_independent_implementation_under_python_3_12() -> None:
    interpreter = python312()
    if interpreter is None:
        pytest.skip("no Python >= 3.12 interpreter (its sum() is the reference's): install python3.12")
    snapshot = "2026-10-12"  # the day of the asset's generated_at (make.py)
    done = subprocess.run([interpreter, str(INDEPENDENT), str(ASSET), str(RESOLUTIONS), snapshot],
                          capture_output=True, text=True, timeout=240, check=True)
    assert json.loads(done.stdout) == PUBLISHED["forecast_accuracy"]


def test_the_compensated_sum_is_python_3_12s(tmp_path: Path) -> None:
    """Random lists of mixed magnitudes and signs, summed by a real CPython >= 3.12 and by compensated_sum."""
    interpreter = python312()
    if interpreter is None:
        pytest.skip("no Python >= 3.12 interpreter to compare with: install python3.12")
    rng = random.Random(12)
    lists = [[rng.choice((1.0, -1.0)) * rng.random() * 10.0 ** rng.randint(-20, 20) for _ in range(rng.randint(1, 60))]
             for _ in range(400)] + [[0.1] * 10, [2.0**53, 1.0, 2.0**-60], [1e100, 1.0, -1e100, 1.0]]
    path = tmp_path / "lists.json"
    path.write_text(json.dumps(lists))
    done = subprocess.run([interpreter, str(INDEPENDENT), "--sums", str(path)], capture_output=True, text=True,
                          timeout=120, check=True)
    theirs = json.loads(done.stdout)
    assert [compensated_sum(xs) for xs in lists] == theirs
    assert sum(1 for xs, s in zip(lists, theirs, strict=True) if sum(xs) != s) > 0  # 3.11's sum differs somewhere


# ------------------------------------------------------------------------------------------ verify
def test_every_published_figure_verifies_intervals_included(repo: Path) -> None:
    checks = verify_folder(repo, RESOLUTIONS)
    assert [c for c in checks if c.failed] == []
    assert [c for c in checks if c.status == "unchecked"] == []
    assert any(c.name == "metrics.json" and c.status == "ok" and "reference procedure" in c.detail
               and "every interval" in c.detail for c in checks)


def test_the_snapshot_counts_only_its_own_sweeps(repo: Path) -> None:
    """The folder holds four sealed sweeps; the snapshot (2026-10-12) was taken over three of them, with two
    markets left open (541977, 544780): counted over every sweep file it would say 4 and 3 and fail."""
    assert len(list((repo / "data" / "forecasts").glob("*.json"))) == 4
    assert (PUBLISHED["forecast_accuracy"]["sweeps"], PUBLISHED["forecast_accuracy"]["markets_open"]) == (3, 2)
    assert failures(repo) == []


def leaves(node: object, keys: tuple[str | int, ...] = (), shown: str = "") -> Iterator[
        tuple[tuple[str | int, ...], str, object]]:
    """Every published figure of forecast_accuracy: (keys to it, the JSON path a report names, value)."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k not in ("agent", "name", "metric"):
                yield from leaves(v, (*keys, k), f"{shown}.{k}" if shown else k)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            label = v["agent"] if isinstance(v, dict) and "agent" in v else i
            yield from leaves(v, (*keys, i), f"{shown}[{label}]")
    else:
        yield keys, shown, node


FIELDS = list(leaves(PUBLISHED["forecast_accuracy"]))


def one_unit(value: object) -> object:
    """One unit of the last published decimal (figures are published to 4), one for a count, the next verdict."""
    if isinstance(value, bool) or value is None:
        raise AssertionError(f"unexpected leaf {value!r}")
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return round(value + 0.0001, 4)
    return VERDICTS[(VERDICTS.index(str(value)) + 1) % 3]


def test_every_figure_is_in_the_list() -> None:
    """4 agents × (n, offered, coverage, brier, ci×2, mean_diff, vs ci×2, sign p, verdict, rank) + crowd
    (n, brier, ci×2) + markets_resolved, markets_open, sweeps."""
    assert len(FIELDS) == 4 * 12 + 4 + 3


@pytest.mark.parametrize(("keys", "path", "value"), FIELDS, ids=[p for _, p, _ in FIELDS])
def test_one_unit_of_any_figure_fails_naming_it(repo: Path, keys: tuple[str | int, ...], path: str,
                                                value: object) -> None:
    doc = json.loads(json.dumps(PUBLISHED))
    node = doc["forecast_accuracy"]
    for k in keys[:-1]:
        node = node[k]
    changed = one_unit(value)
    node[keys[-1]] = changed
    (repo / "data" / "metrics.json").write_text(json.dumps(doc, indent=1))
    problems = failures(repo)
    assert any(p.startswith(f"metrics.json: forecast_accuracy.{path}: published {changed!r}") for p in problems), \
        problems


# ----------------------------------------------------------------------------------- contest metrics
def test_metrics_reproduce_the_published_file_byte_for_byte(repo: Path) -> None:
    result = recompute_metrics(repo, RESOLUTIONS)
    assert result.procedure == "reference" and result.as_of == "2026-10-12"
    assert result.data == (repo / "data" / "metrics.json").read_bytes()


@pytest.mark.parametrize(("day", "sweeps", "resolved", "still_open"), [
    ("2026-10-09", 1, 3, 1),   # 540121 540388 541002 resolved, 541977 open
    ("2026-10-10", 2, 7, 1),
    ("2026-10-13", 4, 10, 3),  # 546002 resolved; 541977, 544780, 546118 open
])
def test_metrics_as_of_a_day_count_that_days_sweeps(repo: Path, day: str, sweeps: int, resolved: int,
                                                    still_open: int) -> None:
    doc = recompute_metrics(repo, RESOLUTIONS, as_of=day).document
    fa = doc["forecast_accuracy"]
    assert isinstance(fa, dict)
    assert (fa["sweeps"], fa["markets_resolved"], fa["markets_open"]) == (sweeps, resolved, still_open)
    assert doc["as_of"] == day
    assert all(isinstance(e, dict) and str(e["date"]) <= day for e in doc["sealed_forecasts"])  # type: ignore[union-attr]


def test_metrics_need_the_resolutions(repo: Path) -> None:
    with pytest.raises(ContestError, match="no recorded resolutions"):
        recompute_metrics(repo)


def test_metrics_refuse_a_folder_whose_sealed_files_do_not_verify(repo: Path) -> None:
    path = repo / "data" / "forecasts" / "2026-10-09.json"
    path.write_bytes(path.read_bytes().replace(b'"Market 540121?"', b'"Market 540121!"'))
    with pytest.raises(ContestError, match="forecasts/2026-10-09.json: sha256"):
        recompute_metrics(repo, RESOLUTIONS)


def test_the_cli_prints_and_writes_the_document(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "metrics.json"
    done = run("contest", "metrics", str(repo), "--resolutions", str(RESOLUTIONS), "--out", str(out))
    assert done.returncode == 0, done.stderr
    file = (repo / "data" / "metrics.json").read_bytes()
    assert out.read_bytes() == file
    assert done.stdout == file.decode("utf-8") + "\n"
    strict = run("contest", "verify", str(repo), "--resolutions", str(RESOLUTIONS), "--strict")
    assert strict.returncode == 0, strict.stdout + strict.stderr
    bad = run("contest", "metrics", str(repo), "--resolutions", str(RESOLUTIONS), "--procedure", "numpy")
    assert bad.returncode == 2 and "--procedure 'numpy'" in bad.stderr
    day = run("contest", "metrics", str(repo), "--resolutions", str(RESOLUTIONS), "--as-of", "2026-02-30")
    assert day.returncode == 2 and "--as-of" in day.stderr


def test_the_leagues_procedure_leaves_the_references_intervals_unchecked(repo: Path) -> None:
    """Asked for the league's procedure, a reference file names no seed of it: intervals are unchecked."""
    checks = verify_folder(repo, RESOLUTIONS, "league")
    assert any(c.status == "unchecked" and "intervals not recomputed" in c.detail for c in checks)


# ------------------------------------------------------------------------------- the league's own folder
@pytest.mark.sandbox
def test_metrics_of_our_demo_folder_are_its_published_file_byte_for_byte(published: Path,  # noqa: F811
                                                                          tmp_path: Path) -> None:
    """The demo day published (league.contest.demo's run_day, resolve, publish): `league contest metrics`
    recomputes metrics.json, the league's procedure named in it, equal to the published bytes."""
    metrics = json.loads((published / "metrics.json").read_text())
    boot = metrics["forecast_accuracy"]["bootstrap"]
    assert boot["procedure"] == "league" and {"seed", "resamples"} <= set(boot)
    out = tmp_path / "metrics.json"
    done = run("contest", "metrics", str(published), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == (published / "metrics.json").read_bytes()
    assert recompute_metrics(published).procedure == "league"


@pytest.mark.parametrize(("metrics", "day"), [
    ({"generated_at": 1791591737.301892}, "2026-10-10"),
    ({"generated_at": "1791591737"}, None),  # not a number: no snapshot day, every sweep counts
    ({"generated_at": float("inf")}, None),
    ({"generated_at": 1e300}, None),
    ({}, None),
])
def test_the_snapshot_day_is_the_utc_day_of_generated_at(metrics: dict[str, object], day: str | None) -> None:
    assert snapshot_date(metrics) == day  # type: ignore[arg-type]


def test_verify_refuses_an_unknown_procedure(repo: Path) -> None:
    done = run("contest", "verify", str(repo), "--resolutions", str(RESOLUTIONS), "--procedure", "numpy")
    assert done.returncode == 2 and "--procedure reference or --procedure league" in done.stderr
