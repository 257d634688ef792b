"""Small builders for the evaluation tests: question files written with sqlite3, questions, trials."""

from __future__ import annotations

import json
import random
import sqlite3
import tomllib
from datetime import date
from pathlib import Path
from typing import Any

from league.evals.questions import Question

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "evals"
ROOT = Path(__file__).resolve().parents[3]


def league_recipe_values() -> dict[str, str]:
    return tomllib.loads((ROOT / "league" / "evals" / "data" / "recipe.toml").read_text(encoding="utf-8"))


def row(qid: str = "q1", qt: str = "yes_no", ct: str = "single", options: Any = ("Yes", "No"), answer: str = "A",
        end: str = "2026-03-13", event: str = "Will it?", **extra: Any) -> dict[str, Any]:
    return {"id": qid, "choice_type": ct, "question_type": qt, "event": event,
            "options": options if isinstance(options, str) else json.dumps(list(options)), "answer": answer,
            "end_time": end, **extra}


def make_db(path: Path, rows: list[dict[str, Any]], recipe: Any = None, *, table: str = "forecast_eval_set_example",
            metadata_rows: int = 1, features: Any = None, extra_columns: tuple[str, ...] = ()) -> Path:
    """A question file; ``recipe=None`` and ``features=None`` write no dataset_metadata table."""
    conn = sqlite3.connect(path)
    cols = ("id", "choice_type", "question_type", "event", "options", "answer", "end_time", *extra_columns)
    conn.execute(f'CREATE TABLE "{table}" ({", ".join(c + " TEXT" for c in cols)})')
    conn.executemany(f'INSERT INTO "{table}" VALUES ({", ".join("?" for _ in cols)})',
                     [tuple(r.get(c) for c in cols) for r in rows])
    if recipe is not None or features is not None:
        conn.execute("CREATE TABLE dataset_metadata (dataset_name TEXT, split_name TEXT, table_name TEXT, "
                     "row_count INTEGER, imported_at_utc TEXT, features_json TEXT)")
        body = features if features is not None else json.dumps({"prompt_reconstruction": recipe})
        for _ in range(metadata_rows):
            conn.execute("INSERT INTO dataset_metadata VALUES ('t', 'train', ?, ?, '2026-04-29T00:00:00Z', ?)",
                         (table, len(rows), body))
    conn.commit()
    conn.close()
    return path


def question(qid: str = "q", qt: str = "multiple_choice", ct: str = "single",
             options: tuple[str, ...] = ("Red", "Green", "Blue", "White", "Black"), answer: str = "B",
             end: date = date(2026, 3, 13), info: date | None = None, event: str = "Which?") -> Question:
    return Question(id=qid, choice_type=ct, question_type=qt, event=event, options=options,
                    answer=frozenset(t.strip() for t in answer.split(",")), end_time=end, info_cutoff=info)


def walk(n: int, seed: int, vol: float = 0.01, drift: float = 0.0) -> list[float]:
    """A seeded random walk of ``n`` closes from 100 (the ETS seat's tests fit it)."""
    rng = random.Random(seed)
    x, out = 100.0, []
    for _ in range(n):
        x *= 1 + drift + rng.gauss(0.0, vol)
        out.append(x)
    return out
