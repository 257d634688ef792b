"""Which store opens a database: the one registered for its URL's scheme (group ``forecast_league.stores``).

This project's SQLAlchemy store (league/store/sql.py) is registered for ``sqlite`` and ``postgresql``; the
PostgreSQL entry names the ``postgres`` extra, so a missing driver is one error with the install command.
A scheme nobody registered is refused with the registered ones named.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from league.registry import STORES
from league.store.engine import parse_url, redact
from league.store.interface import StoreError
from league.store.sql import SqlStore
from league_agents.plugins import PluginError

#: What the entry points of ``forecast_league.stores`` are: open (and, with ``migrate``, upgrade) the database.
StoreFactory = Callable[..., SqlStore]


def open_store(url: str, *, migrate: bool = True) -> SqlStore:
    """The database at ``url``, opened by the store registered for its scheme, its schema at head."""
    scheme = parse_url(url).get_backend_name()
    try:
        factory = STORES.load(scheme)
    except PluginError as exc:
        raise StoreError(f"database URL {redact(url)}: {exc.message}", fix=exc.fix) from None
    return cast(StoreFactory, factory)(url, migrate=migrate)
