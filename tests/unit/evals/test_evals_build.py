"""The shipped question file is what its readable TOML source builds; a bad source fails the build."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from league.evals.build_questions import build, data_dir
from league.evals.errors import QuestionFileError
from league.evals.questions import read_question_file, shipped_question_file


def dump(path: Path) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]], list[str]]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT * FROM forecast_eval_set_example ORDER BY id").fetchall()
        meta = conn.execute("SELECT * FROM dataset_metadata").fetchall()
        schema = [r[0] for r in conn.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")]
    finally:
        conn.close()
    return rows, meta, schema


def test_the_shipped_file_is_built_from_its_source(tmp_path: Path) -> None:
    rebuilt = build(data_dir() / "league-questions.toml", tmp_path / "rebuilt.db")
    assert dump(rebuilt) == dump(shipped_question_file())
    a, b = read_question_file(rebuilt), read_question_file(shipped_question_file())
    assert a.questions == b.questions and a.recipe == b.recipe


def test_a_typo_in_the_source_fails_the_build_and_leaves_no_file(tmp_path: Path) -> None:
    source = (data_dir() / "league-questions.toml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text(source.replace('answer = "A, C"', 'answer = "A, G"'), encoding="utf-8")
    with pytest.raises(QuestionFileError, match=r"question 13 \('lq-2024-oscars-three-wins'\).*bad: G"):
        build(bad, tmp_path / "out.db")
    assert not (tmp_path / "out.db").exists()
