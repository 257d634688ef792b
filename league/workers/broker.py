"""The broker as the league sees it: where it is, whether a worker's account is safe, and lab provisioning.

Three parts, each small:

* :class:`BrokerTarget`: a parsed ``amqp://``/``amqps://`` URL plus the TLS files, the password read from a
  file (so it is never on a command line), and the kombu connection for any vhost.
* :func:`config_problems` and :func:`isolation_problems`: why ``league worker`` refuses to start — a
  configuration that would let one lab see another's asks or send a password in clear.
* :class:`Rabbitmqctl` and :func:`add_lab`/:func:`remove_lab`: the operator's provisioning on the broker
  host (vhost, user, permissions), then the league's own declaration of the lab's two queues.
"""

from __future__ import annotations

import ipaddress
import secrets
import ssl
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict
from urllib.parse import quote, unquote, urlsplit

import structlog
from kombu.connection import Connection

from league import inputs
from league.workers.errors import BrokerError, WorkerConfigError
from league.workers.topology import (
    REPLIES_QUEUE,
    asks_queue,
    lab_permissions,
    replies_queue,
    vhost_for,
)

if TYPE_CHECKING:
    from league.config import Config

log = structlog.get_logger(__name__)
DEFAULT_PORTS = {"amqp": 5672, "amqps": 5671}
CONNECT_TIMEOUT_S = 10.0


class SslOptions(TypedDict, total=False):
    """py-amqp's TLS options as :meth:`BrokerTarget.ssl_options` gives them (``ssl.wrap_socket`` names)."""

    cert_reqs: ssl.VerifyMode
    server_hostname: str
    ca_certs: str
    certfile: str
    keyfile: str | None


@dataclass(frozen=True)
class Problem:
    """One reason a worker or a lab account is refused, with the fix."""

    message: str
    fix: str


@dataclass(frozen=True)
class BrokerTarget:
    """Where the broker is and who logs in; ``password`` never appears in ``repr`` or :meth:`display`."""

    scheme: str
    host: str
    port: int
    user: str
    password: str = field(repr=False)
    vhost: str
    ca_file: str = ""
    cert_file: str = ""
    key_file: str = ""

    @property
    def tls(self) -> bool:
        return self.scheme == "amqps"

    @property
    def loopback(self) -> bool:
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False

    def with_vhost(self, vhost: str) -> BrokerTarget:
        return replace(self, vhost=vhost)

    def display(self) -> str:
        """The URL without the password, for logs and messages."""
        return f"{self.scheme}://{self.user}@{self.host}:{self.port}/{quote(self.vhost, safe='')}"

    def url(self) -> str:
        """The full URL (password included): for the broker library only, never for a log or a process list."""
        creds = f"{quote(self.user, safe='')}:{quote(self.password, safe='')}"
        return f"{self.scheme}://{creds}@{self.host}:{self.port}/{quote(self.vhost, safe='')}"

    def ssl_options(self) -> SslOptions | bool:
        """py-amqp's TLS options: the certificate is verified, and so is the host name (py-amqp checks
        the name only when ``server_hostname`` is given, so it always is)."""
        if not self.tls:
            return False
        opts: SslOptions = {"cert_reqs": ssl.CERT_REQUIRED, "server_hostname": self.host}
        if self.ca_file:
            opts["ca_certs"] = self.ca_file
        if self.cert_file:
            opts["certfile"] = self.cert_file
            opts["keyfile"] = self.key_file or None
        return opts

    def connection(self, *, heartbeat: float = 0) -> Connection:
        """A kombu connection to this vhost (not yet connected); ``heartbeat`` 0 (kombu's default) sends none."""
        return Connection(self.url(), ssl=self.ssl_options(), connect_timeout=CONNECT_TIMEOUT_S, heartbeat=heartbeat)


def parse_target(url: str, *, password_file: str | Path | None = None, ca_file: str = "", cert_file: str = "",
                 key_file: str = "") -> BrokerTarget:
    """A :class:`BrokerTarget` from a URL; the password comes from ``password_file`` when given (a systemd
    credential, a 0600 file), else from the URL."""
    parts = urlsplit(url.strip())
    if parts.scheme not in DEFAULT_PORTS:
        raise WorkerConfigError(f"broker URL {_redact(url)!r} is not amqp:// or amqps://",
                                fix="give the broker as amqps://USER@HOST:5671/league-QUEUE")
    if not parts.hostname or not parts.username:
        raise WorkerConfigError(f"broker URL {_redact(url)!r} names no host or no user",
                                fix="give the broker as amqps://USER@HOST:5671/league-QUEUE")
    password = unquote(parts.password or "")
    if password_file:
        password = _password_text(Path(password_file))
    if not password:
        raise WorkerConfigError(f"no password for broker user {unquote(parts.username)!r}",
                                fix="give --password-file (LEAGUE_BROKER_PASSWORD_FILE)")
    for name, path in (("CA", ca_file), ("client certificate", cert_file), ("client key", key_file)):
        if path and not Path(path).is_file():
            raise WorkerConfigError(f"broker TLS {name} file {path} does not exist",
                                    fix="copy the broker's CA certificate to the worker host (docs/workers.md)")
    vhost = unquote(parts.path[1:]) if len(parts.path) > 1 else "/"
    return BrokerTarget(parts.scheme, parts.hostname, parts.port or DEFAULT_PORTS[parts.scheme],
                        unquote(parts.username), password, vhost, ca_file, cert_file, key_file)


def _redact(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return url.replace(f":{parts.password}@", ":***@", 1)


# ------------------------------------------------------------------------------------- worker checks
def config_problems(target: BrokerTarget, queue: str) -> list[Problem]:
    """What is wrong with a worker's broker settings before it connects: the shared administrator,
    a vhost that is not the queue's own, a password sent in clear over a network."""
    problems = []
    if target.user == "guest":
        problems.append(Problem(
            "the broker user is `guest`, RabbitMQ's default administrator: it can read every lab's asks",
            f"ask the operator for the lab's own user (`league broker add-lab {queue}` on the broker host)"))
    if target.vhost != vhost_for(queue):
        problems.append(Problem(
            f"queue {queue!r} lives in the vhost {vhost_for(queue)!r}, not {target.vhost!r} (one vhost per lab)",
            f"use the broker URL .../{vhost_for(queue)} (or the queue the vhost belongs to)"))
    if not target.tls and not target.loopback:
        problems.append(Problem(
            f"plain AMQP to {target.host}: the lab's password and every ask would cross the network in clear",
            f"use amqps://{target.user}@{target.host}:5671/{vhost_for(queue)} with --ca-file (deploy/workers/)"))
    return problems


def isolation_problems(target: BrokerTarget, queue: str) -> list[Problem]:
    """Live checks of the worker's account: it logs in to its vhost, its queue exists, and it can NOT
    read the replies queue nor enter the shared default vhost (either would mean permissions wider
    than a lab's, as ``league broker add-lab`` grants them)."""
    with target.connection() as conn:
        connect(conn, target)
        channel = conn.channel()
        try:
            channel.queue_declare(queue, passive=True)
        except conn.channel_errors as exc:
            return [Problem(f"the asks queue {queue!r} does not exist in {target.vhost!r}: {exc}",
                            f"the operator runs `league broker add-lab {queue}` (it declares the queue)")]
        problems = []
        if _can_read(conn, REPLIES_QUEUE):
            problems.append(Problem(
                f"user {target.user!r} can read {REPLIES_QUEUE!r}: its permissions are wider than a lab's",
                f"on the broker host: league broker add-lab {queue} (it resets them to read {queue!r} only)"))
    if target.vhost != "/" and _can_enter(target.with_vhost("/")):
        problems.append(Problem(
            f"user {target.user!r} can enter the shared default vhost '/': its credentials reach beyond its lab",
            f"on the broker host: rabbitmqctl clear_permissions -p / {target.user}"))
    return problems


def connect(conn: Connection, target: BrokerTarget) -> None:
    """Connect ``conn``; a refusal becomes a :class:`BrokerError` naming the target (never its password)."""
    try:
        conn.connect()
    except Exception as exc:
        raise BrokerError(f"cannot log in to {target.display()}: {exc}",
                          fix="check the host, port, user, password file, CA file and that the vhost exists") from exc


def _can_read(conn: Connection, queue: str) -> bool:
    """Whether this login may take messages from ``queue``; a message taken is put back unread."""
    channel = conn.channel()
    try:
        message = channel.basic_get(queue, no_ack=False)
    except conn.channel_errors:
        return False
    if message is not None:
        channel.basic_reject(message.delivery_tag, requeue=True)
    channel.close()
    return True


def _can_enter(target: BrokerTarget) -> bool:
    with target.connection() as conn:
        try:
            conn.connect()
        except Exception:  # noqa: BLE001 - any refusal (or failure) means: cannot enter
            return False
        return True


# -------------------------------------------------------------------------------------- provisioning
class Rabbitmqctl:
    """``rabbitmqctl`` on the broker host (as root or the rabbitmq user); passwords go through stdin.

    Each call starts an Erlang VM (about a second), so independent calls run side by side (:meth:`run_all`)."""

    def __init__(self, command: Sequence[str] = ("rabbitmqctl",), timeout_s: float = 120.0) -> None:
        self.command = list(command)
        self.timeout_s = timeout_s

    def run(self, *args: str, stdin: str | None = None) -> str:
        return self.run_all([(args, stdin)])[0]

    def run_all(self, calls: Sequence[tuple[Sequence[str], str | None]], *, missing_ok: bool = False) -> list[str]:
        """Run the calls concurrently; their outputs in order. ``missing_ok``: a call failing because its
        vhost or user does not exist counts as done (for deletions)."""
        try:
            procs = [subprocess.Popen([*self.command, "--silent", *args], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                     for args, _ in calls]
        except FileNotFoundError:
            raise BrokerError("rabbitmqctl is not installed here",
                              fix="run `league broker` on the broker host (apt-get install -y rabbitmq-server)"
                              ) from None
        except OSError as exc:
            raise BrokerError(f"{self.command[0]} cannot be run ({exc.strerror or exc})",
                              fix="give --rabbitmqctl the path of RabbitMQ's rabbitmqctl") from None
        outs = []
        for (args, stdin), proc in zip(calls, procs, strict=True):
            try:
                out, err = proc.communicate(stdin, timeout=self.timeout_s)
            except subprocess.TimeoutExpired:
                proc.kill()
                raise BrokerError(f"rabbitmqctl {args[0]} did not answer in {self.timeout_s:.0f} s",
                                  fix="check the broker is running: rabbitmqctl await_startup") from None
            if proc.returncode != 0 and not (missing_ok and "does not exist" in f"{out}{err}"):
                raise BrokerError(f"rabbitmqctl {args[0]} failed: {(err or out).strip()[-500:]}",
                                  fix="run as root on the broker host, with the broker running")
            outs.append(out)
        return outs

    @staticmethod
    def rows(text: str) -> list[list[str]]:
        return [line.split("\t") for line in text.splitlines() if line.strip()]

    def listing(self) -> tuple[set[str], dict[str, str]]:
        """(vhosts, users with their tags), asked side by side."""
        vhosts, users = self.run_all([(("list_vhosts",), None), (("list_users",), None)])
        return ({r[0] for r in self.rows(vhosts)},
                {r[0]: r[1] if len(r) > 1 else "" for r in self.rows(users)})

    def users(self) -> dict[str, str]:
        return self.listing()[1]

    def user_permissions(self, user: str) -> list[tuple[str, str, str, str]]:
        return [(r[0], r[1], r[2], r[3]) for r in self.rows(self.run("list_user_permissions", user)) if len(r) >= 4]

    @staticmethod
    def set_user_call(user: str, password: str, exists: bool) -> tuple[Sequence[str], str | None]:
        """Create the user, or set its password when it exists (the password file is the truth)."""
        return (("change_password", user) if exists else ("add_user", user)), password + "\n"


def _password_text(path: Path) -> str:
    """A password file's text: a small regular UTF-8 file (a FIFO or a device is refused, never read)."""
    try:
        return inputs.read_text(path, what="password file", max_bytes=4096).strip()
    except inputs.InputError as exc:
        raise WorkerConfigError(exc.message, fix="point --password-file (LEAGUE_BROKER_PASSWORD_FILE) at the "
                                "password's file, one line") from None


def read_or_make_password(path: Path) -> str:
    """The password in ``path``; a new random one written there (mode 0600) when the file does not exist."""
    if path.exists():
        text = _password_text(path)
        if not text:
            raise WorkerConfigError(f"password file {path} is empty", fix=f"delete {path} to have one generated")
        return text
    password = secrets.token_urlsafe(32)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600, exist_ok=False)
    path.write_text(password + "\n", encoding="utf-8")
    return password


def add_league_user(ctl: Rabbitmqctl, user: str, password: str) -> None:
    """The league's own broker user: no tags (not an administrator); it gets rights only per lab vhost."""
    if user == "guest":
        raise WorkerConfigError("the league's broker user cannot be `guest`", fix="choose a name like `league`")
    ctl.run_all([ctl.set_user_call(user, password, user in ctl.users())])


def add_lab(ctl: Rabbitmqctl, queue: str, password: str, *, league: BrokerTarget) -> None:
    """A lab's vhost and user with a lab's permissions; the league user's full rights there; then the lab's
    two queues, declared by the league (the lab's user may not declare anything). Re-running resets an
    existing lab's rights (tags and permissions elsewhere removed) and sets its password from the file."""
    vhost = vhost_for(queue)
    vhosts, users = ctl.listing()
    if league.user not in users:
        raise WorkerConfigError(f"the league's broker user {league.user!r} does not exist",
                                fix=f"league broker init --league-user {league.user} first")
    first: list[tuple[Sequence[str], str | None]] = [] if vhost in vhosts else [(("add_vhost", vhost), None)]
    first.append(ctl.set_user_call(queue, password, queue in users))
    ctl.run_all(first)
    grants: list[tuple[Sequence[str], str | None]] = [
        (("set_permissions", "-p", vhost, queue, *lab_permissions(queue)), None),
        (("set_permissions", "-p", vhost, league.user, ".*", ".*", ".*"), None)]
    if queue in users:
        grants.append((("set_user_tags", queue), None))
        grants += [(("clear_permissions", "-p", other, queue), None)
                   for other, *_ in ctl.user_permissions(queue) if other != vhost]
    ctl.run_all(grants)
    declare_lab(league.with_vhost(vhost), queue)


def declare_lab(target: BrokerTarget, queue: str) -> None:
    """Declare (idempotently) the lab's asks queue and the replies queue, as the league user."""
    with target.connection() as conn:
        connect(conn, target)
        channel = conn.channel()
        asks_queue(queue, declare=True)(channel).declare()
        replies_queue(queue)(channel).declare()


def remove_lab(ctl: Rabbitmqctl, queue: str) -> None:
    """Delete the lab's vhost (its queues and messages with it) and its user; nothing there is fine."""
    ctl.run_all([(("delete_vhost", vhost_for(queue)), None), (("delete_user", queue), None)], missing_ok=True)


def lab_account_problems(ctl: Rabbitmqctl, queue: str) -> list[Problem]:
    """The operator's view (rabbitmqctl): the lab's user has a lab's rights in its vhost and nothing more."""
    users = ctl.users()
    if queue not in users:
        return [Problem(f"no broker user {queue!r}", f"league broker add-lab {queue}")]
    problems = []
    if users[queue].strip("[]"):
        problems.append(Problem(f"user {queue!r} has tags {users[queue]} (a lab's user has none)",
                                f"rabbitmqctl set_user_tags {queue}"))
    expected = (vhost_for(queue), *lab_permissions(queue))
    for perm in ctl.user_permissions(queue):
        if perm != expected:
            problems.append(Problem(f"user {queue!r} has permissions {perm} (expected {expected})",
                                    f"league broker add-lab {queue} (it resets them)"))
    return problems


@dataclass(frozen=True)
class QueueStatus:
    """A lab's queues as the league sees them: asks waiting, workers consuming, replies not yet taken."""

    queue: str
    asks_waiting: int
    workers: int
    replies_waiting: int


def queue_status(target: BrokerTarget, queue: str) -> QueueStatus:
    """Counts from passive declarations (they change nothing on the broker)."""
    with target.with_vhost(vhost_for(queue)).connection() as conn:
        connect(conn, target)
        channel = conn.channel()
        asks = channel.queue_declare(queue, passive=True)
        replies = channel.queue_declare(REPLIES_QUEUE, passive=True)
    return QueueStatus(queue, asks.message_count, asks.consumer_count, replies.message_count)


def league_target(config: Config) -> BrokerTarget:
    """The league's own broker login, from ``[workers]`` of league.toml (relative paths: the config folder)."""
    w = config.settings.workers

    def here(path: str) -> str:
        return str(config.folder / path) if path else ""

    if not w.broker_url:
        raise WorkerConfigError(f"{config.folder / 'league.toml'}: [workers] broker_url is not set",
                                fix="set [workers] broker_url and password_file (or LEAGUE_BROKER_URL and "
                                    "LEAGUE_BROKER_PASSWORD_FILE); docs/workers.md")
    return parse_target(w.broker_url, password_file=here(w.password_file), ca_file=here(w.ca_file),
                        cert_file=here(w.cert_file), key_file=here(w.key_file))


def roster_queues(config: Config) -> dict[str, str]:
    """Seat → its lab's queue, for the roster entries that run on a worker."""
    return {s.name: s.worker for s in config.roster.seat if s.worker}


def broker_report(config: Config) -> list[tuple[str, QueueStatus | None, str]]:
    """Per lab queue the roster names: its status on the broker, or why it could not be read."""
    queues = sorted(set(roster_queues(config).values()))
    if not queues:
        return []
    try:
        target = league_target(config)
    except WorkerConfigError as exc:
        return [(q, None, exc.message) for q in queues]
    out: list[tuple[str, QueueStatus | None, str]] = []
    for queue in queues:
        try:
            out.append((queue, queue_status(target, queue), ""))
        except Exception as exc:  # noqa: BLE001 - one lab's trouble is one row, not a crash
            out.append((queue, None, str(getattr(exc, "message", exc))))
    return out
