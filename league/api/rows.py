"""``/api/rows/stream``: the scored rows ``league tail --rows`` prints, served over HTTP.

A researcher away from the league host follows the same rows ``league tail --rows DATA`` prints on it: the
columns of ``council-forecasts.csv`` plus ``row_id`` and ``brier``, computed from the live book by the same
code (:class:`league.publish.tailrows.RowReader`). The server reads the book, not the published CSV, because
the CSV is rewritten whole at each publish (no byte range of it stays put between two publishes), carries
neither ``row_id`` nor ``brier``, and lags the book until the next publish; the book only grows, so a
``row_id`` (``<score line>.<index>``) is a resume point that holds across reconnects and restarts.

A row exists only once its score line is sealed, after the session's answers are revealed, so the embargo
never holds a row back. The server must hold the league's data folder (``books/`` beside ``config/``, as
``league serve --data`` on the league host has); an open-data folder alone is answered 404 with the fix.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from league.api.errors import BadRequest, NotFound, shown
from league.errors import LeagueError
from league.publish.forecasts import ROW_COLUMNS
from league.publish.tailrows import SCORE_KINDS, RowReader, data_folder, first_line, parse_row_id

#: The response header naming the CSV columns in order (a client prints its CSV header from it).
COLUMNS_HEADER = "X-League-Row-Columns"
COLUMNS = ",".join(ROW_COLUMNS)


def rows_data(book: Path) -> Path:
    """The league data folder of the served book, or a 404 saying why rows cannot be served here."""
    try:
        return data_folder(book)
    except LeagueError:
        raise NotFound("this server has no league data folder (books/ beside config/): scored rows are computed "
                       "from the live book", fix="ask the league host's API, or read council-forecasts.csv") from None


def resume_point(after: str | None) -> tuple[int, tuple[int, int]]:
    """The first book line to read and the row key rows must exceed; a malformed ``after`` is a 400."""
    try:
        return first_line(after)
    except LeagueError as exc:
        raise BadRequest(f"after={shown(after or '')} is not a row id LINE.INDEX", fix=exc.fix) from None


class RowSelect:
    """``select(first, last)`` for the API's stream loop: the NDJSON rows of score lines ``first..last`` after
    the resume point (one reader per request, so the book's view is reused while the stream lasts)."""

    def __init__(self, data: Path, kind: Callable[[int], str], last: tuple[int, int]) -> None:
        self.reader = RowReader(data)
        self.kind = kind
        self.last = last

    def __call__(self, first: int, stop: int) -> list[bytes]:
        out: list[bytes] = []
        for n in range(first, stop + 1):
            if self.kind(n) not in SCORE_KINDS:
                continue
            for row in self.reader.rows(n):
                if parse_row_id(row["row_id"]) > self.last:
                    out.append(json.dumps(row, ensure_ascii=False).encode("utf-8") + b"\n")
        return out

