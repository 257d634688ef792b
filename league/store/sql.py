"""The SQL implementation of the storage port (SQLModel over SQLite or PostgreSQL).

One class, two back ends: every statement used here means the same on both (upserts go through the
dialect's ``INSERT … ON CONFLICT``, which SQLite and PostgreSQL share), and every driver error leaves
as a :class:`StoreError` naming the database without its password.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

import msgspec
import structlog
from sqlalchemy import ColumnElement, RowMapping, Table, and_, delete, func, or_, select, update
from sqlalchemy import text as sql_text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Dialect, Engine, Row
from sqlmodel import Session

from league.book import BookLine
from league.book.checkpoint import Checkpoint
from league.errors import LeagueError
from league.jsonvalue import JsonObject
from league.prices.interface import Bar
from league.store.derive import SessionLookup, as_date, derive
from league.store.engine import make_engine, parse_url, redact, translated
from league.store.interface import (
    AnswerSummary,
    BarLike,
    BarRow,
    CachedDay,
    JobRun,
    RunSummary,
    Stamp,
    StoreError,
)
from league.store.migrate import current_revision, head_revision, upgrade_engine
from league.store.models import (
    DERIVED_TABLES,
    StampRow,
    metadata,
)

log = structlog.get_logger(__name__)

DEFAULT_STALE_AFTER = timedelta(hours=6)
INSERT_BATCH = 5000
ANALYZE_AFTER = 5000  # lines indexed in one call after which the planner's statistics are refreshed


def this_owner() -> str:
    """Who holds a claimed job: host and process id, so a crashed holder can be recognised."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _owner_alive(owner: str) -> bool:
    """False only when the owner ran on this host and its process is gone (a crash)."""
    host, _, pid_text = owner.rpartition(":")
    if host != socket.gethostname() or not pid_text.isdigit():
        return True
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class SqlStore:
    """The database behind the league; create with :func:`open_store` (which migrates to head)."""

    def __init__(self, url: str, engine: Engine | None = None) -> None:
        self.url = url
        self._parsed = parse_url(url)
        self.engine = engine or make_engine(url)

    # ------------------------------------------------------------------ plumbing
    @contextmanager
    def _tx(self, action: str) -> Iterator[Connection]:
        with translated(self._parsed, action), self.engine.begin() as conn:
            yield conn

    @contextmanager
    def _session(self, action: str) -> Iterator[Session]:
        with translated(self._parsed, action), Session(self.engine) as session:
            yield session
            session.commit()

    def describe(self) -> str:
        return redact(self._parsed)

    def upgrade(self) -> None:
        with translated(self._parsed, "migrating the schema"):
            upgrade_engine(self.engine)

    def revision(self) -> str | None:
        with translated(self._parsed, "reading the schema revision"):
            return current_revision(self.engine)

    def close(self) -> None:
        self.engine.dispose()

    # ------------------------------------------------------------------ book index
    def last_indexed(self, book: str) -> tuple[int, str]:
        """``(n, link)`` of the highest indexed line of ``book``; ``(0, "")`` when none."""
        bl = metadata.tables["book_lines"]
        stmt = select(bl.c.n, bl.c.link).where(bl.c.book == book).order_by(bl.c.n.desc()).limit(1)
        with self._tx(f"reading the index of {book}") as conn:
            row = conn.execute(stmt).first()
        return (int(row[0]), str(row[1])) if row else (0, "")

    def index_lines(self, book: str, lines: Iterable[BookLine]) -> int:
        """Index lines (in order, after the last indexed one) in one transaction; returns how many. After a
        bulk index (a rebuild, a catch-up, a generated league) the planner's statistics are refreshed:
        without them SQLite reads a session's lines of one kind by walking the whole book."""
        with self._tx(f"indexing book {book}") as conn:
            added = self._index_into(conn, book, lines)
        if added >= ANALYZE_AFTER:
            self.analyze()
        return added

    def analyze(self) -> None:
        """Refresh the query planner's statistics (``ANALYZE``: SQLite's sqlite_stat1, PostgreSQL's
        pg_statistic, which autovacuum also keeps)."""
        with self._tx("refreshing the planner's statistics") as conn:
            conn.execute(sql_text("ANALYZE"))

    def _index_into(self, conn: Connection, book: str, lines: Iterable[BookLine]) -> int:
        """Derive rows line by line and insert them per table with executemany, in batches."""
        count = 0
        known: dict[str, date | None] = {}
        lookup = self._session_lookup(conn, known)
        pending: dict[str, list[dict[str, object]]] = {}
        for line in lines:
            for table, values in derive(book, line, lookup):
                pending.setdefault(table, []).append(values)
                if table == "runs":
                    run_id, day = values["run_id"], values["session"]
                    if isinstance(run_id, str) and (day is None or isinstance(day, date)):  # as derive writes them
                        known[run_id] = day
            count += 1
            if sum(len(v) for v in pending.values()) >= INSERT_BATCH:
                _flush(conn, pending)
        _flush(conn, pending)
        return count

    # ------------------------------------------------------------------ book lines read back
    def book_lines(self, book: str, *, kind: str | None = None, session: str | None = None,
                   run_ids: Iterable[str] | None = None, seat: str | None = None, n: int | None = None
                   ) -> list[JsonObject]:
        """Indexed lines of ``book`` matching every filter given, in book order, as the book index keeps
        them (content plus n, seal and link)."""
        bl = metadata.tables["book_lines"]
        where = [bl.c.book == book]
        if kind is not None:
            where.append(bl.c.kind == kind)
        if session is not None:
            day = as_date(session)
            if day is None:
                return []
            where.append(bl.c.session == day)
        if run_ids is not None:
            where.append(bl.c.run_id.in_(sorted(set(run_ids))))
        if seat is not None:
            where.append(bl.c.seat == seat)
        if n is not None:
            where.append(bl.c.n == n)
        stmt = select(bl.c.n, bl.c.seal, bl.c.link, bl.c.body).where(and_(*where)).order_by(bl.c.n)
        with self._tx(f"reading lines of {book}") as conn:
            return [_body(r) for r in conn.execute(stmt)]

    def book_window(self, book: str, *, cutoff: str, sticky: Iterable[str], upto: int) -> Iterator[JsonObject]:
        """Lines 1..``upto`` that a window from ``cutoff`` keeps in memory: sessions on or after it, lines
        without a session, and the sticky kinds; streamed in book order.

        Why kind by kind: one query over lines 1..``upto`` filtered by session walked the primary key over
        the whole book and read every row to test it (at 5 years × 100 seats 1.65 s of the daemon's start
        with the 9 GB file in the page cache, and all of it from disk on a cold one). The window's line
        numbers are found through the (book, kind, session) index, each kind's own range, and the lines are
        then read by number."""
        bl = metadata.tables["book_lines"]
        since, kept = date.fromisoformat(cutoff), frozenset(sticky)
        with self._tx(f"reading the window of {book}") as conn:
            numbers: set[int] = set()
            for kind in _kinds(conn, book):
                where = [bl.c.book == book, bl.c.kind == kind, bl.c.n <= upto]
                if kind not in kept:
                    where.append(or_(bl.c.session.is_(None), bl.c.session >= since))
                numbers.update(n for (n,) in conn.execute(select(bl.c.n).where(and_(*where))))
            ordered = sorted(numbers)
            for i in range(0, len(ordered), WINDOW_BATCH):
                chunk = ordered[i:i + WINDOW_BATCH]
                stmt = (select(bl.c.n, bl.c.seal, bl.c.link, bl.c.body)
                        .where(and_(bl.c.book == book, bl.c.n >= chunk[0], bl.c.n <= chunk[-1], bl.c.n.in_(chunk)))
                        .order_by(bl.c.n))
                for row in conn.execute(stmt):
                    yield _body(row)

    def book_sessions(self, book: str, kind: str, since: str | None = None) -> list[str]:
        """The sessions that have an indexed line of ``kind`` (from ``since`` on), sorted."""
        bl = metadata.tables["book_lines"]
        where = [bl.c.book == book, bl.c.kind == kind, bl.c.session.is_not(None)]
        if since is not None:
            where.append(bl.c.session >= date.fromisoformat(since))
        stmt = select(bl.c.session).where(and_(*where)).distinct()
        with self._tx(f"reading the sessions of {book}") as conn:
            return sorted(d.isoformat() for (d,) in conn.execute(stmt))

    def book_numbers(self, book: str) -> tuple[int, int]:
        """(how many lines of ``book`` are indexed, the highest n): equal when the index has no gap."""
        bl = metadata.tables["book_lines"]
        stmt = select(func.count(), func.coalesce(func.max(bl.c.n), 0)).where(bl.c.book == book)
        with self._tx(f"counting the index of {book}") as conn:
            count, top = conn.execute(stmt).one()
        return int(count), int(top)

    def book_missing(self, book: str) -> list[int]:
        """The line numbers below the highest indexed one that are not indexed (a failed index write)."""
        bl = metadata.tables["book_lines"]
        with self._tx(f"reading the index of {book}") as conn:
            have = [int(n) for (n,) in conn.execute(select(bl.c.n).where(bl.c.book == book).order_by(bl.c.n))]
        present = set(have)
        return [n for n in range(1, (have[-1] if have else 0) + 1) if n not in present]

    def line_link(self, book: str, n: int) -> str | None:
        """The indexed link of line ``n`` (``None`` when not indexed)."""
        bl = metadata.tables["book_lines"]
        with self._tx(f"reading line {n} of {book}") as conn:
            found = conn.execute(select(bl.c.link).where(and_(bl.c.book == book, bl.c.n == n))).scalar()
        return None if found is None else str(found)

    # ------------------------------------------------------------------ startup checkpoints
    def checkpoint(self, book: str) -> Checkpoint | None:
        table = metadata.tables["book_checkpoints"]
        with self._tx(f"reading the checkpoint of {book}") as conn:
            row = conn.execute(select(table).where(table.c.book == book)).mappings().first()
        return Checkpoint(**dict(row)) if row else None

    def save_checkpoint(self, cp: Checkpoint) -> None:
        """Replace the book's checkpoint (one row per book)."""
        table = metadata.tables["book_checkpoints"]
        with self._tx(f"saving the checkpoint of {cp.book}") as conn:
            conn.execute(delete(table).where(table.c.book == cp.book))
            conn.execute(table.insert().values(**cp.__dict__))

    def replace_all(self, books: Iterable[tuple[str, Iterable[BookLine]]], days: Iterable[CachedDay]
                    ) -> tuple[dict[str, int], dict[str, int]]:
        """Wipe the derived rows and index everything again, in ONE transaction (all or nothing)."""
        indexed: dict[str, int] = {}
        cached: dict[str, int] = {}
        with self._tx("rebuilding the index") as conn:
            self._wipe(conn)
            for name, lines in books:
                indexed[name] = self._index_into(conn, name, lines)
            for day in days:
                self._put_day(conn, day)
                cached[day.symbol] = cached.get(day.symbol, 0) + len(day.rows)
        return indexed, cached

    @staticmethod
    def _session_lookup(conn: Connection, known: dict[str, date | None]) -> SessionLookup:
        runs = metadata.tables["runs"]

        def lookup(run_id: str) -> date | None:
            if run_id not in known:
                stmt = select(runs.c.session).where(runs.c.run_id == run_id).order_by(runs.c.line).limit(1)
                known[run_id] = conn.execute(stmt).scalar()
            return known[run_id]

        return lookup

    def wipe_derived(self) -> None:
        """Delete every row that a rebuild re-derives (job_runs and stamps are kept)."""
        with self._tx("wiping the book index") as conn:
            self._wipe(conn)

    @staticmethod
    def _wipe(conn: Connection) -> None:
        for name in DERIVED_TABLES:
            conn.execute(delete(metadata.tables[name]))

    def counts(self) -> dict[str, int]:
        with self._tx("counting rows") as conn:
            return {
                name: int(conn.execute(select(func.count()).select_from(table)).scalar_one())
                for name, table in sorted(metadata.tables.items())
            }

    # ------------------------------------------------------------------ price cache
    def put_bars(self, symbol: str, bars: Iterable[BarLike]) -> int:
        """Insert or replace bars by (symbol, start); a re-fetched minute overwrites the cached one."""
        rows = [{"symbol": symbol, **_bar_row(symbol, b)} for b in bars]
        with self._tx(f"caching {len(rows)} bars of {symbol}") as conn:
            self._put_rows(conn, rows)
        return len(rows)

    def put_day(self, symbol: str, day: date, bars: Iterable[BarLike], *, complete: bool) -> int:
        """Replace one UTC day of bars and record whether the day was fetched complete."""
        rows = [_bar_row(symbol, b) for b in bars]
        with self._tx(f"caching {symbol} {day}") as conn:
            self._put_day(conn, CachedDay(symbol, day, rows, complete))
        return len(rows)

    def _put_day(self, conn: Connection, day: CachedDay) -> None:
        bars, days = metadata.tables["price_bars"], metadata.tables["price_days"]
        start = datetime.combine(day.day, time(0), tzinfo=UTC)
        outside = [r["start"] for r in day.rows if not start <= r["start"] < start + timedelta(days=1)]
        if outside:
            raise StoreError(f"bar of {day.symbol} starting {outside[0]} is not inside UTC day {day.day}")
        conn.execute(delete(bars).where(and_(bars.c.symbol == day.symbol, bars.c.start >= start,
                                             bars.c.start < start + timedelta(days=1))))
        self._put_rows(conn, [{"symbol": day.symbol, **r} for r in day.rows])
        conn.execute(delete(days).where(and_(days.c.symbol == day.symbol, days.c.day == day.day)))
        conn.execute(days.insert().values(symbol=day.symbol, day=day.day, bars=len(day.rows), complete=day.complete))

    def day_complete(self, symbol: str, day: date) -> bool:
        """True only when the day was cached by a fetch made after the day was over."""
        days = metadata.tables["price_days"]
        stmt = select(days.c.complete).where(and_(days.c.symbol == symbol, days.c.day == day))
        with self._tx(f"reading the cache state of {symbol} {day}") as conn:
            return bool(conn.execute(stmt).scalar())

    def _put_rows(self, conn: Connection, rows: list[dict[str, object]]) -> None:
        """executemany of one cached upsert statement (a multi-VALUES statement recompiles every batch)."""
        if rows:
            conn.execute(self._upsert_bars(), rows)

    def _upsert_bars(self) -> postgresql.Insert | sqlite.Insert:
        table = metadata.tables["price_bars"]
        stmt = postgresql.insert(table) if self.engine.dialect.name == "postgresql" else sqlite.insert(table)
        cols = ("open", "high", "low", "close", "volume")
        return stmt.on_conflict_do_update(
            index_elements=["symbol", "start"], set_={c: stmt.excluded[c] for c in cols}
        )

    def get_bars(self, symbol: str, start: datetime, end: datetime) -> list[Bar]:
        """Bars of ``symbol`` with ``start <= bar.start < end``, in time order."""
        table = metadata.tables["price_bars"]
        stmt = (
            select(table).where(and_(table.c.symbol == symbol, table.c.start >= start, table.c.start < end))
            .order_by(table.c.start)
        )
        with self._tx(f"reading bars of {symbol}") as conn:
            found = conn.execute(stmt).mappings().all()
        bar = Bar
        return [bar(start=r["start"], open=r["open"], high=r["high"], low=r["low"], close=r["close"],
                    volume=r["volume"]) for r in found]

    # ------------------------------------------------------------------ scheduler bookkeeping
    def claim_job(self, session: date, job: str, now: datetime, *,
                  stale_after: timedelta = DEFAULT_STALE_AFTER) -> bool:
        """Atomically take (session, job); False when it is done or running elsewhere.

        A ``failed`` job, or a ``started`` one whose holder crashed (its process is gone on this host,
        or it started longer than ``stale_after`` ago), may be claimed again.
        """
        owner = this_owner()
        table = metadata.tables["job_runs"]
        with self._tx(f"claiming job {job} of {session}") as conn:
            if self._insert_claim(conn, session, job, now, owner):
                return True
            row = conn.execute(select(table).where(_job_key(table, session, job))).mappings().one()
            if not _reclaimable(row, now, stale_after):
                return False
            stmt = update(table).where(
                _job_key(table, session, job), table.c.status == row["status"], table.c.attempts == row["attempts"]
            ).values(status="started", started_at=now, finished_at=None, detail="", owner=owner,
                     attempts=row["attempts"] + 1).returning(table.c.job)
            claimed = conn.execute(stmt).first() is not None
        if claimed:
            log.info("store.job_reclaimed", session=str(session), job=job, was=row["status"], owner=row["owner"])
        return claimed

    def _insert_claim(self, conn: Connection, session: date, job: str, now: datetime, owner: str) -> bool:
        """INSERT … ON CONFLICT DO NOTHING RETURNING: the first statement takes the write lock on SQLite.

        RETURNING, not ``rowcount``: psycopg reports -1 for a compiled INSERT … ON CONFLICT.
        """
        table = metadata.tables["job_runs"]
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite
        stmt = dialect.insert(table).values(
            session=session, job=job, status="started", started_at=now, finished_at=None, detail="",
            owner=owner, attempts=1,
        ).on_conflict_do_nothing(index_elements=["session", "job"]).returning(table.c.job)
        return conn.execute(stmt).first() is not None

    def finish_job(self, session: date, job: str, status: str, detail: str, now: datetime) -> None:
        """Mark a claimed job ``done`` or ``failed``; finishing a job that is not running is an error."""
        if status not in ("done", "failed"):
            raise StoreError(f"finish_job status must be 'done' or 'failed', not {status!r}")
        table = metadata.tables["job_runs"]
        stmt = update(table).where(_job_key(table, session, job), table.c.status == "started").values(
            status=status, finished_at=now, detail=detail
        ).returning(table.c.job)
        with self._tx(f"finishing job {job} of {session}") as conn:
            if conn.execute(stmt).first() is None:
                raise StoreError(
                    f"job {job} of session {session} is not running, so it cannot be finished as {status}",
                    fix="claim the job with claim_job() before running it",
                )

    def job_history(self, *, session: date | None = None, limit: int = 50) -> list[JobRun]:
        table = metadata.tables["job_runs"]
        stmt = select(table).order_by(table.c.started_at.desc(), table.c.job).limit(limit)
        if session is not None:
            stmt = stmt.where(table.c.session == session)
        with self._tx("reading job history") as conn:
            return [JobRun(**dict(r)) for r in conn.execute(stmt).mappings()]

    # ------------------------------------------------------------------ stamps
    def record_stamp(self, stamp: Stamp) -> None:
        with self._session("recording a stamp") as session:
            session.add(StampRow(**stamp.__dict__))

    def stamps(self, *, list_sha256: str | None = None) -> list[Stamp]:
        table = metadata.tables["stamps"]
        stmt = select(table).order_by(table.c.taken_at, table.c.id)
        if list_sha256 is not None:
            stmt = stmt.where(table.c.list_sha256 == list_sha256)
        with self._tx("reading stamps") as conn:
            return [Stamp(**{k: v for k, v in r.items() if k != "id"}) for r in conn.execute(stmt).mappings()]

    # ------------------------------------------------------------------ status queries
    def last_runs(self, *, limit: int = 10) -> list[RunSummary]:
        """The last ``run`` line of each session (highest line), newest session first."""
        runs = metadata.tables["runs"]
        latest = select(runs.c.session, func.max(runs.c.id).label("id")).group_by(runs.c.session).subquery()
        stmt = (select(runs).join(latest, runs.c.id == latest.c.id)
                .order_by(runs.c.session.desc().nulls_last(), runs.c.id.desc()).limit(limit))
        with self._tx("reading the last runs") as conn:
            return [RunSummary(session=r["session"], run_id=r["run_id"], role=r["role"], ask_sha256=r["ask_sha256"],
                               snapshot_sha256=r["snapshot_sha256"], book=r["book"], line=r["line"], at=r["at"])
                    for r in conn.execute(stmt).mappings()]

    def last_answers(self) -> list[AnswerSummary]:
        """Each seat's most recent ``answer`` line (by book position), seats in name order."""
        bl = metadata.tables["book_lines"]
        answers = and_(bl.c.kind == "answer", bl.c.seat.is_not(None))
        latest = (select(bl.c.seat, bl.c.book, func.max(bl.c.n).label("n")).where(answers)
                  .group_by(bl.c.seat, bl.c.book).subquery())
        stmt = (select(bl).join(latest, and_(bl.c.book == latest.c.book, bl.c.n == latest.c.n))
                .order_by(bl.c.seat, bl.c.at.desc(), bl.c.n.desc()))
        with self._tx("reading the last answers") as conn:
            rows = list(conn.execute(stmt).mappings())
            cells = self._cell_counts(conn, [(r["book"], r["n"]) for r in rows])
        best: dict[str, AnswerSummary] = {}
        for r in rows:
            best.setdefault(r["seat"], _answer_summary(r, cells.get((r["book"], r["n"]), 0)))
        return list(best.values())

    @staticmethod
    def _cell_counts(conn: Connection, keys: list[tuple[str, int]]) -> dict[tuple[str, int], int]:
        if not keys:
            return {}
        cells = metadata.tables["cells"]
        lines = sorted({n for _, n in keys})
        stmt = (select(cells.c.book, cells.c.line, func.count()).where(cells.c.line.in_(lines))
                .group_by(cells.c.book, cells.c.line))
        return {(b, n): int(c) for b, n, c in conn.execute(stmt)}


def _flush(conn: Connection, pending: dict[str, list[dict[str, object]]]) -> None:
    for table, rows in pending.items():
        if rows:
            _insert_many(conn, metadata.tables[table], rows)
    pending.clear()


InsertPlan = tuple[str, tuple[str, ...], tuple[Any, ...]]
#: SQLite inserts by (table, column keys): the SQL SQLAlchemy compiles for them, its parameter order and
#: each parameter's bind processor (None when the value goes to the driver as it is).
_SQLITE_INSERTS: dict[tuple[str, tuple[str, ...]], InsertPlan | None] = {}


def _insert_many(conn: Connection, table: Table, rows: list[dict[str, object]]) -> None:
    """``conn.execute(table.insert(), rows)``. On SQLite, when every row has the same keys, the rows go to
    the driver's ``executemany`` directly, with SQLAlchemy's own compiled statement and bind processors (its
    generic per-row parameter building was about half the time of indexing a line); anything else, and
    every other database, takes SQLAlchemy's path."""
    keys = tuple(rows[0])
    plan = _sqlite_insert(conn, table, keys) if conn.dialect.name == "sqlite" else None
    if plan is None or any(tuple(row) != keys for row in rows):
        conn.execute(table.insert(), rows)
        return
    sql, names, processors = plan
    params = [tuple(value if fn is None else fn(value) for fn, value in zip(processors, [row[k] for k in names],
                                                                           strict=True)) for row in rows]
    conn.exec_driver_sql(sql, params)


def _sqlite_insert(conn: Connection, table: Table, keys: tuple[str, ...]) -> InsertPlan | None:
    """The compiled insert of ``keys`` into ``table``, when its parameters are exactly those keys (no column
    default of SQLAlchemy's own to fill in, which its path would compute per row); else None."""
    cache_key = (table.name, keys)
    if cache_key not in _SQLITE_INSERTS:
        compiled: Any = table.insert().compile(dialect=conn.dialect, column_keys=list(keys))
        names = tuple(compiled.positiontup or ())
        plan = None
        if sorted(names) == sorted(keys) and compiled.positional:
            plan = (compiled.string, names, tuple(_bind_processor(table, name, conn.dialect) for name in names))
        _SQLITE_INSERTS[cache_key] = plan
    return _SQLITE_INSERTS[cache_key]


def _bind_processor(table: Table, name: str, dialect: Dialect) -> object:
    """What SQLAlchemy applies to a value of column ``name`` before the driver sees it on ``dialect`` (its
    public per-type API: the dialect's implementation of the column's type, and its bind processor; None when
    the value goes to the driver as it is)."""
    column_type = table.c[name].type
    return column_type.dialect_impl(dialect).bind_processor(dialect)


#: Lines read a query at a time by :meth:`SqlStore.book_window` (a bound parameter each).
WINDOW_BATCH = 900


def _kinds(conn: Connection, book: str) -> list[str]:
    """The kinds of ``book``'s indexed lines, one index seek each (the next kind after the last one found):
    a DISTINCT would visit every line's index entry."""
    bl = metadata.tables["book_lines"]
    kinds: list[str] = []
    while True:
        stmt = select(func.min(bl.c.kind)).where(bl.c.book == book)
        if kinds:
            stmt = stmt.where(bl.c.kind > kinds[-1])
        kind = conn.execute(stmt).scalar()
        if kind is None:
            return kinds
        kinds.append(str(kind))


def decode_body(text: str) -> JsonObject:
    """A stored body as the JSON object it is. msgspec's decoder first (the daemon's start decodes the whole
    memory window: 184,000 bodies at 5 years × 100 seats, where ``json.loads`` was a third of the start's CPU),
    then ``json.loads`` for what msgspec refuses and the standard library accepts (a lone surrogate escape, a
    float beyond the double range), so every body decodes to the same values as before."""
    try:
        decoded = msgspec.json.decode(text)
    except msgspec.DecodeError:
        decoded = json.loads(text)
    if not isinstance(decoded, dict):
        raise StoreError(f"a stored body is not a JSON object: {text[:80]!r}", fix="run `league rebuild`")
    return decoded


def _body(row: Row[int, str, str, str]) -> JsonObject:
    body = decode_body(row.body)
    body.update(n=int(row.n), seal=str(row.seal), link=str(row.link))
    return body


def _job_key(table: Table, session: date, job: str) -> ColumnElement[bool]:
    return and_(table.c.session == session, table.c.job == job)


def _reclaimable(row: RowMapping, now: datetime, stale_after: timedelta) -> bool:
    if row["status"] == "failed":
        return True
    if row["status"] != "started":
        return False
    return not _owner_alive(row["owner"]) or row["started_at"] <= now - stale_after


def make_bar(where: str, start: datetime, o: float, h: float, low: float, c: float, v: float) -> Bar:
    """A validated bar of the prices package's class; a bad bar becomes a :class:`StoreError`."""
    if start.tzinfo is None or start.utcoffset() is None:
        raise StoreError(f"{where}: bar start {start!r} is naive; bars must be timezone-aware")
    try:
        return Bar(start=start, open=float(o), high=float(h), low=float(low), close=float(c),
                            volume=float(v))
    except (LeagueError, ValueError, TypeError) as exc:
        raise StoreError(f"{where}: not a valid bar ({getattr(exc, 'message', exc)})") from exc


def _bar_row(symbol: str, bar: BarLike) -> BarRow:
    """A bar's price_bars columns but its symbol (which the caller puts first), validated as a bar."""
    b = make_bar(f"bar of {symbol}", bar.start, bar.open, bar.high, bar.low, bar.close, bar.volume)
    return {"start": b.start, "open": b.open, "high": b.high, "low": b.low,
            "close": b.close, "volume": b.volume}


def _answer_summary(r: RowMapping, cells: int) -> AnswerSummary:
    body = decode_body(r["body"])

    def text(key: str) -> str | None:
        value = body.get(key)
        return value if isinstance(value, str) else None

    attempt = body.get("attempt")
    return AnswerSummary(
        seat=r["seat"], run_id=r["run_id"], session=r["session"], book=r["book"], line=r["n"], at=r["at"],
        booked_at=text("booked_at"), model=text("model"), version=text("version"), status=text("status"),
        attempt=attempt if isinstance(attempt, int) and not isinstance(attempt, bool) else None, cells=cells,
    )


def open_store(url: str, *, migrate: bool = True) -> SqlStore:
    """Open the database at ``url`` and bring its schema to head (the normal way in)."""
    store = SqlStore(url)
    if migrate:
        try:
            store.upgrade()
        except BaseException:
            store.close()
            raise
        log.debug("store.opened", url=store.describe(), revision=head_revision())
    return store

