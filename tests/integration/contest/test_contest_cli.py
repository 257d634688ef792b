"""`league contest demo` end to end offline (real sandbox), then `league contest verify` on its folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]
LEAGUE = [sys.executable, "-c", "from league.cli import main; main()"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LEAGUE_LOG_LEVEL": "WARNING"}
    return subprocess.run([*LEAGUE, *args], capture_output=True, text=True, timeout=240, env=env)


def test_demo_day_then_verify(tmp_path: Path, bwrap: object) -> None:
    demo = run("contest", "demo", "--out", str(tmp_path / "day"))
    assert demo.returncode == 0, demo.stderr
    assert "round 1 on market" in demo.stdout and "round 2 on market" in demo.stdout
    public = tmp_path / "day" / "public"
    sealed = json.loads((public / "sealed.json").read_text())
    metrics = json.loads((public / "metrics.json").read_text())
    assert sealed[0]["forecasts"] == 120 and metrics["betting_record"]["rounds_excluded"] == {"debut": 1}
    assert metrics["betting_record"]["rounds_counted"] == 1
    assert len(metrics["forecast_accuracy"]["agents"]) == 4 and metrics["forecast_accuracy"]["crowd"]["n"] == 30
    assert sorted(p.name for p in (public / "cards").iterdir()) == ["1.json", "2.json"]
    ok = run("contest", "verify", str(public))
    assert ok.returncode == 0 and "FAILED" not in ok.stdout, ok.stdout + ok.stderr
    reader = run("verify", str(public))  # the reader's steps: the contest is step 13
    assert reader.returncode == 0 and "step 13 CLI contest: ok" in reader.stdout, reader.stdout + reader.stderr
    (public / "metrics.json").write_text(json.dumps({**metrics, "forecast_accuracy": {
        **metrics["forecast_accuracy"], "crowd": {**metrics["forecast_accuracy"]["crowd"], "brier": 0.01}}}))
    bad = run("contest", "verify", str(public))
    assert bad.returncode == 4 and "forecast_accuracy.crowd.brier: published 0.01" in bad.stdout
