"""`league broker`: the operator's verbs for the broker remote seats go through (docs/workers.md).

``init`` creates the league's own broker user; ``add-lab`` gives a lab its vhost, user and queues;
``remove-lab`` takes them away; ``check`` tries a lab's login the way ``league worker`` does; ``status``
shows each lab's queue (asks waiting, workers connected, replies not yet taken) and, on the broker
host, whether each lab's account has exactly a lab's rights.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from league.workers import broker as b
from league.workers.broker import (
    Rabbitmqctl,
    add_league_user,
    config_problems,
    isolation_problems,
    parse_target,
    read_or_make_password,
)
from league.workers.broker import remove_lab as remove
from league.workers.errors import WorkerConfigError
from league.workers.topology import check_queue_name, vhost_for

if TYPE_CHECKING:
    from league.workers.broker import BrokerTarget

broker_app = typer.Typer(help="Set up and check the broker of remote seats (RabbitMQ).", no_args_is_help=True)

BrokerOpt = Annotated[str, typer.Option(
    "--broker", envvar="LEAGUE_BROKER_URL", help="amqp(s)://USER@HOST:PORT/VHOST (password from --password-file)")]
PasswordFileOpt = Annotated[Path | None, typer.Option(
    "--password-file", envvar="LEAGUE_BROKER_PASSWORD_FILE", help="file holding the broker user's password")]
CaFileOpt = Annotated[str, typer.Option(
    "--ca-file", envvar="LEAGUE_BROKER_CA_FILE", help="CA certificate the broker's TLS certificate is checked against")]
CertFileOpt = Annotated[str, typer.Option(
    "--cert-file", envvar="LEAGUE_BROKER_CERT_FILE", help="client certificate (when the broker asks for one)")]
KeyFileOpt = Annotated[str, typer.Option(
    "--key-file", envvar="LEAGUE_BROKER_KEY_FILE", help="the client certificate's private key")]
CtlOpt = Annotated[str, typer.Option(
    "--rabbitmqctl", envvar="LEAGUE_RABBITMQCTL", help="the rabbitmqctl command on the broker host")]
LeagueUserOpt = Annotated[str, typer.Option(
    "--league-user", envvar="LEAGUE_BROKER_LEAGUE_USER", help="the league's own broker user")]


@broker_app.command("init")
def init(
    password_file: Annotated[Path, typer.Option(
        "--password-file", envvar="LEAGUE_BROKER_PASSWORD_FILE",
        help="the league user's password: read if the file exists, else generated into it (mode 0600)")],
    league_user: LeagueUserOpt = "league",
    rabbitmqctl: CtlOpt = "rabbitmqctl",
) -> None:
    """Create (or re-password) the league's broker user; run on the broker host."""
    add_league_user(Rabbitmqctl(rabbitmqctl.split()), league_user, read_or_make_password(password_file))
    typer.echo(f"league broker user {league_user!r} ready (password in {password_file})")


@broker_app.command("add-lab")
def add_lab(
    queue: Annotated[str, typer.Argument(help="the lab's queue name (the roster's `worker`), e.g. lab-a")],
    lab_password_file: Annotated[Path, typer.Option(
        "--lab-password-file", envvar="LEAGUE_BROKER_LAB_PASSWORD_FILE",
        help="the lab's password: read if the file exists, else generated into it (mode 0600); hand it to the lab")],
    broker: BrokerOpt = "amqp://league@127.0.0.1:5672/",
    password_file: PasswordFileOpt = None,
    ca_file: CaFileOpt = "",
    rabbitmqctl: CtlOpt = "rabbitmqctl",
) -> None:
    """Give a lab its vhost league-QUEUE, its user QUEUE (read its queue, write replies, nothing else) and
    its two queues; idempotent (re-running resets the lab's rights and sets the password from the file)."""
    target = b.parse_target(broker, password_file=password_file, ca_file=ca_file)
    b.add_lab(b.Rabbitmqctl(rabbitmqctl.split()), queue, b.read_or_make_password(lab_password_file), league=target)
    typer.echo(f"lab {queue!r}: vhost {vhost_for(queue)!r}, user {queue!r} (password in {lab_password_file}), "
               f"queues {queue!r} and 'league.replies' declared")


@broker_app.command("remove-lab")
def remove_lab(
    queue: Annotated[str, typer.Argument(help="the lab's queue name")],
    rabbitmqctl: CtlOpt = "rabbitmqctl",
) -> None:
    """Delete the lab's vhost (its queues and any message in them) and its user."""
    remove(Rabbitmqctl(rabbitmqctl.split()), queue)
    typer.echo(f"lab {queue!r} removed")


@broker_app.command("check")
def check(
    queue: Annotated[str, typer.Option("--queue", envvar="LEAGUE_WORKER_QUEUE", help="the lab's queue")],
    broker: BrokerOpt,
    password_file: PasswordFileOpt = None,
    ca_file: CaFileOpt = "",
    cert_file: CertFileOpt = "",
    key_file: KeyFileOpt = "",
) -> None:
    """Check a lab's broker login exactly as `league worker` does before it starts; exit 2 if refused."""
    target = parse_target(broker, password_file=password_file, ca_file=ca_file, cert_file=cert_file,
                          key_file=key_file)
    refuse_unsafe(target, queue)
    typer.echo(f"ok: {target.display()} serves queue {queue!r} with a lab's rights only")


def refuse_unsafe(target: BrokerTarget, queue: str) -> None:
    """Raise :class:`WorkerConfigError` listing every problem of a lab's login (static, then live)."""
    check_queue_name(queue)
    problems = config_problems(target, queue)
    if not problems:
        problems = isolation_problems(target, queue)
    if problems:
        raise WorkerConfigError(
            f"refusing to serve queue {queue!r} as {target.display()}:\n"
            + "\n".join(f"  - {p.message}" for p in problems),
            fix="; ".join(p.fix for p in problems))


@broker_app.command("status")
def status(
    queues: Annotated[list[str], typer.Argument(help="lab queues to show")],
    broker: BrokerOpt = "amqp://league@127.0.0.1:5672/",
    password_file: PasswordFileOpt = None,
    ca_file: CaFileOpt = "",
    accounts: Annotated[bool, typer.Option(
        "--accounts/--no-accounts", envvar="LEAGUE_BROKER_CHECK_ACCOUNTS",
        help="also check each lab user's rights with rabbitmqctl (on the broker host)")] = False,
    rabbitmqctl: CtlOpt = "rabbitmqctl",
) -> None:
    """Asks waiting, workers connected and replies not yet taken, per lab queue; exit 1 on a problem."""
    target = b.parse_target(broker, password_file=password_file, ca_file=ca_file)
    failed = 0
    for queue in queues:
        try:
            st = b.queue_status(target, queue)
            typer.echo(f"{queue}: {st.asks_waiting} asks waiting, {st.workers} workers, "
                       f"{st.replies_waiting} replies not yet taken")
            failed += st.workers == 0
        except Exception as exc:  # noqa: BLE001 - one lab's trouble is one line, not a crash
            failed += 1
            typer.echo(f"{queue}: FAIL {getattr(exc, 'message', exc)}")
        if accounts:
            for p in b.lab_account_problems(b.Rabbitmqctl(rabbitmqctl.split()), queue):
                failed += 1
                typer.echo(f"{queue}: FAIL {p.message}\n        fix: {p.fix}")
    if failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.add_typer(broker_app, name="broker")
