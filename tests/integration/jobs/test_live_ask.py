"""The live path (system clock): replies are sealed by the threads that receive them, and closing
the league waits for every ask in flight, so a one-shot `league run ask` loses no reply."""

from __future__ import annotations

import errno
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from league.book import Book
from league.cli import app
from league.compose import open_live
from league.errors import ConfigError, LeagueError
from league.folder import init_folder
from league.jobs.ask import job_ask
from league.jobs.seal import SealFailed


def _live_folder(tmp_path: Path) -> tuple[Path, Path]:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    config_dir, data_dir = init_folder(tmp_path, demo=True)
    toml = config_dir / "league.toml"
    toml.write_text(toml.read_text().replace('mode = "simulated"', 'mode = "system"'))
    return config_dir, data_dir


def test_by_hand_reference_run_seals_every_reply(tmp_path: Path) -> None:
    config_dir, data_dir = _live_folder(tmp_path)
    lg = open_live(config_dir)
    try:
        run_id = job_ask(lg, "2026-11-25", role="not_counted")
    finally:
        lg.close()
    lines = [json.loads(x) for x in (data_dir / "books" / "council-book.jsonl").read_text().splitlines()]
    answers = [x for x in lines if x["kind"] == "answer" and x["run_id"] == run_id]
    roster = {s.name for s in lg.config.roster.seat}
    silent_first = {"mute", "dozer"}  # the demo roster's hard cases silent on a first ask (docs/league-day.md)
    assert {a["seat"] for a in answers} == roster - silent_first
    assert {a["seat"] for a in answers if a["status"] != "answered"} == {"grumpy"}  # its malformed reply, sealed
    assert [x["kind"] for x in lines[:3]] == ["opening", "preflight", "run"]


def test_simulated_clock_setting_is_refused_by_the_live_path(tmp_path: Path) -> None:
    """`[clock] mode = "simulated"` is refused by the live path, not parsed and ignored by the daemon."""
    config_dir, _ = init_folder(tmp_path, demo=True)  # the demo folder says "simulated"
    with pytest.raises(ConfigError) as info:
        open_live(config_dir)
    assert "league demo" in str(info.value) and 'mode = "system"' in (info.value.fix or "")


def test_league_run_ask_exits_non_zero_when_a_seal_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`league run ask` does not exit 0 when no line could be sealed for a reply."""
    config_dir, data_dir = _live_folder(tmp_path)
    real_write = Book._write

    def full_disk_for_answers(self: Book, line: Any) -> None:
        if line.kind == "answer":
            raise OSError(errno.ENOSPC, "No space left on device")
        real_write(self, line)

    monkeypatch.setattr(Book, "_write", full_disk_for_answers)
    res = CliRunner().invoke(app, ["run", "ask", "--session", "2026-11-25", "--config", str(config_dir)])
    assert res.exit_code == 1, res.output
    assert isinstance(res.exception, SealFailed)  # `league` (main) prints its diagnostics and exits 1
    assert "could not be sealed" in str(res.exception) and "No space left on device" in str(res.exception)


def test_the_live_path_refuses_to_run_seats_uncapped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a usable cgroup the daemon does not start (a clear error with the fix)."""
    config_dir, _ = _live_folder(tmp_path)
    from sandbox import cgroups

    monkeypatch.setattr(cgroups, "_read_proc", lambda name: "")  # a host where no cgroup is ours to write
    with pytest.raises(LeagueError) as info:
        open_live(config_dir)
    assert "sandbox cannot run" in str(info.value) and "LEAGUE_SANDBOX_CGROUP=off" in (info.value.fix or "")
