"""The optional extras: which library each brings, and the one way to import what needs one.

`pip install forecast-league` carries no scientific stack and no daemon stack: a lab that only runs `league
seat check` or `league worker`, or a reader who only runs `league verify`, needs neither pandas nor the
daemon's database and web stack. The names below mirror pyproject.toml's extras.

Imports go at the top of a module (docs/architecture.md, "Where imports go"). The one exception is what needs
an extra, imported by a module that must not need it: a verb's module (each verb's ``--help`` works on the lean
install, and the verb stops with the install command), the publisher (which leaves the statistics' scipy.stats,
statsmodels and arch, ~1 s and ~130 MiB, to the child that computes them), the calendar (exchange_calendars is
needed to build one, not to name its time zone), the API (which serves a published folder without the index
database). There, and only there, the import is written inside the
function that needs it, in the body of :func:`extra`::

    def stats(...):
        with extra("stats"):
            from league.scoring.publish import write_stats

The block names the extra, so a lean install stops with one line naming the install command (exit 2) instead
of a traceback, and `tests/unit/architecture/test_function_imports.py` checks that every import inside a
function is such a block and that what it imports really needs the extra it names. A library that changes the
interpreter when imported is imported in the same block beside :func:`keeping_recursion_limit`.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from league.errors import LeagueError

#: The statistics extra: the scores, `league stats`, `league verify` step 11 (the NYSE calendar sits on pandas).
STATS = ("numpy", "scipy", "pandas", "statsmodels", "arch", "exchange_calendars", "sklearn")
#: The daemon extra adds these to the statistics: scheduler, index database, migrations, API, metrics.
DAEMON = ("apscheduler", "sqlmodel", "sqlalchemy", "alembic", "fastapi", "starlette", "uvicorn", "prometheus_client",
          "feedparser")
#: Top-level import name -> the extra that installs it (adapters' extras included).
EXTRA_OF: dict[str, str] = {
    **dict.fromkeys(STATS, "stats"),
    **dict.fromkeys(DAEMON, "daemon"),
    "yfinance": "yahoo",
    "psycopg": "postgres",
    "anthropic": "anthropic",
    "openai": "openai",
    "google": "genai",
    "py_clob_client": "polymarket",
    "py_clob_client_v2": "polymarket-live",
}
#: Each extra and the extras it includes (pyproject.toml: `daemon` = `stats` + its own).
INCLUDES: dict[str, tuple[str, ...]] = {
    "stats": ("stats",), "daemon": ("daemon", "stats"), "demo": ("daemon", "stats"),
    "yahoo": ("yahoo",), "postgres": ("postgres",), "anthropic": ("anthropic",), "openai": ("openai",),
    "genai": ("genai",), "polymarket": ("polymarket",), "polymarket-live": ("polymarket-live",),
}


class MissingExtra(LeagueError):
    """A verb needs a library of an extra that is not installed (exit 2: the install, like a config, is
    incomplete)."""

    exit_code = 2


def install_hint(extra: str) -> str:
    """The one command that adds ``extra`` to this install."""
    return f"pip install 'forecast-league[{extra}]'"


def missing(modules: tuple[str, ...]) -> list[str]:
    """The modules of ``modules`` this interpreter cannot import (found without importing them)."""
    return [m for m in modules if importlib.util.find_spec(m) is None]


def explain(exc: ModuleNotFoundError) -> MissingExtra | None:
    """The error to show for a library an extra provides; None for any other missing module (a real bug)."""
    top = (exc.name or "").split(".")[0]
    name = EXTRA_OF.get(top)
    if name is None:
        return None
    return MissingExtra(f"this command needs {top}, which the `{name}` extra installs; {_this_install(name)}",
                        fix=install_hint(name))


def installed_extras() -> list[str]:
    """The extras of the league's own stack whose every library this interpreter finds (without importing it)."""
    have = [] if missing(STATS) else ["stats"]
    return have + (["daemon"] if have and not missing(DAEMON) else [])


def _this_install(wanted: str) -> str:
    """What the install is, for the error: "the lean install" only when neither the statistics nor the daemon's
    stack is there (a [demo] or [daemon] environment missing yfinance was called the lean install)."""
    have = installed_extras()
    if not have:
        return "this is the lean install (no extra)"
    if wanted in have:
        return "it cannot be imported here (a broken install: reinstall the extra)"
    return f"this install has the {' and '.join(have)} extra{'s' if len(have) > 1 else ''}, not `{wanted}`"


@contextmanager
def extra(name: str) -> Iterator[None]:
    """Around the imports of what needs the extra ``name``: a library of an extra that is missing becomes
    :class:`MissingExtra` naming the install command; any other missing module stays what it is (a bug)."""
    if name not in INCLUDES:
        raise ValueError(f"no extra named {name!r} (known: {', '.join(sorted(INCLUDES))})")
    try:
        yield
    except ModuleNotFoundError as exc:
        error = explain(exc)
        if error is None:
            raise
        raise error from exc


@contextmanager
def keeping_recursion_limit() -> Iterator[None]:
    """Beside :func:`extra` around the Polymarket clients: py-clob-client and py-clob-client-v2 import py_ecc,
    which raises ``sys.setrecursionlimit`` to 100,000 on import. The league relies on the default limit: the
    book refuses a too-deeply nested line with a RecursionError, and with the raised limit the JSON scanner
    overflows the C stack instead (a segmentation fault, seen in the test suite)."""
    limit = sys.getrecursionlimit()
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)
