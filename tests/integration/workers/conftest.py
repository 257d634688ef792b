"""Fixtures of the remote-seat tests: the real RabbitMQ on 127.0.0.1, with a vhost and a user made per
test (by the provisioning code under test) and deleted afterwards; lab hosts in network namespaces.

What is expensive is made once per session and shared where a test only reads it: the two lab hosts
(namespaces, TLS front) and the pool of two labs with one worker each (test_remote_seats, test_remote_day).
Tests that break a worker, a lab's rights or the broker make their own."""

from __future__ import annotations

import json
import shutil
import subprocess
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from worker_hosts import CRED_SECRET, WORKER_KEY, Hosts, Lab, Pool, lab_hosts, start_worker

from league.workers import broker as b
from league.workers.broker import BrokerTarget, Rabbitmqctl


def _broker_down() -> str:
    if shutil.which("rabbitmqctl") is None:
        return "rabbitmqctl is not installed (apt-get install -y rabbitmq-server)"
    out = subprocess.run(["rabbitmqctl", "--silent", "await_startup", "--timeout", "10"], capture_output=True,
                         text=True, timeout=60, check=False)
    return "" if out.returncode == 0 else f"RabbitMQ is not running: {out.stderr.strip()[-300:]}"


@pytest.fixture(scope="session")
def ctl() -> Rabbitmqctl:
    reason = _broker_down()
    if reason:
        pytest.skip(reason)
    return Rabbitmqctl()


@pytest.fixture(scope="session")
def league_account(ctl: Rabbitmqctl, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerTarget]:
    """The league's own broker user (unique to this test session), removed at the end."""
    folder = tmp_path_factory.mktemp("league-broker")
    user = f"lgt-{uuid.uuid4().hex[:8]}"
    b.add_league_user(ctl, user, b.read_or_make_password(folder / "league.password"))
    try:
        yield b.parse_target(f"amqp://{user}@127.0.0.1:5672/", password_file=folder / "league.password")
    finally:
        ctl.run("delete_user", user)


@contextmanager
def lab_maker(ctl: Rabbitmqctl, league: BrokerTarget, folder: Path) -> Iterator[Callable[[], Lab]]:
    """Provision labs with `add_lab` (vhost, user, permissions, queues); all removed on exit."""
    made: list[str] = []

    def make() -> Lab:
        queue = f"t{uuid.uuid4().hex[:8]}"
        lab = Lab(queue, folder / f"{queue}.password")
        made.append(queue)
        b.add_lab(ctl, queue, b.read_or_make_password(lab.password_file), league=league)
        return lab

    try:
        yield make
    finally:
        for queue in made:
            b.remove_lab(ctl, queue)


@pytest.fixture
def make_lab(ctl: Rabbitmqctl, league_account: BrokerTarget, tmp_path: Path) -> Iterator[Callable[[], Lab]]:
    with lab_maker(ctl, league_account, tmp_path) as make:
        yield make


@pytest.fixture(scope="module")
def make_module_lab(ctl: Rabbitmqctl, league_account: BrokerTarget,
                    tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[], Lab]]:
    with lab_maker(ctl, league_account, tmp_path_factory.mktemp("labs")) as make:
        yield make


@pytest.fixture(scope="session")
def hosts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hosts]:
    with lab_hosts(tmp_path_factory.mktemp("hosts")) as made:
        yield made


@pytest.fixture(scope="session")
def pool(hosts: Hosts, ctl: Rabbitmqctl, league_account: BrokerTarget,
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pool]:
    folder = tmp_path_factory.mktemp("pool")
    creds = folder / "creds-b"
    (creds / ".claude").mkdir(parents=True)
    (creds / ".claude" / ".credentials.json").write_text(json.dumps({"token": CRED_SECRET}))
    with lab_maker(ctl, league_account, folder) as make:
        lab_a, lab_b = make(), make()
        worker_a = start_worker(hosts.a, queue=lab_a.queue, password_file=lab_a.password_file,
                                ca_file=hosts.ca_file, folder=folder, name="host-a", concurrency=2, wait=False)
        worker_b = start_worker(hosts.b, queue=lab_b.queue, password_file=lab_b.password_file,
                                ca_file=hosts.ca_file, folder=folder, name="host-b", concurrency=2, wait=False,
                                env={"ANTHROPIC_API_KEY": WORKER_KEY, "LEAGUE_CREDENTIALS_HOME": str(creds)})
        try:
            worker_a.wait_ready()
            worker_b.wait_ready()
            yield Pool(lab_a, lab_b, worker_a, worker_b, creds, league_account)
        finally:
            worker_a.stop()
            worker_b.stop()
