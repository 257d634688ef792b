"""``league eval questions``: one seat, one question file, N trials per question, sealed as they arrive.

The order of a run:

1. admission (leakage rule) and ``--limit`` decide the questions; every other question is listed as excluded
   with its reason;
2. every admitted question's ask text is rendered and written under its SHA-256 (``prompts/``);
3. ``eval.open`` is sealed: the seat, its cutoff, the policy and retrieval label, the file's hash, the recipe's
   hash and source, the admitted questions and every prompt hash — all before the first ask leaves;
4. the trials run concurrently (at most the smaller of ``--concurrency`` and the seat's own limit), each in
   the seat's real sandbox under the run's network policy; each reply is written under its hash, parsed,
   and its ``eval.reply`` line (prompt hash, raw-reply hash, verdict) sealed the moment it arrives. A seat
   whose entry names a lab ``worker`` fans out over that lab's workers instead: one ask per (question,
   trial) through the day's seat runner (league.runner), each sealed as it arrives, timed by this
   host's clock at arrival; the worker runs it under the same policy (the ask's context carries it);
5. the results are computed from the book, written to the open-data folder, and ``eval.close`` seals the
   hash of ``results.json``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

import structlog

from league.answers import clean_label, clean_text
from league.clock import Clock, iso_seconds
from league.evals import ledger as L
from league.evals.admission import admit
from league.evals.config import EvalSeat
from league.evals.errors import EvalError
from league.evals.parse import parse_reply
from league.evals.policy import Policy, retrieval
from league.evals.prompts import PROBABILITY_BLOCK, ask_text
from league.evals.questions import Question, QuestionSet
from league.evals.results import Results, build_results, publish_folder, write_run
from league.evals.seats import policy_seat, reported_cost
from league.jsonvalue import JsonObject
from league.runner import SeatAsk, SeatRunner
from league.seatcore.files import dump_bytes, sha256_bytes, sha256_text, store_text
from league_agents.base import Ask, Now, Seat, SeatReply, SeatSpec, ask_one
from league_agents.registry import SeatFactory, build_seat, takes_hints
from sandbox.interface import Sandbox

log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class RunOptions:
    trials: int = 3
    policy: Policy = Policy.NONE
    concurrency: int = 4
    limit: int | None = None
    cutoff: date | None = None
    probabilities: bool = False


@dataclass(frozen=True)
class RunResult:
    run_id: str
    public: Path
    results: Results
    results_sha256: str


def plan(qset: QuestionSet, cutoff: date, limit: int | None) -> tuple[list[Question], list[dict[str, str]]]:
    """The admitted questions (file order) and every excluded one with its reason."""
    excluded = [{"id": qid, "reason": reason} for qid, reason in qset.invalid]
    admitted: list[Question] = []
    for q in qset.questions:
        verdict = admit(q, cutoff)
        if not verdict.admitted:
            excluded.append({"id": q.id, "reason": verdict.reason})
        elif limit is not None and len(admitted) >= limit:
            excluded.append({"id": q.id, "reason": f"beyond --limit {limit}"})
        else:
            admitted.append(q)
    return admitted, excluded


def _cutoff(seat: EvalSeat, override: date | None) -> date:
    cutoff = override or seat.knowledge_cutoff
    if cutoff is None:
        raise EvalError(f"seat {seat.name!r} declares no knowledge cutoff: the leakage rule cannot be applied",
                        fix="pass --cutoff YYYY-MM-DD or set options.knowledge_cutoff in its roster entry")
    return cutoff


def _plain(usage: Mapping[str, object]) -> JsonObject:
    """What a seat reported about its run, as JSON the book accepts: a value JSON cannot carry (a NaN, an
    object) must not keep a reply from being sealed."""
    try:
        plain: JsonObject = json.loads(json.dumps(dict(usage), allow_nan=False, default=str))
    except (TypeError, ValueError):
        return {"unreadable": str(dict(usage))[:1000]}
    return plain


@dataclass
class _Run:
    run_id: str
    seat: Seat
    hinted: bool
    book: L.EvalBook
    out: Path
    clock: Clock
    texts: dict[str, str]

    policy: Policy = Policy.NONE

    def ask_for(self, q: Question, k: int) -> Ask:
        """Trial ``k`` of question ``q``: the stored prompt text; the context names the run's policy (a
        remote worker applies it) and, for a stand-in only (its adapter takes hints), the recorded answer as
        its hint."""
        text = self.texts[q.id]
        context: JsonObject = {"kind": "eval", "policy": self.policy.value,
                               "question": q.as_json() | {"answer": None}}
        if self.hinted:
            context["hint"] = [*sorted(q.answer, key=ord)]
        return Ask(text=text, sha256=sha256_text(text), session=self.run_id, attempt=k, context=context)

    def trial(self, q: Question, k: int) -> None:
        ask = self.ask_for(q, k)
        reply = ask_one(self.seat, ask, self.clock.now)
        self.seal(q, k, ask.sha256, reply)

    def fan_out(self, runner: SeatRunner, jobs: Sequence[tuple[Question, int]], deadline_s: float) -> None:
        """Every (question, trial) at once through ``runner``; each reply sealed in arrival order."""
        asks = [SeatAsk(self.seat.spec, self.ask_for(q, k)) for q, k in jobs]
        deadline = self.clock.now() + timedelta(seconds=deadline_s)
        futures = runner.start(asks, self.clock.now, deadline)
        of: dict[Future[SeatReply], tuple[Question, int, str]] = {
            f: (q, k, a.ask.sha256) for f, (q, k), a in zip(futures, jobs, asks, strict=True)}
        for done in as_completed(futures):
            q, k, sha = of[done]
            self.seal(q, k, sha, done.result())

    def seal(self, q: Question, k: int, prompt_sha: str, reply: SeatReply) -> None:
        answered = bool(reply.raw.strip())
        raw_sha = store_text(self.out / "replies", reply.raw) if answered else None
        verdict = parse_reply(reply.raw, q) if answered else None
        self.book.append(L.REPLY, {
            "run_id": self.run_id, "question_id": q.id, "trial": k, "prompt_sha256": prompt_sha,
            "status": "answered" if answered else "no_reply", "raw_sha256": raw_sha,
            "failure": reply.failure.value if reply.failure else "", "detail": clean_text(reply.detail, 1000),
            "model": clean_label(reply.model), "version": clean_label(reply.version), "mode": clean_label(reply.mode),
            "started_at": iso_seconds(reply.started_at), "finished_at": iso_seconds(reply.finished_at),
            "elapsed_s": round((reply.finished_at - reply.started_at).total_seconds(), 3),
            "cost_usd": reported_cost(reply.usage), "usage": _plain(reply.usage),
            "verdict": verdict.as_json() if verdict else None,
            "correct": (verdict.letters == q.answer) if verdict else None,
        })


def _open_line(run_id: str, seat: EvalSeat, cutoff: date, qset: QuestionSet, opts: RunOptions, concurrency: int,
               admitted: list[Question], excluded: list[dict[str, str]], prompts: dict[str, str],
               questions_sha: str) -> dict[str, object]:
    return {
        "run_id": run_id, "seat": seat.name, "adapter": seat.seat.adapter, "model": seat.seat.model,
        "knowledge_cutoff": cutoff.isoformat(), "trials": opts.trials, "policy": opts.policy.value,
        "retrieval": retrieval(opts.policy).as_json(), "probabilities": opts.probabilities,
        "probability_block": PROBABILITY_BLOCK if opts.probabilities else None,
        "concurrency": {"asked": opts.concurrency, "seat_limit": seat.max_concurrency, "used": concurrency},
        "file": {"name": qset.path.name, "sha256": qset.sha256, "table": qset.table},
        "questions_sha256": questions_sha, "recipe_source": qset.recipe.source,
        "recipe_layout": qset.recipe.layout, "recipe_sha256": qset.recipe.sha256,
        "admitted": [q.id for q in admitted], "excluded": excluded, "prompts": prompts,
    }


def run_questions(qset: QuestionSet, seat: EvalSeat, out: Path, clock: Clock, opts: RunOptions, *,
                  sandbox: Sandbox | None = None, seat_factory: SeatFactory = build_seat,
                  say: Callable[[str], None] = lambda _: None, runner: SeatRunner | None = None) -> RunResult:
    """Run one seat on one question set; everything is sealed in ``out/eval-book.jsonl``.

    With ``runner`` (a remote seat runner: the seat's entry names a lab ``worker``) the trials fan out over
    that lab's workers; an ask not started within ``timeout_s × ⌈trials / concurrency⌉`` — the run's
    length at the expected parallelism — expires and is sealed as ``no_reply``."""
    cutoff = _cutoff(seat, opts.cutoff)
    admitted, excluded = plan(qset, cutoff, opts.limit)
    if not admitted:
        raise EvalError(f"no question of {qset.path.name} is admitted for {seat.name} (cutoff {cutoff}): "
                        f"{len(excluded)} excluded", fix="use questions that resolve after the seat's knowledge cutoff")
    texts = {q.id: ask_text(q, qset.recipe, probabilities=opts.probabilities) for q in admitted}
    prompts = {qid: store_text(out / "prompts", text) for qid, text in texts.items()}
    questions_doc = qset.as_json()
    concurrency = min(opts.concurrency, seat.max_concurrency)
    built = _RemoteSpec(seat.seat) if runner is not None else policy_seat(
        seat.seat, opts.policy, sandbox=sandbox, factory=seat_factory)
    with L.EvalBook(out / L.BOOK_NAME, clock) as book:
        run_id = f"e{book.runs() + 1:03d}-{seat.name}"
        book.append(L.OPEN, _open_line(run_id, seat, cutoff, qset, opts, concurrency, admitted, excluded, prompts,
                                        sha256_bytes(dump_bytes(questions_doc))))
        say(f"{run_id}: {len(admitted)} questions × {opts.trials} trials, {len(excluded)} excluded, "
            f"concurrency {concurrency}, retrieval {retrieval(opts.policy).label}")
        run = _Run(run_id, built, takes_hints(seat.seat.adapter), book, out, clock, texts, opts.policy)
        jobs = [(q, k) for q in admitted for k in range(1, opts.trials + 1)]
        if runner is not None:
            run.fan_out(runner, jobs, seat.seat.timeout_s * math.ceil(len(jobs) / concurrency))
        else:
            with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="eval") as pool:
                list(pool.map(lambda job: run.trial(*job), jobs))
        return _finish(book, run_id, out, qset, questions_doc)


class _RemoteSpec:
    """A seat that runs elsewhere: only its roster entry travels (the worker builds the seat)."""

    def __init__(self, spec: SeatSpec) -> None:
        self.spec = spec

    def ask(self, ask: Ask, now: Now) -> SeatReply:
        raise EvalError(f"seat {self.spec.name!r} runs on lab worker {self.spec.worker!r}, not here")


def _finish(book: L.EvalBook, run_id: str, out: Path, qset: QuestionSet,
            questions_doc: dict[str, object]) -> RunResult:
    by_id = {q.id: q for q in qset.questions}
    results = build_results(book.path, run_id, by_id)
    public = out / "public"
    replies = L.run_lines(book.path, L.REPLY, run_id=run_id)
    digest = write_run(public, results, replies, by_id)
    overall = results["scores"]["overall"]
    book.append(L.CLOSE, {"run_id": run_id, "replies": len(replies), "answered": overall["answered"],
                          "no_reply": overall["no_reply"], "results_sha256": digest})
    entry: JsonObject = {"run_id": run_id, "seat": results["seat"], "retrieval": results["retrieval"]["label"],
             "results": f"runs/{run_id}/results.json", "results_sha256": digest,
             "pass_at_1": overall["pass_at_1"]}
    publish_folder(out, public, entry, questions_doc)
    log.info("eval.finished", run_id=run_id, pass_at_1=overall["pass_at_1"])
    return RunResult(run_id, public, results, digest)
