"""The scoring package's one base exception.

Scoring is pure: its only failures are bad input (a forecasts file that is not what
``open-data.md`` describes) and a climatology table whose content no longer matches its seal.
Both must stop the computation with a clear message rather than publish a wrong number.
"""

from __future__ import annotations

from league.errors import LeagueError


class ScoringError(LeagueError):
    """Base of every deliberate scoring error."""


class ForecastsInputError(ScoringError):
    """The forecasts table is missing columns or holds values that cannot be parsed."""


class ClimatologyHashError(ScoringError):
    """A climatology table's content SHA-256 does not match its recorded seal."""
