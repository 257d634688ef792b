"""One index for a session's lines of one kind, and the planner's statistics.

The jobs read "the score_h lines of session D"; with only single-column indexes and no statistics, SQLite
keeps the ``ORDER BY n`` by walking the whole book through its primary key (85 ms a query at 2 years of
14 seats, growing with the book). ``ANALYZE`` fills sqlite_stat1 (PostgreSQL: pg_statistic) for the rows
already indexed; the store refreshes it after each bulk index.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_book_lines_book_kind_session", "book_lines", ["book", "kind", "session"], unique=False)
    op.execute("ANALYZE")


def downgrade() -> None:
    op.drop_index("ix_book_lines_book_kind_session", table_name="book_lines")
