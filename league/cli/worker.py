"""`league worker`: run a lab's seats on the lab's own machine, for the league, through the broker.

It refuses to start on a configuration that would break lab isolation or send the lab's password in
clear (docs/workers.md, "Refusals"), and when the seats' sandbox cannot run here; then it is a Celery
worker consuming only the lab's queue, with the settings of :mod:`league.workers.celery_app`.
"""

from __future__ import annotations

import socket
from typing import Annotated

import typer

from league.cli.broker import (
    BrokerOpt,
    CaFileOpt,
    CertFileOpt,
    KeyFileOpt,
    PasswordFileOpt,
    refuse_unsafe,
)
from league.errors import LeagueError
from league.log import configure
from league.workers.broker import parse_target
from league.workers.celery_app import make_app
from league_agents.registry import make_sandbox
from sandbox.interface import SandboxError

#: Pool processes of a worker unless told otherwise: a lab's usual handful of seats start together. Each
#: is a process of its own (about 30 MB beyond what it shares with the worker) whose seat spends its run
#: waiting on its vendor, not on the CPU; a lab with more seats sets ``--concurrency`` to their number.
CONCURRENCY = 8


def worker(
    queue: Annotated[str, typer.Option("--queue", envvar="LEAGUE_WORKER_QUEUE",
                                       help="the lab's queue (the roster's `worker`), e.g. lab-a")],
    broker: BrokerOpt,
    password_file: PasswordFileOpt = None,
    ca_file: CaFileOpt = "",
    cert_file: CertFileOpt = "",
    key_file: KeyFileOpt = "",
    concurrency: Annotated[int, typer.Option(
        "--concurrency", envvar="LEAGUE_WORKER_CONCURRENCY", min=1,
        help="seats run at once (processes, about 30 MB each); at least the lab's number of seats, so that one "
             "ask starts all of them at once")] = CONCURRENCY,
    name: Annotated[str, typer.Option(
        "--name", envvar="LEAGUE_WORKER_NAME", help="this worker's name in replies (default: the host name)")] = "",
    log_level: Annotated[str, typer.Option(
        "--log-level", envvar="LEAGUE_WORKER_LOG_LEVEL", help="DEBUG, INFO, WARNING, ERROR")] = "INFO",
    check_only: Annotated[bool, typer.Option(
        "--check", envvar="LEAGUE_WORKER_CHECK", help="check the configuration, sandbox and login, then exit")] = False,
) -> None:
    """Serve the lab's queue: run each ask's seat in the local sandbox, publish the raw reply."""
    target = parse_target(broker, password_file=password_file, ca_file=ca_file, cert_file=cert_file,
                          key_file=key_file)
    refuse_unsafe(target, queue)
    _sandbox_ready()
    if check_only:
        typer.echo(f"ok: queue {queue!r} at {target.display()}; the sandbox runs here")
        return
    configure(json_logs=True, level=log_level)  # the long-running worker logs JSON lines (journald)
    app = make_app(target, queue, worker=True)
    app.worker_main(["worker", "--queues", queue, "--concurrency", str(concurrency), "--pool", "prefork",
                     "--hostname", f"{queue}@{name or socket.gethostname()}", "--without-gossip",
                     "--without-mingle", "--without-heartbeat", "--loglevel", log_level.upper()])


def _sandbox_ready() -> None:
    """The seats run in bubblewrap here, capped by a cgroup: refuse to take asks that could not run."""
    try:
        make_sandbox()
    except SandboxError as exc:
        raise LeagueError(f"the seats' sandbox cannot run on this host: {exc.message}", fix=exc.fix) from None


def register(app: typer.Typer) -> None:
    app.command("worker")(worker)

