"""Storage: the database index of the books plus the league's operational state.

Call :func:`open_store` with a URL (``sqlite:///…`` by default, ``postgresql+psycopg://…`` in
production); it opens the store registered for the URL's scheme (entry-point group
``forecast_league.stores``: this project's SQLAlchemy store serves ``sqlite`` and ``postgresql``) and
migrates the schema to head. :func:`rebuild` re-derives the index from the books and the price cache;
:func:`index_book` adds only new lines. Other code depends on :class:`Store` and :class:`StoreError` only.
"""

from __future__ import annotations

from league.store.bar_cache import DbBarCache
from league.store.dispatch import open_store
from league.store.interface import (
    AnswerSummary,
    BarLike,
    CachedBar,
    JobRun,
    RunSummary,
    Stamp,
    Store,
    StoreError,
)
from league.store.rebuild import RebuildReport, default_url, index_book, rebuild
from league.store.sql import SqlStore


def upgrade(url: str) -> None:
    """Bring the database at ``url`` to the newest schema (SQLite and PostgreSQL alike)."""
    store = open_store(url)
    store.close()


__all__ = [
    "AnswerSummary", "BarLike", "CachedBar", "DbBarCache", "JobRun", "RebuildReport", "RunSummary", "SqlStore", "Stamp",
    "Store", "StoreError", "default_url", "index_book", "open_store", "rebuild", "upgrade",
]
