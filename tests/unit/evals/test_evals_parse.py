"""Every parsing rule of docs/evals.md, one case at a time (expected letters written by hand)."""

from __future__ import annotations

import pytest
from evals_helpers import question

from league.evals.parse import parse_answer, parse_probabilities, parse_reply

YES_NO = question(qt="yes_no", options=("Yes", "No"), answer="B")
BINARY = question(qt="binary_named", options=("US", "Israel"), answer="B")
SINGLE = question()  # five options A–E, answer B
MULTI = question(ct="multi", answer="A, C")


def letters(raw: str, q: object = SINGLE) -> set[str] | None:
    got, _, _ = parse_answer(raw, q)  # type: ignore[arg-type]
    return None if got is None else set(got)


def failure(raw: str, q: object = SINGLE) -> str:
    return parse_answer(raw, q)[2]  # type: ignore[arg-type]


def test_last_box_wins() -> None:
    assert letters("First \\boxed{A}, on reflection \\boxed{C}.") == {"C"}
    assert letters("\\boxed{Yes} no wait \\boxed{No}", YES_NO) == {"B"}
    assert letters("\\boxed{B} then a broken one \\boxed{Q}") is None  # the last box decides, even when bad


def test_yes_no_is_case_insensitive() -> None:
    for text, expected in (("Yes", {"A"}), ("YES", {"A"}), ("yes", {"A"}), ("nO", {"B"}), (" No ", {"B"})):
        assert letters(f"\\boxed{{{text}}}", YES_NO) == expected
    assert failure("\\boxed{Maybe}", YES_NO) == "'Maybe' is neither Yes nor No"
    assert failure("\\boxed{A}", YES_NO) == "'A' is neither Yes nor No"


def test_binary_named_matches_option_text_ignoring_case_and_spaces() -> None:
    assert letters("\\boxed{Israel}", BINARY) == {"B"}
    assert letters("\\boxed{ israel }", BINARY) == {"B"}
    assert letters("\\boxed{US}", BINARY) == {"A"}
    assert failure("\\boxed{Iran}", BINARY) == "'Iran' names neither option"
    assert failure("\\boxed{B}", BINARY) == "'B' names neither option"


def test_multiple_choice_splits_on_commas_and_spaces() -> None:
    assert letters("\\boxed{A, C}", MULTI) == {"A", "C"}
    assert letters("\\boxed{A,C}", MULTI) == {"A", "C"}
    assert letters("\\boxed{ A  C }", MULTI) == {"A", "C"}
    assert letters("\\boxed{C, A, C}", MULTI) == {"A", "C"}  # a repeated letter counts once
    assert letters("\\boxed{ B }") == {"B"}


def test_multiple_choice_letters_are_case_sensitive() -> None:
    assert letters("\\boxed{b}") is None
    assert failure("\\boxed{b}") == "'b' is not an option letter (A–E)"


def test_invalid_letters_fail() -> None:
    assert failure("\\boxed{F}") == "'F' is not an option letter (A–E)"
    assert failure("\\boxed{AB}") == "'AB' is not an option letter (A–E)"
    assert failure("\\boxed{A, Z9}", MULTI) == "'Z9' is not an option letter (A–E)"
    assert failure("\\boxed{Option B}") == "'Option' is not an option letter (A–E)"


def test_empty_box_fails() -> None:
    assert failure("\\boxed{}") == "the last \\boxed{} is empty"
    assert failure("\\boxed{   }") == "the last \\boxed{} is empty"
    assert failure("\\boxed{A} then \\boxed{}") == "the last \\boxed{} is empty"
    assert failure("\\boxed{,}", MULTI) == "',' holds no letter"


def test_no_box_fails() -> None:
    assert failure("The answer is B.") == "no \\boxed{} in the reply"
    assert failure("") == "no \\boxed{} in the reply"
    assert failure("\\boxed{B") == "no \\boxed{} in the reply"  # an unclosed box is no box


def test_a_single_answer_question_with_two_letters_parses_and_is_just_wrong() -> None:
    verdict = parse_reply("\\boxed{B, C}", SINGLE)
    assert verdict.letters == frozenset({"B", "C"}) and verdict.failure == ""


def test_letters_past_z_are_the_data_sets_own() -> None:
    many = question(options=tuple(f"o{i}" for i in range(28)), answer="[")
    assert letters("\\boxed{[}", many) == {"["}
    assert letters("\\boxed{\\}", many) == {"\\"}  # the 28th letter is a backslash
    assert letters("\\boxed{]}", many) is None  # the 29th would be ``]``: there are 28 options


# --------------------------------------------------------------------------------------- probabilities
def probs(raw: str, q: object = SINGLE) -> tuple[dict[str, float] | None, str]:
    return parse_probabilities(raw, q)  # type: ignore[arg-type]


def block(body: str) -> str:
    return f"<probabilities>{body}</probabilities>"


def test_a_valid_probability_block() -> None:
    body = '{"A": 0.1, "B": 0.6, "C": 0.1, "D": 0.1, "E": 0.1}'
    assert probs(block(body) + " \\boxed{B}") == ({"A": 0.1, "B": 0.6, "C": 0.1, "D": 0.1, "E": 0.1}, "")
    multi = '{"A": 0.9, "B": 0.9, "C": 0.5, "D": 0.0, "E": 1}'  # independent per option: no sum rule
    assert probs(block(multi) + "\\boxed{A, B}", MULTI)[0] == {"A": 0.9, "B": 0.9, "C": 0.5, "D": 0.0, "E": 1.0}


def test_the_data_sets_belief_block_is_read_too() -> None:
    raw = '<belief>{"probabilities": {"A": 0.25, "B": 0.75}, "confidence": "high"}</belief>\\boxed{No}'
    assert probs(raw, YES_NO) == ({"A": 0.25, "B": 0.75}, "")


@pytest.mark.parametrize(("body", "message"), [
    ('{"A": 0.5, "B": 0.6}', "single-answer probabilities sum to 1.1000, not 1"),
    ('{"A": 1.5, "B": -0.5}', "every probability must be a number from 0 to 1"),
    ('{"A": true, "B": 0}', "every probability must be a number from 0 to 1"),
    ('{"A": "0.5", "B": 0.5}', "every probability must be a number from 0 to 1"),
    ('{"Yes": 0.5, "No": 0.5}', "keyed ['No', 'Yes'], not the option letters ['A', 'B']"),
    ('{"A": 1.0}', "keyed ['A'], not the option letters ['A', 'B']"),
    ("0.5", "the <probabilities> block holds no probability object"),
    ("{A: 0.5}", "the <probabilities> block is not JSON"),
])
def test_bad_probability_blocks_are_refused_with_a_reason(body: str, message: str) -> None:
    got, why = probs(block(body) + "\\boxed{Yes}", YES_NO)
    assert got is None and message in why


def test_the_block_must_come_before_the_last_box() -> None:
    after = "\\boxed{Yes} " + block('{"A": 0.5, "B": 0.5}')
    assert probs(after, YES_NO) == (None, "")
    two = block('{"A": 0.2, "B": 0.8}') + block('{"A": 0.6, "B": 0.4}') + "\\boxed{Yes}"
    assert probs(two, YES_NO)[0] == {"A": 0.6, "B": 0.4}  # the last block before the box
    no_box = "I cannot box it. " + block('{"A": 0.3, "B": 0.7}')
    assert probs(no_box, YES_NO)[0] == {"A": 0.3, "B": 0.7}


def test_probabilities_and_answer_are_independent() -> None:
    verdict = parse_reply(block('{"A": 0.5, "B": 0.6}') + "\\boxed{Yes}", YES_NO)
    assert verdict.letters == frozenset({"A"}) and verdict.probabilities is None
    assert verdict.probability_failure.startswith("single-answer probabilities sum")
    verdict = parse_reply(block('{"A": 0.4, "B": 0.6}') + "no box", YES_NO)
    assert verdict.letters is None and verdict.probabilities == {"A": 0.4, "B": 0.6}
