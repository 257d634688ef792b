"""Reading question files: both recipe layouts, the table option, every recipe error, rows kept aside."""

from __future__ import annotations

import json
import sqlite3
from datetime import date
from pathlib import Path

import pytest
from evals_helpers import ASSETS, league_recipe_values, make_db, row

from league.evals.errors import QuestionFileError
from league.evals.questions import read_question_file, shipped_question_file
from league.evals.recipe import PER_KIND_KEYS, SINGLE_TEMPLATE_KEYS

ELEVEN = sorted(PER_KIND_KEYS)


def test_the_eleven_and_eight_keys_are_the_documented_ones() -> None:
    assert ELEVEN == sorted([
        "agent_role", "guidance", "yes_no_prompt_template", "binary_named_prompt_template",
        "multiple_choice_single_prompt_template", "multiple_choice_multi_prompt_template", "yes_no_output_format",
        "binary_named_output_format", "multiple_choice_single_output_format", "multiple_choice_multi_output_format",
        "outcomes_block_rule"])
    assert sorted(SINGLE_TEMPLATE_KEYS) == sorted([
        "agent_role", "guidance", "prompt_template", "outcomes_block_rule", "yes_no_output_format",
        "binary_named_output_format", "multiple_choice_single_output_format", "multiple_choice_multi_output_format"])


def test_the_shipped_file_reads_with_its_own_recipe() -> None:
    qs = read_question_file(shipped_question_file())
    assert (qs.recipe.layout, qs.recipe.source, qs.table) == ("per-kind", "file", "forecast_eval_set_example")
    assert qs.invalid == ()
    kinds = sorted(q.kind for q in qs.questions)
    assert kinds.count("yes_no") == 5 and kinds.count("binary_named") == 3
    assert kinds.count("mc_single") == 4 and kinds.count("mc_multi") == 3
    assert dict(qs.recipe.values) == league_recipe_values()
    assert all(q.info_cutoff is not None and q.info_cutoff < q.end_time for q in qs.questions)
    assert qs.metadata["row_count"] == 15 and qs.metadata["table_name"] == "forecast_eval_set_example"


def test_reference_layout_asset_reads_in_file_order() -> None:
    qs = read_question_file(ASSETS / "reference-layout.db")
    assert qs.recipe.layout == "per-kind" and qs.recipe.source == "file"
    assert [q.id for q in qs.questions] == ["t-yes-no", "t-binary", "t-single", "t-multi", "t-many"]
    multi = qs.questions[3]
    assert multi.answer == frozenset({"A", "C"}) and multi.end_time == date(2026, 3, 16)
    assert qs.questions[4].answer == frozenset({"["})  # the 27th option's letter, as the data set spells it


def test_single_template_layout_of_the_published_file_reads() -> None:
    qs = read_question_file(ASSETS / "single-template.db")
    assert qs.recipe.layout == "single-template" and len(qs.questions) == 4


def test_the_table_name_is_an_option() -> None:
    missing = r"no question table 'forecast_eval_set_example' \(tables: test_cases\)"
    with pytest.raises(QuestionFileError, match=missing):
        read_question_file(ASSETS / "authors-layout.db")
    qs = read_question_file(ASSETS / "authors-layout.db", "test_cases")
    assert qs.table == "test_cases" and len(qs.questions) == 3


def test_a_file_without_metadata_uses_the_league_recipe() -> None:
    qs = read_question_file(ASSETS / "authors-layout.db", "test_cases")
    assert qs.recipe.source == "league" and dict(qs.recipe.values) == league_recipe_values()
    assert qs.as_json()["recipe_source"] == "league"


def _recipe(**changes: object) -> dict[str, object]:
    values: dict[str, object] = dict(league_recipe_values())
    for k, v in changes.items():
        if v is None:
            values.pop(k)
        else:
            values[k] = v
    return values


@pytest.mark.parametrize(("recipe", "message"), [
    (_recipe(guidance=None), r"missing key\(s\) guidance"),
    (_recipe(extra_hint="x"), r"unknown key\(s\) extra_hint"),
    (_recipe(guidance=None, extra_hint="x"), r"missing key\(s\) guidance; unknown key\(s\) extra_hint"),
    (_recipe(guidance=3), r"key\(s\) guidance are not strings"),
    (_recipe(yes_no_prompt_template="{agent_role} {event} {end_time} {output_format}"),
     r"yes_no_prompt_template is missing the slot\(s\) \{guidance\}"),
    (_recipe(multiple_choice_multi_prompt_template="{agent_role} {event} {end_time} {output_format} {guidance}"),
     r"multiple_choice_multi_prompt_template is missing the slot\(s\) \{outcomes_block\}"),
    (_recipe(binary_named_prompt_template="{agent_role} {event} {when} {end_time} {output_format} {guidance}"),
     r"binary_named_prompt_template has the unknown slot \{when\}"),
    (_recipe(yes_no_prompt_template="{agent_role} {event!r} {end_time} {output_format} {guidance}"),
     r"yes_no_prompt_template formats the slot \{event\}"),
    (_recipe(yes_no_prompt_template="{agent_role} {event {end_time} {output_format} {guidance}"),
     r"yes_no_prompt_template is not a valid template"),
    (_recipe(yes_no_output_format="Say Yes or No."), r"yes_no_output_format asks for no \\boxed"),
    (_recipe(binary_named_output_format="\\boxed{<options[0]>} or \\boxed{the other}"),
     r"binary_named_output_format lacks <options\[1\]>"),
    ({**{k: "x" for k in SINGLE_TEMPLATE_KEYS}, "prompt_template": "{agent_role} {event} {end_time} {output_format}"},
     r"prompt_template is missing the slot\(s\) \{guidance\}, \{outcomes_block\}"),
    ("not an object", r"prompt_reconstruction is not a JSON object"),
])
def test_every_recipe_problem_is_an_error_naming_the_key(tmp_path: Path, recipe: object, message: str) -> None:
    path = make_db(tmp_path / "q.db", [row()], recipe)
    with pytest.raises(QuestionFileError, match=message) as err:
        read_question_file(path)
    assert str(path) in str(err.value) and err.value.fix


@pytest.mark.parametrize(("features", "rows", "message"), [
    (json.dumps({"prompt_reconstruction": {}}), 0, r"dataset_metadata is empty"),
    (json.dumps({"prompt_reconstruction": league_recipe_values()}), 2, r"dataset_metadata has 2 rows"),
    ("{not json", 1, r"features_json: not valid JSON"),
    (json.dumps({"schema_version": 1}), 1, r"features_json has no prompt_reconstruction"),
])
def test_metadata_problems_are_errors(tmp_path: Path, features: str, rows: int, message: str) -> None:
    path = make_db(tmp_path / "q.db", [row()], features=features, metadata_rows=rows)
    with pytest.raises(QuestionFileError, match=message):
        read_question_file(path)


def test_file_and_table_problems_are_errors(tmp_path: Path) -> None:
    with pytest.raises(QuestionFileError, match="no such question file"):
        read_question_file(tmp_path / "absent.db")
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database" * 100)
    with pytest.raises(QuestionFileError, match="not a readable SQLite file"):
        read_question_file(junk)
    ok = make_db(tmp_path / "q.db", [row()], league_recipe_values())
    with pytest.raises(QuestionFileError, match="not a plain SQL name"):
        read_question_file(ok, 'x"; DROP TABLE dataset_metadata; --')
    conn = sqlite3.connect(tmp_path / "cols.db")
    conn.execute("CREATE TABLE forecast_eval_set_example (id TEXT, event TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(QuestionFileError, match="lacks the column.*choice_type, question_type, options, answer"):
        read_question_file(tmp_path / "cols.db")


def test_bad_rows_are_kept_aside_with_their_reason(tmp_path: Path) -> None:
    rows = [
        row("good"),
        row("bad-type", qt="numeric"),
        row("bad-choice", ct="several"),
        row("yn-multi", ct="multi"),
        row("bad-options", options="not json"),
        row("yn-options", options=("Yes", "No", "Maybe")),
        row("bn-three", qt="binary_named", options=("A", "B", "C")),
        row("bad-letter", qt="multiple_choice", options=("x", "y", "z"), answer="D"),
        row("two-single", qt="multiple_choice", options=("x", "y", "z"), answer="A, B"),
        row("bad-date", end="13/03/2026"),
        row("empty-event", event="  "),
        row("good"),
    ]
    qs = read_question_file(make_db(tmp_path / "q.db", rows, league_recipe_values()))
    assert [q.id for q in qs.questions] == ["good"]
    reasons = dict(qs.invalid)
    assert "duplicate id" in reasons["good"]
    assert "question_type 'numeric'" in reasons["bad-type"]
    assert "choice_type 'several'" in reasons["bad-choice"]
    assert "yes_no questions are single-choice" in reasons["yn-multi"]
    assert "not a JSON array" in reasons["bad-options"]
    assert 'yes_no options must be ["Yes", "No"]' in reasons["yn-options"]
    assert "exactly two options" in reasons["bn-three"]
    assert "bad: D" in reasons["bad-letter"]
    assert "exactly one letter" in reasons["two-single"]
    assert "end_time '13/03/2026'" in reasons["bad-date"]
    assert "event is empty" in reasons["empty-event"]
    assert all(r.startswith("invalid row: ") for r in reasons.values())


def test_info_cutoff_or_created_at_column_is_read(tmp_path: Path) -> None:
    rows = [row("a", info_cutoff="2026-02-01"), row("b")]
    qs = read_question_file(make_db(tmp_path / "q.db", rows, league_recipe_values(), extra_columns=("info_cutoff",)))
    assert {q.id: q.info_cutoff for q in qs.questions} == {"a": date(2026, 2, 1), "b": None}
    rows = [row("c", created_at="2026-01-05")]
    qs = read_question_file(make_db(tmp_path / "c.db", rows, league_recipe_values(), extra_columns=("created_at",)))
    assert qs.questions[0].info_cutoff == date(2026, 1, 5)


def test_options_nested_fifty_thousand_deep_are_an_invalid_row_not_a_recursion_error(tmp_path: Path) -> None:
    deep = "[" * 50_000 + "]" * 50_000
    path = make_db(tmp_path / "deep.db", [row("q1", options=deep), row("q2")])
    qset = read_question_file(path)
    assert [q.id for q in qset.questions] == ["q2"]
    assert qset.invalid and qset.invalid[0][0] == "q1" and "options" in qset.invalid[0][1]


def test_features_json_nested_fifty_thousand_deep_is_a_question_file_error(tmp_path: Path) -> None:
    path = make_db(tmp_path / "deep.db", [row("q1")], features="[" * 50_000 + "]" * 50_000)
    with pytest.raises(QuestionFileError, match="nested 50000 levels deep"):
        read_question_file(path)
