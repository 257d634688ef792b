"""A reply → the letters it chose (and, optionally, its probability per option). Pure; never repairs.

Rules (docs/evals.md, the data set's public parser):

1. take the LAST ``\\boxed{...}`` in the reply (the box holds no ``}``); no box, or an empty box after trimming,
   is a parse failure;
2. yes/no: ``yes``/``no`` in any case → A/B; anything else fails;
3. binary named: the payload matches one option's label ignoring case and outer spaces → that option's letter;
4. multiple choice: the payload is split on commas and white space; every token must be exactly one letter of
   an option (letters are case-sensitive: past ``Z`` the data set continues with ``[``… ``a``…, so ``a`` is not
   ``A``); a repeated letter counts once.

A parse failure is a verdict (scored as wrong and counted apart), never an exception. The optional probability
block is read independently: the last ``<probabilities>{...}</probabilities>`` (or the data set's
``<belief>{"probabilities": {...}}</belief>``) that ends before the last box (anywhere when there is no box).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

from league.evals.questions import Question
from league.jsonvalue import JsonObject

BOXED = re.compile(r"\\boxed\{([^}]*)\}")
BLOCK = re.compile(r"<(probabilities|belief)>([\s\S]*?)</\1>")
SPLIT = re.compile(r"[,\s]+")
SIMPLEX_TOLERANCE = 1e-3


@dataclass(frozen=True)
class Verdict:
    """What was read from one reply: ``letters`` is None exactly when ``failure`` says why."""

    letters: frozenset[str] | None
    payload: str | None
    failure: str = ""
    probabilities: dict[str, float] | None = None
    probability_failure: str = ""

    def as_json(self) -> JsonObject:
        return {"letters": None if self.letters is None else [*sorted(self.letters, key=ord)], "payload": self.payload,
                "failure": self.failure,
                "probabilities": None if self.probabilities is None else dict(self.probabilities.items()),
                "probability_failure": self.probability_failure}


def _letters(payload: str, question: Question) -> tuple[frozenset[str] | None, str]:
    if question.question_type == "yes_no":
        found = {"yes": "A", "no": "B"}.get(payload.lower())
        return (frozenset({found}), "") if found else (None, f"{payload!r} is neither Yes nor No")
    if question.question_type == "binary_named":
        for i, label in enumerate(question.options):
            if label.strip().lower() == payload.lower():
                return frozenset({question.letters[i]}), ""
        return None, f"{payload!r} names neither option"
    valid = set(question.letters)
    tokens = [t for t in SPLIT.split(payload) if t]
    if not tokens:
        return None, f"{payload!r} holds no letter"
    bad = [t for t in tokens if t not in valid]
    if bad:
        return None, f"{', '.join(repr(t) for t in bad)} is not an option letter (A–{question.letters[-1]})"
    return frozenset(tokens), ""


def parse_answer(raw: str, question: Question) -> tuple[frozenset[str] | None, str | None, str]:
    """(letters, payload, failure) by the four rules of the module docstring."""
    boxes = BOXED.findall(raw)
    if not boxes:
        return None, None, "no \\boxed{} in the reply"
    payload = boxes[-1].strip()
    if not payload:
        return None, payload, "the last \\boxed{} is empty"
    letters, failure = _letters(payload, question)
    return letters, payload, failure


def _block_before_box(raw: str) -> tuple[str, str] | None:
    boxes = list(BOXED.finditer(raw))
    limit = boxes[-1].start() if boxes else len(raw)
    blocks = [m for m in BLOCK.finditer(raw) if m.end() <= limit]
    return (blocks[-1].group(1), blocks[-1].group(2)) if blocks else None


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def parse_probabilities(raw: str, question: Question) -> tuple[dict[str, float] | None, str]:
    """The probability block, checked: exactly the option letters, each in [0, 1], summing to 1 (± 0.001)
    for a single-answer question. ``(None, "")`` when the reply holds no block."""
    found = _block_before_box(raw)
    if found is None:
        return None, ""
    tag, body = found
    try:
        doc = json.loads(body)
    except ValueError:
        return None, f"the <{tag}> block is not JSON"
    probs = doc.get("probabilities") if tag == "belief" and isinstance(doc, dict) else doc
    if not isinstance(probs, dict):
        return None, f"the <{tag}> block holds no probability object"
    if set(probs) != set(question.letters):
        return None, f"the probabilities are keyed {sorted(probs)}, not the option letters {list(question.letters)}"
    values = {k: _number(probs[k]) for k in question.letters}
    if any(v is None or not 0.0 <= v <= 1.0 for v in values.values()):
        return None, "every probability must be a number from 0 to 1"
    clean = {k: float(v) for k, v in values.items() if v is not None}
    if question.choice_type == "single" and abs(sum(clean.values()) - 1.0) > SIMPLEX_TOLERANCE:
        return None, f"single-answer probabilities sum to {sum(clean.values()):.4f}, not 1"
    return clean, ""


def parse_reply(raw: str, question: Question) -> Verdict:
    letters, payload, failure = parse_answer(raw, question)
    probs, prob_failure = parse_probabilities(raw, question)
    return Verdict(letters=letters, payload=payload, failure=failure, probabilities=probs,
                   probability_failure=prob_failure)
