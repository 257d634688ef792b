"""``council-forecasts-index.json``: the per-run slices of ``council-forecasts.csv`` (paper Appendix C).

A reader (or a reading AI) that cannot open the whole forecasts file starts here: every run and every
session is a contiguous run of rows in the CSV (the writer emits rows run by run, sessions in order), so
each gets its data-row range, its byte range and the SHA-256 of exactly those bytes. Fetch the header
(``header.offset``/``length``) plus one slice — an HTTP Range request does it — and the result is a
valid CSV of that run, checkable against its hash; the whole file's size and hash are given too.

Rows are numbered from 1 after the header (``first_row``/``last_row`` inclusive). Record boundaries
follow RFC 4180: a newline inside a quoted field does not end a row. Should a run ever appear in two
blocks, it gets one slice per block (``block``), never a range that takes in another run's rows.
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Iterator
from dataclasses import dataclass

FILE = "council-forecasts.csv"


@dataclass
class _Slice:
    key: str
    first_row: int
    last_row: int
    offset: int
    end: int
    fields: dict[str, str]

    def as_json(self, data: bytes) -> dict[str, object]:
        body = data[self.offset:self.end]
        return {**self.fields, "first_row": self.first_row, "last_row": self.last_row,
                "rows": self.last_row - self.first_row + 1, "offset": self.offset, "length": len(body),
                "sha256": hashlib.sha256(body).hexdigest()}


def records(data: bytes) -> Iterator[tuple[int, int]]:
    """(start, end) byte offsets of each CSV record, its line ending included (RFC 4180 quoting)."""
    start, quotes, pos = 0, 0, 0
    while pos < len(data):
        nl = data.find(b"\n", pos)
        end = len(data) if nl < 0 else nl + 1
        quotes += data.count(b'"', pos, end)
        pos = end
        if quotes % 2 == 0:
            yield start, end
            start, quotes = end, 0
    if start < len(data):
        yield start, len(data)


def _row(data: bytes, start: int, end: int, header: list[str]) -> dict[str, str]:
    return dict(zip(header, _values(data[start:end]), strict=False))


def _values(record: bytes) -> list[str]:
    """The fields of one record, as ``csv.reader`` reads them. A record without quotes, CR or NUL (most rows)
    is its text split at the commas (what the reader does with such a line; an empty line is no fields), without
    a reader and a text stream made for each of the CSV's rows; any other takes the reader."""
    if b'"' in record or b"\r" in record or b"\0" in record:
        return next(csv.reader(io.StringIO(record.decode("utf-8"))), [])
    text = record.decode("utf-8")
    text = text[:-1] if text.endswith("\n") else text
    return text.split(",") if text else []


def _extend(slices: list[_Slice], key: str, n: int, start: int, end: int, fields: dict[str, str]) -> None:
    last = slices[-1] if slices else None
    if last is not None and last.key == key:
        last.last_row, last.end = n, end
    else:
        slices.append(_Slice(key, n, n, start, end, fields))


def forecasts_index(data: bytes, generated_at: str) -> dict[str, object]:
    """The index of one forecasts CSV (its bytes as published)."""
    bounds = records(data)
    h_start, h_end = next(bounds, (0, 0))
    header = next(csv.reader(io.StringIO(data[h_start:h_end].decode("utf-8"))), [])
    runs: list[_Slice] = []
    sessions: list[_Slice] = []
    n = 0
    for start, end in bounds:
        row = _row(data, start, end, header)
        n += 1
        _extend(runs, row.get("run_id", ""), n, start, end,
                {"run_id": row.get("run_id", ""), "session": row.get("session", ""),
                 "run_role": row.get("run_role", "")})
        _extend(sessions, row.get("session", ""), n, start, end, {"session": row.get("session", "")})
    return {"file": FILE, "generated_at": generated_at, "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(), "rows": n, "columns": header,
            "header": {"offset": h_start, "length": h_end - h_start},
            "row_numbering": "data rows from 1 after the header; first_row and last_row inclusive",
            "runs": _numbered(runs, data), "sessions": _with_runs(sessions, runs, data)}


def _numbered(slices: list[_Slice], data: bytes) -> list[dict[str, object]]:
    """Each slice's JSON; a key split over several blocks numbers them (``block`` 1, 2, ...)."""
    seen: dict[str, int] = {}
    out: list[dict[str, object]] = []
    for s in slices:
        seen[s.key] = seen.get(s.key, 0) + 1
        out.append({**s.as_json(data), "block": seen[s.key]})
    return out


def _with_runs(sessions: list[_Slice], runs: list[_Slice], data: bytes) -> list[dict[str, object]]:
    """Each session slice's JSON with the runs whose first row falls in it."""
    out = []
    for session, item in zip(sessions, _numbered(sessions, data), strict=True):
        lo, hi = session.first_row, session.last_row
        item["runs"] = sorted({r.key for r in runs if lo <= r.first_row <= hi})
        out.append(item)
    return out
