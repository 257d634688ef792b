"""The CLI verbs: league sandbox exec, league seat check, league doctor."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from league.book import Book
from league.cli import app
from league.clock import SimulatedClock
from league.config import shipped_config_dir

pytestmark = pytest.mark.sandbox
runner = CliRunner()

ROSTER = """
counting_rule = "test"
[[seat]]
name = "s1"
adapter = "scripted"
options = {seed = 3}
[[seat]]
name = "quiet"
adapter = "scripted"
options = {mode = "silent"}
[[seat]]
name = "_coin"
adapter = "coin"
"""


@pytest.fixture
def roster(tmp_path: Path, sandbox: object) -> Path:
    """A config folder's roster (beside the shipped markets.toml: `league doctor` loads the whole folder)."""
    path = tmp_path / "roster.toml"
    path.write_text(ROSTER)
    shutil.copy(shipped_config_dir() / "markets.toml", tmp_path / "markets.toml")
    return path


def test_sandbox_exec_runs_inside(sandbox: object) -> None:
    res = runner.invoke(app, ["sandbox", "exec", "--", "/bin/sh", "-c", "echo $HOME; ls /root; exit 3"])
    assert res.exit_code == 3
    assert "/home/seat" in res.stdout
    assert "ended_by=exit" in res.stderr


def test_sandbox_exec_unknown_profile(sandbox: object) -> None:
    res = runner.invoke(app, ["sandbox", "exec", "--profile", "nope", "--", "/bin/true"])
    assert res.exit_code == 2
    assert "unknown sandbox profile" in res.stderr


def test_sandbox_check_shows_the_filter_and_its_probe(sandbox: object) -> None:
    res = runner.invoke(app, ["sandbox", "check"])
    assert res.exit_code == 0, res.output
    assert "ok    system-call filter: on: 14 rules denying clone, clone3," in res.stdout
    for line in ("filter_ptrace: ok", "nested_userns: ok", "filter_netlink: ok", "filter_raw_socket: ok"):
        assert f"ok    isolation: {line}" in res.stdout
    assert "0 failed" in res.stdout


def test_sandbox_check_with_the_filter_turned_off(sandbox: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """The operator's opt-out passes (the batch must not stop for it) but says what is not denied."""
    monkeypatch.setenv("LEAGUE_SANDBOX_SECCOMP", "off")
    res = runner.invoke(app, ["sandbox", "check"])
    assert res.exit_code == 0, res.output
    assert "system-call filter: off (LEAGUE_SANDBOX_SECCOMP=off)" in res.stdout
    assert "filter_ptrace: LEAK: not denied, LEAGUE_SANDBOX_SECCOMP=off" in res.stdout
    assert "filter_netlink: LEAK: not denied" in res.stdout
    assert "ok    isolation: nested_userns: ok" in res.stdout  # --disable-userns holds without the filter


def test_seat_check_prints_answer_model_time(roster: Path) -> None:
    res = runner.invoke(app, ["seat", "check", "s1", "--roster", str(roster)])
    assert res.exit_code == 0, res.output
    assert "model:    scripted" in res.stdout and "time:" in res.stdout
    assert '"prob_up"' in res.stdout


def test_seat_check_silent_seat_fails(roster: Path) -> None:
    res = runner.invoke(app, ["seat", "check", "quiet", "--roster", str(roster)])
    assert res.exit_code == 1
    assert "silent" in res.stdout


def test_seat_check_unknown_seat(roster: Path) -> None:
    res = runner.invoke(app, ["seat", "check", "nobody", "--roster", str(roster)])
    from league.errors import ConfigError

    assert isinstance(res.exception, ConfigError)
    assert "s1" in res.exception.diagnostics() and "nobody" in res.exception.message


OFFLINE_SETTINGS = """
[prices]
provider = "replay"
[stamps]
ots_calendars = []
local_tsa = true
"""


def test_doctor_all_green_for_offline_roster(roster: Path) -> None:
    data = roster.parent / "data"
    (roster.parent / "league.toml").write_text(f'[paths]\ndata = "{data}"\n' + OFFLINE_SETTINGS)
    (data / "books").mkdir(parents=True)
    clock = SimulatedClock(datetime(2026, 12, 4, 13, tzinfo=UTC))
    with Book(data / "books" / "council-book.jsonl", clock) as book:  # doctor's `data: books` wants a league's book
        book.append("opening", {"league": "council"})
    res = runner.invoke(app, ["doctor", "--config", str(roster.parent)])
    assert res.exit_code == 0, res.stdout
    assert "isolation: net_cut" in res.stdout and "FAIL" not in res.stdout
    assert "prices: replay configured" in res.stdout and "s1: adapter scripted" in res.stdout


def test_doctor_checks_configured_authorities(roster: Path) -> None:
    import socket

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
    up, down = srv.getsockname()[1], closed.getsockname()[1]
    settings = OFFLINE_SETTINGS.replace(
        "ots_calendars = []", f'ots_calendars = ["http://127.0.0.1:{up}", "http://127.0.0.1:{down}"]'
    )
    (roster.parent / "league.toml").write_text(settings)
    try:
        res = runner.invoke(app, ["doctor", "--no-probe", "--config", str(roster.parent)])
    finally:
        srv.close()
        closed.close()
    assert res.exit_code == 1
    assert f"ok    reachable 127.0.0.1:{up}" in res.stdout
    assert f"FAIL  reachable 127.0.0.1:{down}" in res.stdout


def test_doctor_reports_missing_cli_and_login(tmp_path: Path, sandbox: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEAGUE_CREDENTIALS_HOME", str(tmp_path))
    monkeypatch.delenv("GROK_API_KEY", raising=False)
    path = tmp_path / "r.toml"
    path.write_text('counting_rule = "t"\n[[seat]]\nname = "grok"\nadapter = "grok_cli"\nmodel = "grok-4.7"\n')
    res = runner.invoke(app, ["doctor", "--no-probe", "--no-providers", "--roster", str(path)])
    assert res.exit_code == 1
    assert "FAIL  grok: credentials grok" in res.stdout


def test_sandbox_exec_with_network_prints_the_fetch_record(sandbox: object) -> None:
    code = ("import urllib.request\ntry:\n    urllib.request.urlopen('http://127.0.0.1:9/', timeout=5)\n"
            "except Exception as e:\n    print(e)")
    res = runner.invoke(app, ["sandbox", "exec", "--network", "api", "--allow", "api.example.com", "--",
                              "/usr/bin/python3", "-c", code])
    assert res.exit_code == 0, res.stderr
    assert "HTTP Error 403" in res.stdout
    assert "[egress] GET 127.0.0.1:9 REFUSED (not on the allow-list (policy api))" in res.stderr


def test_sandbox_exec_refuses_an_unknown_policy(sandbox: object) -> None:
    res = runner.invoke(app, ["sandbox", "exec", "--network", "lan", "--", "/bin/true"])
    assert res.exit_code == 2
    assert "unknown network policy" in res.stderr


def test_doctor_says_whether_the_closed_book_arms_headlines_are_in_place(roster: Path) -> None:
    settings = (f'[paths]\ndata = "{roster.parent / "data"}"\n' + OFFLINE_SETTINGS
                + '\n[news]\nprovider = "recorded"\nrecorded_dir = "feeds"\n')
    (roster.parent / "league.toml").write_text(settings)
    res = runner.invoke(app, ["doctor", "--no-probe", "--no-providers", "--config", str(roster.parent)])
    assert res.exit_code == 1 and "FAIL  news: recorded feeds" in res.stdout and "0 feed files" in res.stdout
    from league.config import load_config

    feeds = load_config(roster.parent).data_dir / "feeds"
    feeds.mkdir(parents=True, exist_ok=True)
    (feeds / "desk.xml").write_text("<rss/>", encoding="utf-8")
    res = runner.invoke(app, ["doctor", "--no-probe", "--no-providers", "--config", str(roster.parent)])
    assert "ok    news: recorded feeds" in res.stdout, res.stdout
