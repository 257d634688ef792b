"""Engines and error translation: the only place driver exceptions become :class:`StoreError`.

A person reading an error should learn which database (URL without its password), what failed, and
what to do — e.g. that PostgreSQL is not running and how to start it — not a driver traceback.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import create_engine, event
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import (
    ArgumentError,
    DBAPIError,
    IntegrityError,
    NoSuchModuleError,
    OperationalError,
    SQLAlchemyError,
)
from sqlalchemy.pool import ConnectionPoolEntry

from league.store.interface import StoreError

SQLITE_BUSY_SECONDS = 30.0


def parse_url(url: str) -> URL:
    try:
        return make_url(url)
    except ArgumentError as exc:
        raise StoreError(
            f"database URL {url!r} is not a valid SQLAlchemy URL ({exc})",
            fix="use sqlite:///PATH/league.db or postgresql+psycopg://USER@HOST:5432/DBNAME",
        ) from exc


def redact(url: str | URL) -> str:
    """The URL as it may be shown to a person: the password replaced by ``***``."""
    try:
        parsed = url if isinstance(url, URL) else make_url(url)
    except ArgumentError:
        return "<unparseable database URL>"
    return parsed.render_as_string(hide_password=True)


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets WAL, a busy timeout and its parent folder created."""
    parsed = parse_url(url)
    try:
        if parsed.get_backend_name() == "sqlite":
            return _sqlite_engine(parsed)
        return create_engine(parsed, pool_pre_ping=True)
    except NoSuchModuleError as exc:
        raise StoreError(
            f"no database driver for {redact(parsed)} ({exc})",
            fix="for PostgreSQL install the extra: pip install 'forecast-league[postgres]' (psycopg 3)",
        ) from exc
    except (ArgumentError, ImportError) as exc:
        raise StoreError(f"cannot create a database engine for {redact(parsed)}: {exc}") from exc


def _sqlite_engine(parsed: URL) -> Engine:
    if parsed.database and parsed.database != ":memory:":
        folder = Path(parsed.database).expanduser().parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create the folder {folder} of the SQLite database {redact(parsed)}: {exc.strerror}",
                fix="point --db/LEAGUE_DB_URL (or --data) at a writable folder",
            ) from exc
    engine = create_engine(parsed, connect_args={"timeout": SQLITE_BUSY_SECONDS})
    event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
    """WAL lets readers (``league status``) run while the daemon writes; foreign keys stay on."""
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA busy_timeout={int(SQLITE_BUSY_SECONDS * 1000)}")
    finally:
        cursor.close()


def _unreachable(url: URL, exc: BaseException) -> StoreError:
    shown = redact(url)
    if url.get_backend_name() == "postgresql":
        return StoreError(
            f"cannot reach PostgreSQL at {shown}: {_first_line(exc)}",
            fix=(
                "start the server (`sudo systemctl start postgresql`, or `.ci/run` in a checkout), check "
                "that the database exists (`createdb NAME`) and that this user may log in; or drop "
                "--db/LEAGUE_DB_URL to use the SQLite file in the data folder"
            ),
        )
    return StoreError(
        f"cannot open the SQLite database {shown}: {_first_line(exc)}",
        fix="check that the folder exists and is writable, and that no other program holds the file locked",
    )


def _first_line(exc: BaseException) -> str:
    origin = getattr(exc, "orig", None) or exc
    text = str(origin).strip().splitlines()
    return text[0] if text else type(origin).__name__


@contextmanager
def translated(url: URL, action: str) -> Iterator[None]:
    """Run a block, turning every SQLAlchemy/driver error into a :class:`StoreError` that names ``action``."""
    try:
        yield
    except StoreError:
        raise
    except OperationalError as exc:
        if exc.connection_invalidated or _is_connect_error(exc):
            raise _unreachable(url, exc) from exc
        raise StoreError(f"database error while {action} on {redact(url)}: {_first_line(exc)}") from exc
    except IntegrityError as exc:
        raise StoreError(f"{action} on {redact(url)} would break a uniqueness rule: {_first_line(exc)}") from exc
    except (DBAPIError, SQLAlchemyError) as exc:
        raise StoreError(f"database error while {action} on {redact(url)}: {_first_line(exc)}") from exc


def _is_connect_error(exc: OperationalError) -> bool:
    text = str(exc.orig).lower() if exc.orig is not None else str(exc).lower()
    markers = ("connection refused", "could not connect", "connection failed", "unable to open database",
               "does not exist", "no such host", "timeout expired", "password authentication", "role ")
    return any(m in text for m in markers)
