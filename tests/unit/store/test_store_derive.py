"""The pure mapping from a sealed line to index rows (no database involved)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from league.book import BookLine
from league.store.derive import Row, derive
from league.store.models import metadata

AT = "2026-11-27T13:31:02Z"


def _line(n: int, content: dict[str, Any]) -> BookLine:
    return BookLine.seal_new({"at": AT, **content}, n, "")


def _no_session(run_id: str) -> date | None:
    return None


def _of(rows: list[Row], table: str) -> list[dict[str, Any]]:
    return [values for name, values in rows if name == table]


def _columns_exist(rows: list[Row]) -> bool:
    return all(set(values) <= set(metadata.tables[name].c.keys()) for name, values in rows)


def test_every_line_gets_its_book_line_row() -> None:
    line = _line(7, {"kind": "crowd", "session": "2026-11-27", "run_id": "r1", "resolutions": [1, 2]})
    ((table, row),) = derive("council-book", line, _no_session)
    assert table == "book_lines"
    assert row == {"book": "council-book", "n": 7, "kind": "crowd", "at": datetime(2026, 11, 27, 13, 31, 2, tzinfo=UTC),
                   "session": date(2026, 11, 27), "run_id": "r1", "seat": None, "seal": line.seal,
                   "link": line.link, "body": row["body"]}
    assert row["body"] == (
        '{"at":"2026-11-27T13:31:02Z","kind":"crowd","resolutions":[1,2],"run_id":"r1","session":"2026-11-27"}')


def test_run_line_role_from_role_or_counted_flag() -> None:
    rows = derive("b", _line(1, {"kind": "run", "run_id": "r1", "session": "2026-11-27", "role": "counted",
                                 "ask_sha256": "a" * 64, "snapshot_sha256": "s" * 64}), _no_session)
    (run,) = _of(rows, "runs")
    assert run == {"book": "b", "line": 1, "run_id": "r1", "session": date(2026, 11, 27), "role": "counted",
                   "ask_sha256": "a" * 64, "snapshot_sha256": "s" * 64,
                   "at": datetime(2026, 11, 27, 13, 31, 2, tzinfo=UTC)}
    assert _columns_exist(rows)
    (flagged,) = _of(derive("b", _line(2, {"kind": "run", "run_id": "r2", "counted": False}), _no_session), "runs")
    assert flagged["role"] == "not_counted" and flagged["session"] is None


def test_answer_cells_take_session_from_the_run() -> None:
    items = {"SPX": {"1d": {"prob_up": 57, "action": "hold", "cell_status": "elicited"},
                     "1w": {"prob_up": 140, "cell_status": "invalid"}, "years": "a sentence"},
             "BTC": {"1d": {"prob_up": "fifty", "action": 3}}, "XYZ": "junk"}
    line = _line(4, {"kind": "answer", "seat": "claude", "run_id": "r1", "attempt": 1, "status": "counted",
                     "items": items})
    rows = derive("council-book", line, lambda rid: date(2026, 11, 27) if rid == "r1" else None)
    assert _of(rows, "book_lines")[0]["session"] == date(2026, 11, 27)
    assert _columns_exist(rows)
    cells = [(c["market"], c["horizon"], c["prob_up"], c["action"], c["cell_status"], c["row_status"], c["session"],
              c["attempt"]) for c in _of(rows, "cells")]
    assert cells == [
        ("BTC", "1d", None, None, None, "counted", date(2026, 11, 27), 1),
        ("SPX", "1d", 57.0, "hold", "elicited", "counted", date(2026, 11, 27), 1),
        ("SPX", "1w", 140.0, None, "invalid", "counted", date(2026, 11, 27), 1),
    ]
    assert len(rows) == 4


def test_refused_shape_answer_has_no_cells() -> None:
    line = _line(5, {"kind": "answer", "seat": "grok", "run_id": "r1", "status": "refused_shape", "items": {},
                     "failure": "no JSON object"})
    assert [t for t, _ in derive("b", line, _no_session)] == ["book_lines"]


def test_score_line_rows() -> None:
    line = _line(9, {"kind": "score_h", "session": "2026-12-04", "horizon": "1w",
                     "markets": [{"market": "SPX", "reference": 6000.0, "close": 6050.5, "change_pct": 0.84,
                                  "draw": False, "up": True, "late_ref": None},
                                 {"market": "SPX", "horizon": "1w", "reference": 6010.0, "close": 6050.5,
                                  "late_ref": {"line": 12}}, "junk"],
                     "seats": [{"seat": "claude", "market": "SPX", "prob_up": 60, "outcome": 1, "brier": 0.16,
                                "status": "counted", "line": 4},
                               {"seat": "_coin", "market": "SPX", "horizon": "1w", "prob_up": 50, "outcome": True,
                                "brier": 0.25}, {"market": "SPX"}]})
    rows = derive("council-book", line, _no_session)
    assert _columns_exist(rows)
    keys = ("idx", "kind", "market", "horizon", "reference", "close", "change_pct", "draw", "up", "late_ref")
    markets = [tuple(m[k] for k in keys) for m in _of(rows, "score_markets")]
    assert markets == [(0, "score_h", "SPX", "1w", 6000.0, 6050.5, 0.84, False, True, None),
                       (1, "score_h", "SPX", "1w", 6010.0, 6050.5, None, None, None, '{"line":12}')]
    keys = ("idx", "seat", "market", "horizon", "prob", "outcome", "brier", "status", "answer_line", "session")
    seats = [tuple(s[k] for k in keys) for s in _of(rows, "scores")]
    assert seats == [(0, "claude", "SPX", "1w", 60.0, 1, 0.16, "counted", 4, date(2026, 12, 4)),
                     (1, "_coin", "SPX", "1w", 50.0, 1, 0.25, None, None, date(2026, 12, 4))]


def test_ask_lines_single_and_listed() -> None:
    one = derive("asks", _line(3, {"kind": "ask", "run_id": "r1", "session": "2026-11-27", "seat": "codex",
                                   "attempt": 2, "ask_sha256": "f" * 64}), _no_session)
    many = derive("asks", _line(4, {"kind": "asks", "run_id": "r1", "asks": [
        {"seat": "a", "ask_sha256": "1" * 64}, {"seat": "b", "sha256": "2" * 64}, {"seat": "c"}]}), _no_session)
    got = [(r["seat"], r["run_id"], r["attempt"], r["ask_sha256"], r["session"]) for r in _of(one + many, "asks")]
    assert got == [("codex", "r1", 2, "f" * 64, date(2026, 11, 27)), ("a", "r1", None, "1" * 64, None),
                   ("b", "r1", None, "2" * 64, None)]


def test_trade_line_goes_to_trades() -> None:
    rows = derive("portfolio", _line(1, {"kind": "trade", "account": "claude", "session": "2026-11-27",
                                         "fund": "SPY", "qty": 3}), _no_session)
    (trade,) = _of(rows, "trades")
    assert (trade["account"], trade["line"], trade["session"]) == ("claude", 1, date(2026, 11, 27))


cell = st.fixed_dictionaries({}, optional={"prob_up": st.one_of(st.integers(-10, 200), st.text(max_size=3)),
                                           "action": st.sampled_from(["hold", "sell", "buy_dips"])})
market = st.dictionaries(st.sampled_from(["1d", "1w", "1m", "6m", "years"]),
                         st.one_of(cell, st.text(max_size=5)), max_size=5)


@given(st.dictionaries(st.sampled_from(["SPX", "NDX", "BTC", "TNX"]), st.one_of(market, st.none()), max_size=4))
def test_one_cell_row_per_object_cell(items: dict[str, Any]) -> None:
    expected = sorted((m, h) for m, hs in items.items() if isinstance(hs, dict)
                      for h, c in hs.items() if isinstance(c, dict))
    line = _line(2, {"kind": "answer", "seat": "s", "run_id": "r", "items": items})
    got = [(r["market"], r["horizon"]) for r in _of(derive("b", line, _no_session), "cells")]
    assert got == expected


@pytest.mark.parametrize("value", [
    {"b": 1, "a": [1.5, None, True, "é\u2028\"\\"], "z": {"y": {}, "x": -0.0}}, [], "text", 10**20, 1e-300,
    float("nan"), {"prob_up": 0.61, "action": "buy", "cell_status": "ok"},
])
def test_to_json_is_json_dumps_compact_and_sorted(value: object) -> None:
    """The index's JSON columns keep the text json.dumps gave them (the encoder is made once, not per call)."""
    import json

    from league.store.derive import to_json

    assert to_json(value) == json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
