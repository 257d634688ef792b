"""Scores of an event-question run (docs/evals.md, "Scores"). Pure: no I/O, no clock.

One :class:`Trial` per (question, trial). A trial without a reply (silence, timeout, sandbox incident) is NOT
an answer: it is counted apart (``no_reply``) and enters no score. A reply that does not parse is an answer
with zero credit in every score, and is also counted apart (``parse_failures``). Definitions:

- strict pass@1: share of answered trials whose letter set equals the answer set;
- exam score: |Ŝ∩G|/|G| when Ŝ holds no wrong letter (Ŝ ⊆ G), else 0; mean over answered trials;
- Pass^any@N / Pass^all@N: over the questions whose N trials all answered, the share with at least one / with
  every trial correct;
- Cohen's κ for every pair of trials, and Fleiss' κ over all N, on the questions whose trials all parsed; the
  category of a trial is its letter set;
- Tversky skill: T(Ŝ, G) = |Ŝ∩G| / (|Ŝ∩G| + α|Ŝ∖G| + β|G∖Ŝ|), α = 2, β = 0.5, T = 0 when Ŝ∩G = ∅;
  per question (T̄_q − E_q)/(1 − E_q), with T̄_q the mean over answered trials and E_q the expected T of a
  uniformly random answer of the question's own kind (one letter for single-answer questions: E = 1/k; a
  uniformly random subset of the k letters for multi-select ones); the skill is the mean over questions;
- cost per correct answer: the cost the replies reported, over the correct answers among those replies;
- probabilities (when a reply states them): multi-outcome Brier Σ_k (p_k − o_k)², log loss (−ln of the
  probability of what happened, per option for multi-select, probabilities clipped to [1e-6, 1 − 1e-6]) and a
  ten-bin calibration table over every (trial, option) probability.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypedDict

ALPHA, BETA = 2.0, 0.5
EPS = 1e-6
BINS = 10


class KappaPair(TypedDict):
    """Cohen's κ of two trials over the questions both answered in every trial."""

    trials: list[int]
    questions: int
    kappa: float | None


class Agreement(TypedDict):
    """How much the trials of a run agree with each other."""

    questions: int
    cohen_pairs: list[KappaPair]
    cohen_mean: float | None
    fleiss: float | None


class Figures(TypedDict):
    """Every figure of one group of trials (a row of ``scores.csv``)."""

    questions: int
    trials: int
    answered: int
    correct: int
    no_reply: int
    parse_failures: int
    pass_at_1: float | None
    exam: float | None
    complete_questions: int
    pass_any: float | None
    pass_all: float | None
    tversky: float | None
    tversky_skill: float | None


class Cost(TypedDict):
    """What the answers cost, as the seat reported it."""

    trials_with_cost: int
    total: float | None
    per_answer: float | None
    per_correct: float | None


class CalibrationBin(TypedDict):
    """One bin of stated probability: its bounds, count, mean stated and share true."""

    bin: int
    low: float
    high: float
    count: int
    stated: float | None
    observed: float | None


class ProbabilityScores(TypedDict):
    """The scores of the stated probabilities (when the run asked for them)."""

    trials: int
    brier: float | None
    log_loss: float | None
    calibration: list[CalibrationBin]


class Summary(TypedDict):
    """The scores block of ``results.json``."""

    overall: Figures
    by_question_type: dict[str, Figures]
    by_choice_type: dict[str, Figures]
    by_kind: dict[str, Figures]
    agreement: Agreement
    cost: Cost
    probabilities: ProbabilityScores


@dataclass(frozen=True)
class Trial:
    """One trial as the scores need it (built from the sealed ``eval.reply`` line)."""

    question_id: str
    question_type: str
    choice_type: str
    options: int
    gold: frozenset[str]
    trial: int
    answered: bool
    letters: frozenset[str] | None = None
    cost: float | None = None
    probabilities: Mapping[str, float] | None = None

    @property
    def kind(self) -> str:
        return f"mc_{self.choice_type}" if self.question_type == "multiple_choice" else self.question_type

    @property
    def parsed(self) -> bool:
        return self.answered and self.letters is not None

    @property
    def correct(self) -> bool:
        return self.parsed and self.letters == self.gold


# ------------------------------------------------------------------------------------- one trial
def tversky(pred: frozenset[str] | None, gold: frozenset[str], alpha: float = ALPHA, beta: float = BETA) -> float:
    if not pred:
        return 0.0
    tp = len(pred & gold)
    if tp == 0:
        return 0.0
    return tp / (tp + alpha * len(pred - gold) + beta * len(gold - pred))


def exam(pred: frozenset[str] | None, gold: frozenset[str]) -> float:
    if not pred or not pred <= gold:
        return 0.0
    return len(pred) / len(gold)


def tversky_chance(options: int, gold: int, multi: bool, alpha: float = ALPHA, beta: float = BETA) -> float:
    """E[T] of a uniformly random answer: one of ``options`` letters, or any subset of them when ``multi``."""
    if not multi:
        return 1.0 / options
    total = 0.0
    for tp in range(1, gold + 1):
        for fp in range(options - gold + 1):
            ways = math.comb(gold, tp) * math.comb(options - gold, fp)
            total += ways * tp / (tp + alpha * fp + beta * (gold - tp))
    return total / 2.0**options


def brier(probs: Mapping[str, float], gold: frozenset[str]) -> float:
    return sum((p - (1.0 if k in gold else 0.0)) ** 2 for k, p in probs.items())


def log_loss(probs: Mapping[str, float], gold: frozenset[str], multi: bool) -> float:
    def clip(p: float) -> float:
        return min(1.0 - EPS, max(EPS, p))

    if not multi:
        return -math.log(clip(sum(p for k, p in probs.items() if k in gold)))
    return -sum(math.log(clip(p if k in gold else 1.0 - p)) for k, p in probs.items())


# -------------------------------------------------------------------------------------- agreement
def _label(t: Trial) -> str:
    return ",".join(sorted(t.letters or (), key=ord))


def cohen_kappa(a: Sequence[str], b: Sequence[str]) -> float | None:
    """Cohen's κ of two raters over the same items; ``None`` when chance agreement is certain or no item."""
    if not a or len(a) != len(b):
        return None
    n = len(a)
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    ca, cb = Counter(a), Counter(b)
    expected = sum(ca[c] * cb[c] for c in ca) / (n * n)
    return None if expected >= 1.0 else (observed - expected) / (1.0 - expected)


def fleiss_kappa(items: Sequence[Sequence[str]]) -> float | None:
    """Fleiss' κ: every item rated by the same number (≥ 2) of raters; ``None`` when undefined."""
    if not items or len({len(i) for i in items}) != 1 or len(items[0]) < 2:
        return None
    n, raters = len(items), len(items[0])
    agreement = [(sum(c * c for c in Counter(i).values()) - raters) / (raters * (raters - 1)) for i in items]
    shares = Counter(label for i in items for label in i)
    expected = sum((c / (n * raters)) ** 2 for c in shares.values())
    return None if expected >= 1.0 else (sum(agreement) / n - expected) / (1.0 - expected)


def agreement(trials: Sequence[Trial], n_trials: int) -> Agreement:
    by_q = _by_question(trials)
    full = {q: {t.trial: _label(t) for t in ts} for q, ts in by_q.items()
            if len(ts) == n_trials and all(t.parsed for t in ts)}
    pairs: list[KappaPair] = []
    for i, j in itertools.combinations(range(1, n_trials + 1), 2):
        qs = [q for q in sorted(full) if i in full[q] and j in full[q]]
        pairs.append({"trials": [i, j], "questions": len(qs),
                      "kappa": cohen_kappa([full[q][i] for q in qs], [full[q][j] for q in qs])})
    kappas = [kappa for p in pairs if (kappa := p["kappa"]) is not None]
    return {"questions": len(full), "cohen_pairs": pairs, "cohen_mean": _mean(kappas),
            "fleiss": fleiss_kappa([[full[q][k] for k in sorted(full[q])] for q in sorted(full)])}


# ------------------------------------------------------------------------------------- summaries
def _mean(values: Iterable[float]) -> float | None:
    vals = list(values)
    return sum(vals) / len(vals) if vals else None


def _by_question(trials: Iterable[Trial]) -> dict[str, list[Trial]]:
    out: dict[str, list[Trial]] = defaultdict(list)
    for t in trials:
        out[t.question_id].append(t)
    return out


def question_skill(trials: Sequence[Trial]) -> float | None:
    """Chance-corrected Tversky of one question over its answered trials (``None`` when none answered)."""
    answered = [t for t in trials if t.answered]
    if not answered:
        return None
    first = answered[0]
    mean_t = sum(tversky(t.letters, t.gold) for t in answered) / len(answered)
    chance = tversky_chance(first.options, len(first.gold), first.choice_type == "multi")
    return (mean_t - chance) / (1.0 - chance)


def group(trials: Sequence[Trial], n_trials: int) -> Figures:
    """Every figure of one group of trials (all, one question type, one choice type, one kind)."""
    answered = [t for t in trials if t.answered]
    correct = sum(t.correct for t in answered)
    by_q = _by_question(trials)
    complete = [ts for ts in by_q.values() if len(ts) == n_trials and all(t.answered for t in ts)]
    skills = [s for s in (question_skill(ts) for ts in by_q.values()) if s is not None]
    return {
        "questions": len(by_q), "trials": len(trials), "answered": len(answered), "correct": correct,
        "no_reply": len(trials) - len(answered), "parse_failures": sum(not t.parsed for t in answered),
        "pass_at_1": correct / len(answered) if answered else None,
        "exam": _mean(exam(t.letters, t.gold) for t in answered),
        "complete_questions": len(complete),
        "pass_any": _mean(float(any(t.correct for t in ts)) for ts in complete),
        "pass_all": _mean(float(all(t.correct for t in ts)) for ts in complete),
        "tversky": _mean(tversky(t.letters, t.gold) for t in answered),
        "tversky_skill": _mean(skills),
    }


def cost(trials: Sequence[Trial]) -> Cost:
    costed = [t for t in trials if t.answered and t.cost is not None]
    total = sum(t.cost or 0.0 for t in costed)
    correct = sum(t.correct for t in costed)
    return {"trials_with_cost": len(costed), "total": total if costed else None,
            "per_answer": total / len(costed) if costed else None,
            "per_correct": total / correct if costed and correct else None}


def calibration(trials: Sequence[Trial]) -> list[CalibrationBin]:
    """Ten equal-width bins of stated probability (the last includes 1.0): count, mean stated, share true."""
    bins: list[list[tuple[float, float]]] = [[] for _ in range(BINS)]
    for t in trials:
        for k, p in (t.probabilities or {}).items():
            bins[min(BINS - 1, int(p * BINS))].append((p, 1.0 if k in t.gold else 0.0))
    return [{"bin": i, "low": i / BINS, "high": (i + 1) / BINS, "count": len(b),
             "stated": _mean(p for p, _ in b), "observed": _mean(o for _, o in b)} for i, b in enumerate(bins)]


def probability_scores(trials: Sequence[Trial]) -> ProbabilityScores:
    stated = [t for t in trials if t.answered and t.probabilities is not None]
    return {"trials": len(stated),
            "brier": _mean(brier(t.probabilities or {}, t.gold) for t in stated),
            "log_loss": _mean(log_loss(t.probabilities or {}, t.gold, t.choice_type == "multi") for t in stated),
            "calibration": calibration(stated)}


def _split(trials: Sequence[Trial], key: Callable[[Trial], str], n_trials: int) -> dict[str, Figures]:
    groups: dict[str, list[Trial]] = defaultdict(list)
    for t in trials:
        groups[key(t)].append(t)
    return {k: group(v, n_trials) for k, v in sorted(groups.items())}


def summarize(trials: Sequence[Trial], n_trials: int) -> Summary:
    """The scores block of ``results.json``."""
    return {
        "overall": group(trials, n_trials),
        "by_question_type": _split(trials, lambda t: t.question_type, n_trials),
        "by_choice_type": _split(trials, lambda t: t.choice_type, n_trials),
        "by_kind": _split(trials, lambda t: t.kind, n_trials),
        "agreement": agreement(trials, n_trials),
        "cost": cost(trials),
        "probabilities": probability_scores(trials),
    }
