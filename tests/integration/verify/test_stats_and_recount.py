"""`league stats` never overwrites silently; the stand-alone recount reproduces consensus and N_eff."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from league.cli import app

STATS = ("council-stats.json", "council-calibration.json", "council-clim-window.json", "council-league.json")


def _bytes(folder: Path) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes() for name in STATS}


def _forge_consensus(folder: Path) -> None:
    doc = json.loads((folder / "council-stats.json").read_text(encoding="utf-8"))
    doc["consensus"]["per_event"][3]["p"] += 1.0
    (folder / "council-stats.json").write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def test_league_stats_on_a_copy_of_a_published_folder_gives_the_same_bytes(demo_public: Path, copy: Path) -> None:
    result = CliRunner().invoke(app, ["stats", "--data", str(copy)])
    assert result.exit_code == 0, result.output
    assert _bytes(copy) == _bytes(demo_public)
    assert result.output.count("unchanged ") == len(STATS)


def test_a_recomputation_that_differs_is_an_error_naming_it_and_force_replaces(demo_public: Path, copy: Path) -> None:
    _forge_consensus(copy)
    forged = (copy / "council-stats.json").read_bytes()
    result = CliRunner().invoke(app, ["stats", "--data", str(copy)])
    assert result.exit_code != 0
    assert "council-stats.json $.consensus.per_event[3](" in str(result.exception or result.output)
    assert (copy / "council-stats.json").read_bytes() == forged  # nothing overwritten
    forced = CliRunner().invoke(app, ["stats", "--data", str(copy), "--force"])
    assert forced.exit_code == 0, forced.output
    assert _bytes(copy) == _bytes(demo_public)


def test_out_writes_elsewhere_and_leaves_the_folder_alone(demo_public: Path, copy: Path, tmp_path: Path) -> None:
    _forge_consensus(copy)
    forged = (copy / "council-stats.json").read_bytes()
    result = CliRunner().invoke(app, ["stats", "--data", str(copy), "--out", str(tmp_path / "elsewhere")])
    assert result.exit_code == 0, result.output
    assert (copy / "council-stats.json").read_bytes() == forged
    assert _bytes(tmp_path / "elsewhere") == _bytes(demo_public)


def _recount(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-I", str(folder / "tools" / "recount_consensus.py"), "--data",
                           str(folder)], capture_output=True, text=True, check=False)


def test_the_stand_alone_recount_reproduces_every_consensus_and_n_eff(demo_public: Path) -> None:
    stats = json.loads((demo_public / "council-stats.json").read_text(encoding="utf-8"))
    events, runs = len(stats["consensus"]["per_event"]), len(stats["n_eff"]["counted"]["per_run"])
    run = _recount(demo_public)
    assert run.returncode == 0, run.stdout + run.stderr
    assert events > 0 and runs > 0
    assert (f"consensus: {events} of {events} published events reproduced; N_eff: {runs} of {runs} published "
            "session-horizons reproduced; 0 differ") in run.stdout


def test_the_recount_names_a_forged_consensus(copy: Path) -> None:
    _forge_consensus(copy)
    event = json.loads((copy / "council-stats.json").read_text(encoding="utf-8"))["consensus"]["per_event"][3]
    run = _recount(copy)
    assert run.returncode == 1
    assert f"MISMATCH consensus ('m1', '{event['session']}', '{event['event_id']}'): p published" in run.stdout
