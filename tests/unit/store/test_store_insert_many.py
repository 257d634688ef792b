"""The SQLite fast insert (sql._insert_many) stores exactly the rows SQLAlchemy's executemany stores."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest
from sqlalchemy import create_engine, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import StatementError

from league.book import BookLine
from league.book.chain import BOOKKEEPING
from league.store import sql
from league.store.derive import derive
from league.store.models import metadata

AT = "2026-06-01T13:30:00Z"
CONTENTS: list[dict[str, Any]] = [
    {"kind": "run", "at": AT, "run_id": "r1", "session": "2026-06-01", "role": "counted", "ask_sha256": "a" * 64},
    {"kind": "answer", "at": AT, "run_id": "r1", "seat": "s1", "attempt": 1, "status": "answered",
     "items": {"SPX": {"1d": {"prob_up": 0.6, "action": "buy"}, "5d": {"prob_up": 1, "status": "ok"}},
               "TNX": {"1d": {"prob_up": None}}}},
    {"kind": "answer", "at": "", "run_id": "r2", "seat": "s2", "items": {"BTC": {"1d": {"prob_up": True}}}},
    {"kind": "score", "at": AT, "session": "2026-06-01",
     "markets": [{"market": "SPX", "reference": 1.5, "close": 2, "change_pct": None, "draw": False, "up": True,
                  "late_ref": {"at": AT}}, {"market": "NDX", "draw": 1, "up": None}],
     "seats": [{"seat": "s1", "market": "SPX", "prob_up": 0.25, "outcome": 1, "brier": 0.5625, "line": 2},
               {"seat": "s2", "market": "SPX", "prob": 0.5, "outcome": 1.0}]},
    {"kind": "ask", "at": AT, "session": "2026-06-01", "asks": [{"seat": "s1", "sha256": "b" * 64, "attempt": 2}]},
    {"kind": "trade", "at": AT, "account": "paper-1", "session": "2026-06-01", "qty": 3},
    {"kind": "mark", "at": AT, "account": "paper-1", "value": 1e6},
    {"kind": "note", "at": AT, "text": "é\u2028"},
]


def _rows() -> dict[str, list[dict[str, Any]]]:
    pending: dict[str, list[dict[str, Any]]] = {}
    for n, content in enumerate(CONTENTS, 1):
        line = BookLine.seal_new({k: v for k, v in content.items() if k not in BOOKKEEPING}, n, "")
        for table, values in derive("council-book", line, lambda run_id: date(2026, 5, 29)):
            pending.setdefault(table, []).append(values)
    return pending


def _dump(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    with engine.connect() as conn:
        return {name: [tuple(r) for r in conn.execute(select(table))] for name, table in metadata.tables.items()}


def _engine() -> Engine:
    engine = create_engine("sqlite://")
    metadata.create_all(engine)
    return engine


def test_the_fast_insert_stores_what_sqlalchemy_stores() -> None:
    pending = _rows()
    assert {"book_lines", "cells", "scores", "score_markets", "runs", "asks", "accounts", "trades"} <= set(pending)
    reference, fast = _engine(), _engine()
    with reference.begin() as conn:
        for table, rows in pending.items():
            conn.execute(metadata.tables[table].insert(), rows)
    with fast.begin() as conn:
        for table, rows in pending.items():
            assert sql._sqlite_insert(conn, metadata.tables[table], tuple(rows[0])) is not None
            sql._insert_many(conn, metadata.tables[table], rows)
    assert _dump(fast) == _dump(reference)
    assert any(_dump(fast).values())


def test_rows_with_other_keys_take_sqlalchemys_path_and_its_refusal() -> None:
    rows = [{"account": "a", "session": date(2026, 6, 1), "book": "b", "line": 1, "body": "{}"},
            {"account": "a", "book": "b", "line": 2, "body": "{}"}]  # the second has no session
    for insert in (lambda conn: conn.execute(metadata.tables["accounts"].insert(), rows),
                   lambda conn: sql._insert_many(conn, metadata.tables["accounts"], rows)):
        with pytest.raises(StatementError, match="A value is required for bind parameter 'session'"):
            with _engine().begin() as conn:
                insert(conn)


@pytest.mark.parametrize("table", ["book_lines", "cells"])
def test_a_datetime_is_bound_as_sqlalchemy_binds_it(table: str) -> None:
    engine = _engine()
    row = dict(_rows()[table][0])
    if table == "book_lines":
        row["at"] = datetime(2026, 6, 1, 13, 30, 0, 123456, tzinfo=UTC)
    reference = _engine()
    with reference.begin() as conn:
        conn.execute(metadata.tables[table].insert(), [row])
    with engine.begin() as conn:
        sql._insert_many(conn, metadata.tables[table], [row])
    assert _dump(engine)[table] == _dump(reference)[table]
