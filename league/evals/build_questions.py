"""Build a question file in the published data set's SQLite layout from a readable TOML source.

``python -m league.evals.build_questions`` (or ``league eval build-questions``) turns
``league/evals/data/league-questions.toml`` plus the league's recipe (``recipe.toml``) into
``league-questions.db``. The TOML is what a reviewer reads; the SQLite file is what ``league eval questions``
reads, exactly as it reads a file of the data set's authors: table ``forecast_eval_set_example`` (the seven
columns plus ``info_cutoff``) and one ``dataset_metadata`` row whose ``features_json`` holds the recipe under
``prompt_reconstruction``. Every row is checked by the same reader before the file replaces the old one, so a
typo in the TOML fails the build instead of shipping.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
from collections.abc import Mapping
from importlib import resources
from pathlib import Path

from league import inputs
from league.evals.errors import QuestionFileError
from league.evals.questions import COLUMNS, DEFAULT_TABLE, parse_row, read_question_file
from league.evals.recipe import league_recipe

SCHEMA = f"""
CREATE TABLE "{DEFAULT_TABLE}" (
    id            TEXT PRIMARY KEY,
    choice_type   TEXT NOT NULL CHECK (choice_type IN ('single','multi')),
    question_type TEXT NOT NULL,
    event         TEXT NOT NULL,
    options       TEXT NOT NULL,
    answer        TEXT NOT NULL,
    end_time      TEXT NOT NULL,
    info_cutoff   TEXT
);
CREATE TABLE dataset_metadata (
    dataset_name TEXT NOT NULL,
    split_name TEXT NOT NULL,
    table_name TEXT NOT NULL,
    row_count INTEGER NOT NULL,
    imported_at_utc TEXT NOT NULL,
    features_json TEXT NOT NULL
);
"""


def data_dir() -> Path:
    return Path(str(resources.files("league.evals").joinpath("data")))


def source_rows(source: Mapping[str, object]) -> list[dict[str, object]]:
    """The TOML questions as table rows (options as a JSON array), each checked by the reader's row rules."""
    rows: list[dict[str, object]] = []
    questions = source.get("question", [])
    tables = [q for q in questions if isinstance(q, dict)] if isinstance(questions, list) else []
    if not isinstance(questions, list) or len(tables) != len(questions):
        raise QuestionFileError("the source's `question` is not a list of [[question]] tables",
                                fix="write each question as a [[question]] table")
    for i, q in enumerate(tables, 1):
        row: dict[str, object] = {c: q.get(c) for c in COLUMNS} | {"info_cutoff": q.get("info_cutoff")}
        row["options"] = json.dumps(q.get("options"), ensure_ascii=False)
        try:
            parse_row(row)
        except (ValueError, KeyError) as exc:
            raise QuestionFileError(f"question {i} ({q.get('id')!r}) of the source: {exc}",
                                    fix="fix that question in the TOML source") from exc
        rows.append(row)
    return rows


def features(source: Mapping[str, object]) -> dict[str, object]:
    return {"description": source.get("description", ""), "source": "league/evals/data/league-questions.toml",
            "prompt_reconstruction": league_recipe().as_json()}


def build(source_path: Path, out: Path) -> Path:
    """Write ``out`` from ``source_path`` (atomically); return ``out``."""
    source = inputs.read_toml(Path(source_path), what="question source (TOML)")
    rows = source_rows(source)
    missing = [k for k in ("dataset_name", "split_name", "built_at") if not isinstance(source.get(k), str)]
    if missing:
        raise QuestionFileError(f"{source_path}: the source names no {', '.join(missing)} (text)",
                                fix="add them at the top of the TOML source")
    tmp = out.with_name(out.name + ".tmp")
    tmp.unlink(missing_ok=True)
    try:
        _write(tmp, source, rows)
    except sqlite3.Error as exc:
        raise QuestionFileError(f"{out}: the question file cannot be written ({exc})",
                                fix="name a writable file path with --out") from None
    checked = read_question_file(tmp)
    if checked.invalid or len(checked.questions) != len(rows):
        tmp.unlink(missing_ok=True)
        raise QuestionFileError(f"the built file does not read back cleanly: {checked.invalid}", fix="fix the source")
    os.replace(tmp, out)
    return out


def _write(path: Path, source: Mapping[str, object], rows: list[dict[str, object]]) -> None:
    conn = sqlite3.connect(path)
    try:
        conn.executescript(SCHEMA)
        conn.executemany(f'INSERT INTO "{DEFAULT_TABLE}" VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
                         [tuple(r[c] for c in (*COLUMNS, "info_cutoff")) for r in rows])
        conn.execute("INSERT INTO dataset_metadata VALUES (?, ?, ?, ?, ?, ?)",
                     (source["dataset_name"], source["split_name"], DEFAULT_TABLE, len(rows), source["built_at"],
                      json.dumps(features(source), ensure_ascii=False, sort_keys=True)))
        conn.commit()
    finally:
        conn.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m league.evals.build_questions", description=__doc__)
    parser.add_argument("--source", type=Path, default=data_dir() / "league-questions.toml")
    parser.add_argument("--out", type=Path, default=data_dir() / "league-questions.db")
    args = parser.parse_args(argv)
    path = build(args.source, args.out)
    sys.stdout.write(f"wrote {path}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
