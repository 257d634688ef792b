"""``league tail --rows``: the scored rows of a league as they are scored, for researchers.

A researcher follows seat × market × horizon rows with their Brier, not book lines: each sealed
``score``/``score_h`` line becomes its rows, with the columns of ``council-forecasts.csv`` plus
``row_id`` and ``brier`` (:data:`league.publish.forecasts.ROW_COLUMNS`). A row exists only once its
horizon is scored, which is after the session's score line, so the embargo (answers hidden until the
score line) never holds a row back. Resumable: ``after`` is the last ``row_id`` already seen.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from league import records
from league.book.follow import follow_file
from league.book.view import BookView
from league.errors import LeagueError
from league.publish.forecasts import ROW_COLUMNS, scored_rows

SCORE_KINDS = frozenset({"score", "score_h"})


def parse_row_id(text: str) -> tuple[int, int]:
    """``<score line n>.<index>`` → a sortable key; a clear error for anything else."""
    line, sep, index = text.partition(".")
    if not (sep and line.isdigit() and index.isdigit()):
        raise LeagueError(f"row id {text!r} is not LINE.INDEX", fix="pass a row_id printed earlier, e.g. 412.7")
    return int(line), int(index)


def data_folder(source: Path) -> Path:
    """A data folder (``DATA/books/council-book.jsonl`` beside ``config/``), or its council book."""
    folder = source.parent.parent if source.is_file() else source
    for candidate in (folder, folder / "data"):  # the folder of `league demo --out DIR` holds data/
        if (candidate / "books" / "council-book.jsonl").is_file() and (candidate.parent / "config").is_dir():
            return candidate
    raise LeagueError(f"{source}: no league data folder with books/council-book.jsonl and a sibling config/",
                      fix="pass the data folder (or the demo's --out folder) of a league, or an API URL")


class RowReader:
    """The scored rows of one score line at a time, from a league's data folder.

    The rows of a score line read every line before it (the answers, the corrections), so the book's view
    is opened again only when a line is newer than the view: a reader following the book pays one reopen
    per new score line, not one per row."""

    def __init__(self, data: Path) -> None:
        self.data = data
        self.view: BookView | None = None

    def rows(self, n: int) -> list[dict[str, str]]:
        """The rows of line ``n`` (none unless it is a score line), each with its ``row_id`` and Brier."""
        if self.view is None or n not in self.view.index.lines:
            self.view = BookView.open(self.data)
        line = self.view.index.lines[n]
        return list(scored_rows(self.view, line)) if isinstance(line, records.Score) else []


def first_line(after: str | None) -> tuple[int, tuple[int, int]]:
    """The first book line to read when resuming after ``after`` and the sort key rows must exceed."""
    last = parse_row_id(after) if after else (0, -1)
    return max(1, last[0]), last


def follow_rows(source: Path, after: str | None = None, follow: bool = False,
                poll_s: float = 0.5) -> Iterator[dict[str, str]]:
    """Each scored row after ``after``, in book order; with ``follow`` keep waiting for new score lines."""
    data = data_folder(source)
    start, last = first_line(after)
    reader = RowReader(data)
    for n, _raw in follow_file(data / "books" / "council-book.jsonl", start, SCORE_KINDS, follow, poll_s=poll_s):
        for row in reader.rows(n):
            if parse_row_id(row["row_id"]) > last:
                yield row


def render(rows: Iterable[dict[str, str]], fmt: str) -> Iterator[str]:
    """CSV (a header first, then one record per row) or NDJSON (one object per line)."""
    if fmt == "ndjson":
        for row in rows:
            yield json.dumps(row, ensure_ascii=False)
        return
    yield _csv_line(dict(zip(ROW_COLUMNS, ROW_COLUMNS, strict=True)))
    for row in rows:
        yield _csv_line(row)


def _csv_line(row: dict[str, str]) -> str:
    buf = io.StringIO()
    csv.DictWriter(buf, fieldnames=ROW_COLUMNS, lineterminator="").writerow(row)
    return buf.getvalue()
