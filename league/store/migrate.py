"""Schema migrations run from code: ``upgrade(url)`` brings any empty or older database to head.

The same Alembic scripts serve SQLite and PostgreSQL, so a production database and the demo's SQLite
file always have the same shape. The CLI never asks the operator to run ``alembic`` by hand.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection, Engine

MIGRATIONS = Path(__file__).with_name("migrations")


def alembic_config(connection: Connection | None = None) -> Config:
    """An in-memory Alembic config pointing at the packaged scripts."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:
        raise RuntimeError(f"no Alembic revisions under {MIGRATIONS}")
    return head


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade_engine(engine: Engine, revision: str = "head") -> None:
    """Upgrade through an engine's connection, in one transaction where the back end allows it."""
    with engine.begin() as conn:
        command.upgrade(alembic_config(conn), revision)


def downgrade_engine(engine: Engine, revision: str) -> None:
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), revision)
