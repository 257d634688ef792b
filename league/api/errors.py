"""The API's one base exception and the client errors it answers with.

Each carries the HTTP status it maps to, so the app's single exception handler turns every
deliberate refusal into a small JSON body ``{"error": ..., "fix": ...}`` instead of a traceback.
"""

from __future__ import annotations

from league.errors import LeagueError


class ApiError(LeagueError):
    """Base of every API error; ``status`` is the HTTP status code it is answered with."""

    status: int = 500


class BadRequest(ApiError):
    status = 400


class NotFound(ApiError):
    status = 404


class RangeNotSatisfiable(ApiError):
    status = 416


class DataFolderError(ApiError):
    """The folder given to ``league serve`` holds no open data (raised at start-up, not per request)."""

    exit_code = 2
