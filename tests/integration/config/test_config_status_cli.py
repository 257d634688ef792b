"""A bounded value refused at load is refused by ``league status`` too, before any job runs: one clear error
(exit status 2, the key and the fix), no traceback. Each test starts the ``league`` command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from test_config_bounds import SCRIPTED, folder, with_seat

LEAGUE = str(Path(sys.executable).with_name("league"))  # the console script of this environment


def test_deeply_nested_toml_is_a_config_error_from_league_status(tmp_path: Path) -> None:
    target = folder(tmp_path)
    (target / "league.toml").write_text("x = " + "[" * 3_000 + "]" * 3_000 + "\n")
    done = subprocess.run([LEAGUE, "status", "--config", str(target)], capture_output=True,
                          text=True, env={**os.environ, "LEAGUE_LOG_JSON": "0"}, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "nested 3000 levels deep" in done.stderr and "fix:" in done.stderr


def test_league_status_refuses_an_infinite_timeout_before_any_job_runs(tmp_path: Path) -> None:
    target = with_seat(tmp_path, SCRIPTED + "timeout_s = inf\n")
    done = subprocess.run([LEAGUE, "status", "--config", str(target)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and "timeout_s" in done.stderr and "Traceback" not in done.stderr, done.stderr
