"""The ``league`` command.

Each verb group lives in its own module of this package and exposes ``register(app)``; modules
are discovered by name so that adding a verb never edits a shared file. Only this entry point turns
a :class:`league.errors.LeagueError` into an exit code and prints its diagnostics.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys

import typer

from league.errors import LeagueError

app = typer.Typer(
    name="league",
    help="Forecasting league: seal AI forecasts, score them in the open, publish everything.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _register_all() -> None:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        try:
            module = importlib.import_module(f"{__name__}.{info.name}")
        except ImportError as exc:  # one broken verb group must not take the whole command down
            sys.stderr.write(f"warning: `league` verbs of {info.name} unavailable: {exc}\n")
            continue
        register = getattr(module, "register", None)
        if register is not None:
            register(app)


_register_all()


def main() -> None:
    """Console entry point."""
    from league.log import configure

    configure(json_logs=os.environ.get("LEAGUE_LOG_JSON") == "1", level=os.environ.get("LEAGUE_LOG_LEVEL", "WARNING"))
    try:
        app()
    except LeagueError as exc:
        typer.echo(f"error: {exc.diagnostics()}", err=True)
        sys.exit(exc.exit_code)
    except ModuleNotFoundError as exc:  # the lean install: name the extra instead of a traceback
        from league.cli._extras import explain

        error = explain(exc)
        if error is None:
            raise
        typer.echo(f"error: {error.diagnostics()}", err=True)
        sys.exit(error.exit_code)
