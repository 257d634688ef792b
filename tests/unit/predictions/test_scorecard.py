"""The scorecard by hand: Brier of the registered p over the resolved lines, the share resolved, the worst case
(every unresolved line counted as failed) and the skill against saying 0.5."""

from __future__ import annotations

import pytest

from league.predictions.scorecard import Scored, scorecard


def test_four_lines_by_hand() -> None:
    lines = [Scored("a", 0.8, "true"), Scored("b", 0.6, "false"), Scored("c", 0.7, "unresolved"),
             Scored("d", 0.5, None)]
    card = scorecard(lines)
    # resolved: (0.8-1)^2 = 0.04, (0.6-0)^2 = 0.36 -> 0.2; worst case adds (0.7-0)^2 = 0.49 -> 0.89/3
    assert card["registered"] == 4 and card["due"] == 3 and card["resolved"] == 2 and card["unresolved"] == 1
    assert card["share_resolved"] == pytest.approx(2 / 3, abs=1e-6)
    assert card["brier"] == pytest.approx(0.2, abs=1e-9)
    assert card["brier_worst_case"] == pytest.approx(0.296667, abs=1e-9)
    assert card["skill_vs_half"] == pytest.approx(1 - 0.2 / 0.25, abs=1e-9)
    assert card["skill_worst_case"] == pytest.approx(round(1 - (0.89 / 3) / 0.25, 6), abs=1e-9)


def test_nothing_due_gives_no_figure() -> None:
    card = scorecard([Scored("a", 0.8, None)])
    assert card["due"] == 0 and card["brier"] is None and card["share_resolved"] is None
    assert card["skill_vs_half"] is None
