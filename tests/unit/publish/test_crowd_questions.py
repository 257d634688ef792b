"""The crowd comparison per question (paper §4.9), from the sealed run line's quote and the ``crowd`` line.

A real book: a counted run line sealing one SPX quote (price 0.60, $5,000), two model answers (``alpha``
states crowd_up 70 at 12:31:40Z, ``beta`` states 50 at 12:33:05Z) and a baseline without crowd_up. The
crowd stage (the real job, a recorded crowd) seals the resolution (Up) with the crowd's price at each
answer's minute from the recorded minutes file (12:31 → 0.62; 12:33 → the 12:32 price 0.58, the latest
at or before). Every expected figure is worked in a comment.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from league.book import Book
from league.book.index import BookIndex
from league.clock import SimulatedClock
from league.crowd.compare import at_answer_minute, question
from league.crowd.interface import CrowdQuote
from league.crowd.polymarket import PolymarketConfig, PolymarketCrowd
from league.crowd.recorded import RecordedCrowd
from league.jobs.crowd import resolve_crowd
from league.publish.crowd import comparison, comparison_rows
from league.records import as_json

SESSION = date(2026, 11, 25)
READ = datetime(2026, 11, 25, 12, 30, 6, tzinfo=UTC)
QUOTE = CrowdQuote(session=SESSION, market="SPX", venue="recorded", contract_id="spx-1125", question="SPX up?",
                   rules="r", side="Up", price=0.60, bid=0.59, ask=0.61, volume_usd=5000.0,
                   last_trade_at=None, read_at=READ)


def _answer(seat: str, at: datetime, cell: dict[str, Any]) -> dict[str, Any]:
    return {"run_id": "r1", "session": SESSION.isoformat(), "seat": seat, "status": "answered",
            "booked_at": at.isoformat().replace("+00:00", "Z"), "items": {"SPX": {"1d": cell}}}


class _League:
    """The crowd stage's view of a league: its book and index, the crowd provider, the stage switch."""

    def __init__(self, book: Book, crowd: RecordedCrowd) -> None:
        self.book, self.crowd = book, crowd
        self.index = BookIndex()
        self.stages = SimpleNamespace(crowd=True)
        self.books, self.market = self, self  # a League's collaborators: its books, its market data

    def seal(self, line: Any) -> Any:
        sealed = self.book.append(line.kind, line.content())
        self.index.add(sealed)
        return sealed


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("crowd")
    crowd_dir = root / "crowd"
    crowd_dir.mkdir()
    (crowd_dir / "2026-11-25.resolved.json").write_text(json.dumps({"spx-1125": True}))
    (crowd_dir / "2026-11-25.minutes.json").write_text(json.dumps({"spx-1125": {
        "2026-11-25T12:30Z": 0.60, "2026-11-25T12:31Z": 0.62, "2026-11-25T12:32Z": 0.58,
        "2026-11-25T12:40Z": 0.75}}))
    clock = SimulatedClock(READ)
    with Book(root / "council-book.jsonl", clock) as book:
        lg = _League(book, RecordedCrowd(crowd_dir))
        for kind, content in (
            ("run", {"run_id": "r1", "session": SESSION.isoformat(), "role": "counted",
                     "crowd": [QUOTE.as_json()]}),
            ("answer", _answer("alpha", datetime(2026, 11, 25, 12, 31, 40, tzinfo=UTC),
                               {"prob_up": 66.0, "crowd_up": 70.0})),
            ("answer", _answer("beta", datetime(2026, 11, 25, 12, 33, 5, tzinfo=UTC),
                               {"prob_up": 50.0, "crowd_up": 50.0})),
            ("answer", _answer("_coin", datetime(2026, 11, 25, 12, 30, 6, tzinfo=UTC), {"prob_up": 50.0})),
        ):
            lg.index.add(book.append(kind, content))
        clock.set(datetime(2026, 11, 25, 21, 5, tzinfo=UTC))
        assert resolve_crowd(lg, SESSION.isoformat()) == 1  # type: ignore[arg-type]
        crowd_line = as_json(lg.index.of_kind("crowd")[0])
        return {"crowd_line": crowd_line, "block": comparison(lg.index),
                "at_answer": at_answer_minute(comparison_rows(lg.index))}


def test_the_crowd_line_seals_the_price_at_each_answer_minute(published: dict[str, Any]) -> None:
    line = published["crowd_line"]
    assert line["resolved_up"] is True
    assert line["at_answer"] == {"alpha": {"minute": "2026-11-25T12:31:00Z", "price": 0.62},
                                 "beta": {"minute": "2026-11-25T12:33:00Z", "price": 0.58}}


def test_per_question_probabilities_briers_and_who_was_right(published: dict[str, Any]) -> None:
    block = published["block"]
    assert block["available"] is True
    by_seat = {q["seat"]: q for q in block["questions"]}
    assert sorted(by_seat) == ["alpha", "beta"]  # the baseline states no crowd_up
    alpha, beta = by_seat["alpha"], by_seat["beta"]
    assert (alpha["model_p"], alpha["crowd_p"], alpha["crowd_p_at_answer"]) == (0.70, 0.60, 0.62)
    assert alpha["model_brier"] == pytest.approx(0.09)        # (0.70 - 1)^2
    assert alpha["crowd_brier"] == pytest.approx(0.16)        # (0.60 - 1)^2
    assert alpha["crowd_brier_at_answer"] == pytest.approx(0.1444)  # (0.62 - 1)^2
    assert alpha["who_was_right"] == "both" and alpha["answer_minute"] == "2026-11-25T12:31:00Z"
    assert beta["model_brier"] == pytest.approx(0.25) and beta["crowd_p_at_answer"] == 0.58
    assert (beta["model_right"], beta["crowd_right"], beta["who_was_right"]) == (None, True, "crowd")  # a 50
    assert (alpha["contract_id"], alpha["venue"], alpha["tier"]) == ("spx-1125", "recorded", "primary")


def test_who_was_right_when_the_crowd_misses() -> None:
    from league.crowd.compare import CrowdRow

    row = CrowdRow(SESSION, "SPX", "alpha", 30.0, 0.65, False, False, 800.0)
    q = question(row)
    assert q["model_brier"] == pytest.approx(0.09) and q["crowd_brier"] == pytest.approx(0.4225)  # .3², .65²
    assert (q["who_was_right"], q["tier"], q["crowd_p_at_answer"]) == ("model", "thin", None)
    unresolved = question(CrowdRow(SESSION, "SPX", "alpha", 30.0, 0.65, None, None, 800.0))
    assert unresolved["model_brier"] is None and unresolved["who_was_right"] is None


def test_no_quote_sealed_means_not_available(tmp_path: Path) -> None:
    with Book(tmp_path / "b.jsonl", SimulatedClock(READ)) as book:
        index = BookIndex()
        index.add(book.append("run", {"run_id": "r1", "session": "2026-11-25", "role": "counted", "crowd": []}))
    assert comparison(index)["available"] is False and comparison(index)["questions"] == []


def test_polymarket_price_at_the_answer_minute_from_the_price_history() -> None:
    seen: list[httpx.Request] = []
    history = {"history": [{"t": 1795609800, "p": 0.52}, {"t": 1795609860, "p": 0.55},   # 12:30:00, 12:31:00
                           {"t": 1795609920, "p": 0.61}]}                                   # 12:32:00

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=history) if request.url.path == "/prices-history" else httpx.Response(404)

    crowd = PolymarketCrowd(PolymarketConfig(clob_url="https://clob.test", retry_wait_s=0),
                            http=httpx.Client(transport=httpx.MockTransport(handler)))
    poly = replace(QUOTE, venue="polymarket", token_id="tok-up")
    minute = datetime(2026, 11, 25, 12, 31, tzinfo=UTC)
    assert crowd.price_at(poly, minute) == 0.55  # the 12:31:00 point; 12:32:00 is after the minute
    params = dict(seen[0].url.params)
    assert params == {"market": "tok-up", "startTs": str(1795609860 + 59 - 3600), "endTs": str(1795609860 + 59),
                      "fidelity": "1"}
    assert crowd.price_at(poly, datetime(2026, 11, 25, 11, 0, tzinfo=UTC)) is None  # nothing at or before


def test_the_calibration_clock_compares_each_seat_with_the_crowd_of_its_own_minute(
        published: dict[str, Any]) -> None:
    got = {r["seat"]: r for r in published["at_answer"]}
    # alpha: (0.70 - 1)² = 0.09 against (0.62 - 1)² = 0.1444; beta: (0.5 - 1)² = 0.25 against (0.58 - 1)² = 0.1764
    assert got["alpha"]["seat_brier"] == pytest.approx(0.09)
    assert got["alpha"]["crowd_brier_at_answer"] == pytest.approx(0.1444)
    assert got["alpha"]["gap"] == pytest.approx(0.0544) and got["alpha"]["n"] == 1
    assert got["beta"]["crowd_brier_at_answer"] == pytest.approx(0.1764)
    assert got["beta"]["gap"] == pytest.approx(0.1764 - 0.25)
