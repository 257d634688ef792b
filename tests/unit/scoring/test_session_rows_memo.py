"""session_rows remembered by what it reads: the score job and the portfolio stage
read the same session's rows one after the other. The remembered rows must be the rows the computation
gives, for each caller its own copy, and a new line the rule reads (an answer, an incident, a run) must
never be served an old answer."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from datetime import date, datetime, time, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import msgspec
import pytest

from league import counting
from league.book import Book
from league.book.index import BookIndex
from league.calendar import default_calendar, et_time
from league.clock import SimulatedClock, iso_seconds
from league.config import load_config, shipped_config_dir
from league.counting import run_events, session_rows

DAY = date(2026, 6, 2)
SESSION = DAY.isoformat()
SEATS = ("alpha", "bravo", "charlie", "delta")


@pytest.fixture(scope="module")
def config() -> Any:
    return load_config(shipped_config_dir())


@pytest.fixture(autouse=True)
def _empty_memo() -> Iterator[None]:
    """Each test starts with nothing remembered: the memo is process-wide, and an earlier test in the same
    worker (a demo whose first session is this test's day) may have left rows for this session; CI once
    failed on exactly that. Emptied again after, so these tests leave nothing either."""
    counting._ROWS.clear()
    yield
    counting._ROWS.clear()


def _answer(config: Any, run_id: str, seat: str, k: int, *, status: str = "answered") -> dict[str, Any]:
    items = {m.code: {h: {"prob_up": 40 + (k * 7 + i) % 30, "action": "hold"} for h in m.horizons}
             for i, m in enumerate(config.markets.markets) if (k + i) % 4}  # some cells left empty
    return {"run_id": run_id, "session": SESSION, "seat": seat, "attempt": 1, "model": f"m-{seat}",
            "version": "v1", "mode": "", "status": status, "parse_failure": "" if status == "answered" else "bad",
            "items": items if status == "answered" else {}}


class _League:
    """A league as the counting rule reads it, over a real book written here (its index rebuilt on demand)."""

    def __init__(self, path: Path, config: Any) -> None:
        self.config, self.calendar = config, default_calendar()
        self.clock = SimulatedClock(et_time(DAY, time(8, 0)))
        self.book = Book(path, self.clock)
        self.index = BookIndex()

    def seal(self, kind: str, content: dict[str, Any], at: datetime) -> None:
        self.clock.set(max(at, self.clock.now()))
        self.index.add(self.book.append(kind, content))


def _run(lg: _League, run_id: str, role: str, roster: tuple[str, ...] = SEATS) -> None:
    lg.seal("run", {"run_id": run_id, "session": SESSION, "role": role, "roster": list(roster),
                    "events": run_events(lg, SESSION)}, et_time(DAY, time(8, 0)))


def _season(tmp_path: Path, config: Any) -> _League:
    """Morning run with early, late and refused answers and a seat that is asked again; a second, not
    counted run; an incident for a silent seat."""
    lg = _League(tmp_path / "book.jsonl", config)
    _run(lg, "r1", "counted")
    opening = et_time(DAY, time(9, 30))
    for k, (seat, minutes) in enumerate((("alpha", -20), ("bravo", -5), ("charlie", 3), ("alpha", 1))):
        lg.seal("answer", {**_answer(config, "r1", seat, k), "booked_at": iso_seconds(opening + timedelta(
            minutes=minutes, seconds=k))}, opening + timedelta(minutes=minutes))
    lg.seal("answer", {**_answer(config, "r1", "delta", 9, status="refused_shape"),
                       "booked_at": iso_seconds(opening)}, opening)
    _run(lg, "r2", "not_counted")
    lg.seal("answer", {**_answer(config, "r2", "bravo", 5), "booked_at": iso_seconds(opening)}, opening)
    lg.seal("incident", {"run_id": "r1", "session": SESSION, "seat": "delta", "attempt": 2,
                         "failure": "sandbox", "detail": "", "booked_at": iso_seconds(opening)}, opening)
    return lg


def _computed(lg: Any, horizon: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The rows with nothing remembered: the memo emptied first, and emptied again after."""
    counting._ROWS.clear()
    try:
        return session_rows(lg, SESSION, horizon)
    finally:
        counting._ROWS.clear()


def _unsealed(lg: _League) -> Any:
    """The same lines without their seals: never remembered (the reference path every time)."""
    index = BookIndex()
    for n, rec in lg.index.lines.items():
        index.add_item(msgspec.structs.replace(rec, seal="", n=n))
    return SimpleNamespace(config=lg.config, calendar=lg.calendar, index=index)


@pytest.mark.parametrize("horizon", ["1d", "1w", "1m", "6m"])
def test_remembered_rows_are_the_computed_rows(tmp_path: Path, config: Any, horizon: str) -> None:
    lg = _season(tmp_path, config)
    reference = session_rows(_unsealed(lg), SESSION, horizon)
    assert not counting._ROWS or all(key[2:4] != (SESSION, horizon) for key in counting._ROWS)
    first = _computed(lg, horizon)
    assert first == reference and first[0] and first[1]
    statuses = {r["status"] for r in first[0]}
    assert {"counted", "not_counted", "refused_shape", "counted_50"} <= statuses
    session_rows(lg, SESSION, horizon)  # remembered now
    again = session_rows(lg, SESSION, horizon)  # served from the memo
    assert again == reference
    assert [r["sealed_at"] for r in again[0]] == [r["sealed_at"] for r in reference[0]]


def test_each_caller_gets_its_own_copy(tmp_path: Path, config: Any) -> None:
    lg = _season(tmp_path, config)
    rows, events = session_rows(lg, SESSION, "1d")
    pristine = copy.deepcopy((rows, events))
    for row in rows:  # what the score job does to its rows and events
        row["outcome"], row["brier"] = 1, 0.25
    for ev in events.values():
        ev.result = {"up": True}
    next(iter(events.values())).result["x"] = 1
    assert session_rows(lg, SESSION, "1d") == pristine


def test_a_new_line_the_rule_reads_is_never_served_an_old_answer(tmp_path: Path, config: Any) -> None:
    lg = _season(tmp_path, config)
    before = session_rows(lg, SESSION, "1d")
    opening = et_time(DAY, time(9, 30))
    lg.seal("answer", {**_answer(config, "r1", "delta", 3), "booked_at": iso_seconds(opening)}, opening)
    after = session_rows(lg, SESSION, "1d")
    assert after != before and after == session_rows(_unsealed(lg), SESSION, "1d")
    lg.seal("silence", {"run_id": "r1", "session": SESSION, "seat": "echo", "attempt": 1, "failure": "timeout",
                        "detail": "", "booked_at": iso_seconds(opening)}, opening)
    _run(lg, "r3", "counted", (*SEATS, "echo"))  # a seat only this run's roster names: echo is now expected
    latest = session_rows(lg, SESSION, "1d")
    assert latest == session_rows(_unsealed(lg), SESSION, "1d")
    assert any(r["seat"] == "echo" and "timeout" in r["why_missing"] for r in latest[0])


def test_a_later_horizon_or_another_config_is_its_own_entry(tmp_path: Path, config: Any) -> None:
    lg = _season(tmp_path, config)
    day = session_rows(lg, SESSION, "1d")
    week = session_rows(lg, SESSION, "1w")
    assert day != week
    other = SimpleNamespace(config=config.model_copy(), calendar=lg.calendar, index=lg.index)
    assert session_rows(other, SESSION, "1d") == day
    assert len({key[:2] for key in counting._ROWS}) >= 2


def test_the_memo_is_bounded(tmp_path: Path, config: Any) -> None:
    lg = _season(tmp_path, config)
    for _ in range(counting._MAX_ROWS + 5):
        view = SimpleNamespace(config=config.model_copy(), calendar=lg.calendar, index=lg.index)
        session_rows(view, SESSION, "1d")
        assert len(counting._ROWS) <= counting._MAX_ROWS


def test_a_view_without_a_calendar_gets_the_rows_it_always_got(tmp_path: Path, config: Any) -> None:
    """A read-only view (the publisher's shadow view) may carry no calendar: the rule needs one only to place
    a late answer's own event, and that row says why it has none; the memo must not ask for it either."""
    lg = _season(tmp_path, config)
    bare = SimpleNamespace(config=config, index=lg.index)
    plain = SimpleNamespace(config=config, index=_unsealed(lg).index)
    for horizon in ("1d", "1w"):
        got = session_rows(bare, SESSION, horizon)
        assert got == session_rows(plain, SESSION, horizon) == session_rows(bare, SESSION, horizon)
        assert any("calendar" in r["why_missing"] for r in got[0])  # the late answer's row, as before
