"""The ``league`` command.

Each verb group lives in its own module of this package and exposes ``register(app)``. :data:`VERBS` names
each verb's module and its one-line help: ``league --help`` lists the verbs from it, and a verb's module is
imported only when that verb runs (or shows its own help), so a verb's module imports what it uses at its
top (docs/architecture.md, "Where imports go") and no verb pays for another's imports at start.
``tests/unit/architecture/test_cli_verbs.py`` holds the table to what the modules register. Only this
entry point turns a :class:`league.errors.LeagueError` into an exit code and prints its diagnostics.
"""

from __future__ import annotations

import importlib
import os
import sys
import traceback
from collections.abc import Iterator, MutableMapping
from typing import Annotated, Any, NoReturn

import typer
from typer import _click as click  # the Click that typer builds its commands on (typer ships its own copy)
from typer.core import TyperCommand, TyperGroup
from typer.main import get_group

from league import __version__
from league.errors import LeagueError
from league.extras import explain
from league.log import configure

#: Each verb: the module of this package that registers it, and the first paragraph of its help.
VERBS: dict[str, tuple[str, str]] = {
    "backup": ("backup", "Back up the league (database first, then the books' complete lines, then the files they "
                         "name)."),
    "restore": ("backup", "Restore a backup into an empty league (never a shorter book over a longer one), then "
                          "verify it."),
    "reveal": ("blind", "Seal the reveal line of a blind season: every seat's salt, model, version and mode."),
    "check-book": ("check_book", "Verify the council book in full against its startup checkpoint; move the "
                                 "checkpoint when it holds."),
    "daemon": ("daemon", "Run live: catch up on missed jobs in order (once each), then follow the NYSE schedule."),
    "run": ("daemon", "Run one job by hand for one session (default today, New York time)."),
    "status": ("daemon", "Next jobs, the last runs and job results, and each seat's last answer."),
    "demo": ("demo", "Run SESSIONS league days offline (replay prices, sandboxed scripted seats), publish, verify."),
    "doctor": ("doctor", "Check the sandbox, every seat and the providers; exit 1 if anything is broken."),
    "init": ("init", "Write a working config folder and data folder (books opened, signing key made, climatology "
                     "sealed)."),
    "publish": ("publish", "Write every open-data file the installed features produce; list what was not "
                           "produced."),
    "rebuild": ("rebuild", "Verify every book, then rebuild the index (runs, asks, cells, scores, bars) in one "
                           "transaction."),
    "serve": ("serve", "Serve the open data read-only at /, JSON views under /api, the book stream and the league "
                       "page."),
    "stats": ("stats", "Print the league table and recompute the statistics files; a file that would change is "
                       "an error."),
    "tail": ("tail", "Print each line from --from on; score lines as one compact row. Resumes after a disconnect."),
    "verify": ("verify", "Verify a book's hash chain (first bad line and why), or every reader's step on a "
                         "published folder."),
    "conformance": ("verify", "Run the stand-alone event-contract conformance checker on a forecasts CSV."),
    "worker": ("worker", "Serve the lab's queue: run each ask's seat in the local sandbox, publish the raw reply."),
    "broker": ("broker", "Set up and check the broker of remote seats (RabbitMQ)."),
    "contest": ("contest", "The vendor-CLI contest: sealed sweeps and betting rounds."),
    "correct": ("correct", "Seal a correction of a sealed price or cell (the corrected line stays as it is)."),
    "eval": ("eval", "Offline evaluations: event-question sets and point forecasts (MASE)."),
    "portfolio": ("portfolio", "Portfolio leagues: rule sets, an offline season, the account replay."),
    "predictions": ("predictions", "Registered predictions about the league: seal a registry, resolve, show."),
    "readers": ("readers", "The reader experiment: the readers' write service."),
    "sandbox": ("sandbox", "Inspect the bubblewrap sandbox the seats run in."),
    "seat": ("seat", "Check a seat of the roster."),
    "stamp": ("stamp", "Stamp the books' heads outside the operator (OpenTimestamps, RFC 3161, Rekor)."),
}


def verb_commands(module: str) -> dict[str, click.Command]:
    """The commands ``league.cli.<module>`` registers, by verb."""
    registered = typer.Typer(add_completion=False)
    importlib.import_module(f"{__name__}.{module}").register(registered)
    return dict(get_group(registered).commands)


class _Commands(MutableMapping[str, click.Command]):
    """The verbs by name; a verb's command (and every verb of its module) is built on first use."""

    def __init__(self) -> None:
        self._built: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        if name not in self._built and name in VERBS:
            self._built.update(verb_commands(VERBS[name][0]))
        return self._built[name]

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        del self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter({**dict.fromkeys(VERBS), **dict.fromkeys(self._built)})

    def __len__(self) -> int:
        return len(set(VERBS) | set(self._built))


class Verbs(TyperGroup):
    """The top-level group: its help lists :data:`VERBS` without importing a verb's module."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = _Commands()
        self._listing = False

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)  # the names alone: building a verb's command imports its module

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if self._listing and cmd_name in VERBS:
            return TyperCommand(cmd_name, help=VERBS[cmd_name][1])
        return self.commands.get(cmd_name)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


#: What each exit status of ``league`` means, as printed under ``league --help`` (and in README.md's table):
#: the error classes of league.errors (and their kin in each package) carry these codes; scripts rely on them.
EXIT_CODES: tuple[tuple[int, str], ...] = (
    (0, "ok: the command did what it was asked"),
    (1, "failed: a check or verification step failed, or a path, port or service cannot be used"),
    (2, "bad input: an option, argument, config or input file; or a missing extra"),
    (3, "a book is locked: another league process writes it"),
    (4, "a hash chain is broken, or published files do not verify"),
    (70, "internal error: a bug of the league (LEAGUE_DEBUG=1 shows the traceback)"),
    (130, "interrupted (Ctrl-C)"),
)

#: The help's epilog: typer's help joins single line breaks, so each row is its own paragraph.
EPILOG = "Exit status:\n\n" + "\n\n".join(f"{code:>3}  {meaning}" for code, meaning in EXIT_CODES)

#: `-h` beside `--help` on every verb: Click hands a group's help option names down to its commands' contexts.
CONTEXT = {"help_option_names": ["-h", "--help"]}

app = typer.Typer(
    name="league",
    cls=Verbs,
    help="Forecasting league: seal AI forecasts, score them in the open, publish everything.",
    epilog=EPILOG,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    # --install-completion / --show-completion: bash, zsh, fish and PowerShell completion of verbs and options
    add_completion=True,
    context_settings=CONTEXT,
)


def _print_version(asked: bool) -> None:
    """``league --version``: the installed release (league.__version__, the one place it is written)."""
    if asked:
        typer.echo(f"league (forecast-league) {__version__}")
        raise typer.Exit()


@app.callback(epilog=EPILOG)
def _league(
    version: Annotated[bool, typer.Option("--version", "-V", callback=_print_version, is_eager=True,
                                          help="print the installed version and exit")] = False,
) -> None:
    """Forecasting league: seal AI forecasts, score them in the open, publish everything."""


def main() -> None:
    """Console entry point."""
    configure(json_logs=os.environ.get("LEAGUE_LOG_JSON") == "1", level=os.environ.get("LEAGUE_LOG_LEVEL", "WARNING"))
    try:
        app()
    except LeagueError as exc:
        typer.echo(f"error: {exc.diagnostics()}", err=True)
        sys.exit(exc.exit_code)
    except ModuleNotFoundError as exc:  # the lean install: name the extra instead of a traceback
        error = explain(exc)
        if error is None:
            _internal_error(exc)
        typer.echo(f"error: {error.diagnostics()}", err=True)
        sys.exit(error.exit_code)
    except KeyboardInterrupt:
        sys.exit(130)
    except OSError as exc:  # a path that cannot be used as the verb needs: the path and the system's reason
        typer.echo(f"error: {os_problem(exc)}\n  fix: check the path: it must exist (or be creatable), be of the "
                   "kind the option names (a folder or a regular file) and be readable and writable by the league",
                   err=True)
        sys.exit(1)
    except Exception as exc:  # noqa: BLE001 - the last guard: no command ends in a bare traceback
        _internal_error(exc)


def os_problem(exc: OSError) -> str:
    """``path: reason`` of an OSError (both paths of a failed rename), without Python's ``[Errno N]``."""
    reason = exc.strerror or str(exc)
    if exc.filename is None:
        return reason
    where = str(exc.filename) + (f" -> {exc.filename2}" if exc.filename2 is not None else "")
    return f"{where[:500]}: {reason}"


#: The exit code of an error the league did not foresee (BSD sysexits' EX_SOFTWARE).
INTERNAL_ERROR = 70


def _internal_error(exc: BaseException) -> NoReturn:
    """An exception no layer turned into a LeagueError is a bug: one line saying so, the traceback only when
    asked for (``LEAGUE_DEBUG=1``), and exit 70. The tests' fuzz of every verb fails on this exit code."""
    if os.environ.get("LEAGUE_DEBUG") == "1":
        traceback.print_exception(exc)
    text = f"{type(exc).__name__}: {exc}"
    typer.echo(f"error: internal error ({text[:300]})\n  fix: this is a bug of the league; rerun with LEAGUE_DEBUG=1 "
               "and report the command and its output", err=True)
    sys.exit(INTERNAL_ERROR)
