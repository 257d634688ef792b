"""Which install extra brings which library, so that a verb run on the lean install says what to install.

`pip install forecast-league` carries no scientific stack: a lab that only runs `league seat
check` or `league worker`, or a reader who only runs `league verify`, need neither pandas nor the daemon's
database and web stack. A verb that does need them meets a :class:`ModuleNotFoundError` somewhere deep
inside; the entry point turns it into one line naming the extra (:func:`explain`), and `league verify`
asks :func:`missing` before its step 11 instead of failing it. The names mirror pyproject.toml's extras.
"""

from __future__ import annotations

import importlib.util

from league.errors import LeagueError

#: The statistics extra: the scores, `league stats`, `league verify` step 11 (the NYSE calendar sits on pandas).
STATS = ("numpy", "scipy", "pandas", "statsmodels", "arch", "exchange_calendars")
#: The daemon extra adds these to the statistics: scheduler, index database, migrations, API, metrics.
DAEMON = ("apscheduler", "sqlmodel", "sqlalchemy", "alembic", "fastapi", "starlette", "uvicorn", "prometheus_client")
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
    extra = EXTRA_OF.get(top)
    if extra is None:
        return None
    return MissingExtra(f"this command needs {top}, which the `{extra}` extra installs; this is the lean install",
                        fix=install_hint(extra))
