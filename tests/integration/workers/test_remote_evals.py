"""An evaluation fanned out over one lab's two workers on two hosts (network namespaces, TLS): one ask
per (question, trial), each sealed as an `eval.reply` line on arrival, and the same replies, verdicts
and scores as the same run on this host (the stand-in is deterministic by seed, question and trial).
Only the declared wall-clock fields differ: `started_at`, `finished_at`, `elapsed_s`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from worker_hosts import Hosts, Lab, WorkerProc, start_worker

from league.book import iter_lines
from league.clock import SystemClock
from league.evals.config import EvalSeat, find_seat, load_config
from league.evals.questions import read_question_file, shipped_question_file
from league.evals.run import RunOptions, run_questions
from league.workers.broker import BrokerTarget
from league.workers.remote import RemoteSeatRunner

pytestmark = [pytest.mark.slow, pytest.mark.sandbox]
WALL_CLOCK = ("started_at", "finished_at", "elapsed_s", "at", "n", "prev", "link", "seal")


@pytest.fixture(scope="module")
def lab(hosts: Hosts, make_module_lab: Callable[[], Lab],
        tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Lab, list[WorkerProc]]]:
    """One lab with a worker on each of two hosts, both serving its queue."""
    folder = tmp_path_factory.mktemp("eval-workers")
    made = make_module_lab()
    workers: list[WorkerProc] = []
    try:
        for host in (hosts.a, hosts.b):
            workers.append(start_worker(host, queue=made.queue, password_file=made.password_file,
                                        ca_file=hosts.ca_file, folder=folder, name=host.name, concurrency=2,
                                        wait=False))
        for worker in workers:  # started side by side
            worker.wait_ready()
        yield made, workers
    finally:
        for worker in workers:
            worker.stop()


def replies(out: Path) -> dict[tuple[str, int], dict[str, Any]]:
    got = [ln.content for ln in iter_lines(out / "eval-book.jsonl") if ln.kind == "eval.reply"]
    return {(x["question_id"], x["trial"]): {k: v for k, v in x.items() if k not in WALL_CLOCK} for x in got}


def test_a_question_set_fans_out_over_two_workers_with_the_replies_of_a_local_run(
        lab: tuple[Lab, list[WorkerProc]], league_account: BrokerTarget, tmp_path: Path) -> None:
    made, workers = lab
    qset = read_question_file(shipped_question_file())
    local_seat = find_seat(load_config(), "standin-sloppy")
    remote_seat = EvalSeat.model_validate({**local_seat.model_dump(),
                                           "seat": {**local_seat.seat.model_dump(), "worker": made.queue}})
    opts = RunOptions(trials=2, concurrency=4, limit=6)
    here = run_questions(qset, local_seat, tmp_path / "local", SystemClock(), opts)
    runner = RemoteSeatRunner(league_account, SystemClock(), grace_s=5)
    try:
        there = run_questions(qset, remote_seat, tmp_path / "remote", SystemClock(), opts, runner=runner)
    finally:
        runner.close()
    ours, theirs = replies(tmp_path / "local"), replies(tmp_path / "remote")
    assert len(ours) == 12 and ours == theirs
    assert any(x["status"] == "answered" for x in theirs.values())
    assert there.results["scores"]["overall"] == here.results["scores"]["overall"]
    for worker in workers:  # both hosts took part
        assert "worker.ask_replied" in worker.text(), worker.text()[-2000:]
