#!/usr/bin/env python3
"""Write the question-file assets of tests/unit/evals (run from this folder: ``python3 make_assets.py``).

Standard library only and independent of ``league``: the files are written the way the data set's own
scripts write them, so the tests hold the reader to the format, not to itself. The texts are ours.

- ``reference-layout.db``: table ``forecast_eval_set_example`` (seven columns) and ``dataset_metadata`` with the
  eleven-key ``prompt_reconstruction`` (the authors' current layout); one question of each kind, plus one
  multiple-choice question with 28 options (letters past Z);
- ``single-template.db``: the eight-key layout of the file published on 2026-04-29 (one ``prompt_template``);
- ``authors-layout.db``: table ``test_cases`` and no ``dataset_metadata`` (the authors' repository).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

HERE = Path(__file__).resolve().parent

TABLE_SQL = """CREATE TABLE "{table}" (
        id            TEXT PRIMARY KEY,
        choice_type   TEXT NOT NULL CHECK (choice_type IN ('single','multi')),
        question_type TEXT NOT NULL,
        event         TEXT NOT NULL,
        options       TEXT NOT NULL,
        answer        TEXT NOT NULL,
        end_time      TEXT NOT NULL
    )"""
META_SQL = """CREATE TABLE dataset_metadata (
            dataset_name TEXT NOT NULL,
            split_name TEXT NOT NULL,
            table_name TEXT NOT NULL,
            row_count INTEGER NOT NULL,
            imported_at_utc TEXT NOT NULL,
            features_json TEXT NOT NULL
        )"""

FORMATS = {
    "yes_no_output_format": "Decide.\nReply ending with: \\boxed{Yes} or \\boxed{No}",
    "binary_named_output_format": "Pick one.\nReply ending with: \\boxed{<options[0]>} or \\boxed{<options[1]>}",
    "multiple_choice_single_output_format": "One letter.\nReply ending with, e.g., \\boxed{A}",
    "multiple_choice_multi_output_format": "All right letters.\nReply ending with, e.g., \\boxed{A, C}",
}
COMMON = {
    "agent_role": "You are a test forecaster.",
    "guidance": "No other format.",
    "outcomes_block_rule": "Empty for yes_no/binary_named; for multiple_choice a newline then 'A. label' lines.",
    **FORMATS,
}
PER_KIND = {
    **COMMON,
    "yes_no_prompt_template": "{agent_role}\nEvent: {event}\nDate: {end_time}\n{output_format}\n{guidance}",
    "binary_named_prompt_template": "{agent_role}\nEvent: {event}\nDate: {end_time}\n{output_format}\n{guidance}",
    "multiple_choice_single_prompt_template": (
        "{agent_role}\nEvent: {event}\nDate: {end_time}\nOptions:{outcomes_block}\n\n{output_format}\n{guidance}"),
    "multiple_choice_multi_prompt_template": (
        "{agent_role}\nEvent: {event}\nDate: {end_time}\nChoose any of:{outcomes_block}\n\n{output_format}\n{guidance}"),
}
SINGLE_TEMPLATE = {
    **COMMON,
    "prompt_template": ('{agent_role} The event: "{event} (resolves {end_time}).{outcomes_block}"\n\n'
                        "IMPORTANT:\n{output_format}\n{guidance}"),
}
MANY = [f"Option {i}" for i in range(28)]
QUESTIONS = [
    ("t-yes-no", "single", "yes_no", "Will the test pass?", ["Yes", "No"], "A", "2026-03-13"),
    ("t-binary", "single", "binary_named", "Red or Blue?", ["Red", "Blue"], "B", "2026-03-14"),
    ("t-single", "single", "multiple_choice", "Which colour wins?", ["Red", "Green", "Blue"], "C", "2026-03-15"),
    ("t-multi", "multi", "multiple_choice", "Which colours place?", ["Red", "Green", "Blue", "White"], "A, C",
     "2026-03-16"),
    ("t-many", "single", "multiple_choice", "Which of many?", MANY, "[", "2026-03-17"),
]


def write(path: Path, table: str, recipe: dict[str, str] | None, rows: list[tuple[str, ...]]) -> None:
    path.unlink(missing_ok=True)
    conn = sqlite3.connect(path)
    conn.execute(TABLE_SQL.format(table=table))
    conn.executemany(f'INSERT INTO "{table}" VALUES (?, ?, ?, ?, ?, ?, ?)',
                     [(i, c, q, e, json.dumps(o), a, d) for i, c, q, e, o, a, d in rows])
    if recipe is not None:
        conn.execute(META_SQL)
        features = {"schema_version": 1, "prompt_reconstruction": recipe}
        conn.execute("INSERT INTO dataset_metadata VALUES (?, ?, ?, ?, ?, ?)",
                     (path.stem, "train", table, len(rows), "2026-04-29T00:00:00Z",
                      json.dumps(features, ensure_ascii=False)))
    conn.commit()
    conn.close()


def main() -> None:
    write(HERE / "reference-layout.db", "forecast_eval_set_example", PER_KIND, QUESTIONS)
    write(HERE / "single-template.db", "forecast_eval_set_example", SINGLE_TEMPLATE, QUESTIONS[:4])
    write(HERE / "authors-layout.db", "test_cases", None, QUESTIONS[:3])


if __name__ == "__main__":
    main()
