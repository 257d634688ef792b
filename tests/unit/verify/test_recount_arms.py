"""The stand-alone recount of the arms' and repeats' figures (league/verify/tools/recount_arms.py).

It is written apart from league/scoring/arms.py and must reach the same figures: on the small case computed by
hand in tests/unit/scoring/test_arms.py, and on a larger seeded random season. A changed figure in a published
report, or a changed answer in the published CSV, is a difference (exit 1); a missing file is exit 2.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from league.scoring.arms import arms_experiment, repeats_report

ROOT = Path(__file__).resolve().parents[3]
TOOL = ROOT / "league" / "verify" / "tools" / "recount_arms.py"
HAND = ROOT / "tests" / "unit" / "scoring" / "test_arms.py"
MARKETS = ("SPX", "NDX", "RUT", "GLD", "SLV", "USO", "TLT", "EURUSD", "USDJPY", "BTC", "ETH", "VIX")
ACTIONS = ("buy_strong", "buy_dips", "hold", "trim", "sell")
SEATS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot")
SESSIONS = ("2026-11-02", "2026-11-03", "2026-11-04", "2026-11-05", "2026-11-06")


def load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    return load("recount_arms", TOOL)


@pytest.fixture(scope="module")
def hand() -> ModuleType:
    return load("arms_hand_case", HAND)


def write_csv(path: Path, rows: list[dict[str, str]], columns: tuple[str, ...]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def publish(folder: Path, opens: list[dict[str, str]], arms: list[dict[str, str]], hand: ModuleType) -> None:
    """The folder as the league publishes it: both CSV files and both reports written by league/scoring/arms.py."""
    write_csv(folder / "council-forecasts.csv", opens, hand.OPEN_COLUMNS)
    write_csv(folder / "arms" / "arm-forecasts.csv", arms, hand.ARM_COLUMNS)
    opens_read = list(csv.DictReader((folder / "council-forecasts.csv").open(encoding="utf-8", newline="")))
    arms_read = list(csv.DictReader((folder / "arms" / "arm-forecasts.csv").open(encoding="utf-8", newline="")))
    (folder / "arena-cb-experiment.json").write_text(json.dumps(arms_experiment(opens_read, arms_read)))
    (folder / "council-repeats.json").write_text(json.dumps(repeats_report(arms_read)))


def run(folder: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-I", str(TOOL), str(folder), *extra], capture_output=True, text=True,
                          check=False, timeout=120)


# ------------------------------------------------------------------------------ the hand case
def test_the_recount_reaches_the_hand_figures(tool: ModuleType, hand: ModuleType, tmp_path: Path) -> None:
    """The figures computed by hand in tests/unit/scoring/test_arms.py (the arithmetic is written there)."""
    publish(tmp_path, hand.open_rows(), hand.experiment_arm_rows() + hand.repeat_rows(), hand)
    got: dict[str, Any] = tool.recount(str(tmp_path))
    run_ = got["arena-cb-experiment.json"]["runs"][0]
    assert run_["arms"]["open"] == {"run_id": "run-open-2026-11-24", "answered": 5, "comparable": 4, "apart": 1}
    assert run_["arms"]["price_only"]["apart"] == 1 and run_["arms"]["price_only"]["answered"] == 3
    cvo = run_["closed_vs_open"]
    assert cvo["seats"] == ["A", "B", "C"]
    assert cvo["open"] == {"heat": 45.833333, "n_eff": 2.752563, "rho": 0.044947, "spread": 1.555556, "n": 3}
    assert cvo["closed_book"] == {"heat": 37.5, "n_eff": 1.622046, "rho": 0.424758, "spread": 0.666667, "n": 3}
    assert cvo["same_model"][2] == {"seat": "C", "markets": 4, "mean_abs_diff": 7.5, "mean_diff": 5.0,
                                    "action_markets": 3, "same_action": 0.333333}
    three = run_["three_arms"]
    assert three["seats"] == ["A", "B"]
    assert three["price_only"] == {"heat": 25.0, "n_eff": None, "rho": None, "spread": 0.5, "n": 2}
    kinds = got["council-repeats.json"]["kinds"]
    assert kinds["repeat_open"]["season"] == {"within_heat": 19.444444, "between_heat": 55.555556,
                                              "within_var": 33.333333, "between_var": 188.888889, "sessions": 1}
    assert kinds["repeat_packet"]["since_latest_version"] == {
        "A": {"version": "v2", "since": "2026-11-25", "sessions": 1, "within_heat": 25.0, "between_heat": 50.0,
              "within_var": 25.0, "between_var": 381.25}}
    assert run(tmp_path).returncode == 0


# ------------------------------------------------------------------------------ a seeded random season
def random_season(hand: ModuleType, seed: int = 2) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """Five sessions, six seats and a baseline, twelve markets: open rows, both arms, both kinds of repeats.

    Some answers are late, some cells missing or without an action, some replies refused, a few rows on another
    horizon, and two seats change version during the season.
    """
    rng = random.Random(seed)

    def cell() -> tuple[float | None, str]:
        prob = None if rng.random() < 0.1 else float(rng.choice(range(5, 96, 5)))
        return prob, "" if rng.random() < 0.1 else rng.choice(ACTIONS)

    opens: list[dict[str, str]] = []
    arms: list[dict[str, str]] = []
    for day, session in enumerate(SESSIONS):
        ref = f"{session}T21:00:00Z"
        for seat in (*SEATS, "_ets"):
            late = rng.random() < 0.15
            sealed = f"{session}T{'22' if late else '14'}:{rng.randrange(60):02d}:00Z"
            for market in MARKETS:
                prob, action = cell()
                opens.append(hand.open_row(seat, market, prob, action, sealed=sealed, session=session,
                                           event_reference=ref if rng.random() < 0.5 else "", reference=ref))
            opens.append(hand.open_row(seat, "SPX", 50.0, "hold", horizon="1w", session=session))
            arms_today = ("closed_book", "price_only") if day % 2 == 0 else ("closed_book",)
            for arm in arms_today:
                if rng.random() < 0.1:
                    arms.append(hand.arm_row(arm, seat, "", None, "", status="refused_shape", session=session))
                    continue
                comparable = rng.random() < 0.85
                for market in MARKETS:
                    prob, action = cell()
                    arms.append(hand.arm_row(arm, seat, market, prob, action, comparable=comparable,
                                             session=session, sealed=f"{session}T15:{rng.randrange(60):02d}:00Z"))
            for kind in ("repeat_open", "repeat_packet"):
                if seat in ("echo", "foxtrot"):
                    continue
                version = "v2" if seat in ("alpha", "charlie") and day >= 2 + (kind == "repeat_packet") else "v1"
                for repeat in range(1, rng.randint(1, 4) + 1):
                    if rng.random() < 0.1:
                        arms.append(hand.arm_row(kind, seat, "", None, "", repeat=repeat, status="no_answer",
                                                 session=session, version=version))
                        continue
                    for market in MARKETS:
                        prob, action = cell()
                        arms.append(hand.arm_row(kind, seat, market, prob, action, repeat=repeat, session=session,
                                                 version=version, sealed=f"{session}T16:{repeat:02d}:00Z"))
    return opens, arms


def test_the_recount_agrees_with_the_league_on_a_random_season(tool: ModuleType, hand: ModuleType,
                                                               tmp_path: Path) -> None:
    opens, arms = random_season(hand)
    publish(tmp_path, opens, arms, hand)
    published = {name: json.loads((tmp_path / name).read_text()) for name in ("arena-cb-experiment.json",
                                                                              "council-repeats.json")}
    recounted = json.loads(json.dumps(tool.recount(str(tmp_path))))
    for name, report in published.items():
        assert {k: v for k, v in report.items() if k != "definitions"} == recounted[name]
    experiment = published["arena-cb-experiment.json"]
    # the case exercises what it claims: comparisons of both kinds, late answers, versions that changed
    assert len(experiment["runs"]) == 5 and experiment["season"]["price_only"]["runs"] >= 1
    assert sum(r["arms"]["closed_book"]["apart"] for r in experiment["runs"]) > 0
    assert set(published["council-repeats.json"]["kinds"]["repeat_packet"]["since_latest_version"]) == {
        "alpha", "charlie"}
    done = run(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert " 0 differ" in done.stdout


def test_a_tampered_figure_is_reported(hand: ModuleType, tmp_path: Path) -> None:
    publish(tmp_path, *random_season(hand), hand)
    path = tmp_path / "arena-cb-experiment.json"
    report = json.loads(path.read_text())
    compared = next(r for r in report["runs"] if r["closed_vs_open"] and r["closed_vs_open"]["open"]["heat"])
    figure = compared["closed_vs_open"]["open"]
    true_heat = figure["heat"]
    figure["heat"] = round(true_heat + 0.000001, 6)
    path.write_text(json.dumps(report))
    done = run(tmp_path)
    assert done.returncode == 1
    mismatches = [line for line in done.stdout.splitlines() if line.startswith("MISMATCH")]
    assert mismatches == [f"MISMATCH arena-cb-experiment.json.runs.{compared['session']}.closed_vs_open.open.heat: "
                          f"published {figure['heat']}, recounted {true_heat}"]


def test_a_null_against_a_value_is_a_difference(hand: ModuleType, tmp_path: Path) -> None:
    publish(tmp_path, *random_season(hand), hand)
    path = tmp_path / "council-repeats.json"
    report = json.loads(path.read_text())
    report["kinds"]["repeat_open"]["season"]["within_var"] = None
    path.write_text(json.dumps(report))
    done = run(tmp_path)
    assert done.returncode == 1
    assert "council-repeats.json.kinds.repeat_open.season.within_var: published null" in done.stdout


def test_a_tampered_answer_makes_the_recount_disagree(hand: ModuleType, tmp_path: Path) -> None:
    """A closed-book probability moved by 30 points after the reports were written: that seat's mean difference
    with its own open answer moves by 30/markets, far beyond the rounding."""
    opens, arms = random_season(hand)
    publish(tmp_path, opens, arms, hand)
    runs = json.loads((tmp_path / "arena-cb-experiment.json").read_text())["runs"]
    session, cvo = next((r["session"], r["closed_vs_open"]) for r in runs if r["closed_vs_open"])
    seat = cvo["seats"][0]
    opened = {r["asset"] for r in opens if r["session"] == session and r["seat"] == seat and r["horizon"] == "1d"
              and r["prob_up"] != ""}
    row = next(r for r in arms if r["session"] == session and r["arm"] == "closed_book" and r["seat"] == seat
               and r["prob_up"] != "" and r["asset"] in opened)
    row["prob_up"] = f"{float(row['prob_up']) + 30 if float(row['prob_up']) < 50 else float(row['prob_up']) - 30:g}"
    write_csv(tmp_path / "arms" / "arm-forecasts.csv", arms, hand.ARM_COLUMNS)
    done = run(tmp_path)
    assert done.returncode == 1
    assert f"arena-cb-experiment.json.runs.{session}.closed_vs_open.same_model.{seat}.mean_diff" in done.stdout


def test_a_missing_file_exits_2(hand: ModuleType, tmp_path: Path) -> None:
    publish(tmp_path, hand.open_rows(), hand.experiment_arm_rows(), hand)
    (tmp_path / "council-repeats.json").unlink()
    done = run(tmp_path)
    assert done.returncode == 2 and "council-repeats.json" in done.stderr
    (tmp_path / "arms" / "arm-forecasts.csv").unlink()
    assert run(tmp_path, "--json").returncode == 2


def test_json_prints_the_recounted_reports(tool: ModuleType, hand: ModuleType, tmp_path: Path) -> None:
    publish(tmp_path, hand.open_rows(), hand.experiment_arm_rows() + hand.repeat_rows(), hand)
    done = run(tmp_path, "--json")
    assert done.returncode == 0
    printed = json.loads(done.stdout)
    assert printed["arena-cb-experiment.json"]["season"]["closed_book"] == {"runs": 1, "mean_heat": 37.5,
                                                                             "mean_n_eff": 1.622046}
    assert printed["council-repeats.json"]["kinds"]["repeat_packet"]["season"]["between_var"] == 246.875
