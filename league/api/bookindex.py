"""An incremental index of a growing book: byte offsets, kinds, runs and sessions per line.

The book only grows, so the index reads only the bytes appended since its last look (one
``stat`` per request when nothing changed) and serves any line range with one ``pread``. A line
without its LF is not part of the book yet and is left for the next look. If the file ever gets
shorter (a republished copy), the index starts over rather than serve stale offsets.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from league.book.lines import ASK_CHAIN_KINDS, COUNCIL_KINDS
from league.jsonvalue import JsonObject

#: Every kind the league's two books are written with (docs/protocol.md §3), plus kinds of earlier
#: versions; kinds seen in the book are accepted too.
PROTOCOL_KINDS = COUNCIL_KINDS | ASK_CHAIN_KINDS | frozenset({"shadow", "account", "bet", "stamp", "publish"})


def appended_lines(path: Path, start: int, size: int) -> tuple[list[tuple[int, bytes]], int]:
    """The complete lines between byte ``start`` and ``size`` with their offsets, and where the indexed part
    now ends (a last line without its LF is left for the next look)."""
    with open(path, "rb") as fh:
        fh.seek(start)
        data = fh.read(size - start)
    lines, pos, end = [], 0, data.rfind(b"\n")
    while pos <= end:
        nl = data.index(b"\n", pos)
        lines.append((start + pos, data[pos:nl]))
        pos = nl + 1
    return lines, start + pos


def appended_since(path: Path, indexed: int, reset: Callable[[], None]) -> tuple[list[tuple[int, bytes]], int]:
    """The complete lines appended since byte ``indexed`` and where the index now ends (one ``stat`` when
    nothing changed). A file gone or shorter than what was indexed (a republished copy) calls ``reset`` and
    is read from its start, so stale offsets are never served."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        reset()
        return [], 0
    if size < indexed:
        reset()
        indexed = 0
    return appended_lines(path, indexed, size) if size > indexed else ([], indexed)


def line_range(path: Path, offsets: list[int], size: int, first: int, last: int) -> list[bytes]:
    """Lines ``first..last`` (1-based, inclusive) of an indexed book, read with one seek, without their LF."""
    if first > last:
        return []
    start = offsets[first - 1]
    stop = offsets[last] if last < len(offsets) else size
    with open(path, "rb") as fh:
        fh.seek(start)
        data = fh.read(stop - start)
    return data.split(b"\n")[: last - first + 1]


@dataclass
class _State:
    offsets: list[int] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    size: int = 0
    runs: dict[str, int] = field(default_factory=dict)
    by_run: dict[str, list[int]] = field(default_factory=dict)
    sessions: dict[str, list[str]] = field(default_factory=dict)
    seen_kinds: set[str] = field(default_factory=set)


class BookIndex:
    """Thread-safe; :meth:`refresh` before reading to pick up appended lines."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._s = _State()

    def refresh(self) -> int:
        """Index lines appended since the last call; return the number of complete lines."""
        with self._lock:
            lines, self._s.size = appended_since(self.path, self._s.size, self._reset)
            for offset, raw in lines:
                self._add(offset, raw)
            return len(self._s.offsets)

    def _reset(self) -> None:
        self._s = _State()

    def seed(self, offsets: list[int], size: int, kinds: list[str], run_ids: list[str],
             run_sessions: dict[str, str]) -> None:
        """Take the first ``len(offsets)`` lines as already indexed (from the database, league.api.dbseed):
        their offsets, kinds and run ids, and the session of each run line; ``size`` is where they end.
        Later lines are indexed from the file by :meth:`refresh` as before."""
        with self._lock:
            state = _State(offsets=offsets, kinds=kinds, size=size, seen_kinds=set(kinds))
            for n, (kind, run_id) in enumerate(zip(kinds, run_ids, strict=True), 1):
                if not run_id:
                    continue
                state.by_run.setdefault(run_id, []).append(n)
                if kind == "run":
                    state.runs[run_id] = n
                    state.sessions.setdefault(run_sessions.get(run_id, ""), []).append(run_id)
            self._s = state

    def _add(self, offset: int, raw: bytes) -> None:
        n = len(self._s.offsets) + 1
        self._s.offsets.append(offset)
        try:
            obj: JsonObject = json.loads(raw)
        except ValueError:
            obj = {}
        kind = str(obj.get("kind", ""))
        self._s.kinds.append(kind)
        self._s.seen_kinds.add(kind)
        run_id = str(obj.get("run_id", ""))
        if run_id:
            self._s.by_run.setdefault(run_id, []).append(n)
        if kind == "run" and run_id:
            self._s.runs[run_id] = n
            self._s.sessions.setdefault(str(obj.get("session", "")), []).append(run_id)

    # ---------------------------------------------------------------------------- reading
    @property
    def lines(self) -> int:
        return len(self._s.offsets)

    def known_kinds(self) -> frozenset[str]:
        return PROTOCOL_KINDS | frozenset(self._s.seen_kinds)

    def kind(self, n: int) -> str:
        return self._s.kinds[n - 1]

    def raw_lines(self, first: int, last: int) -> list[bytes]:
        """Lines ``first..last`` (1-based, inclusive) as stored, without their LF."""
        return line_range(self.path, self._s.offsets, self._s.size, first, last)

    def line(self, n: int) -> JsonObject:
        parsed: JsonObject = json.loads(self.raw_lines(n, n)[0])
        return parsed

    def run_line(self, run_id: str) -> int | None:
        return self._s.runs.get(run_id)

    def lines_of_run(self, run_id: str) -> list[int]:
        return list(self._s.by_run.get(run_id, []))

    def runs_of_session(self, session: str) -> list[str]:
        return list(self._s.sessions.get(session, []))

    def last_run(self) -> str | None:
        if not self._s.runs:
            return None
        return max(self._s.runs, key=lambda r: self._s.runs[r])


