"""The prompt recipe of a question file: ``dataset_metadata.features_json.prompt_reconstruction``.

Pure, apart from reading the league's own recipe from the package. Two layouts exist, both checked against the
data set's public code and file (docs/evals.md, "The file format"):

- ``per-kind`` (the authors' current code): exactly eleven string keys, one prompt template per kind of
  question, one output format per kind, the agent role, the guidance and the outcomes-block rule;
- ``single-template`` (the file published on 2026-04-29): eight keys, one ``prompt_template`` for every kind.

A recipe whose keys are exactly neither set is refused with an error naming the missing and the unknown keys.
Templates are Python ``str.format`` templates over six slots; an unknown slot, a conversion or format spec, or a
missing required slot is refused with the key and the slot named, so every prompt renders or none does.
"""

from __future__ import annotations

import hashlib
import json
import string
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources

from league.evals.errors import QuestionFileError

SLOTS = ("agent_role", "event", "end_time", "outcomes_block", "output_format", "guidance")
REQUIRED_SLOTS = ("agent_role", "event", "end_time", "output_format", "guidance")
OUTPUT_FORMATS = {
    "yes_no": "yes_no_output_format",
    "binary_named": "binary_named_output_format",
    "mc_single": "multiple_choice_single_output_format",
    "mc_multi": "multiple_choice_multi_output_format",
}
TEMPLATES = {
    "yes_no": "yes_no_prompt_template",
    "binary_named": "binary_named_prompt_template",
    "mc_single": "multiple_choice_single_prompt_template",
    "mc_multi": "multiple_choice_multi_prompt_template",
}
COMMON_KEYS = ("agent_role", "guidance", "outcomes_block_rule", *OUTPUT_FORMATS.values())
PER_KIND_KEYS = frozenset((*COMMON_KEYS, *TEMPLATES.values()))
SINGLE_TEMPLATE_KEYS = frozenset((*COMMON_KEYS, "prompt_template"))
LAYOUTS = {"per-kind": PER_KIND_KEYS, "single-template": SINGLE_TEMPLATE_KEYS}
BINARY_PLACEHOLDERS = ("<options[0]>", "<options[1]>")
FIX = "the recipe must hold exactly the eleven keys of docs/evals.md (or the eight of the single-template layout)"


def kind_of(question_type: str, choice_type: str) -> str:
    """The four canonical kinds: yes_no, binary_named, mc_single, mc_multi."""
    return f"mc_{choice_type}" if question_type == "multiple_choice" else question_type


@dataclass(frozen=True)
class Recipe:
    """A validated recipe; ``source`` is ``file`` (read from the question file) or ``league`` (ours)."""

    values: Mapping[str, str]
    layout: str
    source: str

    def template(self, kind: str) -> str:
        key = "prompt_template" if self.layout == "single-template" else TEMPLATES[kind]
        return self.values[key]

    def output_format(self, kind: str) -> str:
        return self.values[OUTPUT_FORMATS[kind]]

    def as_json(self) -> dict[str, str]:
        return dict(sorted(self.values.items()))

    @property
    def sha256(self) -> str:
        """SHA-256 of the recipe's canonical JSON (sorted keys, UTF-8): names the recipe in every result."""
        text = json.dumps(self.as_json(), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _layout_of(keys: frozenset[str], where: str) -> str:
    for name, expected in LAYOUTS.items():
        if keys == expected:
            return name
    closest = SINGLE_TEMPLATE_KEYS if "prompt_template" in keys else PER_KIND_KEYS
    missing, unknown = sorted(closest - keys), sorted(keys - closest)
    parts = ([f"missing key(s) {', '.join(missing)}"] if missing else []) + (
        [f"unknown key(s) {', '.join(unknown)}"] if unknown else [])
    raise QuestionFileError(f"{where}: prompt_reconstruction has {'; '.join(parts)}", fix=FIX)


def _check_template(key: str, text: str, needs_outcomes: bool, where: str) -> None:
    try:
        fields = list(string.Formatter().parse(text))
    except ValueError as exc:
        raise QuestionFileError(f"{where}: {key} is not a valid template ({exc})",
                                fix="write literal braces as {{ and }}; slots as {event}") from exc
    seen = set()
    for _, name, spec, conversion in fields:
        if name is None:
            continue
        if name not in SLOTS:
            raise QuestionFileError(f"{where}: {key} has the unknown slot {{{name}}}",
                                    fix=f"templates may use only the slots {', '.join(SLOTS)}")
        if spec or conversion:
            raise QuestionFileError(f"{where}: {key} formats the slot {{{name}}} ({name}!{conversion or ''}:{spec})",
                                    fix="write the slot plainly, e.g. {event}")
        seen.add(name)
    required = (*REQUIRED_SLOTS, "outcomes_block") if needs_outcomes else REQUIRED_SLOTS
    missing = [s for s in required if s not in seen]
    if missing:
        raise QuestionFileError(f"{where}: {key} is missing the slot(s) {', '.join('{' + s + '}' for s in missing)}",
                                fix="every prompt template needs {agent_role} {event} {end_time} {output_format} "
                                    "{guidance}; multiple-choice templates also {outcomes_block}")


def _check_output_formats(values: Mapping[str, str], where: str) -> None:
    for key in OUTPUT_FORMATS.values():
        if "\\boxed{" not in values[key]:
            raise QuestionFileError(f"{where}: {key} asks for no \\boxed{{}} answer",
                                    fix="an output format must show the boxed answer, e.g. \\boxed{A}")
    binary = values[OUTPUT_FORMATS["binary_named"]]
    absent = [p for p in BINARY_PLACEHOLDERS if p not in binary]
    if absent:
        raise QuestionFileError(f"{where}: binary_named_output_format lacks {', '.join(absent)}",
                                fix="the binary-named format names both outcomes as <options[0]> and <options[1]>")


def validate_recipe(values: object, *, source: str, where: str) -> Recipe:
    """Check a ``prompt_reconstruction`` object completely, or raise naming the key and the slot."""
    if not isinstance(values, Mapping):
        raise QuestionFileError(f"{where}: prompt_reconstruction is not a JSON object", fix=FIX)
    layout = _layout_of(frozenset(str(k) for k in values), where)
    not_text = sorted(k for k, v in values.items() if not isinstance(v, str))
    if not_text:
        raise QuestionFileError(f"{where}: prompt_reconstruction key(s) {', '.join(not_text)} are not strings", fix=FIX)
    if layout == "single-template":
        _check_template("prompt_template", values["prompt_template"], True, where)
    else:
        for kind, key in TEMPLATES.items():
            _check_template(key, values[key], kind.startswith("mc_"), where)
    _check_output_formats(values, where)
    return Recipe(values=dict(values), layout=layout, source=source)


def league_recipe() -> Recipe:
    """The league's own recipe (``league/evals/data/recipe.toml``), used for files without metadata."""
    text = resources.files("league.evals").joinpath("data/recipe.toml").read_text(encoding="utf-8")
    return validate_recipe(tomllib.loads(text), source="league", where="league/evals/data/recipe.toml")
