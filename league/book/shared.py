"""One verified read of a book per publish run, then parses of only the kinds each producer reads.

The producers of the open-data folder are independent functions of the data folder (each can run
alone: ``league stats``, ``league eval points``, the tests), and each used to read and chain-check
the whole council book itself: the CSV writer, the crowd comparison, both portfolio steps and the
point-forecast track — five verified reads of the same bytes per publish, the largest part of a
season's publish time.

Inside :func:`shared_reads` (the publisher and ``league stats`` open one) a book is verified once: the
publisher's books step checks every seal and link of the bytes it publishes as council-book.jsonl
(read_facts) and notes them here (:func:`checked_copy`: the live book's file state, the published copy,
its SHA-256); without such a note the first reader verifies the live book itself and notes its digest.
Every later reader gets the bytes read back (from the copy, or the live book), matched to that digest, and
only the lines of the kinds it asks for parsed (:class:`CheckedLine`) — as long as the live book is still at
the noted state; otherwise (a line sealed meanwhile, the copy changed) it reads and verifies the live book
as before. A book appended to during a publish (a live daemon sealing meanwhile) is read again, so every
producer still sees the book as it was when it asked.

Nothing parsed is kept between readers by default: the whole book's parsed lines used to be kept
for the four readers after the statistics — about 3.6 times the book's bytes in memory (570 MB at one year ×
14 seats, measured), growing with the season. Each reader holds only its own kinds (the points track its
score lines, the portfolio its trade and mark lines, the crowd comparison its crowd, run, answer and score
lines) and lets them go when done. The publisher can hand over the lines its own verified read parsed
(:class:`KeptLines`, noted with :func:`checked_copy`): only the kinds the CSV writer holds at its peak anyway
(its rows' kinds, plus the crowd quotes), the trade and mark lines as their bytes (parsed when read), and each
line's kind. Readers asking only for those kinds then get them without any read, hash or parse; the
publisher forgets them (:func:`forget_kept`) before anything that needs the memory (the statistics in the same
process) and once the last reader is done. Readers get line objects (``BookLine`` or ``CheckedLine``) and must
not modify their content (none does: they build their own rows from it).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

from league.book import BOOKKEEPING, iter_lines
from league.book.chain import prefix_digest
from league.book.index import Body, BodyIndex, BookIndex
from league.jsonvalue import Json, JsonObject

T = TypeVar("T")
#: A line's entry for the line check (league.verify.linecheck.Entry): its kind and what its cells are read from.
CheckEntry = tuple[str, object]


@dataclass(frozen=True)
class CheckedLine:
    """A line of bytes the publisher has already checked, seal and link (league.publish.bookfacts.read_facts),
    parsed only: what the readers use of a :class:`BookLine` without hashing it a second time."""

    n: int
    prev: str
    seal: str
    link: str
    content: dict[str, Any]

    @property
    def kind(self) -> str:
        return str(self.content.get("kind", ""))


class SealedLine(Protocol):
    """What the readers use of a line: a verified :class:`BookLine` or a :class:`CheckedLine`."""

    @property
    def n(self) -> int: ...
    @property
    def seal(self) -> str: ...
    @property
    def link(self) -> str: ...
    @property
    def content(self) -> dict[str, Any]: ...
    @property
    def kind(self) -> str: ...


@dataclass(frozen=True)
class _RawLine:
    """A checked line of a kind kept as its bytes: parsed (as :func:`_parsed` parses) when a reader asks."""

    n: int
    kind: str
    raw: bytes


@dataclass
class KeptLines:
    """What the publisher's verified read (league.publish.bookfacts.read_facts) keeps for the readers after it:
    the lines of ``parsed`` kinds as :class:`CheckedLine` (their content the very dict that read made), those of
    ``raw`` kinds as their bytes, and every line's kind (``kinds[n - 1]``, for the CSV's line check).

    Why: each reader used to read the published copy back, hash all of it and parse its kinds again — the
    CSV writer, the line check, the points track, the crowd comparison and the portfolio: five more parses of
    most of the book per publish (about 5 s of the demo's 126-session publish)."""

    parsed: frozenset[str]
    raw: frozenset[str] = frozenset()
    kinds: list[str] = field(default_factory=list)
    lines: list[CheckedLine | _RawLine] = field(default_factory=list)
    _names: dict[str, str] = field(default_factory=dict)
    #: Kinds kept as a few fields only (:data:`SLIM_FIELDS`, with ``n`` and ``link``), in ``slims``: what the
    #: CSV writer's cache keys are made of (league.publish.forecast_cache), without the bodies (less memory).
    slim: frozenset[str] = frozenset()
    slims: list[Body] = field(default_factory=list)
    #: Kinds whose line-check entry is kept (``checked(content)``, in ``checks`` by line number).
    check: frozenset[str] = frozenset()
    checked: Callable[[JsonObject], CheckEntry] | None = None
    checks: dict[int, CheckEntry] = field(default_factory=dict)

    def add(self, obj: dict[str, Any], content: dict[str, Any], raw: bytes) -> None:
        """Keep checked line ``obj`` (``content``: it without the bookkeeping fields; ``raw``: its bytes)."""
        kind = obj.get("kind")
        name = str(content.get("kind", ""))
        self.kinds.append(self._names.setdefault(name, name))
        if kind in self.parsed:
            self.lines.append(CheckedLine(obj["n"], obj["prev"], obj["seal"], obj["link"], content))
        elif kind in self.raw:
            self.lines.append(_RawLine(obj["n"], self._names[name], raw))
        if kind in self.slim:
            self.slims.append(slim_of(obj))
        if kind in self.check and self.checked is not None:
            self.checks[int(obj["n"])] = self.checked(content)

    def covers(self, kinds: Collection[str] | None) -> bool:
        return kinds is not None and all(k in self.parsed or k in self.raw for k in kinds)

    def without(self, kinds: Collection[str]) -> KeptLines:
        """These kept lines but those of ``kinds`` (their kinds no longer covered)."""
        gone = frozenset(kinds)
        return replace(self, parsed=self.parsed - gone, raw=self.raw - gone,
                       lines=[line for line in self.lines if line.kind not in gone])

    def of(self, kinds: Collection[str]) -> list[SealedLine]:
        """The kept lines of ``kinds`` in book order (only call when :meth:`covers` them)."""
        out: list[SealedLine] = []
        for line in self.lines:
            if line.kind in kinds:
                out.append(_parse_raw(line.raw) if isinstance(line, _RawLine) else line)
        return out


#: The fields of a line that say which session's rows it feeds (league.publish.forecast_cache.session_keys: its
#: own session, its run's, or for a cell correction its answer's), kept with ``n`` and ``link`` by :func:`slim_of`.
SLIM_FIELDS = ("kind", "session", "run_id", "target", "of")


def slim_of(obj: Mapping[str, Json]) -> Body:
    """A checked line cut to :data:`SLIM_FIELDS` (those it has), its ``n`` and its ``link``: a session's cache key
    needs no more of it, and a body is tens of times larger (a score line carries every seat's rows)."""
    slim = {k: obj[k] for k in SLIM_FIELDS if k in obj}
    slim["n"], slim["link"] = obj["n"], obj["link"]
    return slim


def _parse_raw(raw: bytes) -> CheckedLine:
    obj = json.loads(raw.decode("utf-8"))
    content = {k: v for k, v in obj.items() if k not in BOOKKEEPING}
    return CheckedLine(obj["n"], obj["prev"], obj["seal"], obj["link"], content)


@dataclass(frozen=True)
class _Checked:
    """Bytes whose every seal and link has been checked (by the publisher, or by the first verified read of this
    block): read back, matched to their SHA-256 and parsed, kind by kind, when a reader asks — or, for the kinds
    ``kept`` holds, served from the publisher's own parse."""

    state: tuple[int, int, int]
    copy: Path
    sha256: str
    kept: KeptLines | None = None


_READS: ContextVar[dict[str, _Checked] | None] = ContextVar("league_publish_book_reads", default=None)


@contextmanager
def shared_reads() -> Iterator[None]:
    """Within this block, each book is read and verified once (per file state), then shared."""
    token = _READS.set({})
    try:
        yield
    finally:
        _READS.reset(token)


def file_state(path: Path) -> tuple[int, int, int]:
    st = os.stat(path)
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def checked_copy(path: Path, state: tuple[int, int, int], copy: Path, sha256: str,
                 kept: KeptLines | None = None) -> None:
    """Note that the complete lines of ``path`` at ``state`` were checked (seal and link) and written to ``copy``
    with SHA-256 ``sha256``: a reader asking for ``path`` while it is still at that state gets them parsed from
    the copy (matched to that digest) instead of a second verified read, or, for kinds ``kept`` holds (the
    lines of those bytes as the check parsed them), those lines. Outside a block: nothing."""
    reads = _READS.get()
    if reads is not None:
        reads[os.path.abspath(path)] = _Checked(state, copy, sha256, kept)


def kept_lines(sha256: str, kinds: Collection[str]) -> KeptLines | None:
    """The kept lines of the checked bytes with SHA-256 ``sha256``, when they hold every one of ``kinds``."""
    reads = _READS.get()
    for note in (reads or {}).values():
        if note.sha256 == sha256 and note.kept is not None and note.kept.covers(kinds):
            return note.kept
    return None


def slim_lines(sha256: str, kinds: Collection[str]) -> KeptLines | None:
    """The kept lines of the checked bytes with SHA-256 ``sha256`` when they hold every one of ``kinds`` cut to
    their key fields (``KeptLines.slims``)."""
    reads = _READS.get()
    for note in (reads or {}).values():
        if note.sha256 == sha256 and note.kept is not None and set(kinds) <= note.kept.slim:
            return note.kept
    return None


def checked_entries(sha256: str, kinds: Collection[str]) -> KeptLines | None:
    """The kept lines of the checked bytes with SHA-256 ``sha256`` when they hold the line-check entry of every
    line of ``kinds`` (``KeptLines.checks``) and every line's kind."""
    reads = _READS.get()
    for note in (reads or {}).values():
        kept = note.kept
        if note.sha256 == sha256 and kept is not None and kept.checked is not None and set(kinds) <= kept.check:
            return kept
    return None


class EntryTable(Mapping[int, CheckEntry]):
    """Line number -> (kind, entry) of every line of a book, from each line's kind and the entries kept for some
    (league.verify.linecheck.check_table's table): a line without an entry is ``(kind, None)``. Built on demand
    instead of a dict of every line (one tuple per line of the book, held for the whole check)."""

    def __init__(self, kinds: Sequence[str], entries: Mapping[int, CheckEntry]) -> None:
        self._kinds = kinds
        self._entries = entries

    def __getitem__(self, n: int) -> CheckEntry:
        if not isinstance(n, int) or not 1 <= n <= len(self._kinds):
            raise KeyError(n)
        entry = self._entries.get(n)
        return entry if entry is not None else (self._kinds[n - 1], None)

    def __contains__(self, n: object) -> bool:
        return isinstance(n, int) and 1 <= n <= len(self._kinds)

    def __iter__(self) -> Iterator[int]:
        return iter(range(1, len(self._kinds) + 1))

    def __len__(self) -> int:
        return len(self._kinds)


def forget_kept(kinds: Collection[str] | None = None) -> None:
    """Let the kept lines go (readers after this parse from the checked copy, as without them); only those of
    ``kinds`` when given (the rest stays kept)."""
    reads = _READS.get()
    if reads is not None:
        for key, note in list(reads.items()):
            if note.kept is not None:
                reads[key] = replace(note, kept=None if kinds is None else note.kept.without(kinds))


def _wanted(kinds: Collection[str] | None) -> Callable[[bytes], bool]:
    """A cheap test on a line's bytes that never rejects a line of one of ``kinds``: a top-level ``"kind"`` of K
    is serialised as the quoted string ``"K"`` whatever the separators (kinds are plain ASCII names), so a
    line without any of those strings is not parsed at all. The parsed line's kind is then checked exactly."""
    if kinds is None:
        return lambda raw: True
    tokens = tuple(b'"' + k.encode("ascii") + b'"' for k in kinds)
    return lambda raw: any(t in raw for t in tokens)


def _itself(line: SealedLine) -> SealedLine:
    """The cut that keeps the whole line (:func:`book_lines`)."""
    return line


def _parsed(checked: _Checked, kinds: Collection[str] | None, cut: Callable[[SealedLine], T]) -> list[T] | None:
    """The checked lines of ``kinds`` read back from their copy (all bytes hashed, only those lines parsed; each
    kept as ``cut(line)`` when given); None when the copy no longer has the checked bytes."""
    digest = hashlib.sha256()
    wanted = _wanted(kinds)
    lines: list[T] = []
    try:
        with open(checked.copy, "rb") as fh:  # line by line: the whole copy is never in memory at once
            for raw in fh:
                digest.update(raw)
                if not wanted(raw):
                    continue
                obj = json.loads(raw.decode("utf-8"))
                if kinds is not None and obj.get("kind") not in kinds:
                    continue
                content = {k: v for k, v in obj.items() if k not in BOOKKEEPING}
                line = CheckedLine(obj["n"], obj["prev"], obj["seal"], obj["link"], content)
                lines.append(cut(line))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return lines if digest.hexdigest() == checked.sha256 else None


def _verified(path: Path, kinds: Collection[str] | None, cut: Callable[[SealedLine], T]) -> tuple[list[T], str]:
    """Every line verified (``iter_lines``: raises ``ChainBroken`` at the first bad one), those of ``kinds``
    kept (as ``cut(line)`` when given), and the SHA-256 of the lines verified (so the next reader can parse
    instead of verify)."""
    lines: list[T] = []
    count = 0
    for line in iter_lines(path):
        count += 1
        if kinds is None or line.kind in kinds:
            lines.append(cut(line))
    return lines, prefix_digest(path, count)  # the book only grows: its first ``count`` lines are those read


def _read(path: Path, kinds: Collection[str] | None, cut: Callable[[SealedLine], T]) -> list[T] | None:
    """The lines of ``kinds`` for the book's current state; None outside a block. Parsed from checked bytes when
    a note matches the state, else verified (and noted: the next reader parses the live book's bytes, matched
    to this read's digest, instead of verifying them again)."""
    reads = _READS.get()
    if reads is None:
        return None
    state = file_state(path)
    key = os.path.abspath(path)
    note = reads.get(key)
    if note is not None and note.state == state:
        kept = note.kept
        found = kept.of(kinds) if kept is not None and kinds is not None and kept.covers(kinds) else None
        lines = [cut(line) for line in found] if found is not None else _parsed(note, kinds, cut)
        if lines is not None:
            return lines
    lines, sha256 = _verified(path, kinds, cut)
    if file_state(path) == state:
        reads[key] = _Checked(state, Path(path), sha256)
    return lines


def book_lines(path: Path, kinds: Collection[str] | None = None) -> Sequence[SealedLine] | Iterator[SealedLine]:
    """Every line of the book of one of ``kinds`` (all lines when None), verified (raises ``ChainBroken`` at the
    first bad one, as ``iter_lines``)."""
    lines = _read(path, kinds, _itself)
    if lines is not None:
        return lines
    every = iter_lines(path)
    return every if kinds is None else (line for line in every if line.kind in kinds)


def book_contents(path: Path, kinds: Collection[str], cut: Callable[[SealedLine], T]) -> list[T]:
    """``cut(line)`` of every line of ``kinds``, in book order, read as :func:`book_lines` reads them (verified,
    or parsed from checked bytes): each line's whole parse is let go as soon as it is cut. Why: a reader that
    needs a few fields of many large lines (the point track's score lines, each with every seat's rows) held
    them whole, the publish's peak after the statistics."""
    lines = _read(path, kinds, cut)
    if lines is not None:
        return lines
    return [cut(line) for line in iter_lines(path) if line.kind in kinds]


def book_index(path: Path, kinds: Collection[str] | None = None) -> BookIndex:
    """The book's index by kind and session (as ``BookIndex.of_book``) over the lines of ``kinds`` (all when None),
    as typed records. It is not kept: its records would sit in memory for the rest of the run."""
    index = BookIndex()
    for line in book_lines(path, kinds):
        index.add_body({**line.content, "n": line.n, "seal": line.seal, "link": line.link})  # as body_of
    return index


def cut_index(path: Path, kinds: Collection[str], cut: Callable[[Body], Body]) -> BodyIndex:
    """The index of :func:`book_index` over lines CUT as they are read (each entry is ``cut(content)`` with n,
    seal and link), so a reader of a few fields never holds the whole lines; ``cut`` must keep ``kind``,
    ``session`` and ``run_id``, which the index is keyed by. A cut line is no whole record: its entries stay
    JSON bodies."""
    index = BodyIndex()
    for body in book_contents(path, kinds, lambda line: {**cut(line.content), "n": line.n, "seal": line.seal,
                                                         "link": line.link}):
        index.add_body(body)
    return index
