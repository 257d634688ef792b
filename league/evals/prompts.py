"""Rendering a question's prompt from its file's recipe. Pure: the same file gives the same bytes.

The rules are those of the data set's public code (docs/evals.md): the template is chosen by kind (or the one
``prompt_template`` of the single-template layout) and filled with ``str.format`` over six slots; the outcomes
block is empty for yes/no and binary-named questions and, for multiple choice, a newline then one ``A. label``
line per option (a letter past ``Z`` is written in backticks, as the data set does); in the binary-named output
format ``<options[0]>`` and ``<options[1]>`` become the two labels. Nothing else is added, except the
league's optional probability block, which is appended after the rendered prompt and recorded apart.
"""

from __future__ import annotations

from league.evals.questions import Question, letter
from league.evals.recipe import BINARY_PLACEHOLDERS, Recipe

PROBABILITY_BLOCK = (
    "\n\nBefore the box, state your probability for every option as one JSON object between <probabilities> and "
    "</probabilities>, keyed by the option letters, each a number from 0 to 1 (for a Yes/No question A is Yes and "
    "B is No; for two named outcomes A is the first and B the second). For a single-answer question the numbers "
    "sum to 1; for a multi-select question each is the probability that its option is in the correct set. "
    'Example: <probabilities>{"A": 0.7, "B": 0.3}</probabilities>'
)


def outcomes_block(options: tuple[str, ...]) -> str:
    lines = []
    for i, label in enumerate(options):
        mark = letter(i)
        lines.append(f"{mark}. {label}" if "A" <= mark <= "Z" else f"`{mark}`. {label}")
    return "\n" + "\n".join(lines)


def render_prompt(question: Question, recipe: Recipe) -> str:
    """The exact prompt text of one question (a validated recipe renders every valid question)."""
    kind = question.kind
    output = recipe.output_format(kind)
    if kind == "binary_named":
        for placeholder, label in zip(BINARY_PLACEHOLDERS, question.options, strict=True):
            output = output.replace(placeholder, label)
    block = outcomes_block(question.options) if question.question_type == "multiple_choice" else ""
    return recipe.template(kind).format(
        agent_role=recipe.values["agent_role"],
        event=question.event,
        end_time=question.end_time.isoformat(),
        outcomes_block=block,
        output_format=output,
        guidance=recipe.values["guidance"],
    )


def ask_text(question: Question, recipe: Recipe, *, probabilities: bool) -> str:
    """What the seat receives: the rendered prompt, plus the probability block when asked for."""
    text = render_prompt(question, recipe)
    return text + PROBABILITY_BLOCK if probabilities else text
