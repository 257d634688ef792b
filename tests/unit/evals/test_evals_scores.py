"""Every score pinned on cases computed by hand (the arithmetic is written out beside each expectation)."""

from __future__ import annotations

import math

import pytest

from league.evals.scores import (
    Trial,
    agreement,
    brier,
    calibration,
    cohen_kappa,
    cost,
    exam,
    fleiss_kappa,
    group,
    log_loss,
    question_skill,
    summarize,
    tversky,
    tversky_chance,
)

F = frozenset


def trial(qid: str, k: int, letters: str | None, gold: str = "A", *, options: int = 4, qt: str = "multiple_choice",
          ct: str = "single", answered: bool = True, cost_usd: float | None = None,
          probs: dict[str, float] | None = None) -> Trial:
    return Trial(question_id=qid, question_type=qt, choice_type=ct, options=options, gold=F(gold.split(",")), trial=k,
                 answered=answered, letters=None if letters is None else F(letters.split(",")), cost=cost_usd,
                 probabilities=probs)


def test_tversky_by_hand() -> None:
    gold = F({"A", "C", "F"})
    assert tversky(F({"A", "C", "F"}), gold) == 1.0
    assert tversky(F({"A", "C"}), gold) == pytest.approx(2 / 2.5)  # tp 2, fn 1: 2/(2+0.5)
    assert tversky(F({"A", "C", "F", "X"}), gold) == pytest.approx(3 / 5)  # tp 3, fp 1: 3/(3+2)
    assert tversky(F({"A", "C", "X"}), gold) == pytest.approx(2 / 4.5)  # tp 2, fp 1, fn 1: 2/(2+2+0.5)
    assert tversky(F({"X", "Y"}), gold) == 0.0
    assert tversky(F(), gold) == 0.0
    assert tversky(None, gold) == 0.0


def test_tversky_chance_by_hand() -> None:
    assert tversky_chance(4, 1, multi=False) == 0.25
    assert tversky_chance(2, 1, multi=False) == 0.5
    # k = 2, gold {A}: subsets {} 0, {A} 1, {B} 0, {A,B} 1/(1+2) → (1 + 1/3) / 4
    assert tversky_chance(2, 1, multi=True) == pytest.approx((1 + 1 / 3) / 4)
    # k = 3, gold {A,B}: {A} 1/1.5, {B} 1/1.5, {A,B} 1, {A,C} 1/3.5, {B,C} 1/3.5, {A,B,C} 2/4, others 0
    expected = (2 / 1.5 + 1 + 2 / 3.5 + 0.5) / 8
    assert tversky_chance(3, 2, multi=True) == pytest.approx(expected)


def test_exam_by_hand() -> None:
    gold = F({"A", "B"})
    assert exam(F({"A"}), gold) == 0.5
    assert exam(F({"A", "B"}), gold) == 1.0
    assert exam(F({"A", "C"}), gold) == 0.0  # a wrong letter zeroes it
    assert exam(None, gold) == 0.0
    assert exam(F(), gold) == 0.0


def test_cohen_kappa_by_hand() -> None:
    # po = 3/4; rater a: A .5, B .5; rater b: A .25, B .75; pe = .125 + .375 = .5; κ = (.75 - .5)/.5
    assert cohen_kappa(["A", "A", "B", "B"], ["A", "B", "B", "B"]) == pytest.approx(0.5)
    assert cohen_kappa(["A", "B"], ["A", "B"]) == pytest.approx(1.0)
    assert cohen_kappa(["A", "A"], ["A", "A"]) is None  # chance agreement is certain
    assert cohen_kappa([], []) is None


def test_fleiss_kappa_by_hand() -> None:
    # P_i = 1, 1/3, 1 → P̄ = 7/9; p_A = 5/9, p_B = 4/9 → P_e = 41/81; κ = (63/81 - 41/81) / (40/81) = 22/40
    assert fleiss_kappa([["A", "A", "A"], ["A", "A", "B"], ["B", "B", "B"]]) == pytest.approx(0.55)
    assert fleiss_kappa([["A", "A"], ["A", "A"]]) is None
    assert fleiss_kappa([["A"], ["B"]]) is None  # one rater
    assert fleiss_kappa([["A", "B"], ["A"]]) is None  # unequal raters


def test_brier_and_log_loss_by_hand() -> None:
    assert brier({"A": 0.7, "B": 0.3}, F({"A"})) == pytest.approx(0.09 + 0.09)
    assert brier({"A": 0.7, "B": 0.2, "C": 0.9}, F({"A", "C"})) == pytest.approx(0.09 + 0.04 + 0.01)
    assert log_loss({"A": 0.7, "B": 0.3}, F({"A"}), multi=False) == pytest.approx(-math.log(0.7))
    assert log_loss({"A": 0.7, "B": 0.2, "C": 0.9}, F({"A", "C"}), multi=True) == pytest.approx(
        -(math.log(0.7) + math.log(0.8) + math.log(0.9)))
    assert log_loss({"A": 0.0, "B": 1.0}, F({"A"}), multi=False) == pytest.approx(-math.log(1e-6))  # clipped


def test_calibration_bins_by_hand() -> None:
    t1 = trial("q1", 1, "A", "A", options=2, qt="yes_no", probs={"A": 1.0, "B": 0.0})
    t2 = trial("q2", 1, "B", "A", options=2, qt="yes_no", probs={"A": 0.05, "B": 0.95})
    bins = calibration([t1, t2])
    assert [b["count"] for b in bins] == [2, 0, 0, 0, 0, 0, 0, 0, 0, 2]
    # bin 0 holds B: 0.0 (false) and A: 0.05 (true); bin 9 holds A: 1.0 (true) and B: 0.95 (false)
    assert bins[0]["stated"] == pytest.approx(0.025) and bins[0]["observed"] == pytest.approx(0.5)
    assert bins[9]["stated"] == pytest.approx(0.975) and bins[9]["observed"] == pytest.approx(0.5)


# Two questions × three trials. q1 (4 options, gold A): A, A, C. q2 (5 options, multi, gold {A,B}): {A,B}, {A},
# unparsable. Everything below is counted by hand from these six lines.
TRIALS = [
    trial("q1", 1, "A"), trial("q1", 2, "A"), trial("q1", 3, "C"),
    trial("q2", 1, "A,B", "A,B", options=5, ct="multi"), trial("q2", 2, "A", "A,B", options=5, ct="multi"),
    trial("q2", 3, None, "A,B", options=5, ct="multi"),
]


def test_group_figures_by_hand() -> None:
    g = group(TRIALS, 3)
    assert (g["questions"], g["trials"], g["answered"], g["correct"]) == (2, 6, 6, 3)
    assert g["parse_failures"] == 1 and g["no_reply"] == 0
    assert g["pass_at_1"] == pytest.approx(3 / 6)
    assert g["exam"] == pytest.approx((1 + 1 + 0 + 1 + 0.5 + 0) / 6)
    assert g["pass_any"] == pytest.approx(1.0) and g["pass_all"] == pytest.approx(0.0)
    # Tversky: q1 1, 1, 0; q2 1, 1/(1+0.5), 0
    assert g["tversky"] == pytest.approx((1 + 1 + 0 + 1 + 1 / 1.5 + 0) / 6)
    # skill q1 = (2/3 - 1/4) / (3/4); q2: chance of k=5, m=2 counted by tp, fp (32 subsets)
    chance = sum(math.comb(2, tp) * math.comb(3, fp) * tp / (tp + 2 * fp + 0.5 * (2 - tp))
                 for tp in (1, 2) for fp in range(4)) / 32
    q2 = ((1 + 1 / 1.5 + 0) / 3 - chance) / (1 - chance)
    assert g["tversky_skill"] == pytest.approx(((2 / 3 - 0.25) / 0.75 + q2) / 2)


def test_silence_is_not_an_answer_and_breaks_completeness() -> None:
    trials = [trial("q1", 1, "A"), trial("q1", 2, None, answered=False), trial("q1", 3, "A")]
    g = group(trials, 3)
    assert (g["answered"], g["no_reply"], g["parse_failures"]) == (2, 1, 0)
    assert g["pass_at_1"] == 1.0  # over the two answers
    assert g["complete_questions"] == 0 and g["pass_any"] is None and g["pass_all"] is None
    assert question_skill([trial("q1", 1, None, answered=False)]) is None


def test_agreement_uses_questions_whose_trials_all_parsed() -> None:
    a = agreement(TRIALS, 3)
    assert a["questions"] == 1  # q2 has an unparsable trial
    assert [p["trials"] for p in a["cohen_pairs"]] == [[1, 2], [1, 3], [2, 3]]
    # one item, q1 (A, A, C): trials 1 and 2 agree on it and chance agreement is certain → undefined; 1 and 3
    # disagree and share no category → po = pe = 0 → κ = 0
    assert [p["kappa"] for p in a["cohen_pairs"]] == [None, 0.0, 0.0]
    trials = [trial(q, k, lab) for q, labs in (("x", "AAB"), ("y", "BBB"), ("z", "AAA")) for k, lab in
              enumerate(labs, 1)]
    b = agreement(trials, 3)
    assert b["fleiss"] == pytest.approx(0.55)  # the Fleiss example above, as letters
    # trials 1 and 2 agree everywhere (A, B, A): po 1, pe 5/9 → 1; 1 vs 3 and 2 vs 3: (A,B,A) vs (B,B,A) → po 2/3,
    # pe = (2/3)(1/3) + (1/3)(2/3) = 4/9 → (2/3 - 4/9)/(5/9) = 0.4
    assert [p["kappa"] for p in b["cohen_pairs"]] == pytest.approx([1.0, 0.4, 0.4])
    assert b["cohen_mean"] == pytest.approx(0.6)


def test_cost_per_correct_by_hand() -> None:
    trials = [trial("q1", 1, "A", cost_usd=0.25), trial("q1", 2, "B", cost_usd=0.5), trial("q1", 3, "A"),
              trial("q2", 1, None, answered=False, cost_usd=9.0)]
    c = cost(trials)
    assert c["trials_with_cost"] == 2 and c["total"] == pytest.approx(0.75)
    assert c["per_answer"] == pytest.approx(0.375) and c["per_correct"] == pytest.approx(0.75)
    assert cost([trial("q1", 1, "B", cost_usd=0.1)])["per_correct"] is None
    assert cost([trial("q1", 1, "A")])["total"] is None


def test_summary_splits_by_type_and_kind() -> None:
    extra = [trial("y", 1, "B", "B", options=2, qt="yes_no"), trial("b", 1, "A", "B", options=2, qt="binary_named")]
    s = summarize(TRIALS + extra, 3)
    assert set(s["by_question_type"]) == {"binary_named", "multiple_choice", "yes_no"}
    assert set(s["by_choice_type"]) == {"multi", "single"}
    assert set(s["by_kind"]) == {"binary_named", "mc_multi", "mc_single", "yes_no"}
    assert s["by_kind"]["mc_single"]["pass_at_1"] == pytest.approx(2 / 3)
    assert s["by_choice_type"]["single"]["correct"] == 3 and s["by_choice_type"]["single"]["trials"] == 5
    assert s["overall"]["trials"] == 8 and s["probabilities"]["trials"] == 0
