"""F30: does style expose a model once names are hidden? A cross-validated text classifier (pure: no I/O).

Scored only after a blind season's reveal (paper §8: "F30 is scored against the sealed answer lines once the
commitments are opened"): the classifier learns which model wrote a sealed reply from the reply's text alone
(TF-IDF of character 2-4-grams within word bounds, multinomial logistic regression), in stratified k-fold
cross-validation with a fixed seed, and its accuracy is read against chance, the majority model's share of
the texts. A Wilson 95 % interval on the accuracy (texts treated as independent, which replies of one
morning are not: the interval is narrow, say so where it is read).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.pipeline import make_pipeline

from league.jsonvalue import JsonObject

SEED = 20261102
FOLDS = 5
Z95 = 1.959963984540054


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def style_test(texts: Sequence[str], models: Sequence[str], *, folds: int = FOLDS, seed: int = SEED) -> JsonObject:
    """Cross-validated accuracy of predicting ``models`` from ``texts``, against the majority share."""
    counts = Counter(models)
    per_model = {m: counts[m] for m in sorted(counts)}
    k = min(folds, min(counts.values())) if counts else 0
    if len(counts) < 2 or k < 2:
        return {"computed": False, "reason": "needs two models with at least two texts each",
                "texts_per_model": dict(per_model)}
    pipe = make_pipeline(TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), sublinear_tf=True),
                         LogisticRegression(max_iter=2000))
    predicted = cross_val_predict(pipe, list(texts), list(models),
                                  cv=StratifiedKFold(n_splits=k, shuffle=True, random_state=seed))
    right = sum(1 for p, m in zip(predicted, models, strict=True) if p == m)
    n = len(models)
    low, high = wilson(right, n)
    return {"computed": True, "texts": n, "texts_per_model": dict(per_model), "folds": k, "seed": seed,
            "accuracy": right / n, "accuracy_wilson95": [low, high],
            "chance": max(counts.values()) / n,
            "above_chance": low > max(counts.values()) / n,
            "method": "TF-IDF character 2-4-grams (char_wb, sublinear tf) + logistic regression (lbfgs), "
                      "StratifiedKFold(shuffle, seed); chance = the majority model's share"}
