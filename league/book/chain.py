"""The book: an append-only JSON-lines hash chain (docs/protocol.md §3).

``seal = H(J(content))`` and ``link = H(J(content ∪ {n, prev, seal}))`` where ``J`` is
``json.dumps(o, sort_keys=True, ensure_ascii=False)`` encoded UTF-8 with the standard library's
default separators. The bytes we *write* are compact JSON, which any reader re-parses; the hashes
are always taken over ``J`` of the parsed object, so a book written by another correct
implementation (other key order, whitespace or number formatting) verifies here too.

Sealing happens on arrival: :meth:`Book.append` writes the line, flushes and fsyncs before it
returns. One process writes a book (an OS file lock on ``<book>.lock``). At open a torn last line
(bytes after the last LF) is moved aside to a named file and reported, never silently dropped.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import socket
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from json.encoder import encode_basestring
from pathlib import Path
from typing import Any, TypeGuard

import structlog

from league.clock import Clock, iso_seconds
from league.errors import BookError, BookLockedError, ChainBroken, InvalidRecord
from league.jsonvalue import JsonObject
from league.verify.chain import MAX_LINE_BYTES, OVERLONG, check_line

log = structlog.get_logger(__name__)

BOOKKEEPING = ("n", "prev", "seal", "link")
BYTE_RULE = (
    "Byte rule: UTF-8, no byte-order mark, each line ends with LF (0x0A); a prefix of N lines is "
    "lines 1..N each with its LF; a last line without its LF does not count. "
    "D = sha256 of those bytes, i.e. `head -n N BOOK | sha256sum`; L = the `link` field of line N."
)


#: Content dicts whose seal and link ``BookLine.seal_new`` is constructing right now (by id; the dict is held
#: so its id cannot be reused meanwhile).
_JUST_SEALED: dict[int, object] = {}


def canonical(obj: object) -> bytes:
    """``J(o)`` of docs/protocol.md §3: sorted keys, default separators, UTF-8, non-ASCII kept."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False).encode("utf-8")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def seal_of(content: Mapping[str, object]) -> str:
    return sha256_hex(canonical(dict(content)))


def link_of(content: Mapping[str, object], n: int, prev: str, seal: str) -> str:
    return sha256_hex(canonical({**content, "n": n, "prev": prev, "seal": seal}))


def sealable(content: Mapping[str, object]) -> JsonObject:
    """``content`` as a line would carry it, or :class:`InvalidRecord` saying why it cannot be sealed."""
    return _normalise(content)


def _normalise(content: Mapping[str, object]) -> JsonObject:
    """Round-trip the content through JSON so what we hash is exactly what a reader parses.

    Refuses what JSON cannot carry faithfully (NaN, infinities, lone surrogates, non-string keys
    that would collide) with a clear error instead of writing a line no reader can check.
    """
    try:
        text = json.dumps(dict(content), ensure_ascii=False, allow_nan=False)
        text.encode("utf-8")
        parsed: JsonObject = json.loads(text)
    except (TypeError, ValueError, UnicodeEncodeError) as exc:
        raise InvalidRecord(f"book content is not representable as JSON: {exc}") from exc
    except RecursionError as exc:
        raise InvalidRecord("book content is nested too deeply to be written as JSON") from exc
    if len(parsed) != len(content):
        raise InvalidRecord("book content has keys that collide once turned into JSON strings")
    clash = [k for k in BOOKKEEPING if k in parsed]
    if clash:
        raise InvalidRecord(f"book content may not set bookkeeping fields {clash}")
    return parsed


#: ``J`` of one value (sorted keys, default separators) and its compact form (the bytes written).
_CANON_VALUE = json.JSONEncoder(sort_keys=True, ensure_ascii=False, allow_nan=False).encode
_COMPACT_VALUE = json.JSONEncoder(sort_keys=True, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode
_KEY = encode_basestring  # a key as both encoders write it (ensure_ascii=False)


@dataclass(frozen=True)
class _Sealed:
    """A new line's parts, made from one encoding of its content (see :func:`_seal_once`)."""

    body: JsonObject
    seal: str
    link: str
    line: bytes
    content_json: str


def _seal_once(content: Mapping[str, object], n: int, prev: str) -> _Sealed | None:
    """Seal and link of a new line from ONE canonical encoding of its content, plus the bytes to write.

    ``J(content)`` is joined from the top-level items encoded one by one, so ``J(content ∪ {n, prev, seal})``
    is the same pieces with three more, and the compact line reuses every scalar's text. Used only for
    content that is plain JSON already (:func:`_plain`: dicts with string keys, lists, strings, ints,
    floats, booleans, null — what a line model dumps), which the JSON round trip of :func:`_normalise`
    would give back equal and in the same key order: the content is kept as given instead of re-parsed.
    The result equals what :func:`_normalise` then :func:`seal_of`/:func:`link_of`/``to_bytes`` give (tests
    compare the two); anything else, and every refusal, returns ``None`` for that step-by-step path, which
    names the problem."""
    try:
        if not _plain_object(content) or any(k in content for k in BOOKKEEPING):
            return None
        keys = sorted(content)
        names = [_KEY(k) for k in keys]
        values = [_CANON_VALUE(content[k]) for k in keys]  # NaN and infinities raise ValueError here
        data = ("{" + ", ".join([f"{k}: {v}" for k, v in zip(names, values, strict=True)]) + "}").encode("utf-8")
    except (TypeError, ValueError, UnicodeEncodeError, RecursionError):
        return None
    body = dict(content)
    seal = sha256_hex(data)
    compact = [v if type(body[k]) not in (dict, list) else _COMPACT_VALUE(body[k])
               for k, v in zip(keys, values, strict=True)]
    extra = {"n": _CANON_VALUE(n), "prev": _KEY(prev), "seal": _KEY(seal)}
    linked = sorted([*zip(keys, names, values, strict=True), *((k, _KEY(k), v) for k, v in extra.items())])
    link = sha256_hex(("{" + ", ".join([f"{nm}: {v}" for _, nm, v in linked]) + "}").encode("utf-8"))
    out = sorted([*zip(keys, names, compact, strict=True),
                  *((k, _KEY(k), v) for k, v in {**extra, "link": _KEY(link)}.items())])
    line = ("{" + ",".join([f"{nm}:{v}" for _, nm, v in out]) + "}").encode("utf-8") + b"\n"
    content_json = "{" + ",".join([f"{nm}:{v}" for nm, v in zip(names, compact, strict=True)]) + "}"
    return _Sealed(body, seal, link, line, content_json)


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _plain(value: object) -> bool:
    """Is ``value`` plain JSON: exactly dicts with string keys, lists and JSON scalars (no subclass, no
    tuple, no other mapping), so that encoding it and parsing the text back gives an equal value with the
    same key order? (NaN and infinities are floats here; the encoder refuses them.)"""
    if type(value) is dict:
        for k, v in value.items():
            if type(k) is not str or not (type(v) in _SCALARS or _plain(v)):
                return False
        return True
    if type(value) is list:
        return all(type(v) in _SCALARS or _plain(v) for v in value)
    return type(value) in _SCALARS


def _plain_object(content: Mapping[str, object]) -> TypeGuard[JsonObject]:
    """Is ``content`` a plain JSON object (:func:`_plain`)? Then it is read as one from here on."""
    return _plain(content)


@dataclass(frozen=True)
class BookLine:
    """One sealed line. Construction checks seal and link, so an invalid line cannot exist."""

    n: int
    prev: str
    seal: str
    link: str
    content: dict[str, Any] = field(repr=False)

    def __post_init__(self) -> None:
        if _JUST_SEALED.get(id(self.content)) is not None:  # seal_new computed both from this very dict
            return
        if seal_of(self.content) != self.seal:
            raise InvalidRecord(f"line {self.n}: seal does not match its content")
        if link_of(self.content, self.n, self.prev, self.seal) != self.link:
            raise InvalidRecord(f"line {self.n}: link does not match")

    @classmethod
    def seal_new(cls, content: Mapping[str, object], n: int, prev: str) -> BookLine:
        """A new line: its seal and link computed from the normalised content (and not computed a second
        time by the check of construction, which would hash the same dict the same way again)."""
        once = _seal_once(content, n, prev)
        if once is None:
            body = _normalise(content)
            seal = seal_of(body)
            link = link_of(body, n, prev, seal)
        else:
            body, seal, link = once.body, once.seal, once.link
        _JUST_SEALED[id(body)] = body
        try:
            line = cls(n=n, prev=prev, seal=seal, link=link, content=body)
        finally:
            del _JUST_SEALED[id(body)]
        if once is not None:  # not fields: equality, repr and asdict ignore them
            object.__setattr__(line, "_bytes", once.line)
            object.__setattr__(line, "_content_json", once.content_json)
        return line

    @classmethod
    def checked(cls, obj: Mapping[str, Any]) -> BookLine:
        """The line of a parsed ``obj`` that :func:`league.verify.chain.check_line` has just accepted: its seal
        and link were computed from these very values there, so construction does not hash them again."""
        content = {k: v for k, v in obj.items() if k not in BOOKKEEPING}
        _JUST_SEALED[id(content)] = content
        try:
            return cls(n=obj["n"], prev=obj["prev"], seal=obj["seal"], link=obj["link"], content=content)
        finally:
            del _JUST_SEALED[id(content)]

    @classmethod
    def parse(cls, raw: bytes | str) -> BookLine:
        # decode first: json.loads(bytes) would also accept UTF-16/32 and a BOM
        obj = json.loads(raw.decode("utf-8") if isinstance(raw, bytes) else raw)
        if not isinstance(obj, dict) or not all(k in obj for k in BOOKKEEPING):
            raise InvalidRecord("not a book line: bookkeeping fields missing")
        content = {k: v for k, v in obj.items() if k not in BOOKKEEPING}
        return cls(n=obj["n"], prev=obj["prev"], seal=obj["seal"], link=obj["link"], content=content)

    def content_json(self) -> str:
        """The content (without the bookkeeping fields) as compact, sorted JSON: the database index's
        ``body`` (league.store.derive.to_json of it; kept from the seal for a line sealed here)."""
        text: str | None = self.__dict__.get("_content_json")
        if text is None:
            text = json.dumps(self.content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return text

    @property
    def kind(self) -> str:
        return str(self.content.get("kind", ""))

    @property
    def at(self) -> str:
        return str(self.content.get("at", ""))

    def as_dict(self) -> JsonObject:
        return {**self.content, "n": self.n, "prev": self.prev, "seal": self.seal, "link": self.link}

    def to_bytes(self) -> bytes:
        """The bytes written to the file: compact, sorted, one LF (made once per line: the writer asks
        for them twice, for the length check and to write them)."""
        data: bytes | None = self.__dict__.get("_bytes")
        if data is None:
            text = json.dumps(self.as_dict(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
            data = text.encode("utf-8") + b"\n"
            object.__setattr__(self, "_bytes", data)  # not a field: equality, repr and asdict ignore it
        return data


@dataclass(frozen=True)
class Head:
    """A book's state after N lines: what a stamped list names."""

    path: str
    lines: int
    sha256: str
    last_link: str

    def stamped_line(self, name: str | None = None) -> str:
        return f"{name or self.path}: {self.lines} lines, sha256 {self.sha256}, last link {self.last_link}"


@dataclass(frozen=True)
class Recovery:
    """What crash recovery did at open: the torn bytes and where they were moved."""

    torn_bytes: int
    moved_to: Path


def _read_last_line(fd: int, size: int) -> bytes:
    """Return the last complete line (with its LF) of a file that ends with LF."""
    block = 65536
    end = size
    buf = b""
    while end > 0:
        start = max(0, end - block)
        buf = os.pread(fd, end - start, start) + buf
        idx = buf.rfind(b"\n", 0, len(buf) - 1)
        if idx >= 0:
            return buf[idx + 1 :]
        end = start
    return buf


def _count_lines(fd: int, size: int, offset: int = 0) -> int:
    """The LFs of the file's bytes ``offset..size``."""
    count = 0
    while offset < size:
        block = os.pread(fd, min(1 << 20, size - offset), offset)
        count += block.count(b"\n")
        offset += len(block)
    return count


def _holder_text(lock_path: Path) -> str:
    try:
        return lock_path.read_text(encoding="utf-8").strip() or "unknown process"
    except OSError:
        return "unknown process"


class Book:
    """The single writer of one book file. Use as a context manager or call :meth:`close`."""

    def __init__(self, path: str | os.PathLike[str], clock: Clock, *, counted: tuple[int, int] | None = None) -> None:
        """``counted`` ``(offset, lines)``: a prefix of the file said to hold that many lines (a sealed startup
        checkpoint, league.book.checkpoint), so the open counts only the LFs after it instead of reading the
        whole file, whose length grows with the league's history (0.7 s at five years of fourteen seats). A
        hint that does not fit (no LF before ``offset``, or a count that disagrees with the last line) is
        ignored and the whole file is counted: a wrong hint costs time, never a false error or a wrong line."""
        self.path = Path(path)
        self.clock = clock
        self._counted = counted
        self.recovery: Recovery | None = None
        self._lock_fd = -1
        self._fd = -1
        try:
            self._acquire_lock()
            self._open_and_recover()
        except BaseException as exc:
            self.close()  # never leave the lock behind: a later open in this process must not find it held
            if isinstance(exc, OSError):
                raise BookError(
                    f"book {self.path} could not be opened ({exc.strerror or exc}); nothing was written",
                    fix="check the disk of the data folder (space, permissions) and open it again",
                ) from exc
            raise

    # ----------------------------------------------------------------- lock and recovery
    def _acquire_lock(self) -> None:
        """One writer per book FILE: the lock is named after the book's resolved path, so a symlink
        to the book takes the same lock; the book's own inode is locked too (:meth:`_lock_inode`),
        which covers a hard link."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        real = self.path.resolve()
        lock_path = real.with_name(real.name + ".lock")
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise BookLockedError(
                f"book {self.path} is already open for writing by {_holder_text(lock_path)}",
                fix="stop that process (one writer per book) or wait for it to finish",
            ) from None
        self._lock_fd = fd
        holder = f"pid {os.getpid()} on {socket.gethostname()} ({' '.join(sys.argv)[:200]})"
        try:  # who holds the lock is for people reading an error: a full disk must not stop the open
            os.ftruncate(fd, 0)
            os.pwrite(fd, holder.encode("utf-8", "replace"), 0)
        except OSError as exc:
            log.warning("book.lock_holder_unwritten", book=str(self.path), error=str(exc))

    def _lock_inode(self) -> None:
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BookLockedError(
                f"book {self.path} is already open for writing under another name (a hard link of it)",
                fix="stop that process (one writer per book) or wait for it to finish",
            ) from None

    def _release_lock(self) -> None:
        if self._lock_fd >= 0:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
            self._lock_fd = -1

    def _open_and_recover(self) -> None:
        created = not self.path.exists()
        self._fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        self._lock_inode()
        if created:
            _fsync_dir(self.path.parent)
        size = os.fstat(self._fd).st_size
        if size and os.pread(self._fd, 1, size - 1) != b"\n":
            size = self._move_torn_tail(size)
        self._n, self._link = 0, ""
        if size:
            last = self._parse_last_line(size)
            count = self._counted_lines(size, last.n)
            if last.n != count:  # appending n+1 after it would write a line no reader accepts
                raise BookError(
                    f"book {self.path}: its last line says n = {last.n} but it is line {count} of the file; "
                    "nothing was written",
                    fix=f"run `league verify {self.path}` to find the first bad line; a book is never repaired",
                )
            self._n, self._link = last.n, last.link

    def _counted_lines(self, size: int, last_n: int) -> int:
        """The file's line count: from the ``counted`` prefix when it fits, else by reading every byte."""
        if self._counted is not None:
            offset, lines = self._counted
            if 0 < offset <= size and os.pread(self._fd, 1, offset - 1) == b"\n":
                count = lines + _count_lines(self._fd, size, offset)
                if count == last_n:
                    return count
            log.info("book.count_hint_unused", book=str(self.path), offset=offset, lines=lines)
        return _count_lines(self._fd, size)

    def _parse_last_line(self, size: int) -> BookLine:
        """The last complete line says where the chain stands; a damaged one means: write nothing."""
        try:
            return BookLine.parse(_read_last_line(self._fd, size))
        except (ValueError, RecursionError, InvalidRecord) as exc:
            lines = _count_lines(self._fd, size)
            raise BookError(
                f"book {self.path}: its last line (line {lines}) is not a valid book line ({exc}); nothing was written",
                fix=f"run `league verify {self.path}` to find the first bad line; a book is never repaired in place",
            ) from exc

    def _move_torn_tail(self, size: int) -> int:
        """Copy the bytes after the last LF to ``<book>.torn-<n>`` (fsync'd), then cut them off."""
        tail_start = size
        while tail_start > 0:
            start = max(0, tail_start - 65536)
            chunk = os.pread(self._fd, tail_start - start, start)
            idx = chunk.rfind(b"\n")
            if idx >= 0:
                tail_start = start + idx + 1
                break
            tail_start = start
        torn = os.pread(self._fd, size - tail_start, tail_start)
        target = _free_name(self.path.with_name(f"{self.path.name}.torn-{self.clock.now():%Y%m%dT%H%M%SZ}"))
        with open(target, "wb") as out:
            out.write(torn)
            out.flush()
            os.fsync(out.fileno())
        os.ftruncate(self._fd, tail_start)
        os.fsync(self._fd)
        _fsync_dir(self.path.parent)
        self.recovery = Recovery(torn_bytes=len(torn), moved_to=target)
        log.warning("book.torn_line_moved", book=str(self.path), bytes=len(torn), moved_to=str(target))
        return tail_start

    # ------------------------------------------------------------------------ writing
    @property
    def lines(self) -> int:
        return self._n

    @property
    def last_link(self) -> str:
        return self._link

    def append(self, kind: str, content: Mapping[str, object], *, at: datetime | None = None) -> BookLine:
        """Seal ``content`` as the next line; returns only after the bytes are on disk."""
        self._check_open()
        line = self._next_line(kind, content, self._n + 1, self._link, at)
        self._write(line)
        self._n, self._link = line.n, line.link
        return line

    def append_all(self, items: Sequence[tuple[str, Mapping[str, object]]], *,
                   at: datetime | None = None) -> list[BookLine]:
        """Seal several lines in order with one fsync; returns only after all of them are on disk, and if
        the disk refuses any of them none is sealed (the partial bytes are cut off again, as for one line).

        For lines a job computes from the sealed book and its prices (the portfolio stage's decisions,
        trades and marks: ~130 a session, three in four of a season's lines), not for a reply sealed on
        arrival: an fsync per line cost the season's main thread more than the lines themselves, and
        nothing reads or publishes one of them before the call returns. A crash in the middle leaves a
        sealed prefix of the batch (what the OS wrote), which the job's rerun continues after."""
        self._check_open()
        lines: list[BookLine] = []
        n, link = self._n, self._link
        for kind, content in items:  # every line is built and checked before the first byte is written
            line = self._next_line(kind, content, n + 1, link, at)
            lines.append(line)
            n, link = line.n, line.link
        if lines:
            self._write_lines(lines)
            self._n, self._link = n, link
        return lines

    def _check_open(self) -> None:
        if self._fd < 0:
            raise BookError(f"book {self.path} is closed")

    def _next_line(self, kind: str, content: Mapping[str, object], n: int, link: str, at: datetime | None) -> BookLine:
        """The sealed line ``n`` after ``link``, refused (InvalidRecord) if no reader could accept it."""
        if not kind:
            raise InvalidRecord("every book line needs a kind")
        clash = sorted({"kind", "at"} & set(content))
        if clash:
            raise InvalidRecord(f"book content may not set {clash}: pass kind and at as arguments")
        body = {**content, "kind": kind, "at": iso_seconds(at or self.clock.now())}
        line = BookLine.seal_new(body, n, link)
        if len(line.to_bytes()) > MAX_LINE_BYTES:  # a reader would refuse it: never write it
            raise InvalidRecord(f"a {kind} line of {len(line.to_bytes())} bytes is longer than a book line may be "
                                f"({MAX_LINE_BYTES} bytes)")
        return line

    def _write(self, line: BookLine) -> None:
        """Write and fsync one line (the seam the tests' fault injections wrap)."""
        self._write_lines((line,))

    def _write_lines(self, lines: Sequence[BookLine]) -> None:
        """Write the lines and fsync once; if the disk refuses (full, I/O error), cut the partial bytes off
        again so that the next append does not follow a torn fragment, and say nothing was sealed."""
        size = os.fstat(self._fd).st_size
        try:
            for line in lines:
                self._put(line)
            os.fsync(self._fd)
        except OSError as exc:
            self._cut_back(size)
            which = f"line {lines[0].n}" if len(lines) == 1 else f"lines {lines[0].n}-{lines[-1].n}"
            raise BookError(
                f"book {self.path}: {which} could not be written ({exc}); "
                f"{'it was not' if len(lines) == 1 else 'none of them was'} sealed",
                fix="check the disk (space, errors) and append again; sealed lines are untouched",
            ) from exc

    def _put(self, line: BookLine) -> None:
        view = memoryview(line.to_bytes())
        while view:
            written = os.write(self._fd, view)
            view = view[written:]

    def _cut_back(self, size: int) -> None:
        try:
            os.ftruncate(self._fd, size)
            os.fsync(self._fd)
        except OSError:  # the next open moves whatever is left after the last LF aside
            log.error("book.cut_back_failed", book=str(self.path), size=size)

    def correct(self, of: int, content: Mapping[str, object], reason: str) -> BookLine:
        """A correction is a new line naming the corrected line; the old line stays untouched."""
        if not 1 <= of <= self._n:
            raise InvalidRecord(f"correction names line {of}, but the book has {self._n} lines")
        return self.append("correction", {**content, "of": of, "reason": reason})

    def head(self) -> Head:
        return Head(str(self.path), self._n, prefix_digest(self.path, self._n), self._link)

    def close(self) -> None:
        """Unlock the book's inode before closing it: a flock belongs to the open file description, which a
        process forked meanwhile shares, so a close alone would keep the book locked while such a child
        lives, and the next writer would be refused ("under another name")."""
        if self._fd >= 0:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = -1
        self._release_lock()

    def __enter__(self) -> Book:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _free_name(path: Path) -> Path:
    candidate, i = path, 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.{i}")
        i += 1
    return candidate


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# ---------------------------------------------------------------------------- reading
def iter_lines(path: str | os.PathLike[str]) -> Iterator[BookLine]:
    """Yield every complete line, validated; raises :class:`ChainBroken` at the first bad one."""
    prev = ""
    for i, raw in enumerate(iter_raw(path), 1):
        line = _checked(raw, i, prev)
        prev = line.link
        yield line


def iter_raw(path: str | os.PathLike[str]) -> Iterator[bytes]:
    """Yield raw complete lines (LF stripped); a torn last line or a line longer than
    ``MAX_LINE_BYTES`` raises ``ChainBroken`` (the long line is not read into memory)."""
    with open(path, "rb") as fh:
        i = 0
        while raw := fh.readline(MAX_LINE_BYTES + 1):
            i += 1
            if not raw.endswith(b"\n"):
                if len(raw) > MAX_LINE_BYTES:
                    raise ChainBroken(f"line {i}: {OVERLONG}", line=i, reason=OVERLONG)
                raise ChainBroken(
                    f"line {i}: torn line (no LF at the end of the file)", line=i, reason="torn line"
                )
            yield raw[:-1]


def read_content(path: str | os.PathLike[str], kinds: set[str] | None = None) -> list[BookLine]:
    return [ln for ln in iter_lines(path) if kinds is None or ln.kind in kinds]


def _checked(raw: bytes, i: int, prev: str) -> BookLine:
    problem, obj = check_line(raw, i, prev)
    if problem:
        raise ChainBroken(f"line {i}: {problem}", line=i, reason=problem)
    assert obj is not None
    return BookLine.checked(obj)


def prefix_digest(path: str | os.PathLike[str], lines: int) -> str:
    """SHA-256 of the first ``lines`` lines with their LFs: equal to ``head -n N | sha256sum``."""
    digest = hashlib.sha256()
    if lines <= 0:
        return digest.hexdigest()
    count = 0
    with open(path, "rb") as fh:
        for raw in fh:
            if not raw.endswith(b"\n"):
                break
            digest.update(raw)
            count += 1
            if count == lines:
                break
    if count < lines:
        raise BookError(f"{path} has only {count} complete lines, a prefix of {lines} was asked for")
    return digest.hexdigest()


def head_of(path: str | os.PathLike[str], lines: int | None = None) -> Head:
    """The head after ``lines`` lines (default: all complete lines), read without writing."""
    digest = hashlib.sha256()
    count, last = 0, b""
    with open(path, "rb") as fh:
        for raw in fh:
            if not raw.endswith(b"\n") or (lines is not None and count == lines):
                break
            digest.update(raw)
            count += 1
            last = raw
    if lines is not None and count < lines:
        raise BookError(f"{path} has only {count} complete lines, a prefix of {lines} was asked for")
    link = str(json.loads(last)["link"]) if last else ""  # only line N is parsed: stamping stays linear
    return Head(str(path), count, digest.hexdigest(), link)


def stamped_list(heads: list[tuple[str, Head]], *, taken_at: datetime, note: str = "") -> str:
    """The stamped-list text of docs/protocol.md §6: one line per book plus the byte rule."""
    out = [f"Stamped list taken at {iso_seconds(taken_at)}"]
    out += [head.stamped_line(name) for name, head in heads]
    out.append(BYTE_RULE)
    if note:
        out.append(note)
    return "\n".join(out) + "\n"
