"""The sealed startup checkpoint of each book: how far the book file was last fully verified.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "book_checkpoints",
        sa.Column("book", sa.String(length=64), nullable=False),
        sa.Column("lines", sa.Integer(), nullable=False),
        sa.Column("offset", sa.BigInteger(), nullable=False),
        sa.Column("prefix_sha256", sa.String(length=64), nullable=False),
        sa.Column("last_link", sa.String(length=64), nullable=False),
        sa.Column("taken_at", sa.DateTime(timezone=False), nullable=False),
        sa.Column("taken_by", sa.String(length=255), nullable=False),
        sa.PrimaryKeyConstraint("book", name=op.f("pk_book_checkpoints")),
    )


def downgrade() -> None:
    op.drop_table("book_checkpoints")
