"""Sides per run and disagreement tertiles (league/scoring/sides.py), against figures worked out by hand.

The hand case: four seats, two per side (a1, a2 on side "a"; b1, b2 on side "b"), three markets X, Y, Z:

    a1: 60 50 40    a2: 70 50 30    b1: 40 50 60    b2: 50 60 55

Centred: a1 (10, 0, -10), a2 (20, 0, -20), b1 (-10, 0, 10), b2 (-5, 5, 0), so r(a1, a2) = 1, r(a, b1) = -1,
r(a, b2) = -50/sqrt(200 x 50) = -0.5 (and -100/sqrt(800 x 50) = -0.5), r(b1, b2) = 50/sqrt(200 x 50) = 0.5.
Within = (1 + 0.5)/2 = 0.75, between = (-1 - 0.5 - 1 - 0.5)/4 = -0.75, difference 1.5. The C(4, 2) = 6 splits
pair up into three partitions: {a1 a2 | b1 b2} 1.5, {a1 b1 | a2 b2} -0.75, {a1 b2 | a2 b1} -0.75: p = 2/6.
Cell gaps a - b: X 65 - 45 = 20, Y 50 - 55 = -5, Z 35 - 57.5 = -22.5 (the largest). Largest |gap| per
partition: 22.5, 10 (X 50 - 60), 5 (Y 55 - 50): p = 2/6. Without b2, Y's gap is 50 - 50 = 0: Y's gap is b2's.
The correlation matrix reduces on x = (t, t, -t, s) to [[3, -0.5], [-1.5, 1]], eigenvalues 2 +- sqrt(7)/2 (and
0, 0): top share (2 + sqrt(7)/2)/4, participation ratio 16/11.5.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace

import numpy as np
import pytest

from league.jsonvalue import JsonObject
from league.scoring.sides import (
    MAX_SPLITS,
    SEED,
    Answer,
    _corr_differences,
    _membership,
    council_answers,
    loso,
    pearson,
    population_sd,
    side_gap,
    sides_report,
    similarity,
    splits,
    tertile_cuts,
    tertile_of,
    tertiles_report,
)

SIDE = {"a1": "a", "a2": "a", "b1": "b", "b2": "b"}
PROBS = {"a1": (60, 50, 40), "a2": (70, 50, 30), "b1": (40, 50, 60), "b2": (50, 60, 55)}
OUTCOME = {"X": 1.0, "Y": 0.0, "Z": None}


def hand_answers() -> list[Answer]:
    return [Answer("r1", "2026-11-02", seat, m, "1d", f"ev-{m}", float(p), OUTCOME[m])
            for seat, ps in PROBS.items() for m, p in zip("XYZ", ps, strict=True)]


def group(report: dict[str, object], horizon: str) -> dict[str, object]:
    runs = report["runs"]
    assert isinstance(runs, list)
    return next(r for r in runs if r["horizon"] == horizon)


def test_hand_case_correlations_splits_and_gap() -> None:
    g = group(sides_report(hand_answers(), SIDE), "1d")
    assert g["computed"] is True and g["splits"] == 6 and g["sampled"] is False
    corr = g["correlation"]
    assert corr["within"] == pytest.approx(0.75)
    assert corr["between"] == pytest.approx(-0.75)
    assert corr["difference"] == pytest.approx(1.5)
    assert corr["within_by_side"] == {"a": pytest.approx(1.0), "b": pytest.approx(0.5)}
    assert corr["p_value"] == pytest.approx(2 / 6)
    assert g["largest_gap"] == {"cell": "Z", "gap": pytest.approx(-22.5), "p_value": pytest.approx(2 / 6)}


def test_hand_case_eigen_figures() -> None:
    eig = group(sides_report(hand_answers(), SIDE), "1d")["eigen"]
    assert eig["seats"] == 4 and eig["cells"] == 3
    assert eig["top_share"] == pytest.approx((2 + math.sqrt(7) / 2) / 4)
    assert eig["participation_ratio"] == pytest.approx(16 / 11.5)


def test_leave_one_seat_out_names_the_seat() -> None:
    cells = {c["cell"]: c for c in group(sides_report(hand_answers(), SIDE), "1d")["gaps"]["probability"]["cells"]}
    # Z: without a1 30 - 57.5, a2 40 - 57.5, b1 35 - 55, b2 35 - 60: never half, no owner
    assert cells["Z"]["loso_range"] == [pytest.approx(-27.5), pytest.approx(-17.5)]
    assert cells["Z"]["owner"] is None
    # Y: -5; without b2 50 - 50 = 0 (less than half): b2's; without b1 50 - 60 = -10
    assert cells["Y"]["gap"] == pytest.approx(-5)
    assert cells["Y"]["loso_range"] == [pytest.approx(-10), pytest.approx(0)]
    assert cells["Y"]["owner"] == "b2"


def test_a_sign_flip_is_that_seats() -> None:
    # a: 80 and 40 (mean 60), b: 50 and 50: gap 10; without a1 the gap is 40 - 50 = -10 (flips)
    got = loso([("a1", 80.0), ("a2", 40.0), ("b1", 50.0), ("b2", 50.0)], SIDE, ("a", "b"))
    assert got == {"gap": pytest.approx(10.0), "loso_range": [pytest.approx(-10.0), pytest.approx(30.0)],
                   "owner": "a1"}


def test_brier_gap_on_resolved_cells_only() -> None:
    cells = {c["cell"]: c for c in group(sides_report(hand_answers(), SIDE), "1d")["gaps"]["brier"]["cells"]}
    assert sorted(cells) == ["X", "Y"]  # Z is open
    # X up: a (0.16 + 0.09)/2 = 0.125, b (0.36 + 0.25)/2 = 0.305
    assert cells["X"]["gap"] == pytest.approx(0.125 - 0.305)


def test_all_group_pools_the_horizons() -> None:
    answers = hand_answers() + [Answer(a.run_id, a.session, a.seat, a.asset, "1w", a.event + "w", a.p, None)
                                for a in hand_answers()]
    g = group(sides_report(answers, SIDE), "all")
    assert g["cells"] == 6 and g["splits"] == 6


def test_paper_split_counts() -> None:
    assert len(splits(8, 4)[0]) == 70  # eight seats into four and four (20 October)
    assert len(splits(9, 5)[0]) == 126  # nine into five and four (21 October)
    assert len(splits(14, 7)[0]) == 3432 and splits(14, 7)[1] is False


def test_seeded_sample_is_replayable_with_the_stdlib() -> None:
    drawn, sampled = splits(16, 8)  # C(16, 8) = 12870 > MAX_SPLITS
    rng = random.Random(SEED)
    assert sampled and len(drawn) == MAX_SPLITS
    assert drawn[:3] == [tuple(sorted(rng.sample(range(16), 8))) for _ in range(3)]


def test_small_run_listed_with_reason() -> None:
    answers = [a for a in hand_answers() if a.seat != "b2"]
    g = group(sides_report(answers, SIDE), "1d")
    assert g["computed"] is False
    assert g["reason"] == "side b has 1 answering seat (2 needed)"
    season = sides_report(answers, SIDE)["season"]
    assert season["by_horizon"][0]["not_computed"] == [{"run_id": "r1", "reason": g["reason"]}]


def test_one_side_only_is_not_computed() -> None:
    report = sides_report(hand_answers(), {"a1": "us", "a2": "us", "b1": "us", "b2": "us"})
    assert report["computed"] is False and report["runs"] == []


def test_season_counts_owners() -> None:
    season = sides_report(hand_answers(), SIDE)["season"]
    owners = {o["seat"]: o["gaps"] for o in season["by_horizon"][0]["owners"]}
    assert owners.get("b2", 0) >= 1


def test_tertile_cuts_by_hand() -> None:
    # spreads 0, 10, 5, 20, 2, 15 -> sorted 0 2 5 10 15 20; n = 6: cuts at the 2nd (2) and 4th (10)
    cuts = tertile_cuts([0, 10, 5, 20, 2, 15])
    assert cuts == (2, 10)
    assert [tertile_of(x, cuts) for x in (0, 2, 5, 10, 15, 20)] == ["low", "low", "mid", "mid", "high", "high"]
    # ties share a tertile: four equal spreads all fall in the lowest
    assert [tertile_of(5.0, tertile_cuts([5.0] * 4))] * 4 == ["low"] * 4


def test_population_sd() -> None:
    assert population_sd([40.0, 60.0]) == pytest.approx(10.0)  # sample SD would be 14.14


def test_tertiles_report_by_hand() -> None:
    pairs = {"e0": (50, 50), "e1": (40, 60), "e2": (45, 55), "e3": (30, 70), "e4": (48, 52), "e5": (35, 65)}
    answers = [Answer("r1", "s", seat, e, "1d", e, float(p), 1.0)
               for e, ps in pairs.items() for seat, p in zip(("s1", "s2"), ps, strict=True)]
    # consensus p per event and outcome 1: Brier (1 - p/100)^2
    cons = {("r1", e): (float(60 + i), 1.0) for i, e in enumerate(pairs)}
    report = tertiles_report(answers, cons)["by_horizon"][0]
    assert report["cuts"] == [2, 10] and report["events"] == 6
    low, mid, high = report["tertiles"]
    # low: e0 (0, p 60) and e4 (2, p 64); mid: e2 (5, p 62) and e1 (10, p 61); high: e5 (15, p 65), e3 (20, p 63)
    assert low["events"] == 2 and low["brier_consensus"] == pytest.approx((0.4**2 + 0.36**2) / 2)
    assert mid["brier_consensus"] == pytest.approx((0.38**2 + 0.39**2) / 2)
    assert high["brier_consensus"] == pytest.approx((0.35**2 + 0.37**2) / 2)
    assert high["spread_min"] == pytest.approx(15) and high["spread_max"] == pytest.approx(20)


def test_council_answers_rule() -> None:
    base = {"run_id": "r1", "session": "2026-11-02", "seat": "a1", "status": "counted", "cell_status": "elicited",
            "prob_up": "60", "sealed_at": "2026-11-02T13:00:00Z", "event_reference_at": "2026-11-02T14:30:00Z",
            "reference_at": "2026-11-02T14:30:00Z", "line_kind": "issue", "run_role": "session_run",
            "same_event": "1", "asset": "X", "horizon": "1d", "event_id_v2": "ev2-x", "event_id": "ev1-x",
            "ref": "100", "close": "101"}
    rows = [base, {**base, "prob_up": "70", "sealed_at": "2026-11-02T13:05:00Z"},  # a later answer: not kept
            {**base, "seat": "_coin"}, {**base, "seat": "a2", "sealed_at": "2026-11-02T15:00:00Z"},  # late
            {**base, "seat": "b1", "status": "not_counted"}, {**base, "seat": "b2", "close": ""}]
    got = council_answers(rows)
    assert [(a.seat, a.p, a.outcome) for a in got] == [("a1", 60.0, 1.0), ("b2", 60.0, None)]


def _season(seed: int, runs: int = 4) -> list[Answer]:
    rng = random.Random(seed)
    return [Answer(f"r{r}", f"2026-11-{r + 2:02d}", seat, m, h, f"ev-{r}-{m}-{h}", float(rng.randint(5, 95)),
                   rng.choice((0.0, 1.0, None)))
            for r in range(runs) for seat in SIDE for m in "XYZW" for h in ("1d", "1w")]


def _runs(report: JsonObject) -> list[JsonObject]:
    runs = report["runs"]
    assert isinstance(runs, list)
    return [e for e in runs if isinstance(e, dict)]


def test_a_memo_stands_for_the_runs_whose_answers_it_holds() -> None:
    answers = _season(3)
    fresh = sides_report(answers, SIDE)
    memo: dict[str, list[JsonObject]] = {}
    assert sides_report(answers, SIDE, memo) == fresh
    assert len(memo) == 4  # one key per run
    changed = [replace(a, p=11.0) if a.run_id == "r2" and a.seat == "b1" else a for a in answers]
    marked: dict[str, list[JsonObject]] = {k: [{**e, "marker": k} for e in v] for k, v in memo.items()}
    runs = _runs(sides_report(changed, SIDE, marked))
    assert {e["run_id"] for e in runs if "marker" in e} == {"r0", "r1", "r3"}  # r2 computed again, the rest kept
    assert [e for e in runs if e["run_id"] == "r2"] == [e for e in _runs(sides_report(changed, SIDE))
                                                         if e["run_id"] == "r2"]
    assert not any("marker" in e for e in _runs(sides_report(changed, {**SIDE, "b2": "a"}, marked)))


def _answers_by_definition(rows: list[dict[str, str]]) -> list[Answer]:
    """The rule written plainly over whole rows: order by (run, event, sealed, seat), keep each (run, event, seat)
    first; what council_answers must give while holding only the fields it reads."""
    def event(r: dict[str, str]) -> str:
        return r.get("event_id_v2") or r.get("event_id") or f"{r.get('session')}|{r.get('asset')}|{r.get('horizon')}"

    kept: list[Answer] = []
    seen: set[tuple[str, str, str]] = set()
    counted = [r for r in rows if not r["seat"].startswith("_") and r["status"] == "counted"
               and r["sealed_at"] <= r["event_reference_at"]]
    for r in sorted(counted, key=lambda r: (r["run_id"], event(r), r["sealed_at"], r["seat"])):
        if (r["run_id"], event(r), r["seat"]) in seen:
            continue
        seen.add((r["run_id"], event(r), r["seat"]))
        ref, close = float(r["ref"]) if r["ref"] else None, float(r["close"]) if r["close"] else None
        kept.append(Answer(r["run_id"], r["session"], r["seat"], r["asset"], r["horizon"], event(r),
                           float(r["prob_up"]), None if ref is None or close is None else float(close > ref)))
    return kept


@pytest.mark.parametrize("seed", range(12))
def test_council_answers_keep_the_first_answer_of_each_run_event_and_seat(seed: int) -> None:
    rng = random.Random(seed)
    base = {"cell_status": "elicited", "event_reference_at": "2026-11-02T14:30:00Z", "line_kind": "issue",
            "run_role": "session_run", "same_event": "1", "event_id": "", "reference_at": ""}
    rows = []
    for _ in range(rng.randint(0, 300)):
        asset, horizon = rng.choice("XYZ"), rng.choice(("1d", "1w"))
        rows.append({**base, "run_id": rng.choice(("r1", "r2", "r3")), "session": rng.choice(("s1", "s2")),
                     "seat": rng.choice(("a1", "a2", "b1", "b2", "_coin")), "asset": asset, "horizon": horizon,
                     "event_id_v2": rng.choice((f"ev-{asset}-{horizon}", "")),
                     "status": rng.choice(("counted", "counted", "not_counted")),
                     "sealed_at": f"2026-11-02T1{rng.randint(2, 5)}:{rng.choice('03')}0:00Z",
                     "prob_up": str(rng.randint(1, 99)), "ref": rng.choice(("100", "101", "")),
                     "close": rng.choice(("100", "102", ""))})
    assert council_answers(rows) == _answers_by_definition(rows)


def _sparse_matrix(rng: random.Random, cells: int, seats: int) -> list[list[float | None]]:
    """cells x seats probabilities, some missing, some seats constant (no variance), a few non-integers."""
    out: list[list[float | None]] = [[None] * seats for _ in range(cells)]
    for s in range(seats):
        constant = rng.random() < 0.15
        for c in range(cells):
            if rng.random() < 0.25:
                continue
            out[c][s] = 50.0 if constant else (float(rng.randint(1, 99)) if rng.random() < 0.8 else rng.random() * 100)
    return out


@pytest.mark.parametrize("seed", range(8))
def test_similarity_is_pearson_over_each_pairs_common_cells(seed: int) -> None:
    rng = random.Random(seed)
    cells, seats = rng.randint(1, 14), rng.randint(2, 12)
    y = _sparse_matrix(rng, cells, seats)
    got = similarity(np.array([[np.nan if v is None else v for v in row] for row in y]))
    for a in range(seats):
        for b in range(seats):
            common = [c for c in range(cells) if y[c][a] is not None and y[c][b] is not None]
            r = None if a == b else pearson([y[c][a] or 0.0 for c in common], [y[c][b] or 0.0 for c in common])
            if r is None:
                assert math.isnan(got[a, b]), (a, b)
            else:
                assert got[a, b] == pytest.approx(r, abs=1e-12), (a, b)


def _corr_difference_by_pairs(sim: np.ndarray, first: set[int]) -> float:
    """Within minus between mean correlation of one split, pair by pair (NaN when either mean is undefined)."""
    within: list[float] = []
    between: list[float] = []
    for a in range(sim.shape[0]):
        for b in range(a + 1, sim.shape[0]):
            if np.isfinite(sim[a, b]):
                (within if (a in first) == (b in first) else between).append(float(sim[a, b]))
    return math.fsum(within) / len(within) - math.fsum(between) / len(between) if within and between else math.nan


@pytest.mark.parametrize("seed", range(6))
def test_correlation_difference_of_every_split_matches_the_pairwise_definition(seed: int) -> None:
    rng = random.Random(seed)
    seats = rng.randint(4, 10)
    y = _sparse_matrix(rng, rng.randint(3, 12), seats)
    sim = similarity(np.array([[np.nan if v is None else v for v in row] for row in y]))
    size = rng.randint(1, seats - 1)
    member, _ = _membership(seats, size)
    got = _corr_differences(sim, member)
    combos, _ = splits(seats, size)
    assert member.shape == (len(combos), seats)
    for row, combo in enumerate(combos):
        assert set(np.flatnonzero(member[row])) == set(combo)
        want = _corr_difference_by_pairs(sim, set(combo))
        assert (math.isnan(got[row]) and math.isnan(want)) or got[row] == pytest.approx(want, abs=1e-12)


def _loso_by_definition(values: list[tuple[str, float]], side: dict[str, str]) -> JsonObject | None:
    """Leave one seat out written plainly: each gap re-summed without the seat (side_gap with drop)."""
    gap = side_gap(values, side, ("a", "b"))
    if gap is None:
        return None
    without = {s: g for s in sorted({s for s, _ in values})
               if (g := side_gap(values, side, ("a", "b"), drop=s)) is not None}
    owner = None
    if gap != 0 and without:
        sign = 1.0 if gap > 0 else -1.0
        seat, g = min(without.items(), key=lambda kv: (kv[1] * sign, kv[0]))
        owner = seat if g * sign < 0 or abs(g) < abs(gap) / 2 else None
    return {"gap": gap, "loso_range": [min(without.values()), max(without.values())] if without else [],
            "owner": owner}


@pytest.mark.parametrize("seed", range(12))
def test_leave_one_out_equals_resumming_without_each_seat_to_the_last_bit(seed: int) -> None:
    rng = random.Random(seed)
    seats = [f"s{i}" for i in range(rng.randint(2, 9))]
    side = {s: rng.choice("ab") for s in seats}
    side[seats[0]] = "c"  # a seat on neither side changes no gap when left out
    values = [(rng.choice(seats), rng.choice((rng.random(), (rng.random() - rng.choice((0.0, 1.0))) ** 2, 1e-17,
                                                float(rng.randint(1, 99)))))
              for _ in range(rng.randint(1, 40))]
    assert loso(values, side, ("a", "b")) == _loso_by_definition(values, side)
