"""The pure parts of a run: which questions it admits (in file order) and what it seals about a seat's usage."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from evals_helpers import league_recipe_values, make_db, row

from league.evals.questions import read_question_file
from league.evals.run import _plain, plan


def test_plan_keeps_file_order_and_lists_every_exclusion(tmp_path: Path) -> None:
    rows = [row("a", end="2026-01-10"), row("b", end="2026-01-11"), row("bad", qt="numeric", end="2026-01-12"),
            row("c", end="2026-01-13"), row("old", end="2025-06-01")]
    qs = read_question_file(make_db(tmp_path / "q.db", rows, league_recipe_values()))
    admitted, excluded = plan(qs, date(2025, 12, 31), limit=2)
    assert [q.id for q in admitted] == ["a", "b"]
    assert excluded == [
        {"id": "bad", "reason": "invalid row: question_type 'numeric' is not one of yes_no, binary_named, "
                                "multiple_choice"},
        {"id": "old", "reason": "resolved 2025-06-01 on or before the seat's knowledge cutoff 2025-12-31"},
        {"id": "c", "reason": "beyond --limit 2"},
    ]


def test_usage_that_json_cannot_carry_does_not_block_the_seal() -> None:
    assert _plain({"total_cost_usd": 0.5, "models": {"m": 1}}) == {"total_cost_usd": 0.5, "models": {"m": 1}}
    assert _plain({"when": date(2026, 1, 2)}) == {"when": "2026-01-02"}
    assert _plain({"x": float("nan")}) == {"unreadable": "{'x': nan}"}
