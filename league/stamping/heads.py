"""Books' heads for stamped lists, hashed once: each stamp hashes only the lines appended since the last.

:func:`league.book.head_of` hashes a book from its first byte. A league stamps both books three
times a session, so over a season that read every byte of a growing book hundreds of times
(quadratic: a 126-session demo hashed ~10 GB). :class:`HeadCache` keeps, per book file, the SHA-256
state after the lines it has seen, the byte offset they end at and the last of those lines; the next
head copies that state and hashes what follows. The result is the same :class:`~league.book.Head`
that ``head_of`` gives (tested side by side).

The cache is used only while the file is still the one it saw: same inode, not shorter, and the last
line seen still sits at the same offset with the same bytes. Anything else (a replaced, truncated or
rewritten file) is hashed again from the start. A prefix altered in place while keeping its length
and its last line is not noticed here: finding that is ``league verify``'s job, not the stamper's.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from league.book import Head


class _Digest(Protocol):
    """What is used of a running hashlib digest: fed, copied, read."""

    def update(self, data: bytes, /) -> None: ...

    def copy(self) -> _Digest: ...

    def hexdigest(self) -> str: ...


@dataclass(frozen=True)
class _Seen:
    """A file as far as it was hashed: ``lines`` complete lines ending at byte ``offset``."""

    inode: int
    lines: int
    offset: int
    digest: _Digest  # a hashlib sha256 object holding the state after those lines (copied before use)
    last: bytes  # line ``lines`` with its LF (b"" when none)


class HeadCache:
    """Incremental :func:`league.book.head_of` (all complete lines) for the files one stamper names."""

    def __init__(self) -> None:
        self._seen: dict[str, _Seen] = {}
        self._lock = threading.Lock()

    def head(self, path: Path) -> Head:
        """The head of every complete line of ``path``, as ``head_of(path)`` gives it."""
        key = os.path.abspath(path)
        with self._lock:
            seen = self._seen.get(key)
            start = seen if seen is not None and _still_holds(path, seen) else None
            fresh = _read_on(path, start)
            self._seen[key] = fresh
        link = str(json.loads(fresh.last)["link"]) if fresh.last else ""
        return Head(str(path), fresh.lines, fresh.digest.hexdigest(), link)


def _still_holds(path: Path, seen: _Seen) -> bool:
    """Is the file still the one hashed: same inode, not shorter, its last hashed line unchanged?"""
    try:
        st = os.stat(path)
        if st.st_ino != seen.inode or st.st_size < seen.offset:
            return False
        if not seen.last:
            return True
        with open(path, "rb") as fh:
            fh.seek(seen.offset - len(seen.last))
            return fh.read(len(seen.last)) == seen.last
    except OSError:
        return False


def _read_on(path: Path, start: _Seen | None) -> _Seen:
    """Hash the complete lines after ``start`` (from the beginning when None); stop at a torn tail."""
    digest = start.digest.copy() if start is not None else hashlib.sha256()
    lines, offset, last = (start.lines, start.offset, start.last) if start is not None else (0, 0, b"")
    with open(path, "rb") as fh:
        inode = os.fstat(fh.fileno()).st_ino
        fh.seek(offset)
        for raw in fh:
            if not raw.endswith(b"\n"):
                break
            digest.update(raw)
            lines, offset, last = lines + 1, offset + len(raw), raw
    return _Seen(inode, lines, offset, digest, last)

