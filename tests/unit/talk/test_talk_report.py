"""council-talk.json and council-talk-critiques.csv from two hand-made weeks (league/talk/report.py)."""

from __future__ import annotations

import dataclasses

import pytest
from talk_helpers import weeks

from league.talk import TalkError
from league.talk.report import CRITIQUE_COLUMNS, critique_rows, talk_report


def test_the_report_has_each_weeks_critiques_f22_and_f23() -> None:
    report = talk_report(weeks())
    assert report["version"] == 1 and isinstance(report["definitions"], dict)
    listed = report["weeks"]
    assert isinstance(listed, list)
    first, second = listed
    assert isinstance(first, dict) and isinstance(second, dict)
    assert first["week"] == "2026-W49" and first["chair_seat"] == "bravo" and first["chair_letter"] == "C"
    assert second["chair_seat"] is None and second["letter_map"] is None  # not revealed yet
    assert first["critiques"] == [
        {"target": "B", "market": "SPX", "fund": "SPY", "risk": "risk of B's SPX", "weight": 25,
         "direction": "down", "reference_close": 100, "close_5": 99, "resolution": True},
        {"target": "D", "market": "GOLD", "fund": "GLD", "risk": "risk of D's GOLD", "weight": 30,
         "direction": "up", "reference_close": 50, "close_5": 50, "resolution": False},
        {"target": "A", "market": "NDX", "fund": "QQQ", "risk": "risk of A's NDX", "weight": 10,
         "direction": "up", "reference_close": 200, "close_5": 210, "resolution": True}]
    # 2 of 3: Wilson [0.207660, 0.938508] (centre 0.573084, half 0.365424)
    assert first["f22"] == {"n": 3, "hits": 2, "share": 0.666667, "ci95": [0.20766, 0.938508]}
    # sealed mean (0.03 + 0.015 + 0 + 0.01) / 4 = 0.01375; council -0.003 - 0.01375 = -0.01675
    # A: 0.015 - 0.03 = -0.015, 0.005 - 0.03 = -0.025, 0.005 - 0.015 = -0.01
    # B: 0.0175 - 0.015 = 0.0025, -0.003 - 0.015 = -0.018, -0.003 - 0.0175 = -0.0205
    # D: 0.01 - 0.01 = 0, no reply: no stated account
    assert first["f23"] == {"council_vs_sealed_mean": -0.01675, "seats": [
        {"letter": "A", "critiqued_vs_sealed": -0.015, "stated_vs_sealed": -0.025, "stated_vs_critiqued": -0.01},
        {"letter": "B", "critiqued_vs_sealed": 0.0025, "stated_vs_sealed": -0.018, "stated_vs_critiqued": -0.0205},
        {"letter": "D", "critiqued_vs_sealed": 0.0, "stated_vs_sealed": None, "stated_vs_critiqued": None}]}
    assert second["critiques"][0]["resolution"] is None and second["critiques"][0]["close_5"] is None
    # 1 of 1: Wilson [0.206549, 1]
    assert second["f22"] == {"n": 1, "hits": 1, "share": 1.0, "ci95": [0.206549, 1.0]}
    # 3 of 4: centre 0.627527, half 0.326885 -> [0.300642, 0.954413]
    season = report["season"]
    assert isinstance(season, dict)
    assert season["f22"] == {"n": 4, "hits": 3, "share": 0.75, "ci95": [0.300642, 0.954413]}
    # critiqued_vs_sealed (-0.015 + 0.0025 + 0) / 3 = -0.0041666.. -> -0.004167; stated_vs_sealed
    # (-0.025 - 0.018) / 2 = -0.0215; stated_vs_critiqued (-0.01 - 0.0205) / 2 = -0.01525; the second week has
    # no returns yet
    assert season["f23"] == {"council_vs_sealed_mean": {"n": 1, "mean": -0.01675},
                             "critiqued_vs_sealed": {"n": 3, "mean": -0.004167},
                             "stated_vs_sealed": {"n": 2, "mean": -0.0215},
                             "stated_vs_critiqued": {"n": 2, "mean": -0.01525}}


def test_critique_rows_one_per_critique_in_week_order() -> None:
    rows = critique_rows(weeks())
    assert [list(r) for r in rows] == [list(CRITIQUE_COLUMNS)] * 5
    assert rows[0] == {"week": "2026-W49", "chair_letter": "C", "target_letter": "B", "market": "SPX",
                       "fund": "SPY", "risk": "risk of B's SPX", "weight": "25.0", "direction": "down",
                       "reference_close": "100.0", "close_5": "99.0", "resolution": "true", "chair_line": "11",
                       "reply_line": "12"}
    assert [r["resolution"] for r in rows] == ["true", "false", "true", "unresolved", "true"]
    assert rows[3]["close_5"] == "" and rows[3]["reference_close"] == "100.0"
    assert [r["reply_line"] for r in rows] == ["12", "13", "14", "22", "23"]


def test_a_week_whose_revealed_letters_do_not_match_the_sealed_digest_is_refused() -> None:
    week = weeks()[1]
    with pytest.raises(TalkError, match="sealed commitment"):
        dataclasses.replace(week, letter_map={"bravo": "A", "alpha": "B", "charlie": "C", "delta": "D"})
    with pytest.raises(TalkError, match="same position"):
        dataclasses.replace(week, critiques=(week.critiques[0], week.critiques[0]))
    with pytest.raises(TalkError, match="twice"):
        talk_report([week, week])
