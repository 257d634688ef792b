"""Rebuilding the index from the books and the price cache, and keeping it up to date incrementally.

The books are the source of truth, so the database must be reproducible from them: ``rebuild``
verifies every book first and refuses a broken one (naming its first bad line) *before* touching the
database, then replaces every derived row in one transaction, so a failure leaves the old index as it
was. ``job_runs`` and ``stamps`` survive a rebuild: they are not derivable, and losing ``job_runs``
would let the scheduler repeat a finished job.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TypeVar
from urllib.parse import unquote
from weakref import WeakKeyDictionary

import structlog

from league.book import BookLine, iter_lines
from league.book.tail import line_object, raw_lines_back
from league.clock import parse_iso
from league.errors import ChainBroken
from league.jsonvalue import Json
from league.store.dispatch import open_store
from league.store.interface import BarRow, CachedDay, Store, StoreError
from league.store.sql import make_bar
from league.verify.chain import MAX_LINE_BYTES, OVERLONG, check_line, verify

log = structlog.get_logger(__name__)


def default_url(data_dir: str | os.PathLike[str]) -> str:
    """The SQLite file inside the data folder, used when no database URL is configured."""
    return f"sqlite:///{Path(data_dir).resolve() / 'league.db'}"


def book_name(path: Path) -> str:
    """A book's name in the index is its file stem: ``council-book``, ``asks``."""
    return path.name.removesuffix(".jsonl")


@dataclass(frozen=True)
class RebuildReport:
    """What a rebuild indexed: lines per book, bars per symbol, and the row counts afterwards."""

    books: dict[str, int]
    bars: dict[str, int]
    counts: dict[str, int] = field(default_factory=dict)


# ---------------------------------------------------------------------------- books
def check_book(path: Path) -> int:
    """Verify a book with the fast verifier; raise :class:`ChainBroken` naming the first bad line."""
    report = verify(path)
    if not report.ok:
        raise ChainBroken(
            f"{path}: line {report.bad_line}: {report.reason}; the book was not indexed and the database "
            "was left unchanged",
            line=report.bad_line,
            reason=report.reason,
            fix=_broken_fix(path, report.bad_line, report.reason),
        )
    return report.lines


def _broken_fix(path: Path, bad_line: int, reason: str) -> str:
    if reason.startswith("torn line"):
        return (f"the last line of {path} is torn (a crash mid-write): open the book with its writer (start the "
                "daemon or any command that appends) and the torn bytes are moved aside, then rebuild")
    return (f"run `league verify {path}`; restore the book from a backup or stamped copy (lines 1..{bad_line - 1} "
            "hold) — a broken book is never indexed")


def lines_after(path: Path, name: str, last_n: int, last_link: str, *, growing: bool = False) -> Iterator[BookLine]:
    """Validated lines after ``last_n``, checking the file still holds the line the index ends at.

    Within one process the file is not read again from line 1 each time: where the previous call
    ended (the byte offset of its last line, the file's inode) is remembered, and when the index
    still ends at that very line, reading resumes there. That line is read again and must carry
    the link the index holds; anything else (another inode, a shorter file, another line at that
    offset) falls back to the full read from line 1, which names what changed. Without this,
    indexing asks.jsonl after every job read the whole chain each time: quadratic over a season.
    A process's first read finds that line by reading back from the end of the file instead
    (:func:`_resume_at_end`), under the same check. The lines before the resume point were verified
    when they were first read; a tampered prefix is for ``league verify`` and the daemon's nightly
    full check (league.jobs.verify_book, both books) to find, not for this incremental step.

    ``growing``: the book is being written by another process right now, so a last line without its LF is
    one still being written (a single write may become visible in pieces): the read ends before it instead
    of reporting a torn line. A line with its LF is whole, since the writer writes each line with its LF.
    """
    resume = _RESUME.get(str(path))
    if resume is None or not resume.fits(path, last_n, last_link):
        resume = _resume_at_end(path, last_n, last_link)
    if resume is not None:
        yield from _scan(path, name, resume.start, last_n, last_link, after=last_n, resuming=True, growing=growing)
    else:
        yield from _scan(path, name, 0, 1, "", after=last_n, last_link=last_link, growing=growing)


#: How far back from the end of a book a process's first read looks for the line the index ends at: a book
#: that grew by more since it was last indexed is read from its first line, as before.
TAIL_BYTES = 64 << 20


def _resume_at_end(path: Path, last_n: int, last_link: str) -> _Resume | None:
    """The line the index ends at, found by reading back from the end of the file (a process's first read).

    Why: each new process (every `league run` job, the daemon's first morning after a start) read asks.jsonl
    from its first line to find where the index ends, re-hashing the whole chain: at 5 years × 14 seats two
    thirds of a morning's jobs (docs/costs.md, "The ask chain read from its end"). The lines sealed since the last index
    are few, so the line is near the end. It must carry the number and link the index holds, as a resumed
    read within a process checks (:meth:`_Resume.fits`); a torn tail is skipped. ``None`` (read from line 1,
    which names what changed) when the line is not there, is another, or lies more than ``TAIL_BYTES`` back."""
    if last_n <= 0:
        return None
    try:
        with open(path, "rb") as fh:
            inode = os.fstat(fh.fileno()).st_ino
            for start, raw in raw_lines_back(fh, TAIL_BYTES):
                head = line_object(raw)
                if head is None or head.n < last_n:
                    return None
                if head.n == last_n:
                    found = head.link == last_link
                    return _Resume(inode, last_n, last_link, start, start + len(raw)) if found else None
    except OSError:
        return None
    return None


@dataclass(frozen=True)
class _Resume:
    """Where the last incremental read of a book ended: line ``n`` (its link) starts at byte ``start``."""

    inode: int
    n: int
    link: str
    start: int
    end: int

    def fits(self, path: Path, last_n: int, last_link: str) -> bool:
        """True when the index ends at this line and the file still holds it at this offset."""
        if (self.n, self.link) != (last_n, last_link):
            return False
        try:
            st = path.stat()
            if st.st_ino != self.inode or st.st_size < self.end:
                return False
            with open(path, "rb") as fh:
                fh.seek(self.start)
                raw = fh.read(self.end - self.start)
            obj = json.loads(raw)
        except (OSError, ValueError):
            return False
        return raw.endswith(b"\n") and isinstance(obj, dict) and (obj.get("n"), obj.get("link")) == (last_n, last_link)


#: Resume points by book path, for this process (see :func:`lines_after`).
_RESUME: dict[str, _Resume] = {}


def _scan(path: Path, name: str, offset: int, first: int, prev: str, *, after: int,
          last_link: str = "", resuming: bool = False, growing: bool = False) -> Iterator[BookLine]:
    """Read lines from byte ``offset``: line ``first``, whose predecessor's link is ``prev``; or, when
    ``resuming``, line ``first`` itself (already checked by :meth:`_Resume.fits`, its link ``prev``).
    Verify each and yield those after ``after``. A full read also checks that line ``after`` carries
    ``last_link``."""
    inode = os.stat(path).st_ino
    n, link, seen = first - 1, prev, 0
    with open(path, "rb") as fh:
        fh.seek(offset)
        start = offset
        if resuming:  # the line at the offset is the one the index ends at (checked by fits)
            raw = fh.readline(MAX_LINE_BYTES + 1)
            start += len(raw)
            n, seen = first, first
        while raw := fh.readline(MAX_LINE_BYTES + 1):
            if growing and not raw.endswith(b"\n") and len(raw) <= MAX_LINE_BYTES:
                break  # the line the writer is writing now: the next read takes it
            line = _checked_line(raw, n + 1, link)
            n, link, seen = line.n, line.link, line.n
            if not resuming and n == after and link != last_link:
                raise StoreError(
                    f"book {name} ({path}) differs from the index at line {after}: its link changed",
                    fix="the book file was replaced; check it with `league verify`, then run `league rebuild`",
                )
            _RESUME[str(path)] = _Resume(inode, n, link, start, start + len(raw))
            start += len(raw)
            if n > after:
                yield line
    if seen < after:
        raise StoreError(
            f"book {name} ({path}) has {seen} lines but the index already holds {after}",
            fix="the book file was replaced or truncated; check it with `league verify`, then `league rebuild`",
        )


def _checked_line(raw: bytes, i: int, prev: str) -> BookLine:
    """One raw line (with its LF) verified as line ``i`` after ``prev``, as :func:`iter_lines` checks it."""
    if not raw.endswith(b"\n"):
        reason = OVERLONG if len(raw) > MAX_LINE_BYTES else "torn line"
        detail = OVERLONG if reason == OVERLONG else "torn line (no LF at the end of the file)"
        raise ChainBroken(f"line {i}: {detail}", line=i, reason=reason)
    problem, obj = check_line(raw[:-1], i, prev)
    if problem or obj is None:
        raise ChainBroken(f"line {i}: {problem}", line=i, reason=str(problem))
    return BookLine.checked(obj)


def index_book(store: Store, book_path: str | os.PathLike[str], name: str | None = None, *,
               growing: bool = False) -> int:
    """Index only the lines after the highest one already stored; returns how many were added.
    ``growing``: another process is appending to the book now (see :func:`lines_after`)."""
    path = Path(book_path)
    name = name or book_name(path)
    if _unchanged_since_indexed(store, path, name):
        return 0
    last_n, last_link = store.last_indexed(name)
    added = store.index_lines(name, lines_after(path, name, last_n, last_link, growing=growing))
    if added:
        log.info("store.book_indexed", book=name, added=added, last=last_n + added)
    _remember_indexed(store, path, name)
    return added


#: Per store: book name -> (path, inode, end of its last complete line) when this process last brought the
#: store's index of that book up to the end of the file (see :func:`_unchanged_since_indexed`).
_INDEXED: WeakKeyDictionary[Store, dict[str, tuple[str, int, int]]] = WeakKeyDictionary()


def _unchanged_since_indexed(store: Store, path: Path, name: str) -> bool:
    """Has the book not grown since this process last indexed it to its end in this store? Then there is
    nothing to index, and neither the index's last line nor the file is read (the league calls this after
    every job, and most jobs seal no ask). A replaced or changed file takes the ordinary path."""
    try:
        seen = _INDEXED.get(store, {}).get(name)
    except TypeError:  # a store that cannot be weakly referenced: no memory of it
        return False
    if seen is None or seen[0] != str(path):
        return False
    try:
        st = os.stat(path)
    except OSError:
        return False
    return (st.st_ino, st.st_size) == seen[1:]


def _remember_indexed(store: Store, path: Path, name: str) -> None:
    resume = _RESUME.get(str(path))
    try:
        if resume is None:
            _INDEXED.get(store, {}).pop(name, None)
        else:
            _INDEXED.setdefault(store, {})[name] = (str(path), resume.inode, resume.end)
    except TypeError:
        pass


# ---------------------------------------------------------------------------- price cache
def bar_from_json(obj: Json, where: str) -> BarRow:
    """One cached bar ``{"t","o","h","l","c","v"}`` as a row; a bad bar is named by file and line."""
    if not isinstance(obj, dict):
        raise StoreError(f"{where}: a bar must be a JSON object, got {type(obj).__name__}")
    try:
        start = parse_iso(str(obj["t"]))
    except (KeyError, ValueError) as exc:
        raise StoreError(f"{where}: bar start `t` missing or not an ISO-8601 time with offset ({exc})") from exc
    values = [_number(obj.get(k), k, where) for k in ("o", "h", "l", "c", "v")]
    bar = make_bar(where, start, *values)
    return {"start": bar.start, "open": bar.open, "high": bar.high, "low": bar.low, "close": bar.close,
            "volume": bar.volume}


def _number(value: Json, key: str, where: str) -> float:
    if value is None and key == "v":
        return 0.0  # indices carry no volume; Yahoo sends null
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(float(value)):
        raise StoreError(f"{where}: bar field {key!r} is {value!r}, not a finite number")
    return float(value)


def read_price_file(path: Path) -> list[BarRow]:
    """Every bar of one day file; the first bad line stops the rebuild with its file and line."""
    rows = []
    with open(path, encoding="utf-8") as fh:
        for i, text in enumerate(fh, 1):
            if not text.strip():
                continue
            try:
                obj: Json = json.loads(text)
            except ValueError as exc:
                raise StoreError(f"{path}:{i}: not JSON ({exc}); the database was left unchanged") from exc
            rows.append(bar_from_json(obj, f"{path}:{i}"))
    return rows


def price_files(prices_dir: Path) -> Iterator[tuple[str, date, Path]]:
    """``(symbol, day, file)`` for every ``<SYMBOL>/<YYYY-MM-DD>.jsonl``; folder names may be %-encoded."""
    if not prices_dir.is_dir():
        return
    for folder in sorted(p for p in prices_dir.iterdir() if p.is_dir()):
        for path in sorted(folder.glob("*.jsonl")):
            try:
                day = date.fromisoformat(path.stem)
            except ValueError as exc:
                raise StoreError(f"{path}: a price cache file must be named YYYY-MM-DD.jsonl") from exc
            yield unquote(folder.name), day, path


def cached_days(prices_dir: Path) -> Iterator[CachedDay]:
    """Each day file with its bars and whether its ``<day>.complete`` marker exists."""
    for symbol, day, path in price_files(prices_dir):
        complete = path.with_suffix(".complete").exists()
        yield CachedDay(symbol, day, read_price_file(path), complete)


# ---------------------------------------------------------------------------- rebuild
Progress = Callable[[str, int, int], None]
T = TypeVar("T")


def rebuild(url: str, data_dir: str | os.PathLike[str], *, progress: Progress | None = None) -> RebuildReport:
    """Verify every book, then replace the whole index from ``DATA/books`` and ``DATA/prices``.

    ``progress(step, done, total)`` is told before each book is verified, each book is indexed and each
    price-cache day is read (the CLI's progress bar); the steps are counted first, so the total is known.
    """
    data = Path(data_dir)
    books = sorted((data / "books").glob("*.jsonl"))
    if not books and not (data / "prices").is_dir():
        raise StoreError(
            f"{data} has neither books/*.jsonl nor prices/: nothing to rebuild from",
            fix="pass the data folder with --data (or LEAGUE_DATA)",
        )
    tell = _Steps(progress, 2 * len(books) + sum(1 for _ in price_files(data / "prices")))
    for path in books:
        tell(f"verify {book_name(path)}")
        check_book(path)
    store = open_store(url)
    try:
        indexed, bars = store.replace_all(
            tell.each([(book_name(p), iter_lines(p)) for p in books], lambda b: f"index {b[0]}"),
            tell.each(cached_days(data / "prices"), lambda d: f"prices {d.symbol} {d.day.isoformat()}"),
        )
        tell.finish()
        return RebuildReport(books=indexed, bars=bars, counts=store.counts())
    finally:
        store.close()


class _Steps:
    """Counts the rebuild's steps for an optional progress callback (a no-op without one)."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self.progress, self.total, self.done = progress, total, 0

    def __call__(self, name: str) -> None:
        if self.progress is not None:
            self.progress(name, self.done, self.total)
        self.done += 1

    def each(self, items: Iterable[T], name: Callable[[T], str]) -> Iterator[T]:
        """``items`` as they are consumed, each one step (lazy: the store pulls them inside its transaction)."""
        for item in items:
            self(name(item))
            yield item

    def finish(self) -> None:
        if self.progress is not None:
            self.progress("done", self.total, self.total)
