"""What `league worker` refuses before it ever connects, and the broker URL it is given."""

from __future__ import annotations

import ssl
import subprocess
import sys
from pathlib import Path

import pytest

from league.workers.broker import config_problems, parse_target
from league.workers.errors import WorkerConfigError

LEAGUE = str(Path(sys.executable).with_name("league"))


@pytest.fixture
def password(tmp_path: Path) -> Path:
    path = tmp_path / "lab.password"
    path.write_text("s3cr/et:@pw\n")
    return path


def test_the_password_comes_from_its_file_and_never_shows(password: Path) -> None:
    target = parse_target("amqps://lab-a@broker.example.org/league-lab-a", password_file=password)
    assert (target.host, target.port, target.user, target.vhost) == ("broker.example.org", 5671, "lab-a",
                                                                     "league-lab-a")
    assert target.password == "s3cr/et:@pw"
    assert "s3cr" not in target.display() and "s3cr" not in repr(target)
    assert "s3cr%2Fet%3A%40pw@" in target.url()  # quoted for the broker library, which unquotes it
    assert parse_target("amqp://lab-a:pw@127.0.0.1/%2F").vhost == "/"


def test_tls_checks_the_certificate_and_the_host_name(password: Path, tmp_path: Path) -> None:
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    opts = parse_target("amqps://lab-a@10.231.1.1:5671/league-lab-a", password_file=password,
                        ca_file=str(ca)).ssl_options()
    assert opts == {"cert_reqs": ssl.CERT_REQUIRED, "server_hostname": "10.231.1.1", "ca_certs": str(ca)}
    assert parse_target("amqp://lab-a@127.0.0.1/league-lab-a", password_file=password).ssl_options() is False


@pytest.mark.parametrize(("url", "why"), [
    ("http://lab-a@broker/league-lab-a", "is not amqp:// or amqps://"),
    ("amqps://broker.example.org/league-lab-a", "names no host or no user"),
    ("amqps://lab-a@broker.example.org/league-lab-a", "no password"),
])
def test_an_unusable_url_is_refused(url: str, why: str) -> None:
    with pytest.raises(WorkerConfigError, match=why):
        parse_target(url)


def test_a_missing_ca_file_is_named(password: Path) -> None:
    with pytest.raises(WorkerConfigError, match="CA file /nonexistent/ca.pem does not exist"):
        parse_target("amqps://lab-a@b.example.org/league-lab-a", password_file=password, ca_file="/nonexistent/ca.pem")


@pytest.mark.parametrize(("url", "queue", "expected"), [
    ("amqps://lab-a@broker.example.org/league-lab-a", "lab-a", []),
    ("amqp://lab-a@127.0.0.1/league-lab-a", "lab-a", []),
    ("amqps://guest@broker.example.org/league-lab-a", "lab-a", ["`guest`"]),
    ("amqps://lab-a@broker.example.org/league-lab-b", "lab-a", ["lives in the vhost 'league-lab-a'"]),
    ("amqps://lab-a@broker.example.org/", "lab-a", ["not '/'"]),
    ("amqp://lab-a@broker.example.org/league-lab-a", "lab-a", ["plain AMQP to broker.example.org"]),
    ("amqp://guest@broker.example.org/league-lab-b", "lab-a", ["`guest`", "lives in the vhost", "plain AMQP"]),
])
def test_configurations_that_break_isolation_or_tls_are_refused(url: str, queue: str, expected: list[str],
                                                                password: Path) -> None:
    problems = config_problems(parse_target(url, password_file=password), queue)
    assert len(problems) == len(expected)
    for problem, words in zip(problems, expected, strict=True):
        assert words in problem.message and problem.fix


def test_league_worker_exits_2_with_every_problem_and_its_fix(password: Path) -> None:
    out = subprocess.run([LEAGUE, "worker", "--queue", "lab-a", "--broker", "amqp://guest@broker.example.org/",
                          "--password-file", str(password)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr
    assert out.stderr.count("  - ") == 3 and "fix:" in out.stderr and "league broker add-lab lab-a" in out.stderr


def test_flags_default_from_league_variables(password: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "LEAGUE_WORKER_QUEUE": "Lab A", "LEAGUE_BROKER_URL": "amqps://lab-a@b.example.org/x",
           "LEAGUE_BROKER_PASSWORD_FILE": str(password)}
    out = subprocess.run([LEAGUE, "worker"], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 2 and "worker queue 'Lab A' is not a lab queue name" in out.stderr
