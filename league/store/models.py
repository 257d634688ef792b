"""The database tables: an index of the books plus the league's operational state.

Everything derived from a sealed line (``book_lines``, ``runs``, ``asks``, ``cells``, ``score_markets``,
``scores``, ``accounts``, ``trades``) and the price cache (``price_bars``) can be rebuilt by
``league rebuild``. ``job_runs`` and ``stamps`` are operational records that exist nowhere else, so a
rebuild keeps them (wiping ``job_runs`` would let the scheduler run a finished job twice); so is
``book_checkpoints`` (how far each book file was last fully verified).

Only portable column types are used (JSON is stored as text, times as naive UTC through
:class:`UtcDateTime`) so SQLite and PostgreSQL return the same values. The Alembic migration under
``migrations/versions`` creates exactly these tables; a test compares the two.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import BigInteger, Boolean, Date, Float, Index, Integer, MetaData, String, Text, UniqueConstraint
from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel

from league.store.types import UtcDateTime

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "pk": "pk_%(table_name)s",
}
store_registry = registry(metadata=MetaData(naming_convention=NAMING))


class StoreTable(SQLModel, registry=store_registry):
    """Base of the store's tables: a private metadata, so other SQLModel users never leak in."""


# Tables whose every row is derived from the books or the price cache (wiped by a rebuild).
DERIVED_TABLES = (
    "book_lines", "runs", "asks", "cells", "score_markets", "scores", "accounts", "trades", "price_bars",
    "price_days",
)


class BookLineRow(StoreTable, table=True):
    """One sealed line of any book and any kind, with its content as JSON text."""

    __tablename__ = "book_lines"
    # The jobs ask for one kind of one session; without this index (and planner statistics) SQLite walks
    # the whole book by its primary key to keep the `ORDER BY n` (85 ms a query at 2 years × 14 seats).
    __table_args__ = (Index("ix_book_lines_book_kind_session", "book", "kind", "session"),)

    book: str = Field(primary_key=True, sa_type=String(64))
    n: int = Field(primary_key=True, sa_type=Integer)
    kind: str = Field(index=True, sa_type=String(64))
    at: datetime | None = Field(default=None, sa_type=UtcDateTime)
    session: date | None = Field(default=None, index=True, sa_type=Date)
    run_id: str | None = Field(default=None, index=True, sa_type=String(128))
    seat: str | None = Field(default=None, index=True, sa_type=String(128))
    seal: str = Field(sa_type=String(64))
    link: str = Field(sa_type=String(64))
    body: str = Field(sa_type=Text)


class BookCheckpointRow(StoreTable, table=True):
    """The sealed startup checkpoint of a book (league.book.checkpoint): one row per book, replaced by
    each successful full verification. Operational, not derived: a rebuild keeps it (it describes the
    book file, which a rebuild does not touch)."""

    __tablename__ = "book_checkpoints"

    book: str = Field(primary_key=True, sa_type=String(64))
    lines: int = Field(sa_type=Integer)
    offset: int = Field(sa_type=BigInteger)
    prefix_sha256: str = Field(sa_type=String(64))
    last_link: str = Field(sa_type=String(64))
    taken_at: datetime = Field(sa_type=UtcDateTime)
    taken_by: str = Field(default="", sa_type=String(255))


class RunRow(StoreTable, table=True):
    """A ``run`` line: which session, its role in the counting rule and the hashes it fixes."""

    __tablename__ = "runs"
    __table_args__ = (UniqueConstraint("book", "line"),)

    id: int | None = Field(default=None, primary_key=True, sa_type=Integer)
    book: str = Field(sa_type=String(64))
    line: int = Field(sa_type=Integer)
    run_id: str = Field(index=True, sa_type=String(128))
    session: date | None = Field(default=None, index=True, sa_type=Date)
    role: str | None = Field(default=None, sa_type=String(64))
    ask_sha256: str | None = Field(default=None, sa_type=String(64))
    snapshot_sha256: str | None = Field(default=None, sa_type=String(64))
    at: datetime | None = Field(default=None, sa_type=UtcDateTime)


class AskRow(StoreTable, table=True):
    """One seat's ask hash from the outgoing-ask chain (sealed before the ask was sent)."""

    __tablename__ = "asks"
    __table_args__ = (UniqueConstraint("book", "line", "seat"),)

    id: int | None = Field(default=None, primary_key=True, sa_type=Integer)
    book: str = Field(sa_type=String(64))
    line: int = Field(sa_type=Integer)
    seat: str = Field(index=True, sa_type=String(128))
    run_id: str | None = Field(default=None, index=True, sa_type=String(128))
    session: date | None = Field(default=None, sa_type=Date)
    attempt: int | None = Field(default=None, sa_type=Integer)
    ask_sha256: str = Field(index=True, sa_type=String(64))
    at: datetime | None = Field(default=None, sa_type=UtcDateTime)


class CellRow(StoreTable, table=True):
    """One market × horizon cell of an ``answer`` line."""

    __tablename__ = "cells"
    __table_args__ = (UniqueConstraint("book", "line", "market", "horizon"),)

    id: int | None = Field(default=None, primary_key=True, sa_type=Integer)
    book: str = Field(sa_type=String(64))
    line: int = Field(sa_type=Integer)
    run_id: str | None = Field(default=None, index=True, sa_type=String(128))
    session: date | None = Field(default=None, index=True, sa_type=Date)
    seat: str = Field(index=True, sa_type=String(128))
    attempt: int | None = Field(default=None, sa_type=Integer)
    row_status: str | None = Field(default=None, sa_type=String(64))
    market: str = Field(sa_type=String(32))
    horizon: str = Field(sa_type=String(16))
    prob_up: float | None = Field(default=None, sa_type=Float)
    action: str | None = Field(default=None, sa_type=String(64))
    cell_status: str | None = Field(default=None, sa_type=String(32))
    body: str = Field(sa_type=Text)


class ScoreMarketRow(StoreTable, table=True):
    """One market's resolution inside a ``score``/``score_h`` line (reference, close, draw flag)."""

    __tablename__ = "score_markets"
    __table_args__ = (UniqueConstraint("book", "line", "idx"),)

    id: int | None = Field(default=None, primary_key=True, sa_type=Integer)
    book: str = Field(sa_type=String(64))
    line: int = Field(sa_type=Integer)
    idx: int = Field(sa_type=Integer)
    kind: str = Field(sa_type=String(16))
    session: date | None = Field(default=None, index=True, sa_type=Date)
    market: str = Field(sa_type=String(32))
    horizon: str = Field(sa_type=String(16))
    reference: float | None = Field(default=None, sa_type=Float)
    close: float | None = Field(default=None, sa_type=Float)
    change_pct: float | None = Field(default=None, sa_type=Float)
    draw: bool | None = Field(default=None, sa_type=Boolean)
    up: bool | None = Field(default=None, sa_type=Boolean)
    late_ref: str | None = Field(default=None, sa_type=Text)


class ScoreRow(StoreTable, table=True):
    """One seat's scored forecast inside a ``score``/``score_h`` line."""

    __tablename__ = "scores"
    __table_args__ = (UniqueConstraint("book", "line", "idx"),)

    id: int | None = Field(default=None, primary_key=True, sa_type=Integer)
    book: str = Field(sa_type=String(64))
    line: int = Field(sa_type=Integer)
    idx: int = Field(sa_type=Integer)
    kind: str = Field(sa_type=String(16))
    session: date | None = Field(default=None, index=True, sa_type=Date)
    seat: str = Field(index=True, sa_type=String(128))
    market: str = Field(sa_type=String(32))
    horizon: str = Field(sa_type=String(16))
    prob: float | None = Field(default=None, sa_type=Float)
    outcome: int | None = Field(default=None, sa_type=Integer)
    brier: float | None = Field(default=None, sa_type=Float)
    status: str | None = Field(default=None, sa_type=String(32))
    answer_line: int | None = Field(default=None, sa_type=Integer)


class PriceBarRow(StoreTable, table=True):
    """A cached 1-minute bar; ``start`` is the bar's start in UTC."""

    __tablename__ = "price_bars"

    symbol: str = Field(primary_key=True, sa_type=String(32))
    start: datetime = Field(primary_key=True, sa_type=UtcDateTime)
    open: float = Field(sa_type=Float)
    high: float = Field(sa_type=Float)
    low: float = Field(sa_type=Float)
    close: float = Field(sa_type=Float)
    volume: float = Field(sa_type=Float)


class PriceDayRow(StoreTable, table=True):
    """Which (symbol, UTC day) is cached and whether the fetch happened after the day was over.

    Mirrors the folder cache's ``<day>.complete`` marker: only a complete day may be served from the
    cache in place of the provider, so a partial day is never presented as the whole day.
    """

    __tablename__ = "price_days"

    symbol: str = Field(primary_key=True, sa_type=String(32))
    day: date = Field(primary_key=True, sa_type=Date)
    bars: int = Field(sa_type=Integer)
    complete: bool = Field(sa_type=Boolean)


class JobRunRow(StoreTable, table=True):
    """Scheduler bookkeeping: one row per (session, job) so every job runs once per session."""

    __tablename__ = "job_runs"

    session: date = Field(primary_key=True, sa_type=Date)
    job: str = Field(primary_key=True, sa_type=String(64))
    status: str = Field(sa_type=String(16))
    started_at: datetime = Field(sa_type=UtcDateTime)
    finished_at: datetime | None = Field(default=None, sa_type=UtcDateTime)
    detail: str = Field(default="", sa_type=Text)
    owner: str = Field(default="", sa_type=String(255))
    attempts: int = Field(default=1, sa_type=Integer)


class StampRow(StoreTable, table=True):
    """One stamp of a stamped list by one backend (OpenTimestamps, an RFC 3161 authority, a log)."""

    __tablename__ = "stamps"

    id: int | None = Field(default=None, primary_key=True, sa_type=Integer)
    taken_at: datetime = Field(index=True, sa_type=UtcDateTime)
    list_sha256: str = Field(index=True, sa_type=String(64))
    backend: str = Field(sa_type=String(64))
    status: str = Field(sa_type=String(32))
    trust_level: str = Field(sa_type=String(8))
    detail: str = Field(default="", sa_type=Text)


class AccountRow(StoreTable, table=True):
    """A portfolio account state (generic: the body is the sealed line's content)."""

    __tablename__ = "accounts"

    id: int | None = Field(default=None, primary_key=True, sa_type=Integer)
    account: str = Field(index=True, sa_type=String(128))
    session: date | None = Field(default=None, index=True, sa_type=Date)
    book: str | None = Field(default=None, sa_type=String(64))
    line: int | None = Field(default=None, sa_type=Integer)
    body: str = Field(sa_type=Text)


class TradeRow(StoreTable, table=True):
    """A portfolio trade (generic: the body is the sealed line's content)."""

    __tablename__ = "trades"

    id: int | None = Field(default=None, primary_key=True, sa_type=Integer)
    account: str = Field(index=True, sa_type=String(128))
    session: date | None = Field(default=None, index=True, sa_type=Date)
    book: str | None = Field(default=None, sa_type=String(64))
    line: int | None = Field(default=None, sa_type=Integer)
    body: str = Field(sa_type=Text)


metadata = store_registry.metadata
