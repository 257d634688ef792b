"""Reading a question file: the SQLite layout of the published OracleProto data set (docs/evals.md).

The question table (``forecast_eval_set_example`` in the published file, ``test_cases`` in the authors'
repository: the name is an option) has seven columns ``id, choice_type, question_type, event, options, answer,
end_time``; an eighth, optional ``info_cutoff`` (or ``created_at``) column gives the date up to which a
question's information reaches, for the leakage rule. ``dataset_metadata`` (one row) carries the prompt recipe
in ``features_json.prompt_reconstruction``; a file without that table is rendered with the league's own recipe
and every result says ``recipe_source = "league"``.

The file is opened read-only. A recipe problem (missing or unknown key, template without a slot, empty
metadata) is an error, because no prompt could be trusted; a bad question row is not: it is kept aside with
its reason and reported as excluded, so one typo does not hide the other questions.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from importlib import resources
from pathlib import Path
from typing import TypeAlias

from league import inputs
from league.evals.errors import QuestionFileError
from league.evals.recipe import Recipe, kind_of, league_recipe, validate_recipe
from league.jsonvalue import JsonObject

DEFAULT_TABLE = "forecast_eval_set_example"
COLUMNS = ("id", "choice_type", "question_type", "event", "options", "answer", "end_time")
CUTOFF_COLUMNS = ("info_cutoff", "created_at")
METADATA_COLUMNS = ("dataset_name", "split_name", "table_name", "row_count", "imported_at_utc", "features_json")
QUESTION_TYPES = ("yes_no", "binary_named", "multiple_choice")
CHOICE_TYPES = ("single", "multi")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
#: A value SQLite hands back for a column (a question file's cells come as these, never checked by the driver).
SqlValue: TypeAlias = "str | int | float | bytes | None"


def letter(index: int) -> str:
    """Option ``index`` → its letter (A, B, ...); past Z the data set's own rule continues with ``[``."""
    return chr(ord("A") + index)


@dataclass(frozen=True)
class Question:
    """One valid question row; ``answer`` is the set of correct letters."""

    id: str
    choice_type: str
    question_type: str
    event: str
    options: tuple[str, ...]
    answer: frozenset[str]
    end_time: date
    info_cutoff: date | None = None

    @property
    def kind(self) -> str:
        return kind_of(self.question_type, self.choice_type)

    @property
    def letters(self) -> tuple[str, ...]:
        return tuple(letter(i) for i in range(len(self.options)))

    def as_json(self) -> JsonObject:
        return {"id": self.id, "choice_type": self.choice_type, "question_type": self.question_type,
                "event": self.event, "options": list(self.options),
                "answer": ", ".join(sorted(self.answer, key=ord)), "end_time": self.end_time.isoformat(),
                "info_cutoff": self.info_cutoff.isoformat() if self.info_cutoff else None}


@dataclass(frozen=True)
class QuestionSet:
    """Everything read from one file: the valid questions (by end_time, id), the rows kept aside, the recipe."""

    path: Path
    sha256: str
    table: str
    recipe: Recipe
    questions: tuple[Question, ...]
    invalid: tuple[tuple[str, str], ...] = ()
    metadata: Mapping[str, SqlValue] = field(default_factory=dict)

    def as_json(self) -> dict[str, object]:
        """The published form (``questions/<sha256>.json``): enough to re-render and re-score every prompt."""
        return {"file": self.path.name, "file_sha256": self.sha256, "table": self.table,
                "recipe_source": self.recipe.source, "recipe_layout": self.recipe.layout,
                "recipe_sha256": self.recipe.sha256, "recipe": self.recipe.as_json(), "metadata": dict(self.metadata),
                "questions": [q.as_json() for q in self.questions],
                "invalid": [{"id": i, "reason": r} for i, r in self.invalid]}


def _connect(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise QuestionFileError(f"{path}: no such question file", fix="pass the path of a SQLite question file")
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        conn.execute("SELECT name FROM sqlite_master LIMIT 1").fetchall()
    except sqlite3.DatabaseError as exc:
        raise QuestionFileError(f"{path}: not a readable SQLite file ({exc})",
                                fix="a question file is a SQLite 3 database (docs/evals.md)") from exc
    conn.row_factory = sqlite3.Row
    return conn


def _tables(conn: sqlite3.Connection) -> list[str]:
    return [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]


def _metadata(conn: sqlite3.Connection, path: Path) -> tuple[Recipe, dict[str, SqlValue]]:
    if "dataset_metadata" not in _tables(conn):
        return league_recipe(), {}
    where = f"{path}: dataset_metadata"
    missing = [c for c in ("features_json",) if c not in _columns(conn, "dataset_metadata")]
    if missing:
        raise QuestionFileError(f"{where} has no column features_json", fix="the recipe lives in features_json")
    rows = conn.execute("SELECT * FROM dataset_metadata").fetchall()
    if not rows:
        raise QuestionFileError(f"{where} is empty (no row holds the prompt recipe)",
                                fix="add the one metadata row, or drop the table to use the league's own recipe")
    if len(rows) > 1:
        raise QuestionFileError(f"{where} has {len(rows)} rows; exactly one is expected",
                                fix="keep the one row whose features_json holds the recipe")
    row: dict[str, SqlValue] = dict(rows[0])
    if not isinstance(row["features_json"], str):
        raise QuestionFileError(f"{where}.features_json is not text", fix="store a JSON object as text")
    try:
        features = inputs.parse_json(row["features_json"], where=f"{where}.features_json")
    except inputs.InputError as exc:
        raise QuestionFileError(exc.message, fix="store a JSON object") from None
    if not isinstance(features, dict) or "prompt_reconstruction" not in features:
        raise QuestionFileError(f"{where}.features_json has no prompt_reconstruction object",
                                fix="features_json must hold {\"prompt_reconstruction\": {...eleven keys...}}")
    recipe = validate_recipe(features["prompt_reconstruction"], source="file", where=f"{where}.features_json")
    meta = {k: row[k] for k in METADATA_COLUMNS if k in row and k != "features_json"}
    return recipe, meta


def _date(text: object, name: str) -> date:
    if not isinstance(text, str) or not _DATE.match(text):
        raise ValueError(f"{name} {text!r} is not YYYY-MM-DD")
    return date.fromisoformat(text)


def _options(raw: object, question_type: str) -> tuple[str, ...]:
    try:  # a label list: nested 50,000 deep, it is refused before the parser recurses
        options = inputs.parse_json(raw, where="options", max_depth=2) if isinstance(raw, str) else None
    except inputs.InputError:
        options = None
    if not isinstance(options, list) or len(options) < 2:
        raise ValueError("options is not a JSON array of at least two labels")
    if any(not isinstance(o, str) or not o.strip() for o in options):
        raise ValueError("every option must be a non-empty string")
    if question_type == "yes_no" and options != ["Yes", "No"]:
        raise ValueError('yes_no options must be ["Yes", "No"]')
    if question_type == "binary_named" and len(options) != 2:
        raise ValueError(f"binary_named needs exactly two options, not {len(options)}")
    return tuple(options)


def _answer(raw: object, options: tuple[str, ...], choice_type: str) -> frozenset[str]:
    letters = [t.strip() for t in str(raw or "").split(",") if t.strip()]
    valid = {letter(i) for i in range(len(options))}
    bad = [t for t in letters if t not in valid]
    if not letters or bad:
        detail = f" (bad: {', '.join(bad)})" if bad else ""
        raise ValueError(f"answer {raw!r} is not a list of option letters{detail}")
    if choice_type == "single" and len(set(letters)) != 1:
        raise ValueError(f"a single-choice answer has exactly one letter, not {raw!r}")
    return frozenset(letters)


def parse_row(row: Mapping[str, object]) -> Question:
    """One question row (of a question file, or of the TOML source it is built from) → :class:`Question`;
    ``ValueError`` says what is wrong with it."""
    qt, ct = row.get("question_type"), row.get("choice_type")
    if qt not in QUESTION_TYPES:
        raise ValueError(f"question_type {qt!r} is not one of {', '.join(QUESTION_TYPES)}")
    if ct not in CHOICE_TYPES:
        raise ValueError(f"choice_type {ct!r} is not one of {', '.join(CHOICE_TYPES)}")
    if qt != "multiple_choice" and ct != "single":
        raise ValueError(f"{qt} questions are single-choice")
    event = row.get("event")
    if not isinstance(event, str) or not event.strip():
        raise ValueError("event is empty")
    options = _options(row.get("options"), str(qt))
    cutoff = next((row[c] for c in CUTOFF_COLUMNS if row.get(c)), None)
    return Question(id=str(row["id"]), choice_type=str(ct), question_type=str(qt), event=event, options=options,
                    answer=_answer(row.get("answer"), options, str(ct)),
                    end_time=_date(row.get("end_time"), "end_time"),
                    info_cutoff=_date(cutoff, "info_cutoff") if cutoff is not None else None)


def _rows(conn: sqlite3.Connection, path: Path, table: str) -> list[dict[str, SqlValue]]:
    if not _IDENT.match(table):
        raise QuestionFileError(f"question table name {table!r} is not a plain SQL name", fix="e.g. --table test_cases")
    tables = _tables(conn)
    if table not in tables:
        raise QuestionFileError(f"{path}: no question table {table!r} (tables: {', '.join(tables) or 'none'})",
                                fix="name the question table with --table (the authors' repository uses test_cases)")
    cols = _columns(conn, table)
    missing = [c for c in COLUMNS if c not in cols]
    if missing:
        raise QuestionFileError(f"{path}: table {table} lacks the column(s) {', '.join(missing)}",
                                fix=f"a question table has the columns {', '.join(COLUMNS)}")
    extra = [c for c in CUTOFF_COLUMNS if c in cols]
    rows = conn.execute(f'SELECT {", ".join((*COLUMNS, *extra))} FROM "{table}" ORDER BY end_time, id').fetchall()
    return [dict(r) for r in rows]


def read_question_file(path: Path, table: str = DEFAULT_TABLE) -> QuestionSet:
    """Read and check a question file; raise :class:`QuestionFileError` naming what is wrong."""
    path = Path(path)
    conn = _connect(path)
    try:
        recipe, meta = _metadata(conn, path)
        rows = _rows(conn, path, table)
    finally:
        conn.close()
    questions, invalid, seen = [], [], set()
    for row in rows:
        qid = str(row.get("id"))
        try:
            if qid in seen:
                raise ValueError("duplicate id")
            questions.append(parse_row(row))
        except ValueError as exc:
            invalid.append((qid, f"invalid row: {exc}"))
        seen.add(qid)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return QuestionSet(path=path, sha256=digest, table=table, recipe=recipe, questions=tuple(questions),
                       invalid=tuple(invalid), metadata=meta)


def shipped_question_file() -> Path:
    """The league's own question file, shipped with the package (built by ``league.evals.build_questions``)."""
    return Path(str(resources.files("league.evals").joinpath("data/league-questions.db")))

