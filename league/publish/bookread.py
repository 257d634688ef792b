"""One verified read of a book per publish run, shared by every producer that reads it.

The producers of the open-data folder are independent functions of the data folder (each can run
alone: ``league stats``, ``league eval points``, the tests), and each used to read and chain-check
the whole council book itself: the CSV writer, the crowd comparison, both portfolio steps and the
point-forecast track — five verified reads of the same bytes per publish, the largest part of a
season's publish time. Inside :func:`shared_reads` (the publisher and ``league stats`` open one), the
first reader's verified lines are kept and the others get them from here; outside it, each call
reads the book as before. The four readers after the statistics (points, crowd, both portfolio
steps) share one read; the CSV writer before them builds its own index as before (keeping the lines
beside that index would only raise the publish step's memory peak, measured: +85 MiB at 126
sessions), and the publisher lets any kept read go before the statistics: two reads instead of five.

Both are now parses, not verifications (issue 15): the publisher's books step checks every seal and link of
the bytes it publishes as council-book.jsonl (read_facts); the CSV writer indexes those bytes, and the
publisher notes them here (:func:`checked_copy`: the live book's file state, the published copy, its
SHA-256). The first reader after the statistics gets them read back from the copy, matched to that digest,
and parsed (:class:`CheckedLine`) — as long as the live book is still at the noted state; otherwise (a
line sealed meanwhile, the copy changed) it reads and verifies the live book as before.

A kept read is reused only while the file is unchanged (inode, size and modification time): a book
appended to during a publish (a live daemon sealing meanwhile) is read again, so every producer
still sees the book as it was when it asked, exactly as before. Readers get the same line objects
(``BookLine`` or ``CheckedLine``) and must not modify their content (none does: they build their own rows from it).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from league.book import BOOKKEEPING, iter_lines
from league.book.index import BookIndex


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


@dataclass
class _Read:
    """A book's verified lines at one file state."""

    state: tuple[int, int, int]
    lines: Sequence[SealedLine]


@dataclass(frozen=True)
class _Checked:
    """Where the publisher put the bytes it checked: read back (and matched to their SHA-256) when asked."""

    state: tuple[int, int, int]
    copy: Path
    sha256: str


_READS: ContextVar[dict[str, _Read | _Checked] | None] = ContextVar("league_publish_book_reads", default=None)


@contextmanager
def shared_reads() -> Iterator[None]:
    """Within this block, each book is read and verified once (per file state), then shared."""
    token = _READS.set({})
    try:
        yield
    finally:
        _READS.reset(token)


def forget_reads() -> None:
    """Let the kept reads go (the next reader reads again): the publisher calls it before the statistics,
    whose frames of the whole table would otherwise sit in memory beside a whole parsed book."""
    reads = _READS.get()
    if reads is not None:  # a note of checked bytes holds no lines: it stays
        for key in [k for k, v in reads.items() if isinstance(v, _Read)]:
            del reads[key]


def file_state(path: Path) -> tuple[int, int, int]:
    st = os.stat(path)
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def checked_copy(path: Path, state: tuple[int, int, int], copy: Path, sha256: str) -> None:
    """Note that the complete lines of ``path`` at ``state`` were checked (seal and link) and written to ``copy``
    with SHA-256 ``sha256``: a reader asking for ``path`` while it is still at that state gets them parsed from
    the copy (matched to that digest) instead of a second verified read. Outside a block: nothing."""
    reads = _READS.get()
    if reads is not None:
        reads[os.path.abspath(path)] = _Checked(state, copy, sha256)


def _kept(path: Path) -> _Read | None:
    """The kept read of ``path`` for its current state (reading it now if needed); None outside a block."""
    reads = _READS.get()
    if reads is None:
        return None
    state = file_state(path)
    key = os.path.abspath(path)
    kept = reads.get(key)
    if isinstance(kept, _Checked) and kept.state == state:
        lines = _parsed(kept)
        if lines is not None:
            kept = reads[key] = _Read(state, lines)
    if not isinstance(kept, _Read) or kept.state != state:
        kept = reads[key] = _Read(state, list(iter_lines(path)))
    return kept


def _parsed(checked: _Checked) -> list[SealedLine] | None:
    """The checked lines read back from their copy; None when the copy no longer has the checked bytes."""
    digest = hashlib.sha256()
    lines: list[SealedLine] = []
    try:
        with open(checked.copy, "rb") as fh:  # line by line: the whole copy is never in memory at once
            for raw in fh:
                digest.update(raw)
                obj = json.loads(raw.decode("utf-8"))
                content = {k: v for k, v in obj.items() if k not in BOOKKEEPING}
                lines.append(CheckedLine(obj["n"], obj["prev"], obj["seal"], obj["link"], content))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return lines if digest.hexdigest() == checked.sha256 else None


def book_lines(path: Path) -> Sequence[SealedLine] | Iterator[SealedLine]:
    """Every line of the book, verified (raises ``ChainBroken`` at the first bad one, as ``iter_lines``)."""
    kept = _kept(path)
    return iter_lines(path) if kept is None else kept.lines


def book_index(path: Path) -> BookIndex:
    """The book's index by kind and session (as ``BookIndex.of_book``), built over the kept lines. It is
    not kept itself: its per-line dictionaries would sit beside the lines for the rest of the run."""
    kept = _kept(path)
    if kept is None:
        return BookIndex.of_book(path)
    index = BookIndex()
    for line in kept.lines:
        index.add_body({**line.content, "n": line.n, "seal": line.seal, "link": line.link})  # as body_of
    return index
