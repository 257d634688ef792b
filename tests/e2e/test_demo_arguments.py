"""Every argument of `league demo` that cannot be used is one error with a fix, never a traceback, and nothing is
written for it. Before: `--start 2026-02-30` raised ValueError, `--start 9999-12-31` OverflowError (the calendar
grown past the last date), `--out /proc/x` FileNotFoundError from the season's child."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

LEAGUE = [sys.executable, "-c", "from league.cli import main; main()"]


def _demo(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("LEAGUE_DEMO_")}
    return subprocess.run([*LEAGUE, "demo", *args], capture_output=True, text=True, timeout=300, check=False,
                          env={**environ, **(env or {})})


def _one_error(done: subprocess.CompletedProcess[str], names: str) -> None:
    assert done.returncode != 0, done.stdout[-2000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert done.stderr.count("error:") == 1 and "fix:" in done.stderr, done.stderr
    assert names in done.stderr, done.stderr


@pytest.mark.parametrize(("args", "names", "said"), [
    (["--start", "2026-02-30"], "--start '2026-02-30'", "not a calendar day"),
    (["--start", "9999-12-31"], "--start 9999-12-31", "between 2026-01-01 and 2199-12-31"),
    (["--start", "2025-12-31"], "--start 2025-12-31", "between 2026-01-01 and 2199-12-31"),
    (["--start", "June 1"], "--start 'June 1'", "YYYY-MM-DD"),
    (["--sessions", "0"], "--sessions 0", "from 1 to 400"),
    (["--sessions", "ten"], "--sessions 'ten'", "not a whole number"),
    (["--seed", "-1"], "--seed -1", "from 0 to 9223372036854775807"),
    (["--seed", str(2**64)], f"--seed {2**64}", "from 0 to 9223372036854775807"),
])
def test_a_bad_season_argument_is_one_error_with_a_fix(tmp_path: Path, args: list[str], names: str,
                                                       said: str) -> None:
    out = tmp_path / "out"
    done = _demo(["--out", str(out), *args])
    _one_error(done, names)
    assert said in done.stderr
    assert not out.exists()  # refused before anything was written


def test_a_start_from_the_environment_is_checked_the_same_way(tmp_path: Path) -> None:
    done = _demo(["--out", str(tmp_path / "out")], env={"LEAGUE_DEMO_START": "2026-13-01"})
    _one_error(done, "--start '2026-13-01'")
    assert "LEAGUE_DEMO_START" in done.stderr


@pytest.mark.parametrize(("out", "why"), [
    ("/proc/x", "the folder cannot be created (No such file or directory)"),
    ("/dev/null", "exists and is not a folder"),
    ("/etc/hostname/x", "the folder cannot be created (Not a directory)"),
])
def test_an_out_that_cannot_be_made_is_named_with_the_reason(out: str, why: str) -> None:
    _one_error(_demo(["--sessions", "1", "--out", out]), f"--out {out}: {why}")


def test_a_missing_out_is_one_error_with_a_fix() -> None:
    done = _demo(["--sessions", "1"])
    _one_error(done, "--out is missing")
    assert "LEAGUE_DEMO_OUT" in done.stderr


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to make a read-only mount")
def test_an_out_that_cannot_be_written_is_named_with_the_reason(tmp_path: Path) -> None:
    """A folder that exists but cannot be written (root writes through permissions: a read-only bind mount)."""
    folder = tmp_path / "ro"
    folder.mkdir()
    mount = subprocess.run(["mount", "--bind", "-o", "ro", str(folder), str(folder)], capture_output=True, check=False)
    if mount.returncode != 0:
        pytest.skip(f"cannot make a read-only bind mount here: {mount.stderr.decode(errors='replace').strip()}")
    try:
        _one_error(_demo(["--sessions", "1", "--out", str(folder)]), f"--out {folder}: cannot be written")
    finally:
        subprocess.run(["umount", str(folder)], check=False)


@pytest.mark.sandbox
@pytest.mark.slow
@pytest.mark.parametrize("start", ["2026-01-01", "2199-12-31"])
def test_the_first_days_the_error_states_are_accepted(tmp_path: Path, start: str) -> None:
    """The range the error states is the demo's: a season starting on either end runs and verifies."""
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    done = _demo(["--sessions", "1", "--start", start, "--out", str(tmp_path / "out")])
    assert done.returncode == 0, done.stderr[-3000:]
    assert "verified" in done.stdout
