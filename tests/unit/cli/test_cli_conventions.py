"""The `league` command's conventions: `--version`, `-h` beside `--help` on every command, shell completion,
and the exit-status table of `league --help`, which must name every code an error of the league exits with."""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer import _click as click  # the Click typer builds its commands on (typer ships its own copy)
from typer.core import TyperGroup
from typer.main import get_command
from typer.testing import CliRunner

import league
from league import __version__
from league.cli import EXIT_CODES, INTERNAL_ERROR, app
from league.errors import LeagueError

LEAGUE = Path(sys.executable).with_name("league")


def test_version_is_the_package_version() -> None:
    done = CliRunner().invoke(app, ["--version"])
    assert done.exit_code == 0 and done.output.strip() == f"league (forecast-league) {__version__}"
    # the one place it is written is what the installed metadata says (setuptools' dynamic version)
    assert importlib.metadata.version("forecast-league") == __version__


def _commands(group: TyperGroup, ctx: click.Context, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        found.append((*path, name))
        if isinstance(command, TyperGroup):
            found += _commands(command, click.Context(command, parent=ctx, info_name=name), (*path, name))
    return found


def test_dash_h_is_help_on_every_command() -> None:
    top = get_command(app)
    assert isinstance(top, TyperGroup)
    paths = _commands(top, click.Context(top, info_name="league"))
    assert len(paths) > 40 and ("contest", "verify") in paths and ("verify",) in paths
    runner = CliRunner()
    bad = []
    for path in [(), *paths]:
        short, long = runner.invoke(app, [*path, "-h"]), runner.invoke(app, [*path, "--help"])
        if short.exit_code != 0 or short.output != long.output or "Usage:" not in short.output:
            bad.append(" ".join(path) or "league")
    assert bad == []


def test_the_help_ends_with_the_exit_status_table() -> None:
    text = CliRunner().invoke(app, ["-h"]).output
    assert "Exit status:" in text
    for code, meaning in EXIT_CODES:
        assert f"{code:>3}  {meaning.split()[0]}" in text


def _error_classes() -> set[type[LeagueError]]:
    for module in pkgutil.walk_packages(league.__path__, "league."):
        if any(part in module.name for part in (".tools", ".migrations")) or module.name.endswith("__main__"):
            continue  # the published stand-alone scripts and alembic's env.py run on import
        try:
            importlib.import_module(module.name)
        except ImportError:
            continue  # an adapter whose extra is not installed
    seen: set[type[LeagueError]] = set()
    todo: list[type[LeagueError]] = [LeagueError]
    while todo:
        cls = todo.pop()
        seen.add(cls)
        todo += [c for c in cls.__subclasses__() if c not in seen]
    return seen


def test_every_exit_code_of_an_error_is_in_the_table() -> None:
    """A new error class with an exit code of its own must be added to the table (and the README's)."""
    table = {code for code, _ in EXIT_CODES}
    classes = _error_classes()
    assert len(classes) > 20
    codes = {cls.exit_code for cls in classes}
    assert {1, 2, 3, 4} <= codes and INTERNAL_ERROR in table
    assert codes - table == set(), {cls.__qualname__: cls.exit_code for cls in classes if cls.exit_code not in table}


def test_the_check_above_sees_an_unlisted_code() -> None:
    class Odd(LeagueError):
        exit_code = 9

    assert Odd in _error_classes() and Odd.exit_code not in {code for code, _ in EXIT_CODES}


@pytest.mark.skipif(not LEAGUE.exists(), reason="the league console script is not installed beside this Python")
def test_shell_completion_is_on() -> None:
    # the script `league --show-completion` prints, asked by name (shell detection depends on the parent process,
    # which under pytest-xdist is no shell)
    script = subprocess.run([str(LEAGUE)], capture_output=True, text=True, timeout=60, check=False,
                            env={**os.environ, "_LEAGUE_COMPLETE": "source_bash"})
    assert script.returncode == 0 and "_LEAGUE_COMPLETE=complete_bash" in script.stdout, script.stderr
    env = {**os.environ, "_LEAGUE_COMPLETE": "complete_bash", "COMP_WORDS": "league verify --tr", "COMP_CWORD": "2"}
    done = subprocess.run([str(LEAGUE)], capture_output=True, text=True, timeout=60, check=False, env=env)
    assert done.stdout.split() == ["--trust-folder-certs", "--trust-anchor"]
