"""The readers' book (``DATA/books/readers-book.jsonl``): every reader assignment, view, peek and forecast,
sealed on arrival with the council book's chain formula and line rules, published whole (it holds no address and
no hash of one: a reader is named by the SHA-256 of its random identifier, never by the identifier itself).

One process writes it (the readers' write service); the state the service needs (groups, first forecasts,
views, peeks, revision pairs) is rebuilt from the lines when the book opens and kept as each line is sealed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import Field

from league.book import BookLine, iter_lines
from league.book.chain import BOOKKEEPING
from league.book.lines import Line
from league.clock import Clock
from league.errors import InvalidRecord
from league.seatcore.ledger import TrackBook

READERS_BOOK = "readers-book.jsonl"
#: Published under this folder of the open-data folder.
READERS_DIR = "readers"


class ReaderOpeningLine(Line):
    """Line 1: the experiment's rules, sealed before the first reader is assigned."""

    kind: Literal["reader_opening"] = "reader_opening"
    rules: str
    groups: dict[str, str]
    confidence: list[int]


class ReaderAssignedLine(Line):
    """A new reader (its identifier's SHA-256, 32 hex) and its group, drawn once and for ever; ``reset``: the same
    address had already been given an identifier that day (the address itself is never kept)."""

    kind: Literal["reader_assigned"] = "reader_assigned"
    reader: str
    group: Literal["g0", "g1"]
    reset: bool


class ReaderViewLine(Line):
    """A reader's first view of a session's form (time to first forecast runs from it)."""

    kind: Literal["reader_view"] = "reader_view"
    reader: str
    session: str


class ReaderPeekLine(Line):
    """A blind reader who opened the council's answers before its first forecast of the session."""

    kind: Literal["reader_peek"] = "reader_peek"
    reader: str
    session: str


class ReaderForecastLine(Line):
    """A forecast: counted when it is the reader's first for the market and session, else ``later``."""

    kind: Literal["reader_forecast"] = "reader_forecast"
    reader: str
    group: Literal["g0", "g1"]
    session: str
    market: str
    side: Literal["up", "down"]
    confidence: int = Field(ge=55, le=95)
    counted: bool
    seconds: float | None
    consensus_up: float | None
    consensus_session: str | None


class _RevisionFields(Line):
    """A revision-protocol forecast: reader, session, market, side and confidence."""

    reader: str
    session: str
    market: str
    side: Literal["up", "down"]
    confidence: int = Field(ge=55, le=95)


class ReaderPrivateLine(_RevisionFields):
    """The revision protocol's private forecast (the council hidden) and the display drawn for the reader next."""

    kind: Literal["reader_private"] = "reader_private"
    display: Literal["council", "control"]
    consensus_up: float | None
    consensus_session: str | None


class ReaderFinalLine(_RevisionFields):
    """The revision protocol's final forecast of the same market and session, after its display."""

    kind: Literal["reader_final"] = "reader_final"


ReaderLine = (ReaderOpeningLine | ReaderAssignedLine | ReaderViewLine | ReaderPeekLine | ReaderForecastLine
              | ReaderPrivateLine | ReaderFinalLine)
MODELS: dict[str, type[ReaderLine]] = {m.model_fields["kind"].default: m for m in (  # type: ignore[misc]
    ReaderOpeningLine, ReaderAssignedLine, ReaderViewLine, ReaderPeekLine, ReaderForecastLine, ReaderPrivateLine,
    ReaderFinalLine)}


def read_reader_line(line: BookLine) -> ReaderLine:
    """The typed model of a sealed readers' book line; InvalidRecord when it fits none."""
    model = MODELS.get(line.kind)
    if model is None:
        raise InvalidRecord(f"line {line.n} of the readers' book has an unknown kind {line.kind!r}")
    body = {k: v for k, v in line.content.items() if k not in BOOKKEEPING}
    return model.model_validate_json(json.dumps({**body, "kind": line.kind, "at": line.at}))


@dataclass
class ReadersState:
    """What the write service decides with, rebuilt from the lines."""

    groups: dict[str, str] = field(default_factory=dict)
    views: dict[tuple[str, str], str] = field(default_factory=dict)  # (reader, session) -> first view time
    counted: set[tuple[str, str, str]] = field(default_factory=set)  # (reader, session, market)
    forecast_sessions: dict[str, set[str]] = field(default_factory=dict)
    peeks: set[tuple[str, str]] = field(default_factory=set)
    private: dict[tuple[str, str, str], str] = field(default_factory=dict)  # -> display
    final: set[tuple[str, str, str]] = field(default_factory=set)
    opened: bool = False

    def take(self, x: ReaderLine) -> None:
        if isinstance(x, ReaderOpeningLine):
            self.opened = True
        elif isinstance(x, ReaderAssignedLine):
            self.groups.setdefault(x.reader, x.group)
        elif isinstance(x, ReaderViewLine):
            self.views.setdefault((x.reader, x.session), x.at)
        elif isinstance(x, ReaderPeekLine):
            self.peeks.add((x.reader, x.session))
        elif isinstance(x, ReaderForecastLine):
            if x.counted:
                self.counted.add((x.reader, x.session, x.market))
                self.forecast_sessions.setdefault(x.reader, set()).add(x.session)
        elif isinstance(x, ReaderPrivateLine):
            self.private.setdefault((x.reader, x.session, x.market), x.display)
        elif isinstance(x, ReaderFinalLine):
            self.final.add((x.reader, x.session, x.market))

    def forecast_in(self, reader: str, session: str) -> bool:
        return session in self.forecast_sessions.get(reader, set())


class ReadersBook(TrackBook):
    """The single writer of the readers' book, with the service's state kept beside it."""

    def __init__(self, path: Path, clock: Clock) -> None:
        self.state = ReadersState()
        super().__init__(path, clock)

    def opened(self, count: int) -> None:
        for line in iter_lines(self.path) if count else ():
            self.state.take(read_reader_line(line))

    def sealed(self, line: BookLine) -> None:
        self.state.take(read_reader_line(line))

    def seal(self, line: ReaderLine) -> BookLine:
        """Seal one typed line (validated when it was built)."""
        return self.append(line.kind, line.content())
