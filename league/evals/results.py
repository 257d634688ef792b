"""An evaluation run's results, computed from its book lines alone, and the open-data folder they go to.

Folder ``OUT/public`` (docs/evals.md, "Open data"):

- ``eval-book.jsonl``: the eval book; ``prompts/<sha256>.txt`` and ``replies/<sha256>.txt``: every exact ask
  text and raw reply, named by the hashes the book seals;
- ``questions/<file sha256>.json``: the question file as read (recipe, questions with answers, rows kept aside);
- ``runs/<run_id>/results.json``, ``trials.csv``, ``scores.csv``, ``calibration.csv``: one run's figures; every
  table carries the run's retrieval label (``closed-book`` or ``unmasked``);
- ``index.json``: the runs, with each ``results.json``'s SHA-256; ``tools/recount_eval.py``: the stand-alone
  recount (standard library only) that re-renders, re-parses and re-scores everything from these files.
"""

from __future__ import annotations

import csv
import io
import shutil
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from league.evals import ledger as L
from league.evals.questions import Question
from league.evals.scores import Trial, brier, exam, log_loss, summarize, tversky
from league.seatcore.files import dump_bytes, read_json, write_atomic, write_json

TRIAL_COLUMNS = ("run_id", "retrieval", "question_id", "question_type", "choice_type", "kind", "trial", "status",
                 "prompt_sha256", "raw_sha256", "letters", "payload", "parse_failure", "correct", "exam", "tversky",
                 "cost_usd", "brier", "log_loss", "probability_failure", "model", "failure", "line")
SCORE_COLUMNS = ("run_id", "retrieval", "group", "name", "questions", "trials", "answered", "correct", "no_reply",
                 "parse_failures", "pass_at_1", "exam", "complete_questions", "pass_any", "pass_all", "tversky",
                 "tversky_skill")
CALIBRATION_COLUMNS = ("run_id", "retrieval", "bin", "low", "high", "count", "stated", "observed")
RECIPE_NOTE = ("this file has no dataset_metadata table: its prompts were rendered with the league's own recipe "
               "(league/evals/data/recipe.toml), not a recipe of the file's authors")


def trial_of(line: Mapping[str, Any], q: Question) -> Trial:
    verdict = line.get("verdict") or {}
    letters = verdict.get("letters")
    return Trial(question_id=q.id, question_type=q.question_type, choice_type=q.choice_type, options=len(q.options),
                 gold=q.answer, trial=int(line["trial"]), answered=line["status"] == "answered",
                 letters=None if letters is None else frozenset(letters), cost=line.get("cost_usd"),
                 probabilities=verdict.get("probabilities"))


def build_results(book: Path, run_id: str, questions: Mapping[str, Question]) -> dict[str, Any]:
    """``results.json`` of one run, from its ``eval.open`` and ``eval.reply`` lines."""
    opened = L.run_lines(book, L.OPEN, run_id=run_id)[0]
    replies = sorted(L.run_lines(book, L.REPLY, run_id=run_id), key=lambda r: (r["question_id"], r["trial"]))
    trials = [trial_of(r, questions[r["question_id"]]) for r in replies]
    models = sorted({r["model"] for r in replies if r["status"] == "answered" and r.get("model")})
    keep = ("run_id", "seat", "adapter", "knowledge_cutoff", "retrieval", "trials", "concurrency", "probabilities",
            "file", "questions_sha256", "recipe_source", "recipe_layout", "recipe_sha256", "excluded")
    doc = {k: opened[k] for k in keep}
    doc.update(admitted=len(opened["admitted"]), models_reported=models, opened_line=opened["n"],
               reply_lines=len(replies), scores=summarize(trials, int(opened["trials"])))
    if opened["recipe_source"] == "league":
        doc["recipe_note"] = RECIPE_NOTE
    return doc


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def _csv(columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> bytes:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(row.get(c)) for c in columns])
    return buf.getvalue().encode("utf-8")


def trial_rows(run_id: str, label: str, replies: Sequence[Mapping[str, Any]],
               questions: Mapping[str, Question]) -> list[dict[str, Any]]:
    rows = []
    for r in sorted(replies, key=lambda x: (x["question_id"], x["trial"])):
        q, v = questions[r["question_id"]], r.get("verdict") or {}
        letters = None if v.get("letters") is None else frozenset(v["letters"])
        probs = v.get("probabilities")
        answered = r["status"] == "answered"
        rows.append({
            "run_id": run_id, "retrieval": label, "question_id": q.id, "question_type": q.question_type,
            "choice_type": q.choice_type, "kind": q.kind, "trial": r["trial"], "status": r["status"],
            "prompt_sha256": r["prompt_sha256"], "raw_sha256": r.get("raw_sha256"),
            "letters": ",".join(v["letters"]) if letters is not None else None, "payload": v.get("payload"),
            "parse_failure": v.get("failure") or None, "correct": r.get("correct"),
            "exam": exam(letters, q.answer) if answered else None,
            "tversky": tversky(letters, q.answer) if answered else None, "cost_usd": r.get("cost_usd"),
            "brier": brier(probs, q.answer) if probs else None,
            "log_loss": log_loss(probs, q.answer, q.choice_type == "multi") if probs else None,
            "probability_failure": v.get("probability_failure") or None, "model": r.get("model"),
            "failure": r.get("failure") or None, "line": r["n"]})
    return rows


def score_rows(run_id: str, label: str, scores: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = [{"run_id": run_id, "retrieval": label, "group": "overall", "name": "all", **scores["overall"]}]
    for grp in ("by_question_type", "by_choice_type", "by_kind"):
        rows += [{"run_id": run_id, "retrieval": label, "group": grp.removeprefix("by_"), "name": name, **figures}
                 for name, figures in scores[grp].items()]
    return rows


def write_run(public: Path, results: Mapping[str, Any], replies: Sequence[Mapping[str, Any]],
              questions: Mapping[str, Question]) -> str:
    """Write one run's folder; return the SHA-256 of its ``results.json``."""
    run_id, label = results["run_id"], results["retrieval"]["label"]
    folder = public / "runs" / run_id
    write_atomic(folder / "trials.csv", _csv(TRIAL_COLUMNS, trial_rows(run_id, label, replies, questions)))
    write_atomic(folder / "scores.csv", _csv(SCORE_COLUMNS, score_rows(run_id, label, results["scores"])))
    cal = [{"run_id": run_id, "retrieval": label, **row} for row in results["scores"]["probabilities"]["calibration"]]
    write_atomic(folder / "calibration.csv", _csv(CALIBRATION_COLUMNS, cal))
    return write_json(folder / "results.json", dict(results))


def publish_folder(out: Path, public: Path, index_entry: Mapping[str, Any], questions_doc: Mapping[str, Any]) -> None:
    """Copy the book, prompts and replies into ``public``; add the run to ``index.json``; ship the recount."""
    write_atomic(public / "questions" / f"{questions_doc['file_sha256']}.json", dump_bytes(dict(questions_doc)))
    for sub in ("prompts", "replies"):
        for src in sorted((out / sub).glob("*.txt")) if (out / sub).is_dir() else []:
            dst = public / sub / src.name
            if not dst.exists():
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dst)
    index_path = public / "index.json"
    index: list[dict[str, Any]] = read_json(index_path, what="evaluation index") if index_path.exists() else []
    index = [e for e in index if e.get("run_id") != index_entry["run_id"]] + [dict(index_entry)]
    write_json(index_path, index)
    tool = resources.files("league.evals").joinpath("tools/recount_eval.py").read_bytes()
    write_atomic(public / "tools" / "recount_eval.py", tool)
    write_atomic(public / L.BOOK_NAME, (out / L.BOOK_NAME).read_bytes())
