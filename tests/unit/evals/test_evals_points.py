"""`league eval points` on a hand-written council book (score lines of the real shape, figures by hand)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from league.book import Book
from league.cli import app
from league.clock import SimulatedClock
from league.evals.errors import EvalError
from league.evals.points import find_book, points_report

SESSIONS = ["2026-01-05", "2026-01-06", "2026-01-07", "2026-01-08", "2026-01-09"]
CLOSES = [100.0, 102.0, 101.0, 103.0, 104.0]


def event(session: str, horizon: str, reference: float, close: float | None) -> dict[str, Any]:
    return {"market": "SPX", "horizon": horizon, "event_id": f"e-{session}-{horizon}",
            "event_id_v2": f"v2-{session}-{horizon}", "late_ref": False, "reference": reference, "close": close,
            "status": "resolved" if close is not None else "unresolved"}


def cell(session: str, horizon: str, seat: str, status: str, prob: float | None = None,
         target: float | None = None) -> dict[str, Any]:
    return {"session": session, "horizon": horizon, "seat": seat, "market": "SPX", "status": status, "prob_up": prob,
            "target": target, "event_id_v2": f"v2-{session}-{horizon}", "run_role": "counted"}


def write_book(path: Path) -> Path:
    """Five sessions of SPX closes; seat alpha's and the naive seat's targets; a 1w line."""
    seats: dict[str, list[dict[str, Any]]] = {s: [] for s in SESSIONS}
    # references are close - 0.5; "in range" = on the side of the reference that prob_up states (strictly)
    seats[SESSIONS[2]] += [cell(SESSIONS[2], "1d", "alpha", "counted", 55, 101.5)]  # unscaled; ref 100.5: in range
    seats[SESSIONS[3]] += [cell(SESSIONS[3], "1d", "alpha", "counted", 60, 102.5),  # ref 102.5: equal, NOT in range
                           cell(SESSIONS[3], "1d", "_naive", "counted", 50, 101.0),
                           cell(SESSIONS[3], "1d", "beta", "counted_50", None, None),
                           cell(SESSIONS[3], "1d", "gamma", "no_answer")]
    seats[SESSIONS[4]] += [cell(SESSIONS[4], "1d", "alpha", "counted", 40, 104.5),  # ref 103.5: above, NOT in range
                           cell(SESSIONS[4], "1d", "_naive", "counted", 50, 103.0),
                           cell(SESSIONS[4], "1d", "alpha", "not_counted", 99, 1.0)]
    clock = SimulatedClock(datetime(2026, 1, 10, tzinfo=UTC))
    with Book(path, clock) as book:
        for s, close in zip(SESSIONS, CLOSES, strict=True):
            book.append("score", {"session": s, "horizon": "1d", "markets": [event(s, "1d", close - 0.5, close)],
                                  "seats": seats[s]})
        book.append("score_h", {"session": SESSIONS[0], "horizon": "1w",
                                "markets": [event(SESSIONS[0], "1w", 99.5, 104.0)],
                                "seats": [cell(SESSIONS[0], "1w", "alpha", "counted", 70, 105.0)]})  # in range
    return path


def test_mase_of_the_council_targets_by_hand(tmp_path: Path) -> None:
    write_book(tmp_path / "books" / "council-book.jsonl")
    report = points_report(tmp_path, season=1, min_history=2)
    alpha = report["seats"]["alpha"]
    # 2026-01-08: history 100 102 101 → scale 1.5, naive 101, close 103: alpha |102.5-103|/1.5, naive 2/1.5
    # 2026-01-09: history 100 102 101 103 → scale 5/3, naive 103, close 104: alpha .5/(5/3), naive 1/(5/3)
    mase, naive = (0.5 / 1.5 + 0.5 / (5 / 3)) / 2, (2 / 1.5 + 1 / (5 / 3)) / 2
    [row] = alpha["configs"]
    assert row["config"] == ["SPX", "1d"] and row["windows"] == 2
    assert row["mase"] == pytest.approx(mase) and row["mase_naive"] == pytest.approx(naive)
    assert alpha["overall"] == pytest.approx(mase / naive)
    assert alpha["buckets"] == {"short": pytest.approx(mase / naive)}
    assert alpha["unscaled"] == 2  # 2026-01-07 (one difference) and the 1w window (no history before 2026-01-05)
    c = alpha["compliance"]
    assert (c["asked"], c["with_forecast"], c["range_checked"], c["within_range"]) == (4, 4, 4, 2)


def test_a_seat_answering_the_seasonal_naive_scores_exactly_one(tmp_path: Path) -> None:
    write_book(tmp_path / "council-book.jsonl")
    report = points_report(tmp_path, season=1, min_history=2)
    assert report["seats"]["_naive"]["overall"] == 1.0
    assert report["naive"]["overall"] == 1.0 and report["naive"]["windows"] == 2


def test_compliance_counts_silent_and_empty_cells(tmp_path: Path) -> None:
    write_book(tmp_path / "council-book.jsonl")
    seats = points_report(tmp_path, season=1, min_history=2)["seats"]
    assert seats["beta"]["compliance"]["with_forecast_share"] == 0.0 and seats["beta"]["windows"] == 0
    assert seats["gamma"]["compliance"]["asked"] == 1 and seats["gamma"]["overall"] is None


def test_min_history_and_season_change_what_is_scaled(tmp_path: Path) -> None:
    write_book(tmp_path / "council-book.jsonl")
    assert points_report(tmp_path, min_history=4)["seats"]["alpha"]["windows"] == 0
    # m = 2 on 2026-01-09: history 100 102 101 103 → |101-100| |103-102| → scale 1; naive y[3+1-2] = 101
    alpha = points_report(tmp_path, season=2, min_history=2)["seats"]["alpha"]
    [row] = alpha["configs"]
    assert row["windows"] == 1
    assert row["mase"] == pytest.approx(0.5) and row["mase_naive"] == pytest.approx(3.0)


def test_a_folder_without_a_book_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(EvalError, match="no council-book.jsonl"):
        find_book(tmp_path)


def test_the_cli_prints_and_writes_the_table(tmp_path: Path) -> None:
    write_book(tmp_path / "public" / "council-book.jsonl")
    result = CliRunner().invoke(app, ["eval", "points", "--data", str(tmp_path), "--min-history", "2",
                                      "--out", str(tmp_path / "points")])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any(line.startswith("_naive ") and " 1.000 " in line for line in lines)
    assert any(line.startswith("seasonal naive ") and " 1.000 " in line for line in lines)
    csv_rows = (tmp_path / "points" / "points.csv").read_text().splitlines()
    assert csv_rows[0] == "seat,market,horizon,bucket,windows,mase,mase_naive,relative"
    assert any(r.startswith("alpha,SPX,1d,short,2,") for r in csv_rows)
    assert (tmp_path / "points" / "points.json").is_file()


@pytest.mark.parametrize("season", [1, 2, 5])
def test_the_running_scale_equals_the_pure_functions_on_every_prefix(season: int) -> None:
    """The reader's windows (running sums, bisection, one per market × session × horizon) carry the same
    floats as seasonal_scale and seasonal_naive over the closes sealed before each session: bit for bit, so
    the published MASE table does not move. Irregular closes (a missing session, repeats, large and tiny
    steps) make a reordered or re-associated sum differ in its last bits."""
    import random

    from league.evals.mase import seasonal_naive, seasonal_scale
    from league.evals.points import HORIZON_STEPS, _Reader

    rng = random.Random(season)
    sessions = [f"2026-{1 + d // 28:02d}-{1 + d % 28:02d}" for d in range(150)]
    closes: list[tuple[str, float]] = []
    level = 1000.0
    for s in sessions:
        if rng.random() < 0.1:
            continue  # a session without a sealed 1d close
        level = level if rng.random() < 0.05 else level * (1 + rng.gauss(0, 0.02)) + rng.random() * 1e-9
        closes.append((s, level))
    reader = _Reader({"SPX": closes}, season, min_history=3)
    checked = 0
    for s in [*sessions, "2027-01-01"]:
        hist = [c for t, c in closes if t < s]
        for horizon, steps in HORIZON_STEPS.items():
            w = reader.window(s, horizon, "SPX", 1.0, 2.0)
            scale = seasonal_scale(hist, season) if len(hist) - season >= 3 else None
            if scale is None:
                assert w is None
                continue
            assert w is not None and w.scale == scale  # exact: the same additions in the same order
            assert w.naive == (seasonal_naive(hist, steps, season),)
            checked += 1
    assert checked > 400
    assert reader.window(sessions[-1], "1d", "NDX", 1.0, 2.0) is None  # a market without closes
