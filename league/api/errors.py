"""The API's one base exception, the client errors it answers with, and the one shape of every error body.

Each carries the HTTP status it maps to, so the app's exception handlers turn every refusal — the
API's own, FastAPI's request validation and Starlette's (405, an unmatched route) — into a small JSON
body ``{"error": ..., "fix": ...}`` instead of a traceback. :func:`error_body` is the only place such
a body is made, and it cuts each field to :data:`MAX_ERROR_CHARS`: whatever a client sends (a
5,000-character seat name, a thousand unknown kinds), no error body echoes more than that of it.
"""

from __future__ import annotations

from collections.abc import Iterable

from league.errors import LeagueError

#: The longest ``error`` or ``fix`` text of an error body, in characters (docs/open-data.md).
MAX_ERROR_CHARS = 300
#: The longest client value an error message quotes (a path, a seat, a run id, a date, a number).
MAX_QUOTED = 120


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


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, the cut marked with ``...``."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def shown(value: object) -> str:
    """A client's value as an error message quotes it (a text in quotes, a number as it is): never more than
    :data:`MAX_QUOTED` characters of it."""
    text = clip(str(value), MAX_QUOTED)
    return repr(text) if isinstance(value, str) else text


def shown_all(values: Iterable[object], *, limit: int = 5) -> str:
    """Several client values (kinds, …) in a message: the first ``limit``, each cut to :data:`MAX_QUOTED`
    characters, then how many more."""
    items = list(values)
    text = ", ".join(clip(str(v), MAX_QUOTED) for v in items[:limit])
    return text + (f" and {len(items) - limit} more" if len(items) > limit else "")


def error_body(error: object, fix: object = None) -> dict[str, str | None]:
    """The JSON body of every refusal: each field cut to :data:`MAX_ERROR_CHARS` characters."""
    return {"error": clip(str(error), MAX_ERROR_CHARS), "fix": None if fix is None else clip(str(fix), MAX_ERROR_CHARS)}
