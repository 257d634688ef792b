"""The JSON views' encoded answers, kept in each worker process while the files they were made from are unchanged.

A view is a function of the files it reads (the published JSON and CSV files, the live book, a proof folder's
listing): the embargo too is read from the book (a session's content is shown once its ``score`` line is sealed).
Each view is given a :class:`Reads` collector (``Store.recording``) that notes every file the view reads with its
``(st_mtime_ns, st_size, st_ino)`` taken before the read, a missing file as missing. The answer is encoded once
(JSON bytes and their SHA-256 as ETag) and kept under the view's name and parameters; a later request is answered
from it when a fresh ``stat`` of every noted file still gives the noted stamp (a grown book, a file republished
by rename, a file that appeared or went are all seen) and the answer's expiry, when it has one, has not come by
the league's Clock. A view whose answer depends on the time of day sets that expiry (:meth:`Reads.expire_at`);
no view reads the clock today.

The cache is bounded (:data:`MAX_ENTRIES` answers, :data:`MAX_BYTES` of bodies; the least recently used go
first); a refusal (4xx) is never kept. ``league serve --no-view-cache`` (``LEAGUE_SERVE_VIEW_CACHE=0``) turns it
off: every request recomputes its view.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from league.clock import Clock

#: At most this many answers are kept per worker process.
MAX_ENTRIES = 1024
#: At most this many bytes of bodies are kept per worker process.
MAX_BYTES = 64 * 2**20

#: What a file was when a view read it: (st_mtime_ns, st_size, st_ino); None when it did not exist.
Stamp = tuple[int, int, int] | None


def stamp_of(st: os.stat_result | None) -> Stamp:
    return None if st is None else (st.st_mtime_ns, st.st_size, st.st_ino)


def stat_or_none(path: Path) -> os.stat_result | None:
    """``path.stat()``, or None when there is nothing there to read."""
    try:
        return path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return None


class Reads:
    """The files one view read, each with its stamp as it was before the read, and the instant (if any) after
    which the view's answer may change although no file did."""

    def __init__(self) -> None:
        self.files: dict[Path, Stamp] = {}
        self.until: datetime | None = None

    def note(self, path: Path, st: os.stat_result | None) -> None:
        """Note ``path`` as read, as ``st`` shows it (None: it did not exist). The first stamp of a path is kept:
        it is the older one, so any change after it is seen."""
        self.files.setdefault(path, stamp_of(st))

    def stat(self, path: Path) -> os.stat_result | None:
        """Stat ``path`` (None when missing) and note it as read; call it before reading the file."""
        st = stat_or_none(path)
        self.note(path, st)
        return st

    def expire_at(self, when: datetime) -> None:
        """The answer may change at ``when`` (timezone-aware) without any file changing."""
        self.until = when if self.until is None or when < self.until else self.until


@dataclass(frozen=True)
class Answer:
    """A view's encoded answer and what it was made from."""

    body: bytes
    etag: str
    files: tuple[tuple[Path, Stamp], ...]
    until: datetime | None

    def fresh(self, now: datetime) -> bool:
        """True while every file it was made from is as it was read and its expiry has not come."""
        if self.until is not None and now >= self.until:
            return False
        return all(stamp_of(stat_or_none(path)) == seen for path, seen in self.files)


def encode(value: object) -> bytes:
    """A view's value as the API sends it: compact JSON, UTF-8 (Starlette's JSONResponse's bytes); a NaN or an
    infinity is sent as null, as FastAPI's response serialisation did."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except ValueError:
        text = json.dumps(_finite(value), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.encode("utf-8")


def _finite(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def etag_of(body: bytes) -> str:
    """The strong ETag of a body: its SHA-256 (the validator league.api.caching.ViewValidators gives any view)."""
    return f'"{hashlib.sha256(body).hexdigest()}"'


class ViewCache:
    """Encoded answers by key (a view's name and parameters), least recently used first out; thread-safe."""

    def __init__(self, clock: Clock, *, enabled: bool = True, max_entries: int = MAX_ENTRIES,
                 max_bytes: int = MAX_BYTES) -> None:
        self.clock = clock
        self.enabled = enabled
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._answers: OrderedDict[Hashable, Answer] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._pending: dict[Hashable, asyncio.Future[Answer]] = {}

    def __len__(self) -> int:
        return len(self._answers)

    @property
    def size_bytes(self) -> int:
        return self._bytes

    def lookup(self, key: Hashable) -> Answer | None:
        """The kept answer for ``key`` when it is still fresh, else None (a stale one is dropped)."""
        if not self.enabled:
            return None
        with self._lock:
            answer = self._answers.get(key)
        if answer is None:
            return None
        if not answer.fresh(self.clock.now()):
            with self._lock:
                if self._answers.get(key) is answer:
                    self._drop(key)
            return None
        with self._lock:
            if key in self._answers:
                self._answers.move_to_end(key)
        return answer

    def make(self, key: Hashable, view: Callable[[Reads], object]) -> Answer:
        """Compute the view (``view(reads)``), encode it and keep it under ``key``; an exception (a refusal) is
        raised as it is and nothing is kept."""
        reads = Reads()
        body = encode(view(reads))
        answer = Answer(body, etag_of(body), tuple(reads.files.items()), reads.until)
        if self.enabled and len(body) <= self.max_bytes:
            with self._lock:
                if key in self._answers:
                    self._drop(key)
                self._answers[key] = answer
                self._bytes += len(body)
                while len(self._answers) > self.max_entries or self._bytes > self.max_bytes:
                    self._drop(next(iter(self._answers)))
        return answer

    def answer(self, key: Hashable, view: Callable[[Reads], object]) -> Answer:
        """The fresh kept answer for ``key``, else the view computed now (and kept)."""
        return self.lookup(key) or self.make(key, view)

    async def get(self, key: Hashable, view: Callable[[Reads], object]) -> Answer:
        """:meth:`answer` for the event loop: a kept answer is checked there (a few ``stat`` calls); a view to
        compute runs in a worker thread, once for all the requests asking for it meanwhile (50 clients arriving on
        a changed file compute it once, not 50 times side by side). A refusal reaches every request that waited."""
        if not self.enabled:
            return await asyncio.to_thread(self.make, key, view)
        found = self.lookup(key)
        if found is not None:
            return found
        task = self._pending.get(key)
        if task is None:
            task = asyncio.ensure_future(asyncio.to_thread(self.make, key, view))
            self._pending[key] = task
            task.add_done_callback(lambda _: self._pending.pop(key, None))
        # shielded: a client that goes away cancels its own wait, not the computation the others wait for
        return await asyncio.shield(task)

    def _drop(self, key: Hashable) -> None:
        self._bytes -= len(self._answers.pop(key).body)
