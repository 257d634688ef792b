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
from typing import NotRequired, TypedDict

from league.evals import ledger as L
from league.evals.questions import Question
from league.evals.scores import Summary, Trial, brier, exam, log_loss, summarize, tversky
from league.jsonvalue import Json, JsonObject, items, number, obj, text, texts
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


class Results(TypedDict):
    """``results.json`` of one run: what its ``eval.open`` line sealed, and the scores of its replies."""

    run_id: str
    seat: Json
    adapter: Json
    knowledge_cutoff: Json
    retrieval: JsonObject
    trials: Json
    concurrency: Json
    probabilities: Json
    file: Json
    questions_sha256: Json
    recipe_source: Json
    recipe_layout: Json
    recipe_sha256: Json
    excluded: Json
    admitted: int
    models_reported: list[str]
    opened_line: Json
    reply_lines: int
    scores: Summary
    recipe_note: NotRequired[str]


def _int(value: Json | None) -> int:
    """A sealed whole number (a trial, a count); any other shape fails as ``int()`` would."""
    n = number(value)
    if n is None:
        raise TypeError(f"int() argument must be a real number, not {type(value).__name__!r}")
    return int(n)


def _probabilities(value: Json | None) -> dict[str, float] | None:
    """A verdict's stated probabilities by letter (None when it states none)."""
    if not isinstance(value, dict):
        return None
    return {k: n for k, v in value.items() if (n := number(v)) is not None}


def _reply_order(reply: JsonObject) -> tuple[str, int]:
    return text(reply["question_id"]), _int(reply["trial"])


def trial_of(line: JsonObject, q: Question) -> Trial:
    verdict = obj(line.get("verdict"))
    letters = verdict.get("letters")
    return Trial(question_id=q.id, question_type=q.question_type, choice_type=q.choice_type, options=len(q.options),
                 gold=q.answer, trial=_int(line["trial"]), answered=line["status"] == "answered",
                 letters=None if letters is None else frozenset(texts(letters)), cost=number(line.get("cost_usd")),
                 probabilities=_probabilities(verdict.get("probabilities")))


def build_results(book: Path, run_id: str, questions: Mapping[str, Question]) -> Results:
    """``results.json`` of one run, from its ``eval.open`` and ``eval.reply`` lines."""
    opened = L.run_lines(book, L.OPEN, run_id=run_id)[0]
    replies = sorted(L.run_lines(book, L.REPLY, run_id=run_id), key=_reply_order)
    trials = [trial_of(r, questions[text(r["question_id"])]) for r in replies]
    models = sorted({text(r["model"]) for r in replies if r["status"] == "answered" and r.get("model")})
    doc: Results = {
        "run_id": text(opened["run_id"]), "seat": opened["seat"], "adapter": opened["adapter"],
        "knowledge_cutoff": opened["knowledge_cutoff"], "retrieval": obj(opened["retrieval"]),
        "trials": opened["trials"], "concurrency": opened["concurrency"], "probabilities": opened["probabilities"],
        "file": opened["file"], "questions_sha256": opened["questions_sha256"],
        "recipe_source": opened["recipe_source"], "recipe_layout": opened["recipe_layout"],
        "recipe_sha256": opened["recipe_sha256"], "excluded": opened["excluded"],
        "admitted": len(items(opened["admitted"])), "models_reported": models, "opened_line": opened["n"],
        "reply_lines": len(replies), "scores": summarize(trials, _int(opened["trials"]))}
    if opened["recipe_source"] == "league":
        doc["recipe_note"] = RECIPE_NOTE
    return doc


def _cell(value: object) -> object:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def _csv(columns: Sequence[str], rows: Iterable[Mapping[str, object]]) -> bytes:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(row.get(c)) for c in columns])
    return buf.getvalue().encode("utf-8")


def trial_rows(run_id: str, label: Json, replies: Sequence[JsonObject],
               questions: Mapping[str, Question]) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for r in sorted(replies, key=_reply_order):
        q, v = questions[text(r["question_id"])], obj(r.get("verdict"))
        letters = None if v.get("letters") is None else frozenset(texts(v["letters"]))
        probs = _probabilities(v.get("probabilities"))
        answered = r["status"] == "answered"
        rows.append({
            "run_id": run_id, "retrieval": label, "question_id": q.id, "question_type": q.question_type,
            "choice_type": q.choice_type, "kind": q.kind, "trial": r["trial"], "status": r["status"],
            "prompt_sha256": r["prompt_sha256"], "raw_sha256": r.get("raw_sha256"),
            "letters": ",".join(texts(v["letters"])) if letters is not None else None, "payload": v.get("payload"),
            "parse_failure": v.get("failure") or None, "correct": r.get("correct"),
            "exam": exam(letters, q.answer) if answered else None,
            "tversky": tversky(letters, q.answer) if answered else None, "cost_usd": r.get("cost_usd"),
            "brier": brier(probs, q.answer) if probs else None,
            "log_loss": log_loss(probs, q.answer, q.choice_type == "multi") if probs else None,
            "probability_failure": v.get("probability_failure") or None, "model": r.get("model"),
            "failure": r.get("failure") or None, "line": r["n"]})
    return rows


def score_rows(run_id: str, label: Json, scores: Summary) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = [
        {"run_id": run_id, "retrieval": label, "group": "overall", "name": "all", **scores["overall"]}]
    for grp, split in (("question_type", scores["by_question_type"]), ("choice_type", scores["by_choice_type"]),
                       ("kind", scores["by_kind"])):
        rows += [{"run_id": run_id, "retrieval": label, "group": grp, "name": name, **figures}
                 for name, figures in split.items()]
    return rows


def write_run(public: Path, results: Results, replies: Sequence[JsonObject],
              questions: Mapping[str, Question]) -> str:
    """Write one run's folder; return the SHA-256 of its ``results.json``."""
    run_id, label = results["run_id"], results["retrieval"]["label"]
    folder = public / "runs" / run_id
    write_atomic(folder / "trials.csv", _csv(TRIAL_COLUMNS, trial_rows(run_id, label, replies, questions)))
    write_atomic(folder / "scores.csv", _csv(SCORE_COLUMNS, score_rows(run_id, label, results["scores"])))
    cal: list[dict[str, object]] = [{"run_id": run_id, "retrieval": label, **row}
                                    for row in results["scores"]["probabilities"]["calibration"]]
    write_atomic(folder / "calibration.csv", _csv(CALIBRATION_COLUMNS, cal))
    return write_json(folder / "results.json", dict(results))


def publish_folder(out: Path, public: Path, index_entry: Mapping[str, Json],
                   questions_doc: Mapping[str, object]) -> None:
    """Copy the book, prompts and replies into ``public``; add the run to ``index.json``; ship the recount."""
    write_atomic(public / "questions" / f"{questions_doc['file_sha256']}.json", dump_bytes(dict(questions_doc)))
    for sub in ("prompts", "replies"):
        for src in sorted((out / sub).glob("*.txt")) if (out / sub).is_dir() else []:
            dst = public / sub / src.name
            if not dst.exists():
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dst)
    index_path = public / "index.json"
    index: list[JsonObject] = read_json(index_path, what="evaluation index") if index_path.exists() else []
    index = [e for e in index if e.get("run_id") != index_entry["run_id"]] + [dict(index_entry)]
    write_json(index_path, index)
    tool = resources.files("league.evals").joinpath("tools/recount_eval.py").read_bytes()
    write_atomic(public / "tools" / "recount_eval.py", tool)
    write_atomic(public / L.BOOK_NAME, (out / L.BOOK_NAME).read_bytes())
