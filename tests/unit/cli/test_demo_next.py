"""`league demo` ends with the commands to run next, each naming the demo's own folders: run bare, `league
status` and `league doctor` read ./config, which in the repository's clone is the example config."""

from __future__ import annotations

import shlex
from pathlib import Path

from league.cli.demo import next_commands


def test_every_command_names_the_demo_folder() -> None:
    lines = next_commands(Path("demo-out"))
    assert lines[0] == "next:"
    commands = [shlex.split(line.split("  # ")[0]) for line in lines[1:]]
    assert ["league", "status", "--config", "demo-out/config"] in commands
    assert ["league", "doctor", "--config", "demo-out/config", "--no-providers"] in commands
    assert ["league", "verify", "demo-out/data/public"] in commands
    assert all(any(arg.startswith("demo-out/") for arg in c) for c in commands)


def test_a_folder_with_a_space_is_quoted() -> None:
    lines = next_commands(Path("my demo"))
    status = next(shlex.split(line.split("  # ")[0]) for line in lines if " status " in line)
    assert status == ["league", "status", "--config", "my demo/config"]
