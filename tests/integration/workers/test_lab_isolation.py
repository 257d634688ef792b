"""Lab isolation on the real broker: what a lab's user is refused, observed as the broker's refusals,
and `league worker` refusing a login whose rights are wider than a lab's."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import amqp.exceptions
import pytest
from typer.testing import CliRunner
from worker_hosts import Lab

from league.cli import app
from league.workers import broker as b
from league.workers.topology import REPLIES_QUEUE

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def two_labs(make_module_lab: Callable[[], Lab]) -> tuple[Lab, Lab]:
    """Two labs as `add_lab` makes them, shared by the tests that only try (and are refused) things."""
    return make_module_lab(), make_module_lab()


def test_a_lab_cannot_enter_another_labs_vhost(two_labs: tuple[Lab, Lab]) -> None:
    lab_a, lab_b = two_labs
    with lab_a.login(vhost=f"league-{lab_b.queue}").connection() as conn:
        with pytest.raises(amqp.exceptions.NotAllowed) as info:
            conn.connect()
    assert f"access to vhost 'league-{lab_b.queue}' refused for user '{lab_a.queue}'" in str(info.value)
    with lab_a.login(vhost="/").connection() as conn, pytest.raises(amqp.exceptions.NotAllowed):
        conn.connect()


def test_in_its_own_vhost_a_lab_reads_its_asks_and_nothing_else(two_labs: tuple[Lab, Lab]) -> None:
    lab = two_labs[0]
    with lab.login().connection() as conn:
        conn.connect()
        assert conn.channel().queue_declare(lab.queue, passive=True).consumer_count == 0
        refusals = {}
        for what, act in {
            "read replies": lambda ch: ch.basic_get(REPLIES_QUEUE),
            "consume replies": lambda ch: ch.basic_consume(REPLIES_QUEUE, callback=lambda m: None),
            "delete its queue": lambda ch: ch.queue_delete(lab.queue),
            "declare a queue": lambda ch: ch.queue_declare("sniffer", durable=False, auto_delete=True),
            "bind to the asks": lambda ch: ch.queue_bind(lab.queue, "league.replies", routing_key="x"),
        }.items():
            with pytest.raises(amqp.exceptions.AccessRefused) as info:
                act(conn.channel())
            refusals[what] = str(info.value)
    assert all("ACCESS_REFUSED" in text for text in refusals.values()), refusals
    assert "access to queue 'league.replies'" in refusals["read replies"]


def test_the_operators_view_flags_a_lab_account_with_wider_rights(make_lab: Callable[[], Lab],
                                                                   ctl: b.Rabbitmqctl) -> None:
    lab = make_lab()
    assert b.lab_account_problems(ctl, lab.queue) == []
    ctl.run("set_permissions", "-p", f"league-{lab.queue}", lab.queue, ".*", ".*", ".*")
    problems = b.lab_account_problems(ctl, lab.queue)
    assert len(problems) == 1 and "'.*'" in problems[0].message and f"add-lab {lab.queue}" in problems[0].fix


def _worker_check(lab: Lab, *extra: str, user: str | None = None, vhost: str | None = None) -> tuple[int, str]:
    url = f"amqp://{user or lab.queue}@127.0.0.1:5672/{vhost or 'league-' + lab.queue}"
    res = CliRunner().invoke(app, ["worker", "--check", "--queue", lab.queue, "--broker", url,
                                   "--password-file", str(lab.password_file), *extra])
    code = getattr(res.exception, "exit_code", res.exit_code)  # what `league` (main) exits with for a LeagueError
    return code, f"{res.output}{res.exception or ''}{getattr(res.exception, 'fix', '')}"


def test_league_worker_accepts_a_lab_login_and_refuses_wider_rights(
        make_lab: Callable[[], Lab], ctl: b.Rabbitmqctl, league_account: b.BrokerTarget) -> None:
    lab = make_lab()
    code, text = _worker_check(lab)
    assert code == 0, text
    ctl.run("set_permissions", "-p", f"league-{lab.queue}", lab.queue, ".*", ".*", ".*")
    code, text = _worker_check(lab)
    assert code == 2 and f"can read '{REPLIES_QUEUE}'" in text and f"add-lab {lab.queue}" in text
    b.add_lab(ctl, lab.queue, lab.password_file.read_text().strip(), league=league_account)  # resets the rights
    assert _worker_check(lab)[0] == 0
    ctl.run("set_permissions", "-p", "/", lab.queue, "^$", "^$", "^$")
    try:
        code, text = _worker_check(lab)
    finally:
        ctl.run("clear_permissions", "-p", "/", lab.queue)
    assert code == 2 and "shared default vhost '/'" in text and "clear_permissions -p /" in text


def test_league_worker_refuses_a_wrong_password(make_lab: Callable[[], Lab],
                                                                    tmp_path: Path) -> None:
    lab = make_lab()
    wrong = tmp_path / "wrong.password"
    wrong.write_text("not-the-password\n")
    res = CliRunner().invoke(app, ["worker", "--check", "--queue", lab.queue, "--broker",
                                   f"amqp://{lab.queue}@127.0.0.1:5672/league-{lab.queue}", "--password-file",
                                   str(wrong)])
    assert res.exit_code == 1 and "cannot log in" in str(res.exception) and "ACCESS_REFUSED" in str(res.exception)


def test_league_broker_verbs_make_show_and_remove_a_lab(ctl: b.Rabbitmqctl, league_account: b.BrokerTarget,
                                                        tmp_path: Path) -> None:
    queue = f"t{uuid.uuid4().hex[:8]}"
    league_password = tmp_path / "league.password"
    league_password.write_text(league_account.password)
    common = ["--broker", f"amqp://{league_account.user}@127.0.0.1:5672/", "--password-file", str(league_password)]
    runner = CliRunner()
    try:
        made = runner.invoke(app, ["broker", "add-lab", queue, "--lab-password-file", str(tmp_path / "lab"), *common])
        assert made.exit_code == 0, made.output
        assert (tmp_path / "lab").stat().st_mode & 0o077 == 0  # the generated password is the operator's only
        shown = runner.invoke(app, ["broker", "status", queue, "--accounts", *common])
        assert f"{queue}: 0 asks waiting, 0 workers, 0 replies not yet taken" in shown.output
        assert shown.exit_code == 1  # nobody serves the queue yet
    finally:
        gone = runner.invoke(app, ["broker", "remove-lab", queue])
    assert gone.exit_code == 0 and f"league-{queue}" not in ctl.listing()[0] and queue not in ctl.users()
