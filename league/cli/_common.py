"""Small helpers shared by CLI modules (options defaulting from LEAGUE_* variables)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Annotated

import typer

from league.errors import UsageError

#: The days a command-line date may name: the NYSE calendar and the price histories hold nothing outside them.
EARLIEST_DAY, LATEST_DAY = date(1990, 1, 1), date(2100, 12, 31)


def parse_rate(text: str, *, option: str) -> Decimal:
    """A percentage option (a bill rate): a decimal number from 0 to 100."""
    try:
        rate = Decimal(text)
    except InvalidOperation:
        rate = Decimal("NaN")
    if not rate.is_finite() or not 0 <= rate <= 100:
        shown = repr(text if len(text) <= 40 else text[:40] + "…")
        raise UsageError(f"{option} {shown} is not a percentage from 0 to 100", fix=f"give e.g. {option} 4.0")
    return rate


def parse_day(text: str, *, option: str, earliest: date = EARLIEST_DAY, latest: date = LATEST_DAY,
              env: str = "") -> date:
    """A ``YYYY-MM-DD`` option's day, or a UsageError naming the option, the value and the range taken
    (``2026-02-30`` does not exist; ``9999-12-31`` overflowed the day arithmetic behind it). ``env``: the
    variable the option defaults from, named in the fix."""
    shown = repr(text if len(text) <= 40 else text[:40] + "…")
    where = f" ({option} or {env})" if env else ""
    try:
        day = date.fromisoformat(text) if len(text) == 10 else None
    except ValueError:
        day = None
    if day is None:
        raise UsageError(f"{option} {shown} is not a calendar day (YYYY-MM-DD)",
                         fix=f"give a day that exists, such as 2026-11-24{where}")
    if not earliest <= day <= latest:
        raise UsageError(f"{option} {day} is outside {earliest} – {latest}", fix=f"give a day inside that range{where}")
    return day


ConfigDir = Annotated[
    Path,
    typer.Option("--config", envvar="LEAGUE_CONFIG", help="config folder (league.toml, markets.toml, roster.toml)"),
]
DataDir = Annotated[Path, typer.Option("--data", envvar="LEAGUE_DATA", help="data folder (books, database, public/)")]
