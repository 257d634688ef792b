"""Prompt rendering is byte-stable: exact texts written out by hand, and every shipped prompt's hash pinned.

A change to the recipe or the renderer changes these hashes; update them only on purpose (docs/evals.md).
"""

from __future__ import annotations

import hashlib
import json

from evals_helpers import ASSETS, question

from league.evals.prompts import PROBABILITY_BLOCK, ask_text, outcomes_block, render_prompt
from league.evals.questions import read_question_file, shipped_question_file

SHIPPED = {
    "lq-2024-super-bowl-lviii": "362ee145b70b1183f6aa2e8c416a4b123b9b9ed8e97918a0fc0543e839529ffb",
    "lq-2024-oscars-best-picture": "a50c7bba27995c1fb3409f6eb612616c62ed6063d365f6ee2be9392386c44c81",
    "lq-2024-oscars-three-wins": "5cb4658c40d66ce83f57af4d38ea19e128caaeb535ed181c99a3baf0adce2d65",
    "lq-2024-ucl-final": "fbf163f38204f39fdf44569b8009186b705a5788208cdb17911da69c5cdd863f",
    "lq-2024-ecb-june-cut": "cd33b7b5517088410bd92155f820b312658b3508e6c6422c0ed053268b625135",
    "lq-2024-nba-finals": "849e43275442a9bf85d6fdcfe4a7a34588d49cc9ce7da2552b3bb94e30d86db9",
    "lq-2024-euro-winner": "4fe202d88c709070419c2e8be3c152b01c39774d04397b824b92d2042f006c3b",
    "lq-2024-boj-july-hike": "e0b53c2385f6b3563dec6ca6c5b54f8be4a9b37932632f72036b7531fdd2bbbd",
    "lq-2024-fed-july-change": "9cb9f9ef8be93561530b4ea4d0dffb3ccfda333132cc045ee0fe23cb42941909",
    "lq-2024-paris-first-golds": "86bbbefdba73f5d201e5f916d3fb4d10e5297150cc9be4fa9e6310c308577209",
    "lq-2024-fed-september-cut": "fa4c7a15b32305ce11fbba07a1be831a24a31a7ba005a4362c41eb779877b441",
    "lq-2024-september-cuts": "6eca78697133358ae05bd1a93a835565cbb29011290d76e2e8c62a4598e8f24e",
    "lq-2024-us-president": "cdcad3359e0b9392a0b8afd79576ef934d3d188241362239217027b76d1a9cdf",
    "lq-2025-fed-january-cut": "61d8e7d74e0b8ffa102e0194296f5dbb1fd7d116ea8902a4da6a0a8f62702c86",
    "lq-2025-german-election": "33c3b7ca091f23d27068b1dd44793e7f415629d47a169f88726625d91154465a",
}
REFERENCE_LAYOUT = {
    "t-yes-no": "488d515764aa50cae4517a677b5bc39fd98bcb1ce768a10645868f9b4e7cbd33",
    "t-binary": "219abfb04ac18a4bc2f396764e391b8697930cb2a7fca2eb1965d88ff6e49f32",
    "t-single": "1e2adead115ecea85c4312154997801527e33de3ce6de34c2d0abbdd3768ebb4",
    "t-multi": "c0b70d0aaea6075ce2d1db601291934345d3e7863e2b209cf4b469cd1f08ef8a",
    "t-many": "dff8429acadce29207f0b0fd3f0a2496e99aef3026d1c27251c80c52448e13fa",
}
SINGLE_TEMPLATE = {
    "t-yes-no": "36dbb33f6cfcf656a54a3b5fc4d711fa201db7baf7d88be9a453575c5bacb9fd",
    "t-binary": "58cb8a07495d7dcdf602ece4a736fda4a2f655e3491ab34b3ec8fed841b049f3",
    "t-single": "1a5f828c955de1c31b6bbfcdf70a90f2cf1cee4753fd5e26b2e9845dffeea45a",
    "t-multi": "6880f8c7a12338ece48ff596eccd79db841b2afce035abde976f92dd12ec7735",
}


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_shipped_prompt_hashes_are_pinned() -> None:
    qs = read_question_file(shipped_question_file())
    assert {q.id: sha(render_prompt(q, qs.recipe)) for q in qs.questions} == SHIPPED


def test_the_pinned_hashes_asset_used_by_the_integration_tests_agrees() -> None:
    assert json.loads((ASSETS / "shipped-prompt-hashes.json").read_text(encoding="utf-8")) == SHIPPED


def test_asset_prompt_hashes_are_pinned_for_both_layouts() -> None:
    ref = read_question_file(ASSETS / "reference-layout.db")
    assert {q.id: sha(render_prompt(q, ref.recipe)) for q in ref.questions} == REFERENCE_LAYOUT
    single = read_question_file(ASSETS / "single-template.db")
    assert {q.id: sha(render_prompt(q, single.recipe)) for q in single.questions} == SINGLE_TEMPLATE


def test_same_file_same_bytes_on_every_read() -> None:
    a, b = read_question_file(shipped_question_file()), read_question_file(shipped_question_file())
    assert [render_prompt(q, a.recipe) for q in a.questions] == [render_prompt(q, b.recipe) for q in b.questions]


def test_exact_texts_per_kind_of_the_reference_layout() -> None:
    qs = {q.id: q for q in read_question_file(ASSETS / "reference-layout.db").questions}
    recipe = read_question_file(ASSETS / "reference-layout.db").recipe
    assert render_prompt(qs["t-yes-no"], recipe) == (
        "You are a test forecaster.\nEvent: Will the test pass?\nDate: 2026-03-13\n"
        "Decide.\nReply ending with: \\boxed{Yes} or \\boxed{No}\nNo other format.")
    assert render_prompt(qs["t-binary"], recipe) == (
        "You are a test forecaster.\nEvent: Red or Blue?\nDate: 2026-03-14\n"
        "Pick one.\nReply ending with: \\boxed{Red} or \\boxed{Blue}\nNo other format.")
    assert render_prompt(qs["t-multi"], recipe) == (
        "You are a test forecaster.\nEvent: Which colours place?\nDate: 2026-03-16\nChoose any of:\n"
        "A. Red\nB. Green\nC. Blue\nD. White\n\nAll right letters.\nReply ending with, e.g., \\boxed{A, C}\n"
        "No other format.")


def test_exact_text_of_the_single_template_layout() -> None:
    qs = read_question_file(ASSETS / "single-template.db")
    single = next(q for q in qs.questions if q.id == "t-single")
    assert render_prompt(single, qs.recipe) == (
        'You are a test forecaster. The event: "Which colour wins? (resolves 2026-03-15).\nA. Red\nB. Green\n'
        'C. Blue"\n\nIMPORTANT:\nOne letter.\nReply ending with, e.g., \\boxed{A}\nNo other format.')
    yes_no = next(q for q in qs.questions if q.id == "t-yes-no")
    assert render_prompt(yes_no, qs.recipe).startswith(
        'You are a test forecaster. The event: "Will the test pass? (resolves 2026-03-13)."\n\nIMPORTANT:\nDecide.')


def test_outcomes_block_past_z_uses_backticks() -> None:
    options = tuple(f"o{i}" for i in range(28))
    block = outcomes_block(options)
    assert block.startswith("\nA. o0\nB. o1\n")
    assert block.endswith("\nZ. o25\n`[`. o26\n`\\`. o27")


def test_binary_named_labels_replace_both_placeholders() -> None:
    qs = read_question_file(shipped_question_file())
    q = next(q for q in qs.questions if q.id == "lq-2024-ucl-final")
    text = render_prompt(q, qs.recipe)
    assert "\\boxed{Borussia Dortmund} or \\boxed{Real Madrid}" in text
    assert "<options[" not in text


def test_the_probability_block_is_appended_after_the_file_prompt() -> None:
    qs = read_question_file(shipped_question_file())
    q = qs.questions[0]
    plain, asked = ask_text(q, qs.recipe, probabilities=False), ask_text(q, qs.recipe, probabilities=True)
    assert plain == render_prompt(q, qs.recipe)
    assert asked == plain + PROBABILITY_BLOCK and "<probabilities>" in asked


def test_event_text_with_braces_is_kept_verbatim() -> None:
    qs = read_question_file(shipped_question_file())
    q = question(qt="yes_no", options=("Yes", "No"), answer="A", event="Will {x} exceed 5%?")
    assert "Question: Will {x} exceed 5%?" in render_prompt(q, qs.recipe)
