"""The demo and the daemon stop before sealing anything when bubblewrap is missing."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from league.cli import app
from league.compose import open_live
from league.folder import init_folder
from league.jobs.preflight import MissingPrerequisite
from league.scoring.climatology import SHIPPED_HISTORY

runner = CliRunner()


def books(root: Path) -> dict[str, int]:
    """Every book file under ``root`` and its size."""
    return {str(p): p.stat().st_size for p in root.rglob("*.jsonl")} if root.exists() else {}


def refused(res: object) -> str:
    exc = getattr(res, "exception", None)
    assert isinstance(exc, MissingPrerequisite), res
    return exc.diagnostics()


def test_demo_without_bwrap_stops_with_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEAGUE_BWRAP", str(tmp_path / "no-such-bwrap"))
    res = runner.invoke(app, ["demo", "--out", str(tmp_path / "demo"), "--sessions", "1"])
    out = refused(res)
    assert "bubblewrap" in out and "fix: apt-get install -y bubblewrap" in out and "Nothing was sealed" in out
    assert books(tmp_path / "demo") == {}


def test_daemon_without_bwrap_stops_before_the_book_opens(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config_dir, data_dir = init_folder(tmp_path, history=SHIPPED_HISTORY)  # offline: no yfinance fetch
    before = books(data_dir)
    monkeypatch.setenv("LEAGUE_BWRAP", str(tmp_path / "no-such-bwrap"))
    with pytest.raises(MissingPrerequisite) as info:
        open_live(config_dir)
    assert info.value.fix == "apt-get install -y bubblewrap"
    assert books(data_dir) == before
