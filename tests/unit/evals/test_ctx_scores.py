"""The contextual track's scores (league/evals/context/scores.py): every expected figure below is worked out by
hand in the comments, and the MASE of a path is checked against a maintained library (utilsforecast)."""

from __future__ import annotations

import math
import random

import pytest

from league.evals.context.scores import (
    CtxAnswer,
    CtxWindow,
    effects_met,
    fit,
    naive_path,
    path_mase,
    points,
    score,
    within_range,
)


def test_path_mase_and_the_naive_path_by_hand() -> None:
    # history 1 3 2 4, m = 1: |3-1| + |2-3| + |4-2| = 5 over 3 -> scale 5/3; errors |4-5|, |7-5| -> mean 1.5
    w = CtxWindow((1, 3, 2, 4), (5, 5), 1, "short")
    assert path_mase((4, 7), w) == pytest.approx(1.5 / (5 / 3), rel=1e-12)
    # m = 2 on 1 3 2 4 3 6: the naive path repeats the last value of the same phase: y4, y5, y4 = 3, 6, 3
    assert naive_path((1, 3, 2, 4, 3, 6), 3, 2) == (3, 6, 3)
    assert path_mase((5,), CtxWindow((7, 7, 7), (5,), 1, "short")) is None  # flat history: no scale
    with pytest.raises(ValueError, match="horizon"):
        path_mase((1, 2, 3), w)


def test_fit_truncates_pads_and_misses() -> None:
    assert fit((1, 2, 3), 2) == ((1, 2), "truncated")
    assert fit((1,), 3) == ((1, 1, 1), "padded")
    assert fit((1, 2), 2) == ((1, 2), "exact")
    assert fit((), 2) == (None, "missing")
    assert fit(None, 2) == (None, "missing")


def test_points_range_and_effects_by_hand() -> None:
    assert points((15, 25), (10, 20)) == [50, 150]
    assert points((1,), (4, 4)) is None
    hist = (0, 100)  # points are the values themselves
    assert within_range((3, 50, 104), hist, (0, 100)) is True  # -5 .. 105 with the tolerance of 5
    assert within_range((-6, 50), hist, (0, 100)) is False
    assert within_range((1,), (2, 2), (0, 100)) is None
    path = (10, 20, 30, 80, 90)
    assert effects_met(path, hist, {(0, 2): (15, 25)}) == (1, 1)  # mean 20
    assert effects_met(path, hist, {(3, 4): (60, 70)}) == (1, 0)  # mean 85 > 70 + 5
    assert effects_met(path, hist, {(3, 4): (75, 80), (0, 0): (20, 30)}) == (2, 1)  # 85 <= 85 met; 10 < 15 not
    with pytest.raises(ValueError, match="outside"):
        effects_met(path, hist, {(4, 5): (0, 1)})


def test_score_by_hand() -> None:
    # S: history 0 2 1 3 (m 1): scale 5/3, naive path 3 3 against 4 4 -> naive MASE (1 + 1) / 2 / (5/3) = 0.6
    s = CtxWindow((0, 2, 1, 3), (4, 4), 1, "short")
    # L: history 0 4 2 6 (m 2): scale (2 + 2) / 2 = 2, naive path 2 6 2 against 3 7 5 -> (1 + 1 + 3) / 3 / 2 = 5/6
    lw = CtxWindow((0, 4, 2, 6), (3, 7, 5), 2, "long")
    flat = CtxWindow((5, 5, 5), (5, 6), 1, "short")
    answers = [
        # history arm: S 3.5 4.5 -> 0.5 / (5/3) = 0.3 -> relative 0.5; L truncated to the naive path -> 1
        CtxAnswer(s, "history", (3.5, 4.5)),
        CtxAnswer(lw, "history", (2, 6, 2, 9)),
        # both arm: S padded to 5 5 -> 0.6 -> relative 1, in points (x 100/3) 166.7 > 100 + 5: out of range;
        # L 3 7 4 -> (0 + 0 + 1) / 3 / 2 = 1/6 -> relative 0.2; in points (x 100/6) 50, 116.7, 66.7: within
        # 0..120 (+5); effect [0, 0] at 45..55 met (50); [1, 2] at exactly 100: mean 91.7 < 95, not met
        CtxAnswer(s, "both", (5,), stated_range=(0, 100)),
        CtxAnswer(lw, "both", (3, 7, 4), stated_range=(0, 120), effects={(0, 0): (45, 55), (1, 2): (100, 100)}),
        CtxAnswer(s, "both", None, stated_range=(0, 100)),  # missing: counted, not scored
        CtxAnswer(flat, "both", (5, 6), stated_range=(0, 100)),  # exact but unscaled, and no points to check
    ]
    report = score(answers)
    hist, both = report["arms"]["history"], report["arms"]["both"]
    assert hist["overall"] == pytest.approx(math.sqrt(0.5 * 1.0), rel=1e-12)
    assert hist["buckets"]["short"] == pytest.approx(0.5, rel=1e-12)
    assert hist["buckets"]["long"] == pytest.approx(1.0, rel=1e-12)
    assert both["overall"] == pytest.approx(math.sqrt(1.0 * 0.2), rel=1e-12)
    assert both["windows"] == 2 and both["unscaled"] == 1
    short_row = next(r for r in both["configs"] if r["bucket"] == "short")
    assert short_row["config"] == ["both", "short"] and short_row["windows"] == 1
    assert short_row["mase"] == pytest.approx(0.6, rel=1e-12)
    assert short_row["mase_naive"] == pytest.approx(0.6, rel=1e-12)
    assert both["compliance"] == {
        "answers": 4, "exact": 2, "exact_share": 0.5, "truncated": 0, "padded": 1, "missing": 1,
        "range_checked": 2, "within_range": 1, "within_range_share": 0.5,
        "effects_checked": 2, "effects_met": 1, "effects_met_share": 0.5}
    assert hist["compliance"]["truncated"] == 1 and hist["compliance"]["exact"] == 1
    assert hist["compliance"]["range_checked"] == 0 and hist["compliance"]["within_range_share"] is None
    # across every configuration (bucket x arm): 0.5, 1, 1, 0.2
    assert report["overall"] == pytest.approx(0.1 ** 0.25, rel=1e-12)
    assert report["buckets"]["short"] == pytest.approx(math.sqrt(0.5), rel=1e-12)
    assert report["buckets"]["long"] == pytest.approx(math.sqrt(0.2), rel=1e-12)
    assert len(report["configs"]) == 4


def test_naive_scores_one() -> None:
    rng = random.Random(4)
    answers = []
    for i, bucket in enumerate(("short", "medium", "long")):
        history = tuple(rng.uniform(0, 10) for _ in range(20 + i))
        w = CtxWindow(history, tuple(rng.uniform(0, 10) for _ in range(5)), 3, bucket)
        answers.append(CtxAnswer(w, "naive", naive_path(history, 5, 3)))
    report = score(answers)
    assert report["arms"]["naive"]["overall"] == pytest.approx(1.0, rel=1e-12)


def test_path_mase_equals_utilsforecast() -> None:
    pd = pytest.importorskip("pandas")
    losses = pytest.importorskip("utilsforecast.losses")
    rng = random.Random(20261206)
    m, n, h = 7, 40, 14
    history = [10 + 3 * math.sin(2 * math.pi * t / m) + rng.gauss(0, 1) for t in range(n)]
    future = [10 + 3 * math.sin(2 * math.pi * t / m) + rng.gauss(0, 1) for t in range(n, n + h)]
    path = [f + rng.gauss(0, 1.5) for f in future]
    train = pd.DataFrame({"unique_id": "a", "ds": list(range(n)), "y": history})
    test = pd.DataFrame({"unique_id": "a", "ds": list(range(n, n + h)), "y": future, "model": path})
    expected = float(losses.mase(test, ["model"], m, train)["model"].iloc[0])
    got = path_mase(tuple(path), CtxWindow(tuple(history), tuple(future), m, "short"))
    assert got is not None
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)
