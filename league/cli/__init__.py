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
import traceback
from typing import NoReturn

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
        from league.extras import explain

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
