"""One validated pass over the book, collecting what the published summaries need.

The protocol file's dated changes (methodology versions, model versions, corrections) and the
data dictionary's description of the book's line kinds are read from the sealed lines themselves,
so they can never claim a change the book does not show.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

from league.book import BOOKKEEPING
from league.errors import ChainBroken
from league.jsonvalue import Json, JsonObject, obj
from league.verify.chain import check_line


class RunFact(TypedDict):
    """A run line as the facts keep it (the values the line holds, copied as sealed)."""

    n: int
    run_id: Json
    session: Json
    at: str
    methodology_version: str
    role: Json


class MethodologyFact(TypedDict):
    """Where a methodology version first appears, with the rules sealed for it (the protocol's dated change)."""

    first_line: int
    first_at: str
    first_session: Json
    rules: JsonObject


class VersionFact(TypedDict):
    """Where a seat's (model, version) first answers (the protocol's model-version change)."""

    seat: str
    model: str
    version: str
    first_line: int
    first_at: str


class CorrectionFact(TypedDict):
    """A correction line as the protocol lists it."""

    line: int
    at: str
    of: Json
    reason: Json
    source: Json


@dataclass
class BookFacts:
    """Facts gathered from a book; ``lines == 0`` when no book exists yet."""

    lines: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    kind_keys: dict[str, set[str]] = field(default_factory=dict)
    runs: list[RunFact] = field(default_factory=list)
    methodology: dict[str, MethodologyFact] = field(default_factory=dict)
    versions: dict[tuple[str, str, str], VersionFact] = field(default_factory=dict)
    corrections: list[CorrectionFact] = field(default_factory=list)
    #: methodology version -> the shadow weights sealed for it (the first such line wins)
    shadow: dict[str, JsonObject] = field(default_factory=dict)

    def add(self, line: _Line) -> None:
        self.lines = line.n
        self.kinds[line.kind] += 1
        self.kind_keys.setdefault(line.kind, set()).update(line.content)
        handler = _HANDLERS.get(line.kind)
        if handler is not None:
            handler(self, line)


@dataclass(frozen=True)
class _Line:
    """A line already checked by :func:`league.verify.chain.check_line` (no second hashing)."""

    n: int
    content: JsonObject

    @property
    def kind(self) -> str:
        return str(self.content.get("kind", ""))

    @property
    def at(self) -> str:
        return str(self.content.get("at", ""))


def _methodology_version(value: Json | None) -> str:
    if isinstance(value, dict):
        return str(value.get("version", ""))
    return str(value or "")


def _on_run(facts: BookFacts, line: _Line) -> None:
    c = line.content
    version = _methodology_version(c.get("methodology"))
    facts.runs.append({"n": line.n, "run_id": c.get("run_id", ""), "session": c.get("session", ""),
                       "at": line.at, "methodology_version": version, "role": c.get("role", "")})
    if version and version not in facts.methodology:
        rules = obj(c.get("methodology"))
        facts.methodology[version] = {"first_line": line.n, "first_at": line.at,
                                      "first_session": c.get("session", ""), "rules": rules}


def _on_answer(facts: BookFacts, line: _Line) -> None:
    c = line.content
    key = (str(c.get("seat", "")), str(c.get("model", "")), str(c.get("version", "")))
    if key not in facts.versions:
        facts.versions[key] = {"seat": key[0], "model": key[1], "version": key[2],
                               "first_line": line.n, "first_at": line.at}


def _on_correction(facts: BookFacts, line: _Line) -> None:
    c = line.content
    facts.corrections.append({"line": line.n, "at": line.at, "of": c.get("of"), "reason": c.get("reason", ""),
                              "source": c.get("source", "")})


def _on_shadow(facts: BookFacts, line: _Line) -> None:
    c = line.content
    weights = c.get("weights")
    if isinstance(weights, dict):
        facts.shadow.setdefault(str(c.get("methodology_version", "")), weights)


_HANDLERS = {"run": _on_run, "answer": _on_answer, "correction": _on_correction, "shadow_weights": _on_shadow}


def _complete(data: bytes) -> Iterator[bytes]:
    """The complete lines of ``data`` without their LF, one at a time: ``data.split(b"\\n")[:-1]`` without a list
    of every line beside the bytes (a second copy of the book while the publisher keeps its parse)."""
    start = 0
    while (end := data.find(b"\n", start)) >= 0:
        yield data[start:end]
        start = end + 1


def _file_lines(book: Path) -> Iterator[bytes]:
    """The complete lines of the file ``book`` without their LF, read one at a time (none if it is missing).

    Why not ``read_bytes``: the whole book in memory at once is its size again (956 MB at one year × 100 seats),
    only to be checked line by line; a line still being written (no LF yet) ends the read."""
    if not book.is_file():
        return
    with open(book, "rb") as fh:
        for raw in fh:
            if not raw.endswith(b"\n"):
                return
            yield raw[:-1]


def read_facts(book: Path, data: bytes | None = None,
               keep: Callable[[JsonObject, JsonObject, bytes], None] | None = None,
               lines: Iterable[bytes] | None = None) -> BookFacts:
    """Gather facts from ``book`` (or its bytes), validating every seal and link on the way.

    Only complete lines count: the daemon may be writing the next line while we read, and a
    line without its LF is not part of the book yet (docs/protocol.md section 3).
    ``keep(line, content, raw)`` is told each checked line as parsed here (the publisher keeps some for
    its later readers: league.book.shared.KeptLines), ``content`` being it without the bookkeeping.
    ``lines``: the complete lines without their LF, one at a time, instead of ``data`` (the publisher streams the
    book to its published copy through here, never holding all of it).
    """
    facts = BookFacts()
    if lines is None:
        lines = _file_lines(book) if data is None else _complete(data)
    prev = ""
    for i, raw in enumerate(lines, 1):
        problem, line = check_line(raw, i, prev)
        if problem or line is None:
            raise ChainBroken(f"{book} line {i}: {problem}", line=i, reason=str(problem),
                              fix="run `league verify` and restore the book from its last good copy")
        content: JsonObject = {k: v for k, v in line.items() if k not in BOOKKEEPING}
        facts.add(_Line(n=line["n"], content=content))
        if keep is not None:
            keep(line, content, raw)
        prev = line["link"]
    return facts
