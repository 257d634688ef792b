"""Structural comparison of a published file with its recomputation (JSON path, CSV row and column).

Pure and standard-library only: ``league verify`` and ``league stats`` hand it the published bytes
and the rebuilt bytes and get back one readable line per difference, naming the file, the row or
JSON path and the field. Numbers agree when they are equal within the published rounding: every
float is published in full, so within a relative 1e-9 (floating-point noise between two runs of the
same arithmetic).
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator, Sequence

from league.jsonvalue import Json, JsonObject, number

REL_TOL = 1e-9
#: Columns that identify one row of council-forecasts.csv (a sealed cell, or an expected one).
FORECAST_KEY = ("run_id", "seat", "asset", "horizon", "line_kind", "line")


def same_number(published: float, rebuilt: float) -> bool:
    """Equal within the published rounding: the publisher writes every float in full (``repr``), so
    only floating-point noise between two runs of the same arithmetic is allowed (relative 1e-9)."""
    return math.isclose(published, rebuilt, rel_tol=REL_TOL, abs_tol=1e-12)


def diff_json(published: Json, rebuilt: Json, path: str = "$") -> Iterator[str]:
    """Every difference between two JSON values, as ``$.a[3].b: published X, recomputed Y``."""
    a_number, b_number = number(published), number(rebuilt)  # (a boolean is not a number here)
    if a_number is not None and b_number is not None:
        if not same_number(float(a_number), float(b_number)):
            yield f"{path}: published {published!r}, recomputed {rebuilt!r}"
    elif isinstance(published, dict) and isinstance(rebuilt, dict):
        yield from _diff_dicts(published, rebuilt, path)
    elif isinstance(published, list) and isinstance(rebuilt, list):
        if len(published) != len(rebuilt):
            yield f"{path}: published {len(published)} entries, recomputed {len(rebuilt)}"
        for i, (a, b) in enumerate(zip(published, rebuilt, strict=False)):
            yield from diff_json(a, b, f"{path}[{i}]{_label(a)}")
    elif published != rebuilt:
        yield f"{path}: published {_short(published)}, recomputed {_short(rebuilt)}"


def _diff_dicts(published: JsonObject, rebuilt: JsonObject, path: str) -> Iterator[str]:
    for key in sorted(set(published) | set(rebuilt)):
        where = f"{path}.{key}"
        if key not in rebuilt:
            yield f"{where}: published but not recomputed"
        elif key not in published:
            yield f"{where}: recomputed but not published"
        else:
            yield from diff_json(published[key], rebuilt[key], where)


def _label(entry: Json) -> str:
    """A list entry's identity for the reader (seat, horizon, event …) when it has one."""
    if not isinstance(entry, dict):
        return ""
    keys = ("seat", "horizon", "event_id", "run_id", "session", "asset", "account", "league", "bin")
    parts = [f"{k}={entry[k]}" for k in keys if isinstance(entry.get(k), str | int) and not isinstance(
        entry.get(k), bool)]
    return f"({', '.join(parts)})" if parts else ""


def _short(value: Json) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def diff_json_bytes(name: str, published: bytes, rebuilt: bytes) -> list[str]:
    """Differences of two JSON files, each line prefixed with the file name."""
    try:
        a: Json = json.loads(published)
    except ValueError as exc:
        return [f"{name}: the published file is not JSON ({exc})"]
    return [f"{name} {d}" for d in diff_json(a, json.loads(rebuilt))]


def _rows(data: bytes) -> tuple[list[str], list[dict[str, str]]]:
    reader = csv.DictReader(io.StringIO(data.decode("utf-8")))
    return list(reader.fieldnames or []), list(reader)


def _keyed(rows: list[dict[str, str]], key: Sequence[str]) -> dict[tuple[str, ...], tuple[int, dict[str, str]]]:
    """Row key → (CSV line number, row); a repeated key gets its occurrence appended."""
    out: dict[tuple[str, ...], tuple[int, dict[str, str]]] = {}
    for i, row in enumerate(rows, 2):
        k = tuple(row.get(c) or "" for c in key)
        n = 0
        while (*k, str(n)) in out:
            n += 1
        out[(*k, str(n))] = (i, row)
    return out


def diff_csv_bytes(name: str, published: bytes, rebuilt: bytes, key: Sequence[str] | None = None) -> list[str]:
    """Row-by-row, column-by-column differences; rows matched by ``key`` (else by position)."""
    head_a, rows_a = _rows(published)
    head_b, rows_b = _rows(rebuilt)
    out = [f"{name}: header is {head_a}, recomputed {head_b}"] if head_a != head_b else []
    if key is None:
        key = ("#",)
        rows_a = [{**r, "#": str(i)} for i, r in enumerate(rows_a)]
        rows_b = [{**r, "#": str(i)} for i, r in enumerate(rows_b)]
    a, b = _keyed(rows_a, key), _keyed(rows_b, key)
    for k in a.keys() - b.keys():
        out.append(f"{name} row {a[k][0]} ({_key_text(key, k)}): published but not recomputed from the book")
    for k in b.keys() - a.keys():
        out.append(f"{name}: a row ({_key_text(key, k)}) recomputed from the book is not published")
    for k in sorted(a.keys() & b.keys(), key=lambda k: a[k][0]):
        (line, row), (_, want) = a[k], b[k]
        out += [f"{name} row {line} ({_key_text(key, k)}) field {col}: published {row.get(col)!r}, "
                f"the book gives {want.get(col)!r}" for col in head_b if not _same_cell(row.get(col), want.get(col))]
    return out


def diff_csv_order(name: str, published: bytes, rebuilt: bytes, key: Sequence[str] | None) -> list[str]:
    """Same rows, other order: name the first row out of place (empty when the order is the same)."""
    if key is None:
        return []
    a, b = _rows(published)[1], _rows(rebuilt)[1]
    for i, (x, y) in enumerate(zip(a, b, strict=False), 2):
        kx, ky = tuple(x.get(c) or "" for c in key), tuple(y.get(c) or "" for c in key)
        if kx != ky:
            return [f"{name} row {i}: the rows are in another order than the book gives ({_key_text(key, kx)} "
                    f"where the book's order has {_key_text(key, ky)})"]
    return []


def _same_cell(published: str | None, rebuilt: str | None) -> bool:
    if published == rebuilt:
        return True
    try:
        return same_number(float(published or ""), float(rebuilt or ""))
    except ValueError:
        return False


def _key_text(key: Sequence[str], k: tuple[str, ...]) -> str:
    return ", ".join(f"{c}={v}" for c, v in zip(key, k, strict=False) if c != "#" and v)
