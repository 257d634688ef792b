"""The `league` command's table of verbs says what the verb modules register, and `league --help` lists them
without importing any verb's module (league/cli/__init__.py)."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import league.cli as cli

HELP_PROBE = """
import json, sys
from typer.testing import CliRunner
from league.cli import app
result = CliRunner().invoke(app, ["--help"], terminal_width=200)
print(json.dumps({"code": result.exit_code, "out": result.output,
                  "verbs": sorted(m for m in sys.modules if m.startswith("league.cli."))}))
"""


def test_the_table_names_every_verb_each_module_registers_with_its_first_help_line() -> None:
    registered: dict[str, tuple[str, str]] = {}
    for info in pkgutil.iter_modules(cli.__path__):
        if info.name.startswith("_"):
            continue
        for name, command in cli.verb_commands(info.name).items():
            registered[name] = (info.name, (command.help or "").split("\n\n")[0].replace("\n", " ").strip())
    assert registered == cli.VERBS


def test_the_help_lists_every_verb_and_imports_no_verb_module() -> None:
    done = subprocess.run([sys.executable, "-c", HELP_PROBE], capture_output=True, text=True, timeout=120, check=True)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["code"] == 0
    assert report["verbs"] == []  # league.cli's own helpers only (league.cli._*), no verb's module
    listed = [line.split()[1] for line in report["out"].splitlines() if line.startswith("│ ") and line.split()[1:]]
    assert [name for name in listed if name in cli.VERBS] == list(cli.VERBS)


def test_a_verb_runs_from_its_own_module() -> None:
    """`league verify` builds its command on first use: the module's own function, options and all."""
    group = cli.Verbs(name="league")
    verify = group.commands["verify"]
    assert verify.callback is not None and verify.callback.__module__ == "league.cli.verify"
    assert {p.name for p in verify.params} >= {"target", "strict", "rebuild"}
