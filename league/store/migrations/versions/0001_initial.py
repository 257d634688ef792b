"""Initial schema: the book index, the price cache and the operational tables.

Times are naive-UTC TIMESTAMP columns (league.store.types.UtcDateTime re-attaches UTC), JSON is TEXT:
the same shape on SQLite and PostgreSQL.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("account", sa.String(length=128), nullable=False),
        sa.Column("session", sa.Date(), nullable=True),
        sa.Column("book", sa.String(length=64), nullable=True),
        sa.Column("line", sa.Integer(), nullable=True),
        sa.Column("body", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_accounts")),
    )
    op.create_index(op.f("ix_accounts_account"), "accounts", ["account"], unique=False)
    op.create_index(op.f("ix_accounts_session"), "accounts", ["session"], unique=False)

    op.create_table(
        "asks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("book", sa.String(length=64), nullable=False),
        sa.Column("line", sa.Integer(), nullable=False),
        sa.Column("seat", sa.String(length=128), nullable=False),
        sa.Column("run_id", sa.String(length=128), nullable=True),
        sa.Column("session", sa.Date(), nullable=True),
        sa.Column("attempt", sa.Integer(), nullable=True),
        sa.Column("ask_sha256", sa.String(length=64), nullable=False),
        sa.Column("at", sa.DateTime(timezone=False), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_asks")),
        sa.UniqueConstraint("book", "line", "seat", name=op.f("uq_asks_book_line_seat")),
    )
    op.create_index(op.f("ix_asks_ask_sha256"), "asks", ["ask_sha256"], unique=False)
    op.create_index(op.f("ix_asks_run_id"), "asks", ["run_id"], unique=False)
    op.create_index(op.f("ix_asks_seat"), "asks", ["seat"], unique=False)

    op.create_table(
        "book_lines",
        sa.Column("book", sa.String(length=64), nullable=False),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=64), nullable=False),
        sa.Column("at", sa.DateTime(timezone=False), nullable=True),
        sa.Column("session", sa.Date(), nullable=True),
        sa.Column("run_id", sa.String(length=128), nullable=True),
        sa.Column("seat", sa.String(length=128), nullable=True),
        sa.Column("seal", sa.String(length=64), nullable=False),
        sa.Column("link", sa.String(length=64), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("book", "n", name=op.f("pk_book_lines")),
    )
    op.create_index(op.f("ix_book_lines_kind"), "book_lines", ["kind"], unique=False)
    op.create_index(op.f("ix_book_lines_run_id"), "book_lines", ["run_id"], unique=False)
    op.create_index(op.f("ix_book_lines_seat"), "book_lines", ["seat"], unique=False)
    op.create_index(op.f("ix_book_lines_session"), "book_lines", ["session"], unique=False)

    op.create_table(
        "cells",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("book", sa.String(length=64), nullable=False),
        sa.Column("line", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.String(length=128), nullable=True),
        sa.Column("session", sa.Date(), nullable=True),
        sa.Column("seat", sa.String(length=128), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=True),
        sa.Column("row_status", sa.String(length=64), nullable=True),
        sa.Column("market", sa.String(length=32), nullable=False),
        sa.Column("horizon", sa.String(length=16), nullable=False),
        sa.Column("prob_up", sa.Float(), nullable=True),
        sa.Column("action", sa.String(length=64), nullable=True),
        sa.Column("cell_status", sa.String(length=32), nullable=True),
        sa.Column("body", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_cells")),
        sa.UniqueConstraint("book", "line", "market", "horizon", name=op.f("uq_cells_book_line_market_horizon")),
    )
    op.create_index(op.f("ix_cells_run_id"), "cells", ["run_id"], unique=False)
    op.create_index(op.f("ix_cells_seat"), "cells", ["seat"], unique=False)
    op.create_index(op.f("ix_cells_session"), "cells", ["session"], unique=False)

    op.create_table(
        "job_runs",
        sa.Column("session", sa.Date(), nullable=False),
        sa.Column("job", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=False), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=False), nullable=True),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("owner", sa.String(length=255), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("session", "job", name=op.f("pk_job_runs")),
    )
    op.create_table(
        "price_bars",
        sa.Column("symbol", sa.String(length=32), nullable=False),
        sa.Column("start", sa.DateTime(timezone=False), nullable=False),
        sa.Column("open", sa.Float(), nullable=False),
        sa.Column("high", sa.Float(), nullable=False),
        sa.Column("low", sa.Float(), nullable=False),
        sa.Column("close", sa.Float(), nullable=False),
        sa.Column("volume", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("symbol", "start", name=op.f("pk_price_bars")),
    )
    op.create_table(
        "price_days",
        sa.Column("symbol", sa.String(length=32), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("bars", sa.Integer(), nullable=False),
        sa.Column("complete", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("symbol", "day", name=op.f("pk_price_days")),
    )
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("book", sa.String(length=64), nullable=False),
        sa.Column("line", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.String(length=128), nullable=False),
        sa.Column("session", sa.Date(), nullable=True),
        sa.Column("role", sa.String(length=64), nullable=True),
        sa.Column("ask_sha256", sa.String(length=64), nullable=True),
        sa.Column("snapshot_sha256", sa.String(length=64), nullable=True),
        sa.Column("at", sa.DateTime(timezone=False), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_runs")),
        sa.UniqueConstraint("book", "line", name=op.f("uq_runs_book_line")),
    )
    op.create_index(op.f("ix_runs_run_id"), "runs", ["run_id"], unique=False)
    op.create_index(op.f("ix_runs_session"), "runs", ["session"], unique=False)

    op.create_table(
        "score_markets",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("book", sa.String(length=64), nullable=False),
        sa.Column("line", sa.Integer(), nullable=False),
        sa.Column("idx", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("session", sa.Date(), nullable=True),
        sa.Column("market", sa.String(length=32), nullable=False),
        sa.Column("horizon", sa.String(length=16), nullable=False),
        sa.Column("reference", sa.Float(), nullable=True),
        sa.Column("close", sa.Float(), nullable=True),
        sa.Column("change_pct", sa.Float(), nullable=True),
        sa.Column("draw", sa.Boolean(), nullable=True),
        sa.Column("up", sa.Boolean(), nullable=True),
        sa.Column("late_ref", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_score_markets")),
        sa.UniqueConstraint("book", "line", "idx", name=op.f("uq_score_markets_book_line_idx")),
    )
    op.create_index(op.f("ix_score_markets_session"), "score_markets", ["session"], unique=False)

    op.create_table(
        "scores",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("book", sa.String(length=64), nullable=False),
        sa.Column("line", sa.Integer(), nullable=False),
        sa.Column("idx", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("session", sa.Date(), nullable=True),
        sa.Column("seat", sa.String(length=128), nullable=False),
        sa.Column("market", sa.String(length=32), nullable=False),
        sa.Column("horizon", sa.String(length=16), nullable=False),
        sa.Column("prob", sa.Float(), nullable=True),
        sa.Column("outcome", sa.Integer(), nullable=True),
        sa.Column("brier", sa.Float(), nullable=True),
        sa.Column("status", sa.String(length=32), nullable=True),
        sa.Column("answer_line", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_scores")),
        sa.UniqueConstraint("book", "line", "idx", name=op.f("uq_scores_book_line_idx")),
    )
    op.create_index(op.f("ix_scores_seat"), "scores", ["seat"], unique=False)
    op.create_index(op.f("ix_scores_session"), "scores", ["session"], unique=False)

    op.create_table(
        "stamps",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("taken_at", sa.DateTime(timezone=False), nullable=False),
        sa.Column("list_sha256", sa.String(length=64), nullable=False),
        sa.Column("backend", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=32), nullable=False),
        sa.Column("trust_level", sa.String(length=8), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_stamps")),
    )
    op.create_index(op.f("ix_stamps_list_sha256"), "stamps", ["list_sha256"], unique=False)
    op.create_index(op.f("ix_stamps_taken_at"), "stamps", ["taken_at"], unique=False)

    op.create_table(
        "trades",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("account", sa.String(length=128), nullable=False),
        sa.Column("session", sa.Date(), nullable=True),
        sa.Column("book", sa.String(length=64), nullable=True),
        sa.Column("line", sa.Integer(), nullable=True),
        sa.Column("body", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_trades")),
    )
    op.create_index(op.f("ix_trades_account"), "trades", ["account"], unique=False)
    op.create_index(op.f("ix_trades_session"), "trades", ["session"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_trades_session"), table_name="trades")
    op.drop_index(op.f("ix_trades_account"), table_name="trades")

    op.drop_table("trades")
    op.drop_index(op.f("ix_stamps_taken_at"), table_name="stamps")
    op.drop_index(op.f("ix_stamps_list_sha256"), table_name="stamps")

    op.drop_table("stamps")
    op.drop_index(op.f("ix_scores_session"), table_name="scores")
    op.drop_index(op.f("ix_scores_seat"), table_name="scores")

    op.drop_table("scores")
    op.drop_index(op.f("ix_score_markets_session"), table_name="score_markets")

    op.drop_table("score_markets")
    op.drop_index(op.f("ix_runs_session"), table_name="runs")
    op.drop_index(op.f("ix_runs_run_id"), table_name="runs")

    op.drop_table("runs")
    op.drop_table("price_days")
    op.drop_table("price_bars")
    op.drop_table("job_runs")
    op.drop_index(op.f("ix_cells_session"), table_name="cells")
    op.drop_index(op.f("ix_cells_seat"), table_name="cells")
    op.drop_index(op.f("ix_cells_run_id"), table_name="cells")

    op.drop_table("cells")
    op.drop_index(op.f("ix_book_lines_session"), table_name="book_lines")
    op.drop_index(op.f("ix_book_lines_seat"), table_name="book_lines")
    op.drop_index(op.f("ix_book_lines_run_id"), table_name="book_lines")
    op.drop_index(op.f("ix_book_lines_kind"), table_name="book_lines")

    op.drop_table("book_lines")
    op.drop_index(op.f("ix_asks_seat"), table_name="asks")
    op.drop_index(op.f("ix_asks_run_id"), table_name="asks")
    op.drop_index(op.f("ix_asks_ask_sha256"), table_name="asks")

    op.drop_table("asks")
    op.drop_index(op.f("ix_accounts_session"), table_name="accounts")
    op.drop_index(op.f("ix_accounts_account"), table_name="accounts")

    op.drop_table("accounts")
