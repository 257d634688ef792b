"""What a book holds, indexed by (kind, session): rebuilt at open, updated on each append.

Jobs ask it what is already sealed before sealing anything (every job is idempotent by the book
itself); the publisher and the portfolio ask it for marks, runs and answers.

Two shapes (docs/book.md, "Startup checkpoint and memory window"):

* **whole** (:meth:`BookIndex.of_book`, the read-only views): every line in memory;
* **windowed** (the league's own index): only the sessions the open horizons need plus the small
  "sticky" kinds stay in memory; every question about an older session goes to ``older`` (the
  database's ``book_lines`` table, or a streaming read of the book when there is no database). The
  answers are the same either way; only where they come from differs.
"""

from __future__ import annotations

import json
import threading
import zlib
from abc import ABC, abstractmethod
from collections import OrderedDict, defaultdict
from collections.abc import Iterable, Iterator, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

import msgspec

from league import records
from league.book.chain import BookLine, iter_lines, iter_raw
from league.records import Sealed, record

if TYPE_CHECKING:
    from pydantic import JsonValue as Json
else:
    Json = object

#: A sealed line as JSON: its content plus ``n``, ``seal`` and ``link`` (what the database's index keeps).
Body = dict[str, Json]

#: Kinds kept in memory whatever their age: few lines each, read by jobs without naming a session.
STICKY_KINDS = frozenset({"opening", "rules", "blind", "reveal", "correction", "shadow_weights"})

T = TypeVar("T")
R = TypeVar("R", bound=Sealed)


class OlderLines(Protocol):
    """Where a windowed index reads what it no longer keeps (the database index, or the book itself)."""

    def find(self, *, kind: str | None = None, session: str | None = None, run_ids: Iterable[str] | None = None,
             seat: str | None = None, n: int | None = None) -> list[Body]: ...

    def sessions(self, kind: str, since: str | None = None) -> list[str]: ...


def body_of(line: BookLine) -> Body:
    """What the database's index keeps of a line: its content plus n, seal and link (not prev)."""
    return {**line.content, "n": line.n, "seal": line.seal, "link": line.link}


def record_of(line: BookLine) -> Sealed:
    """The typed record of a sealed line."""
    return record(body_of(line))


def session_of(body: Body) -> str | None:
    session = body.get("session")
    return session if isinstance(session, str) and session else None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


@dataclass(frozen=True)
class Keys:
    """What the index files a line under: its number, kind, session, run and seat."""

    n: int
    kind: str
    session: str | None
    run_id: str | None
    seat: str | None


def keys_of_record(rec: Sealed) -> Keys:
    return Keys(rec.n, rec.kind, _text(getattr(rec, "session", None)), _text(getattr(rec, "run_id", None)),
                _text(getattr(rec, "seat", None)))


def keys_of_body(body: Body) -> Keys:
    n = body["n"]
    assert isinstance(n, int)
    return Keys(n, str(body.get("kind", "")), session_of(body), _text(body.get("run_id")), _text(body.get("seat")))


#: A windowed index keeps a line whose record encodes to at least this many bytes packed (:class:`Packed`).
PACK_AT = 2048
#: The decoded records of packed lines a windowed index keeps at hand, by their encoded size (bytes).
DECODED_BUDGET = 4 << 20


class Packed:
    """A line kept as its record encoded (MessagePack, then zlib): what a windowed index holds of a large line
    instead of the record's objects. The fields the index and the publisher's session keys read (``kind``,
    ``n``, ``link``, ``session``, ``run_id``, ``seat``, ``target``, ``of``: league.book.shared.SLIM_FIELDS)
    stay at hand, as the record has them (``None`` when it has no such field); :meth:`record` decodes the rest."""

    __slots__ = ("kind", "n", "link", "session", "run_id", "seat", "target", "of", "model", "raw", "size")

    def __init__(self, rec: Sealed, encoded: bytes) -> None:
        self.kind, self.n, self.link = rec.kind, rec.n, rec.link
        self.session: object = getattr(rec, "session", None)
        self.run_id: object = getattr(rec, "run_id", None)
        self.seat: object = getattr(rec, "seat", None)
        self.target: object = getattr(rec, "target", None)
        self.of: object = getattr(rec, "of", None)
        self.model: type[Sealed] = type(rec)
        self.raw = zlib.compress(encoded, 1)
        self.size = len(encoded)

    def record(self) -> Sealed:
        """The record, equal to the one packed (MessagePack keeps every float, int and string exactly)."""
        return msgspec.msgpack.decode(zlib.decompress(self.raw), type=self.model)

    def keys(self) -> Keys:
        return Keys(self.n, self.kind, _text(self.session), _text(self.run_id), _text(self.seat))


def pack(rec: Sealed, at: int = PACK_AT) -> Sealed | Packed:
    """``rec`` as a windowed index keeps it: :class:`Packed` when it encodes to ``at`` bytes or more."""
    try:
        encoded = msgspec.msgpack.encode(rec)
    except (OverflowError, msgspec.EncodeError):  # an integer MessagePack cannot hold: kept as it is
        return rec
    return Packed(rec, encoded) if len(encoded) >= at else rec


class PackedLines(MutableMapping[int, Sealed]):
    """A windowed index's lines: each a record, or (a large line of a kind not in ``records_of``, with
    ``pack_at``) :class:`Packed`, decoded when read. Reading gives records equal to the ones stored; a few decoded
    records are kept at hand (:data:`DECODED_BUDGET`) for a reader that asks for the same lines again. Counting,
    ``in`` and iterating the numbers decode nothing; :attr:`kept` is the lines as held (the keys of a packed line
    without decoding it)."""

    def __init__(self, pack_at: int | None = None, records_of: frozenset[str] = STICKY_KINDS) -> None:
        self.kept: dict[int, Sealed | Packed] = {}
        self.pack_at = pack_at
        self.records_of = records_of  # kinds kept as records whatever their size (read often, few lines)
        self._decoded: OrderedDict[int, Sealed] = OrderedDict()
        self._decoded_size = 0
        self._lock = threading.Lock()

    def __getitem__(self, n: int) -> Sealed:
        item = self.kept[n]
        if not isinstance(item, Packed):
            return item
        with self._lock:
            rec = self._decoded.get(n)
            if rec is not None:
                self._decoded.move_to_end(n)
                return rec
        rec = item.record()
        if item.size <= DECODED_BUDGET:
            with self._lock:
                if n not in self._decoded:
                    self._decoded[n] = rec
                    self._decoded_size += item.size
                while self._decoded_size > DECODED_BUDGET:
                    gone, _ = self._decoded.popitem(last=False)
                    self._decoded_size -= self._size(gone)
        return rec

    def _size(self, n: int) -> int:
        item = self.kept.get(n)
        return item.size if isinstance(item, Packed) else 0

    def __setitem__(self, n: int, rec: Sealed) -> None:
        self._forget(n)
        self.kept[n] = rec if self.pack_at is None or rec.kind in self.records_of else pack(rec, self.pack_at)

    def adopt(self, n: int, item: Sealed | Packed) -> None:
        """Keep line ``n`` as another index held it (packed or not), without decoding it."""
        self._forget(n)
        self.kept[n] = item

    def __delitem__(self, n: int) -> None:
        self._forget(n)
        del self.kept[n]

    def _forget(self, n: int) -> None:
        with self._lock:
            if n in self._decoded:
                del self._decoded[n]
                self._decoded_size -= self._size(n)

    def __contains__(self, n: object) -> bool:
        return n in self.kept

    def __iter__(self) -> Iterator[int]:
        return iter(self.kept)

    def __len__(self) -> int:
        return len(self.kept)

    def keys_of(self, n: int) -> Keys:
        """The keys of line ``n`` (no decoding)."""
        item = self.kept[n]
        return item.keys() if isinstance(item, Packed) else keys_of_record(item)


@dataclass
class _Index(ABC, Generic[T]):
    """What is sealed, by kind and session; ``T`` is what each line is kept as (a typed record, or its body).

    ``cutoff`` (ISO date) and ``older`` make it windowed: a non-sticky line of a session before the
    cutoff may be absent from ``lines`` and is then read from ``older``. ``lines`` is what is in memory.
    """

    lines: MutableMapping[int, T] = field(default_factory=dict)
    by_kind: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    by_session: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    by_key: dict[tuple[str, str], list[int]] = field(default_factory=lambda: defaultdict(list))
    by_run: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    run_line: dict[str, int] = field(default_factory=dict)
    cutoff: str | None = None
    older: OlderLines | None = None
    sticky: frozenset[str] = STICKY_KINDS
    partial: bool = False  # some line of the book is not in memory (else memory answers everything)

    # ------------------------------------------------------------------ what each kind of index says
    @abstractmethod
    def keys(self, item: T) -> Keys:
        """The keys a line is indexed by (number, kind, session, run, seat)."""

    @abstractmethod
    def from_body(self, body: Body) -> T:
        """An older line (a body from the database or the book) as this index keeps lines."""

    def key_at(self, n: int) -> Keys:
        """The keys of line ``n`` in memory."""
        return self.keys(self.lines[n])

    # ------------------------------------------------------------------ building
    def add_item(self, item: T) -> None:
        k = self.keys(item)
        if k.n in self.lines:
            return
        self.lines[k.n] = item
        self._file(k)

    def _take(self, other: _Index[T], n: int) -> None:
        """Keep line ``n`` of ``other`` (an index being trimmed into this one)."""
        self.add_item(other.lines[n])

    def _file(self, k: Keys) -> None:
        """File line ``k.n`` (already in ``lines``) under its keys."""
        self.by_kind[k.kind].append(k.n)
        if k.session is not None:
            self.by_session[k.session].append(k.n)
            self.by_key[(k.kind, k.session)].append(k.n)
        if k.run_id is not None:
            if k.kind == "run":
                self.run_line.setdefault(k.run_id, k.n)
            elif k.kind == "answer":
                self.by_run[k.run_id].append(k.n)

    def skip(self, n: int) -> None:
        """Note that line ``n`` was left out of memory (read from ``older`` when asked for)."""
        self.partial = True

    def keeps_keys(self, k: Keys, cutoff: str | None = None) -> bool:
        """True when a line belongs in memory under ``cutoff`` (default: this index's own)."""
        cut = self.cutoff if cutoff is None else cutoff
        return cut is None or k.session is None or k.session >= cut or k.kind in self.sticky

    def keeps(self, body: Body, cutoff: str | None = None) -> bool:
        return self.keeps_keys(keys_of_body(body), cutoff)

    def trimmed(self, cutoff: str) -> tuple[_Index[T], int]:
        """The index under ``cutoff`` as a NEW object when lines drop (so a reader holding this one keeps a
        consistent view while the holder swaps the reference), else this one with its cutoff moved."""
        if self.older is None or (self.cutoff is not None and cutoff <= self.cutoff):
            return self, 0
        if not any(s < cutoff and k not in self.sticky for (k, s) in self.by_key):  # nothing to drop
            self.cutoff = cutoff
            return self, 0
        kept = [n for n in sorted(self.lines) if self.keeps_keys(self.key_at(n), cutoff)]
        fresh = self._empty(cutoff)
        for n in kept:
            fresh._take(self, n)
        return fresh, len(self.lines) - len(kept)

    def _empty(self, cutoff: str) -> _Index[T]:
        """An empty index like this one under ``cutoff`` (what :meth:`trimmed` fills)."""
        return type(self)(cutoff=cutoff, older=self.older, sticky=self.sticky, partial=True)

    def trim(self, cutoff: str) -> int:
        """Move the window forward in place: drop from memory what ``cutoff`` no longer keeps; returns
        how many. Only a windowed index (one with ``older``) drops anything: the lines stay readable there."""
        fresh, dropped = self.trimmed(cutoff)
        if fresh is not self:
            self.__dict__.update(fresh.__dict__)
        return dropped

    # ------------------------------------------------------------------ reading
    def _complete(self, kind: str | None, session: str | None) -> bool:
        """True when memory alone answers for (kind, session)."""
        if not self.partial or self.older is None or self.cutoff is None or (kind is not None and kind in self.sticky):
            return True
        return session is not None and session >= self.cutoff

    def _merged(self, mine: Iterable[int], theirs: Iterable[Body]) -> list[T]:
        out = {k.n: item for item in map(self.from_body, theirs) for k in (self.keys(item),)}
        out.update((n, self.lines[n]) for n in mine)
        return [out[n] for n in sorted(out)]

    def of_kind(self, kind: str, session: str | None = None) -> list[T]:
        """Every line of ``kind`` (of ``session`` when given), in book order; O(result) in memory."""
        mine = self.by_kind.get(kind, []) if session is None else self.by_key.get((kind, session), [])
        if self._complete(kind, session):
            return [self.lines[n] for n in mine]
        assert self.older is not None
        return self._merged(mine, self.older.find(kind=kind, session=session))

    def numbers(self, kind: str, session: str) -> list[int]:
        """The numbers of the lines of ``kind`` of ``session``, in book order: from memory without reading a
        line when the window holds the session, else from ``older``."""
        if self._complete(kind, session):
            return list(self.by_key.get((kind, session), []))
        return [self.keys(item).n for item in self.of_kind(kind, session)]

    def recent(self, kind: str) -> list[T]:
        """The lines of ``kind`` in memory only: the window's sessions (or everything, when whole)."""
        return [self.lines[n] for n in self.by_kind.get(kind, [])]

    def run_item(self, run_id: str) -> T | None:
        """The (first) run line of ``run_id``."""
        n = self.run_line.get(run_id)
        if n is not None or self._complete(None, None):
            return None if n is None else self.lines[n]
        assert self.older is not None
        found = self.older.find(kind="run", run_ids=[run_id])
        return self.from_body(found[0]) if found else None

    def answer_items(self, run_ids: set[str]) -> list[T]:
        """The answer lines of these runs, in book order."""
        mine = [n for r in run_ids for n in self.by_run.get(r, [])]
        missing = [r for r in run_ids if not self._run_in_window(r)]
        if not missing or self.older is None:
            return [self.lines[n] for n in sorted(mine)]
        return self._merged(mine, self.older.find(kind="answer", run_ids=sorted(missing)))

    def _run_in_window(self, run_id: str) -> bool:
        n = self.run_line.get(run_id)
        if n is None:
            return self._complete(None, None)
        return self._complete("answer", self.key_at(n).session)

    def line(self, n: int) -> T | None:
        """Line ``n`` wherever it is kept; ``None`` when the book has no such line."""
        if n in self.lines or self._complete(None, None):
            return self.lines.get(n)
        assert self.older is not None
        found = self.older.find(n=n)
        return self.from_body(found[0]) if found else None

    def of_seat_items(self, kind: str, seat: str) -> list[T]:
        """Every line of ``kind`` naming ``seat`` (all sessions), in book order."""
        mine = [n for n in self.by_kind.get(kind, []) if self.key_at(n).seat == seat]
        if self._complete(kind, None):
            return [self.lines[n] for n in mine]
        assert self.older is not None
        return self._merged(mine, self.older.find(kind=kind, seat=seat))

    def sessions(self, kind: str, since: str | None = None) -> list[str]:
        """The sessions (ISO dates, sorted) that have a line of ``kind``, from ``since`` on."""
        mine = {s for (k, s) in self.by_key if k == kind and (since is None or s >= since)}
        if self.older is not None and not self._complete(kind, since):
            mine.update(self.older.sessions(kind, since))
        return sorted(mine)


#: The kinds each record type is sealed as (``Score`` is both the close's ``score`` and the longer ``score_h``).
KINDS_OF: dict[type[Sealed], tuple[str, ...]] = {}
for _kind, _model in records.RECORDS.items():
    KINDS_OF[_model] = (*KINDS_OF.get(_model, ()), _kind)


@dataclass
class BookIndex(_Index[Sealed]):
    """The book's lines as typed records (league.records): what the league, the API and every reader
    of sealed lines ask. ``of(records.Answer, session)`` is typed; ``of_kind("answer")`` gives the records
    of one kind as :class:`Sealed`."""

    lines: PackedLines = field(default_factory=PackedLines)
    #: A windowed index (one with a ``cutoff``) keeps lines that encode to this many bytes or more packed
    #: (:class:`Packed`), but for the sticky kinds; ``None``: every line as its record. A whole index keeps
    #: records.
    pack_at: int | None = PACK_AT

    def __post_init__(self) -> None:
        if not self.lines:
            self.lines.pack_at = self.pack_at if self.cutoff is not None else None
            self.lines.records_of = self.sticky

    def _empty(self, cutoff: str) -> BookIndex:
        return BookIndex(cutoff=cutoff, older=self.older, sticky=self.sticky, partial=True, pack_at=self.pack_at)

    def keys(self, item: Sealed) -> Keys:
        return keys_of_record(item)

    def key_at(self, n: int) -> Keys:
        return self.lines.keys_of(n)

    def _take(self, other: _Index[Sealed], n: int) -> None:
        if n in self.lines:
            return
        if not isinstance(other, BookIndex):
            super()._take(other, n)
            return
        self.lines.adopt(n, other.lines.kept[n])
        self._file(other.key_at(n))

    def from_body(self, body: Body) -> Sealed:
        return record(body)

    def add(self, line: BookLine) -> None:
        self.add_item(record_of(line))

    def add_body(self, body: Body) -> None:
        self.add_item(record(body))

    @classmethod
    def of_book(cls, path: Path) -> BookIndex:
        """Index every line of a book (verified line by line as it is read), all of it in memory."""
        index = cls()
        for line in iter_lines(path):
            index.add(line)
        return index

    @classmethod
    def of_bodies(cls, bodies: Iterable[Body], *, cutoff: str | None, older: OlderLines | None,
                  pack_at: int | None = PACK_AT) -> BookIndex:
        index = cls(cutoff=cutoff, older=older, pack_at=pack_at)
        for body in bodies:
            index.add_body(body)
        return index

    def trimmed(self, cutoff: str) -> tuple[BookIndex, int]:
        fresh, dropped = super().trimmed(cutoff)
        assert isinstance(fresh, BookIndex)
        return fresh, dropped

    # ------------------------------------------------------------------ typed reading
    def of(self, kind: type[R], session: str | None = None) -> list[R]:
        """Every record of type ``kind`` (of ``session`` when given), in book order."""
        found = [rec for k in KINDS_OF[kind] for rec in self.of_kind(k, session)]
        if len(KINDS_OF[kind]) > 1:
            found.sort(key=lambda rec: rec.n)
        return [rec for rec in found if isinstance(rec, kind)]

    def recent_of(self, kind: type[R]) -> list[R]:
        """The records of type ``kind`` in memory only (the window's sessions)."""
        found = [rec for k in KINDS_OF[kind] for rec in self.recent(k)]
        return [rec for rec in sorted(found, key=lambda rec: rec.n) if isinstance(rec, kind)]

    def runs(self, session: str) -> list[records.Run]:
        return self.of(records.Run, session)

    def run(self, run_id: str) -> records.Run | None:
        """The (first) run line of ``run_id``."""
        rec = self.run_item(run_id)
        return rec if isinstance(rec, records.Run) else None

    def answers(self, run_ids: set[str]) -> list[records.Answer]:
        """The answer lines of these runs, in book order."""
        return [rec for rec in self.answer_items(run_ids) if isinstance(rec, records.Answer)]

    def of_seat(self, kind: type[R], seat: str) -> list[R]:
        """Every record of type ``kind`` naming ``seat`` (all sessions), in book order."""
        found = [rec for k in KINDS_OF[kind] for rec in self.of_seat_items(k, seat)]
        return [rec for rec in sorted(found, key=lambda rec: rec.n) if isinstance(rec, kind)]


@dataclass
class BodyIndex(_Index[Body]):
    """The same index over raw bodies: for the publisher's readers that keep lines cut to a few fields
    (a cut line is not a whole record), and index them only by their keys."""

    def keys(self, item: Body) -> Keys:
        return keys_of_body(item)

    def from_body(self, body: Body) -> Body:
        return body

    def add_body(self, body: Body) -> None:
        self.add_item(body)

    def trimmed(self, cutoff: str) -> tuple[BodyIndex, int]:
        fresh, dropped = super().trimmed(cutoff)
        assert isinstance(fresh, BodyIndex)
        return fresh, dropped


# ---------------------------------------------------------------------------- the book as "older"
@dataclass
class BookStream:
    """The book itself as the place of older lines, when there is no database: each question is one
    streaming read (memory stays flat; time is linear in the book, so a daemon should have a database)."""

    path: Path

    def _bodies(self) -> Iterator[Body]:
        for raw in iter_raw(self.path):
            obj = json.loads(raw)
            obj.pop("prev", None)
            yield obj

    def find(self, *, kind: str | None = None, session: str | None = None, run_ids: Iterable[str] | None = None,
             seat: str | None = None, n: int | None = None) -> list[Body]:
        runs = set(run_ids) if run_ids is not None else None
        out = []
        for body in self._bodies():
            if n is not None and body.get("n") != n:
                continue
            wanted = ((kind is None or body.get("kind") == kind) and (session is None or body.get("session") == session)
                      and (runs is None or body.get("run_id") in runs) and (seat is None or body.get("seat") == seat))
            if not wanted:
                continue
            out.append(body)
            if n is not None:
                break
        return out

    def sessions(self, kind: str, since: str | None = None) -> list[str]:
        found = {s for b in self._bodies() if b.get("kind") == kind and (s := session_of(b)) is not None}
        return sorted(s for s in found if since is None or s >= since)
