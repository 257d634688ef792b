"""The sealed startup checkpoint of a book: how far it was fully verified, and how to trust that at open.

A checkpoint records (book, N lines, the byte offset where line N ends, D = sha256 of those N lines'
bytes by the protocol's byte rule, L = line N's link, when, by which check). At open, a checkpoint
that still matches the file (at least that long, line N ending exactly at the offset with link L) lets
the writer re-hash only the lines after it, chained from L; one that does not match is said out loud
and a full verification runs instead. The nightly full verification (and ``league verify-book``)
re-hashes everything, compares the first N lines with D, and only then moves the checkpoint.
What is NOT re-hashed at open (lines 1..N) is covered by that nightly check (docs/book.md).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from league.book.chain import BookLine, _checked
from league.errors import ChainBroken, InvalidRecord
from league.verify.chain import MAX_LINE_BYTES, OVERLONG


@dataclass(frozen=True)
class Checkpoint:
    """A book's verified prefix: N lines ending at ``offset``, digest D, last link L."""

    book: str
    lines: int
    offset: int
    prefix_sha256: str
    last_link: str
    taken_at: datetime
    taken_by: str

    def __post_init__(self) -> None:
        if self.taken_at.tzinfo is None or self.taken_at.utcoffset() is None:
            raise ValueError(f"checkpoint taken_at must be timezone-aware, got {self.taken_at!r}")


@dataclass(frozen=True)
class Scan:
    """What a full verification found: the head after ``lines`` lines."""

    lines: int
    offset: int
    prefix_sha256: str
    last_link: str


def mismatch(path: Path, cp: Checkpoint) -> str | None:
    """Why ``cp`` does not describe the start of the file at ``path`` (``None``: it matches).

    Only line N is read (backwards from the offset): lines 1..N are not re-hashed here."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        return f"the book cannot be read ({exc})"
    if cp.lines <= 0 or cp.offset <= 0:
        return "the checkpoint is empty"
    if size < cp.offset:
        return f"the book is {size} bytes, shorter than the checkpoint's {cp.offset} (truncated or replaced)"
    raw = _line_ending_at(path, cp.offset)
    if raw is None:
        return f"no line ends at byte {cp.offset} (the book was replaced or rewritten)"
    try:
        line = BookLine.parse(raw)
    except (ValueError, RecursionError, InvalidRecord) as exc:
        return f"the line ending at byte {cp.offset} is not a valid book line ({exc})"
    if line.n != cp.lines or line.link != cp.last_link:
        return (f"the line ending at byte {cp.offset} is line {line.n} with link {line.link[:12]}…, the checkpoint "
                f"says line {cp.lines} with link {cp.last_link[:12]}… (the book was replaced or rewritten)")
    return None


def _line_ending_at(path: Path, offset: int) -> bytes | None:
    """The line (with its LF) that ends at byte ``offset``, read backwards in blocks; ``None`` when
    the byte before ``offset`` is not an LF or the line would be longer than a book line may be."""
    fd = os.open(path, os.O_RDONLY)
    try:
        if os.pread(fd, 1, offset - 1) != b"\n":
            return None
        buf, end = b"", offset - 1
        while end > 0 and len(buf) <= MAX_LINE_BYTES:
            start = max(0, end - 65536)
            buf = os.pread(fd, end - start, start) + buf
            idx = buf.rfind(b"\n")
            if idx >= 0:
                return buf[idx + 1:] + b"\n"
            end = start
        return buf + b"\n" if len(buf) <= MAX_LINE_BYTES else None
    finally:
        os.close(fd)


def _raw_lines(path: Path, offset: int = 0, first: int = 1, upto: int | None = None) -> Iterator[tuple[int, bytes]]:
    """(line number, raw bytes with LF) from ``offset``; a torn or overlong line raises ChainBroken."""
    with open(path, "rb") as fh:
        fh.seek(offset)
        i = first - 1
        while upto is None or i < upto:
            raw = fh.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            i += 1
            if not raw.endswith(b"\n"):
                reason = OVERLONG if len(raw) > MAX_LINE_BYTES else "torn line"
                raise ChainBroken(f"line {i}: {reason}", line=i, reason=reason)
            yield i, raw


def verify_after(path: Path, cp: Checkpoint) -> Iterator[BookLine]:
    """Re-hash only the lines after the checkpoint, chained from its link L; the first bad one raises."""
    prev = cp.last_link
    for i, raw in _raw_lines(path, cp.offset, cp.lines + 1):
        line = _checked(raw[:-1], i, prev)
        prev = line.link
        yield line


def full_scan(path: Path, *, upto: int | None = None, on_line: Callable[[BookLine], None] | None = None,
              expect: Checkpoint | None = None) -> Scan:
    """Verify lines 1..``upto`` (default: all) from scratch, hashing the prefix as it goes.

    With ``expect``, the digest of its first N lines must equal its D: a prefix rewritten since the
    checkpoint fails even if it chains. Raises :class:`ChainBroken` naming the first bad line."""
    digest = hashlib.sha256()
    prev, offset, count = "", 0, 0
    for i, raw in _raw_lines(path, upto=upto):
        line = _checked(raw[:-1], i, prev)
        digest.update(raw)
        offset += len(raw)
        prev, count = line.link, i
        if expect is not None and i == expect.lines and digest.hexdigest() != expect.prefix_sha256:
            raise ChainBroken(f"line {i}: the first {i} lines no longer hash to the checkpoint's digest",
                              line=i, reason="prefix differs from the checkpoint")
        if on_line is not None:
            on_line(line)
    if upto is not None and count < upto:
        raise ChainBroken(f"line {count + 1}: the book has only {count} lines, {upto} were expected",
                          line=count + 1, reason="book shorter than expected")
    if expect is not None and count < expect.lines:
        raise ChainBroken(f"line {count + 1}: the book has only {count} lines, the checkpoint says {expect.lines}",
                          line=count + 1, reason="book shorter than the checkpoint")
    return Scan(count, offset, digest.hexdigest(), prev)


def lines_between(path: Path, first: int, upto: int, prev: str) -> Iterator[BookLine]:
    """Lines ``first``..``upto`` chained from ``prev`` (the database index lagging the book)."""
    offset = _offset_of(path, first)
    for i, raw in _raw_lines(path, offset, first, upto):
        line = _checked(raw[:-1], i, prev)
        prev = line.link
        yield line


def _offset_of(path: Path, n: int) -> int:
    """The byte offset where line ``n`` starts (counting LFs, nothing parsed)."""
    if n <= 1:
        return 0
    fd = os.open(path, os.O_RDONLY)
    try:
        seen, offset = 0, 0
        while True:
            block = os.pread(fd, 1 << 20, offset)
            if not block:
                raise ChainBroken(f"line {n}: the book has only {seen} lines", line=n, reason="book too short")
            start = 0
            while (idx := block.find(b"\n", start)) >= 0:
                seen += 1
                if seen == n - 1:
                    return offset + idx + 1
                start = idx + 1
            offset += len(block)
    finally:
        os.close(fd)
