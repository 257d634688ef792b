"""Storage contract fixtures (SQLite + PostgreSQL): see league/store/testing.py."""

from league.store.testing import pg_database, store, store_url  # noqa: F401
