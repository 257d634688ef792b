"""Alembic migrations of the store (run programmatically by :func:`league.store.migrate.upgrade`)."""
