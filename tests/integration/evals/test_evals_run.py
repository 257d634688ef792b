"""`league eval questions` end to end, offline, with the stand-in seat in the REAL bubblewrap sandbox."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from league.book import iter_lines
from league.cli import app
from league.clock import SimulatedClock
from league.evals.config import EvalSeat, find_seat, load_config
from league.evals.errors import EvalError
from league.evals.parse import parse_reply
from league.evals.policy import Policy
from league.evals.questions import read_question_file, shipped_question_file
from league.evals.results import build_results
from league.evals.run import RunOptions, run_questions
from sandbox.bwrap import BwrapSandbox

pytestmark = pytest.mark.sandbox
ASSETS = Path(__file__).resolve().parents[2] / "assets" / "evals"
PINNED = json.loads((ASSETS / "shipped-prompt-hashes.json").read_text(encoding="utf-8"))
SYSTEM_PYTHON = "/usr/bin/python3"  # the recount must run on a bare standard library


def clock() -> SimulatedClock:
    return SimulatedClock(datetime(2026, 11, 30, 12, tzinfo=UTC))


def seat(name: str, **options: Any) -> EvalSeat:
    found = find_seat(load_config(), name)
    if not options:
        return found
    spec = found.seat.model_copy(update={"options": {**found.seat.options, **options}})
    return found.model_copy(update={"seat": spec})


def lines(out: Path) -> list[dict[str, Any]]:
    return [{**ln.content, "n": ln.n} for ln in iter_lines(out / "eval-book.jsonl")]


def recount(public: Path) -> subprocess.CompletedProcess[str]:
    python = SYSTEM_PYTHON if Path(SYSTEM_PYTHON).exists() else sys.executable
    return subprocess.run([python, "-I", str(public / "tools" / "recount_eval.py"), "--data", str(public)],
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def sloppy_run(tmp_path_factory: pytest.TempPathFactory, bwrap: BwrapSandbox) -> dict[str, Any]:
    """The shipped file, three trials, the stand-in that breaks a parsing rule in about one reply in five."""
    out = tmp_path_factory.mktemp("eval")
    qset = read_question_file(shipped_question_file())
    result = run_questions(qset, seat("standin-sloppy"), out, clock(), RunOptions(trials=3, concurrency=8),
                           sandbox=bwrap)
    return {"out": out, "result": result, "qset": qset, "lines": lines(out)}


def test_everything_is_sealed_in_order(sloppy_run: dict[str, Any]) -> None:
    book = sloppy_run["lines"]
    kinds = [x["kind"] for x in book]
    assert kinds[0] == "eval.open" and kinds[-1] == "eval.close" and kinds.count("eval.reply") == 45
    opened = book[0]
    assert opened["prompts"] == PINNED  # the sealed prompt hashes are the pinned ones, before any ask
    assert opened["recipe_source"] == "file" and opened["retrieval"]["label"] == "closed-book"
    assert opened["file"]["sha256"] == hashlib.sha256(shipped_question_file().read_bytes()).hexdigest()
    assert opened["excluded"] == [] and len(opened["admitted"]) == 15
    assert {(x["question_id"], x["trial"]) for x in book if x["kind"] == "eval.reply"} == {
        (q, k) for q in PINNED for k in (1, 2, 3)}


def test_every_reply_is_kept_as_received_and_its_verdict_recomputes(sloppy_run: dict[str, Any]) -> None:
    out, qset = sloppy_run["out"], sloppy_run["qset"]
    questions = {q.id: q for q in qset.questions}
    failures = 0
    for x in (x for x in sloppy_run["lines"] if x["kind"] == "eval.reply"):
        assert x["status"] == "answered" and x["model"] == "standin/sloppy-1"
        raw = (out / "replies" / f"{x['raw_sha256']}.txt").read_bytes()
        assert hashlib.sha256(raw).hexdigest() == x["raw_sha256"]
        assert x["prompt_sha256"] == PINNED[x["question_id"]]
        verdict = parse_reply(raw.decode("utf-8"), questions[x["question_id"]])
        assert x["verdict"] == verdict.as_json()
        assert x["usage"]["network"] == ["lo"]  # closed book: the sandbox had no route out
        failures += verdict.failure != ""
    assert failures >= 1  # the sloppy stand-in broke at least one rule, and it was sealed, not dropped


def test_results_come_from_the_book_and_are_sealed(sloppy_run: dict[str, Any]) -> None:
    result, out = sloppy_run["result"], sloppy_run["out"]
    by_id = {q.id: q for q in sloppy_run["qset"].questions}
    assert build_results(out / "eval-book.jsonl", result.run_id, by_id) == result.results
    public = result.public
    results_bytes = (public / "runs" / result.run_id / "results.json").read_bytes()
    assert sloppy_run["lines"][-1]["results_sha256"] == hashlib.sha256(results_bytes).hexdigest()
    overall = result.results["scores"]["overall"]
    assert overall["trials"] == 45 and overall["answered"] == 45 and overall["no_reply"] == 0
    assert overall["parse_failures"] >= 1 and 0.0 < overall["pass_at_1"] < 1.0
    trials_csv = (public / "runs" / result.run_id / "trials.csv").read_text().splitlines()
    assert len(trials_csv) == 46 and all(",closed-book," in row for row in trials_csv[1:])
    scores_csv = (public / "runs" / result.run_id / "scores.csv").read_text().splitlines()
    assert scores_csv[1].startswith(f"{result.run_id},closed-book,overall,all,15,45,45,")


def test_the_stdlib_recount_agrees_and_catches_tampering(sloppy_run: dict[str, Any], tmp_path: Path) -> None:
    public = sloppy_run["result"].public
    ok = recount(public)
    assert ok.returncode == 0, ok.stdout
    assert f"{sloppy_run['result'].run_id}: ok" in ok.stdout
    import shutil

    copy = tmp_path / "public"
    shutil.copytree(public, copy)
    first = next(x for x in sloppy_run["lines"] if x["kind"] == "eval.reply")
    reply = copy / "replies" / f"{first['raw_sha256']}.txt"
    reply.write_text(reply.read_text() + "\n\\boxed{Z}")
    bad = recount(copy)
    assert bad.returncode == 1 and "does not match its hash" in bad.stdout
    shutil.rmtree(copy)
    shutil.copytree(public, copy)
    results = copy / "runs" / sloppy_run["result"].run_id / "results.json"
    doc = json.loads(results.read_text())
    doc["scores"]["overall"]["pass_at_1"] += 0.01
    results.write_text(json.dumps(doc))
    bad = recount(copy)
    assert bad.returncode == 1 and "results.json does not have the SHA-256 sealed" in bad.stdout
    assert "scores.overall.pass_at_1" in bad.stdout


def test_web_policy_goes_through_the_egress_proxy_and_is_labelled_unmasked(tmp_path: Path, bwrap: BwrapSandbox) -> None:
    qset = read_question_file(shipped_question_file())
    result = run_questions(qset, seat("standin-sharp"), tmp_path, clock(),
                           RunOptions(trials=1, policy=Policy.WEB, limit=2, probabilities=True), sandbox=bwrap)
    assert result.results["retrieval"] == {"policy": "web", "enforced": "egress proxy: public web",
                                           "label": "unmasked", "masked": False}
    replies = [x for x in lines(tmp_path) if x["kind"] == "eval.reply"]
    # its own network namespace (only its own lo) whose one way out is the league's egress proxy
    assert replies and all(x["usage"]["network"] == ["lo"] and x["usage"]["proxy"] for x in replies)
    for name in ("trials.csv", "scores.csv", "calibration.csv"):
        rows = (result.public / "runs" / result.run_id / name).read_text().splitlines()[1:]
        assert rows and all(",unmasked," in r for r in rows)
    assert result.results["scores"]["probabilities"]["trials"] == 2
    assert result.results["excluded"] == [{"id": q.id, "reason": "beyond --limit 2"} for q in qset.questions[2:]]


def test_leakage_rule_excludes_and_reports(tmp_path: Path, bwrap: BwrapSandbox) -> None:
    qset = read_question_file(shipped_question_file())
    result = run_questions(qset, seat("standin-late"), tmp_path, clock(), RunOptions(trials=1), sandbox=bwrap)
    admitted = [x for x in lines(tmp_path) if x["kind"] == "eval.open"][0]["admitted"]
    assert sorted(admitted) == sorted(["lq-2024-fed-september-cut", "lq-2024-us-president", "lq-2024-september-cuts",
                                       "lq-2025-fed-january-cut", "lq-2025-german-election"])
    excluded = {e["id"]: e["reason"] for e in result.results["excluded"]}
    assert len(excluded) == 10
    assert excluded["lq-2024-euro-winner"] == ("the seat's knowledge cutoff 2024-08-01 is not before the question's "
                                               "information cutoff 2024-06-14")
    cut = run_questions(qset, seat("standin-late"), tmp_path, clock(), RunOptions(trials=1, cutoff=date(2020, 1, 1)),
                        sandbox=bwrap)
    assert cut.results["admitted"] == 15 and cut.results["knowledge_cutoff"] == "2020-01-01"


def test_a_file_without_metadata_says_it_used_the_league_recipe(tmp_path: Path, bwrap: BwrapSandbox) -> None:
    qset = read_question_file(ASSETS / "authors-layout.db", "test_cases")
    result = run_questions(qset, seat("standin-sharp"), tmp_path, clock(), RunOptions(trials=1), sandbox=bwrap)
    assert result.results["recipe_source"] == "league" and "league's own recipe" in result.results["recipe_note"]
    assert recount(result.public).returncode == 0


def test_silent_and_crashing_seats_are_no_reply(tmp_path: Path, bwrap: BwrapSandbox) -> None:
    qset = read_question_file(shipped_question_file())
    silent = run_questions(qset, seat("standin-sharp", mode="silent"), tmp_path / "s", clock(),
                           RunOptions(trials=2, limit=2), sandbox=bwrap)
    overall = silent.results["scores"]["overall"]
    assert (overall["answered"], overall["no_reply"], overall["pass_at_1"]) == (0, 4, None)
    crash = run_questions(qset, seat("standin-sharp", mode="crash"), tmp_path / "c", clock(),
                          RunOptions(trials=1, limit=1), sandbox=bwrap)
    [reply] = [x for x in lines(tmp_path / "c") if x["kind"] == "eval.reply"]
    assert reply["status"] == "no_reply" and reply["failure"] == "seat_fault" and "simulated crash" in reply["detail"]
    assert crash.results["scores"]["overall"]["no_reply"] == 1


def test_a_seat_without_a_cutoff_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    qset = read_question_file(shipped_question_file())
    nameless = seat("standin-sharp").model_copy(update={"knowledge_cutoff": None})
    with pytest.raises(EvalError, match="declares no knowledge cutoff"):
        run_questions(qset, nameless, tmp_path, clock(), RunOptions())
    assert not (tmp_path / "eval-book.jsonl").exists()


def test_concurrency_is_capped_by_the_seats_limit(tmp_path: Path, bwrap: BwrapSandbox) -> None:
    qset = read_question_file(shipped_question_file())
    run_questions(qset, seat("standin-sharp"), tmp_path, clock(), RunOptions(trials=1, concurrency=40, limit=3),
                  sandbox=bwrap)
    opened = lines(tmp_path)[0]
    assert opened["concurrency"] == {"asked": 40, "seat_limit": 16, "used": 16}


def test_the_cli_runs_appends_runs_and_recounts(tmp_path: Path, bwrap: BwrapSandbox) -> None:
    runner = CliRunner()
    out = tmp_path / "eval"
    for name in ("standin-sharp", "standin-guess"):
        result = runner.invoke(app, ["eval", "questions", "--seat", name, "--trials", "2", "--limit", "4",
                                     "--out", str(out), "--probabilities"])
        assert result.exit_code == 0, result.output
        assert "retrieval: closed-book (policy none, no network)" in result.output
        assert "probabilities: 8 replies" in result.output
    index = json.loads((out / "public" / "index.json").read_text())
    assert [e["run_id"] for e in index] == ["e001-standin-sharp", "e002-standin-guess"]
    result = runner.invoke(app, ["eval", "recount", str(out / "public")])
    assert result.exit_code == 0, result.output
    assert "recount: 2 run(s), 0 difference(s)" in result.output
