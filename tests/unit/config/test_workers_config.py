"""The remote-seat settings: a roster entry's `worker`, the league's broker in league.toml ([workers],
LEAGUE_BROKER_* defaults), and the checks made when the roster is loaded and the league is composed."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from league.config import load_config, shipped_config_dir
from league.errors import ConfigError

REMOTE_SEAT = ('\n[[seat]]\nname = "lab-seat"\nadapter = "claude_code"\nworker = "lab-a"\n'
               'options = { executable = "/opt/lab-a/bin/claude" }\n')


def folder_with(tmp_path: Path, roster_extra: str = "", workers: str = "") -> Path:
    target = tmp_path / "config"
    shutil.copytree(shipped_config_dir(), target)
    (target / "roster.toml").write_text((target / "roster.toml").read_text() + roster_extra)
    if workers:
        (target / "league.toml").write_text((target / "league.toml").read_text() + "\n[workers]\n" + workers)
    return target


def test_a_remote_seat_without_a_broker_is_refused_naming_the_seat(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEAGUE_BROKER_URL", raising=False)
    with pytest.raises(ConfigError) as err:
        load_config(folder_with(tmp_path, REMOTE_SEAT))
    assert "lab-seat" in err.value.message and "broker_url" in err.value.diagnostics()


def test_a_remote_seats_executable_lives_on_the_labs_machine_not_here(tmp_path: Path) -> None:
    config = load_config(folder_with(tmp_path, REMOTE_SEAT, 'broker_url = "amqps://league@broker:5671/"\n'))
    seat = next(s for s in config.roster.seat if s.name == "lab-seat")
    assert seat.worker == "lab-a"
    local = REMOTE_SEAT.replace('worker = "lab-a"\n', "").replace("lab-seat", "here-seat")
    with pytest.raises(ConfigError, match="is not an executable file"):  # checked on the league's host
        load_config(folder_with(tmp_path / "b", local))


def test_the_broker_comes_from_the_environment_when_the_file_is_silent(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEAGUE_BROKER_URL", "amqps://league@broker.example:5671/")
    monkeypatch.setenv("LEAGUE_BROKER_PASSWORD_FILE", "/run/credentials/league.service/broker")
    w = load_config(folder_with(tmp_path, REMOTE_SEAT)).settings.workers
    assert (w.broker_url, w.password_file, w.ca_file) == ("amqps://league@broker.example:5671/",
                                                          "/run/credentials/league.service/broker", "")


def test_a_password_in_the_broker_url_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="workers.broker_url"):
        load_config(folder_with(tmp_path, workers='broker_url = "amqps://league:hunter2@broker:5671/"\n'))


def test_the_composition_root_routes_worker_seats_to_the_broker_and_refuses_a_secret(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from league.clock import SimulatedClock, SystemClock
    from league.compose import build_seats, make_runner
    from league.runner import RoutedRunner, ThreadRunner
    from league.workers.remote import RemoteSeatRunner

    monkeypatch.delenv("LEAGUE_BROKER_PASSWORD_FILE", raising=False)
    (tmp_path / "broker.password").write_text("s3cret\n")
    workers = 'broker_url = "amqp://league@127.0.0.1:5672/"\npassword_file = "../broker.password"\n'
    config = load_config(folder_with(tmp_path, REMOTE_SEAT, workers))
    seats = build_seats(config)
    assert "lab-seat" not in seats and seats  # built on the lab's machine, not here
    runner = make_runner(config, SimulatedClock(datetime(2026, 11, 24, 13, 0, tzinfo=UTC)), seats)
    assert isinstance(runner, RoutedRunner) and isinstance(runner.local, ThreadRunner)
    remote = runner.remote
    assert isinstance(remote, RemoteSeatRunner) and remote.simulated and isinstance(remote.clock, SystemClock)
    assert remote.league.password == "s3cret" and remote.league.user == "league"  # never connected here
    runner.close()

    unknown = REMOTE_SEAT.replace("options = { ", 'options = { api_key = "sk-live", ')
    with pytest.raises(ConfigError, match="options.api_key is not an option"):  # refused as the roster loads
        load_config(folder_with(tmp_path / "unknown", unknown, workers.replace("../", "../../")))
    secret = REMOTE_SEAT.replace("options = { ", 'options = { base_url = "https://lab:sk-live@gateway.lab", ')
    leaky = load_config(folder_with(tmp_path / "leaky", secret, workers.replace("../", "../../")))
    with pytest.raises(ConfigError, match="secret"):  # an option the adapter takes may still carry one
        make_runner(leaky, SystemClock(), {})
