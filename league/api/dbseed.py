"""Opening the API's book index from the database index instead of parsing every line.

The API's index (league.api.bookindex) needs, per line, its byte offset, kind and run id, the session
of each run line, and the embargo's state (scored sessions, sessions holding content, the replies still
withheld). Parsing every line of a year's book for that took longer than anything the API then serves.
The daemon keeps every sealed line in the database's ``book_lines`` table (league.book.startup), so
the API reads those few columns from there and only finds the line ends in the file (a byte scan, no
JSON). The database is trusted only when it describes this very book: every line up to its highest
indexed one present (no gap), and the book's line at that number carrying the link the database holds
(a link chains every line before it). Otherwise, or without a database, nothing is seeded and the index
reads the whole book as before. Lines the database does not hold yet are read from the file by the
index's next refresh, as before. Nothing is written: the database is opened without migrating.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

import structlog

from league.api.bookindex import BookIndex
from league.api.embargo import EMBARGOED_KINDS, SCORE_KIND, Embargo
from league.config import load_league_settings
from league.extras import extra
from league.jsonvalue import JsonObject

if TYPE_CHECKING:  # the database is an extra: only its type is named here
    from league.store.sql import SqlStore

#: The content of the lines of the given numbers, as the database holds them.
Bodies = Callable[[Iterable[int]], Mapping[int, JsonObject]]

log = structlog.get_logger(__name__)

BOOK_NAME = "council-book"
SCAN_CHUNK = 1 << 23
CORRECTION = "correction"


def database_url(book: Path, explicit: str | None = None) -> str | None:
    """The database to seed from: ``explicit``, else the one the league's config beside the data folder
    names, else ``DATA/league.db`` when that file exists; ``None`` for a book outside a league's data folder."""
    if explicit:
        return explicit
    if book.parent.name != "books":
        return None  # a published copy served on its own: no database describes it
    data = book.parent.parent
    config = data.parent / "config" / "league.toml"
    if config.is_file():
        try:
            url = load_league_settings(config).database.url
        except Exception as exc:  # noqa: BLE001 - any config problem only means: read the book instead
            log.warning("api.seed_config_unreadable", config=str(config), error=str(exc))
            url = ""
        if url:
            return str(url)
    sqlite = data / "league.db"
    return f"sqlite:///{sqlite}" if sqlite.is_file() else None


def seed_from_database(book: BookIndex, embargo: Embargo, url: str) -> int:
    """Seed ``book`` and ``embargo`` with the lines the database at ``url`` holds; returns how many (0:
    nothing seeded, the index reads the book as before)."""
    try:
        return _seed(book, embargo, url)
    except Exception as exc:  # noqa: BLE001 - a database that cannot be read is a slower start, not a failure
        log.warning("api.seed_failed", url=_shown(url), error=str(exc),
                    fix="the API read the whole book instead; check the database URL (--db)")
        return 0


def _seed(book: BookIndex, embargo: Embargo, url: str) -> int:
    with extra("daemon"):  # the database only when the folder has one: a published folder is served without
        from league.store import open_store
    store = open_store(url, migrate=False)
    try:
        count, top = store.book_numbers(BOOK_NAME)
        if top == 0 or count != top:
            return _skip(url, f"the database holds {count} lines of {BOOK_NAME} up to line {top}")
        scanned = line_offsets(book.path, top)
        if scanned is None:
            return _skip(url, f"the book has fewer than the database's {top} lines")
        offsets, end = scanned
        if _link_at(book.path, offsets[-1], end) != store.line_link(BOOK_NAME, top):
            return _skip(url, f"line {top} of the book does not carry the database's link (another book)")
        rows = _columns(store, top)
        seed = _Seed.of(rows, lambda ns: _bodies(store, ns))
    finally:
        store.close()
    book.seed(offsets, end, seed.kinds, seed.run_ids, seed.run_sessions)
    embargo.seed(top, seed.run_sessions, seed.scored, seed.content, seed.withheld)
    log.info("api.seeded_from_database", lines=top, url=_shown(url))
    return top


def _skip(url: str, why: str) -> int:
    log.warning("api.seed_skipped", url=_shown(url), reason=why, fix="the API read the whole book instead")
    return 0


def _shown(url: str) -> str:
    with extra("daemon"):
        from league.store.engine import redact
    return redact(url)


def line_offsets(path: Path, count: int) -> tuple[list[int], int] | None:
    """The byte offsets of lines 1..``count`` and where line ``count`` ends (after its LF); ``None`` when
    the file has fewer complete lines. A scan for LF bytes in blocks: no line is parsed."""
    offsets: list[int] = []
    start = 0  # where the next line starts
    base = 0  # the file offset of ``chunk``
    with open(path, "rb") as fh:
        while len(offsets) < count:
            chunk = fh.read(SCAN_CHUNK)
            if not chunk:
                return None
            pos = chunk.find(b"\n")
            while pos >= 0 and len(offsets) < count:
                offsets.append(start)
                start = base + pos + 1
                pos = chunk.find(b"\n", pos + 1)
            base += len(chunk)
    return offsets, start


def _link_at(path: Path, offset: int, end: int) -> str | None:
    with open(path, "rb") as fh:
        fh.seek(offset)
        raw = fh.read(end - offset)
    try:
        line = json.loads(raw)
    except ValueError:
        return None
    link = line.get("link") if isinstance(line, dict) else None
    return str(link) if link is not None else None


def _columns(store: SqlStore, top: int) -> list[tuple[int, str, str | None, date | None]]:
    """(n, kind, run_id, session) of lines 1..``top``, in book order."""
    with extra("daemon"):
        from sqlalchemy import and_, select

        from league.store.models import metadata
    bl = metadata.tables["book_lines"]
    stmt = (select(bl.c.n, bl.c.kind, bl.c.run_id, bl.c.session)
            .where(and_(bl.c.book == BOOK_NAME, bl.c.n <= top)).order_by(bl.c.n))
    with store.engine.connect() as conn:
        return [(int(n), str(kind), run_id, session) for n, kind, run_id, session in conn.execute(stmt)]


def _bodies(store: SqlStore, numbers: Iterable[int]) -> dict[int, JsonObject]:
    """The content of the lines ``numbers`` (the few the embargo needs whole)."""
    wanted = sorted(set(numbers))
    if not wanted:
        return {}
    with extra("daemon"):
        from sqlalchemy import and_, select

        from league.store.models import metadata
    bl = metadata.tables["book_lines"]
    out: dict[int, JsonObject] = {}
    with store.engine.connect() as conn:
        for i in range(0, len(wanted), 500):
            stmt = select(bl.c.n, bl.c.body).where(and_(bl.c.book == BOOK_NAME, bl.c.n.in_(wanted[i:i + 500])))
            for n, body in conn.execute(stmt):
                out[int(n)] = json.loads(body)
    return out


@dataclass
class _Seed:
    """What the index and the embargo keep of the database's lines."""

    kinds: list[str] = field(default_factory=list)
    run_ids: list[str] = field(default_factory=list)
    run_sessions: dict[str, str] = field(default_factory=dict)
    scored: set[str] = field(default_factory=set)
    content: set[str] = field(default_factory=set)
    withheld: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, rows: list[tuple[int, str, str | None, date | None]], bodies: Bodies) -> _Seed:
        """Walk the rows in book order as :meth:`Embargo.refresh` walks lines; ``bodies(ns)`` fetches the
        content of the held-back lines of sessions not scored and of the corrections (whose target decides)."""
        seed, names = cls(), dict[str, str]()
        held: list[tuple[int, str]] = []
        corrections: list[tuple[int, str]] = []
        for _, kind, run_id, day in rows:
            kind = names.setdefault(kind, kind)
            rid = names.setdefault(run_id or "", run_id or "")
            seed.kinds.append(kind)
            seed.run_ids.append(rid)
            session = day.isoformat() if day is not None else ""
            if kind == "run" and rid:
                seed.run_sessions[rid] = session
                continue
            session = session or seed.run_sessions.get(rid, "")
            if kind == SCORE_KIND:
                seed.scored.add(session)
            elif kind in EMBARGOED_KINDS:
                seed.content.add(session)
                held.append((len(seed.kinds), session))
            elif kind == CORRECTION:
                corrections.append((len(seed.kinds), session))
        seed._bodies(held, corrections, bodies)
        return seed

    def _bodies(self, held: list[tuple[int, str]], corrections: list[tuple[int, str]], bodies: Bodies) -> None:
        pending = [(n, s) for n, s in held if s not in self.scored] + corrections
        found = bodies(n for n, _ in pending)
        correction_lines = {n for n, _ in corrections}
        for n, session in pending:
            line = found.get(n, {})
            if n in correction_lines and line.get("target") != "cell":
                continue
            self.content.add(session)
            if line.get("own_sha256"):
                self.withheld.add(f"{session}:{line['own_sha256']}")
