"""Check that every forecast row traces to its sealed line (open-data.md: ``line`` names the line).

For each row of ``council-forecasts.csv``: the book line ``line`` exists and has the row's
``line_kind``; for an answer line with a stated probability, the line's cell
``items[asset][horizon].prob_up`` holds the same number. Publishing a table that does not match
the book would break the chain from a score to a sealed answer, so publish reports it as failed.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TypeAlias

from league.contracts.columns import BOOK_KIND
from league.jsonvalue import Json

#: What the check keeps of a line: its kind and what its cells are read from (an answer's items, a cell
#: correction's one cell in the same shape, a :class:`ProbTable`, or ``None``); :func:`_cell_prob` narrows it.
Entry: TypeAlias = "tuple[str, object]"
#: An answer's probability cells by (asset, horizon), the keys as sealed (any hashable JSON value).
Cells: TypeAlias = "dict[tuple[object, object], dict[str, Json]]"

SHOWN = 10


@dataclass
class LineCheck:
    rows: int = 0
    checked_cells: int = 0
    problems: list[str] = field(default_factory=list)
    problem_count: int = 0

    def problem(self, text: str) -> None:
        self.problem_count += 1
        if len(self.problems) < SHOWN:
            self.problems.append(text)

    @property
    def ok(self) -> bool:
        return self.problem_count == 0

    def summary(self) -> str:
        if self.ok:
            return f"{self.rows} rows trace to their book lines ({self.checked_cells} probabilities equal)"
        return f"{self.problem_count} of {self.rows} rows do not match their book line: " + "; ".join(self.problems)


def _index(book: bytes) -> dict[int, Entry]:
    """n -> (kind, items) for every line (items kept for answer lines, and for a cell correction its
    one corrected cell in the same shape)."""
    out: dict[int, Entry] = {}
    for raw in book.split(b"\n")[:-1]:
        obj = json.loads(raw)
        out[int(obj["n"])] = line_entry(obj)
    return out


def line_entry(line: Mapping[str, Json]) -> Entry:
    """What the check reads of one parsed line (its content, with or without the bookkeeping fields): its kind
    and, for an answer, its items; for a cell correction its one corrected cell in the same shape."""
    kind = str(line.get("kind", ""))
    items: object = line.get("items") if kind == "answer" else None
    if kind == "correction" and line.get("target") == "cell":
        items = {line.get("market"): {line.get("horizon"): line.get("cell") or {}}}
    return kind, items


def prob_entry(line: Mapping[str, Json], shared: dict[object, object] | None = None) -> Entry:
    """:func:`line_entry` cut to what :func:`check_table` reads of it: each cell's ``prob_up`` (where the cell is
    a mapping that has one), found by the same ``items[asset][horizon]["prob_up"]``, so the check finds the same
    value, or none, for every (asset, horizon). Why: an answer's items are most of its line, and a publisher
    keeping the entries of a whole book for the check (league.publish.files) held ~12 KB per answer; this keeps
    one small table per answer (:class:`ProbTable`). ``shared``: a dict the caller keeps across lines, through
    which the (asset, horizon) keys and equal cells are one object each (the entries are only read)."""
    kind, items = line_entry(line)
    if not isinstance(items, Mapping):
        return kind, items if items is None else {}
    pool: dict[object, object] = {} if shared is None else shared
    cells: Cells = {}
    for asset, row in items.items():
        if isinstance(row, Mapping):
            for horizon, cell in row.items():
                if isinstance(cell, Mapping) and "prob_up" in cell:
                    where = (asset, horizon)
                    shared_where = pool.setdefault(where, where)  # the pool's own copy of this key
                    key = shared_where if isinstance(shared_where, tuple) else where
                    cells[key] = _shared_cell(pool, cell["prob_up"])
    return kind, ProbTable(cells)


class ProbTable:
    """An answer's probabilities by (asset, horizon), read as ``table[asset][horizon]["prob_up"]`` (what
    :func:`_cell_prob` reads of the items); a missing asset or horizon raises ``KeyError`` as the items do."""

    __slots__ = ("_cells",)

    def __init__(self, cells: Cells) -> None:
        self._cells = cells

    def __getitem__(self, asset: object) -> _ProbRow:
        return _ProbRow(self._cells, asset)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ProbTable) and other._cells == self._cells

    __hash__ = None  # type: ignore[assignment]


class _ProbRow:
    __slots__ = ("_asset", "_cells")

    def __init__(self, cells: Cells, asset: object) -> None:
        self._cells, self._asset = cells, asset

    def __getitem__(self, horizon: object) -> dict[str, Json]:
        try:
            return self._cells[(self._asset, horizon)]
        except TypeError:  # an unhashable key finds nothing, as in the items
            raise KeyError(horizon) from None


def _shared_cell(pool: dict[object, object], prob: Json) -> dict[str, Json]:
    """``{"prob_up": prob}``, one object per distinct value (by type and, for a float, its repr: 0.0 and -0.0,
    1 and 1.0 stay apart, so a problem's message shows the value as sealed)."""
    try:
        key = ("cell", type(prob), repr(prob) if type(prob) is float else prob)
        hash(key)
    except TypeError:  # an unhashable value (not a number: the check reports it) is kept as it is
        return {"prob_up": prob}
    cell = pool.setdefault(key, {"prob_up": prob})
    return cell if isinstance(cell, dict) else {"prob_up": prob}


def _cell_prob(items: object, asset: str | None, horizon: str | None) -> Json:
    """``items[asset][horizon]["prob_up"]`` through JSON objects (or a :class:`ProbTable`); ``None`` where a
    step is missing or not an object (an older or hostile line's cell is reported, not raised)."""
    if isinstance(items, ProbTable):
        try:
            return items[asset][horizon]["prob_up"]
        except KeyError:
            return None
    row = items.get(asset) if isinstance(items, Mapping) else None
    cell = row.get(horizon) if isinstance(row, Mapping) else None
    prob: Json = cell.get("prob_up") if isinstance(cell, Mapping) else None
    return prob


def check_lines(book: bytes, forecasts: Iterable[str]) -> LineCheck:
    """Check the forecast rows (CSV text lines) against the book's bytes."""
    return check_table(_index(book), forecasts)


def check_table(lines: Mapping[int, Entry], forecasts: Iterable[str]) -> LineCheck:
    """Check the forecast rows against ``lines`` (n -> :func:`line_entry` of every book line), e.g. from a parse
    of the book its caller already made."""
    result = LineCheck()
    for i, row in enumerate(_rows(forecasts), 2):
        result.rows += 1
        _check_row(result, lines, i, row)
    return result


_READ = ("line", "line_kind", "prob_up", "asset", "horizon")


def _rows(forecasts: Iterable[str]) -> Iterator[Mapping[str, str | None]]:
    """The rows as ``csv.DictReader`` gives them, with only the columns the check reads: a short row's
    missing fields are None, blank rows are skipped (DictReader's rules). Why not DictReader itself: it builds
    a dict of every column of every row (90 720 rows × 40 columns in the 126-session demo) for five."""
    reader = csv.reader(forecasts)
    header = next(reader, None)
    if header is None:
        return
    where = {name: j for j, name in enumerate(header) if name in _READ}  # a repeated name: its last column
    for values in reader:
        if values == []:
            continue
        yield {name: values[j] if j < len(values) else None for name, j in where.items()}


def _check_row(result: LineCheck, lines: Mapping[int, Entry], i: int, row: Mapping[str, str | None]) -> None:
    try:
        n = int(row.get("line") or "")
    except ValueError:
        result.problem(f"row {i}: line {row.get('line')!r} is not a line number")
        return
    if n not in lines:
        result.problem(f"row {i}: line {n} is not in the book")
        return
    kind, items = lines[n]
    said = row.get("line_kind") or kind
    expected = BOOK_KIND.get(said, said)
    if kind != expected:
        result.problem(f"row {i}: line {n} is a {kind} line, the row says {said}")
        return
    stated = row.get("prob_up", "")
    if kind not in ("answer", "correction") or stated == "":
        return
    cell = _cell_prob(items, row["asset"], row["horizon"])
    try:
        same = isinstance(cell, str | int | float) and stated is not None and abs(float(cell) - float(stated)) < 1e-9
    except (TypeError, ValueError):
        same = False
    if not same:
        result.problem(f"row {i}: prob_up {stated} but line {n} holds {cell!r} for {row['asset']} {row['horizon']}")
        return
    result.checked_cells += 1

