"""The outgoing-ask chain: counting rule first, roster before asks, the hash of the exact text sent."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from league.asks import AskChain, publish_ask_text
from league.clock import SimulatedClock
from league.errors import BookError
from league.verify.chain import verify
from league_agents.base import SeatSpec

T0 = datetime(2026, 11, 24, 13, 30, tzinfo=UTC)


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_a_runs_asks_sealed_together_are_the_lines_sealed_one_by_one(tmp_path: Path) -> None:
    seats = [SeatSpec(name="aurora", adapter="scripted"), SeatSpec(name="_coin", adapter="coin")]
    texts = [("aurora", "common ✓\n\n## Your paper account (aurora)\n"), ("_coin", "common ✓\n")]
    books = []
    for name, together in (("one.jsonl", False), ("all.jsonl", True)):
        chain = AskChain(tmp_path / name, SimulatedClock(T0), "the 08:30 run counts")
        chain.seal_roster("2026-11-24-r1", "2026-11-24", seats, {"SPX": ["1d"]}, T0, T0, "one re-ask", "counted")
        if together:
            sealed = chain.seal_asks("2026-11-24-r1", "2026-11-24", 1, texts, "c" * 64)
            assert [x.n for x in sealed] == [3, 4]
        else:
            for seat, text in texts:
                chain.seal_ask("2026-11-24-r1", "2026-11-24", seat, 1, text, "c" * 64)
        chain.close()
        books.append((tmp_path / name).read_bytes())
    assert books[0] == books[1] and verify(tmp_path / "all.jsonl").ok


def test_chain_order_and_hashes(tmp_path: Path) -> None:
    path = tmp_path / "asks.jsonl"
    chain = AskChain(path, SimulatedClock(T0), "the 08:30 run counts")
    seats = [SeatSpec(name="aurora", adapter="scripted"), SeatSpec(name="_coin", adapter="coin")]
    chain.seal_roster("2026-11-24-r1", "2026-11-24", seats, {"SPX": ["1d", "1w"]}, T0, T0, "one re-ask", "counted")
    text = "common text ✓\n\n## Your paper account (aurora)\n"
    chain.seal_ask("2026-11-24-r1", "2026-11-24", "aurora", 1, text, "c" * 64)
    chain.close()
    got = lines(path)
    assert [x["kind"] for x in got] == ["counting_rule", "roster", "ask"]
    assert got[0]["rule"] == "the 08:30 run counts"
    assert [s["seat"] for s in got[1]["seats"]] == ["aurora", "_coin"]  # type: ignore[index]
    assert got[2]["ask_sha256"] == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert verify(path).ok


def test_reopening_keeps_one_counting_rule(tmp_path: Path) -> None:
    path = tmp_path / "asks.jsonl"
    AskChain(path, SimulatedClock(T0), "rule").close()
    AskChain(path, SimulatedClock(T0), "rule").close()
    assert [x["kind"] for x in lines(path)] == ["counting_rule"]


def test_chain_whose_first_line_is_not_the_rule_is_refused(tmp_path: Path) -> None:
    from league.book import Book

    path = tmp_path / "asks.jsonl"
    with Book(path, SimulatedClock(T0)) as book:
        book.append("ask", {"seat": "x"})
    with pytest.raises(BookError, match="counting-rule"):
        AskChain(path, SimulatedClock(T0), "rule")


def test_published_ask_text_is_named_by_its_hash(tmp_path: Path) -> None:
    digest = publish_ask_text(tmp_path / "asks", "ask body é")
    body = (tmp_path / "asks" / f"{digest}.md").read_bytes()
    assert hashlib.sha256(body).hexdigest() == digest
    assert publish_ask_text(tmp_path / "asks", "ask body é") == digest


def _roster(chain: AskChain, run_id: str) -> None:
    seats = [SeatSpec(name="aurora", adapter="scripted")]
    chain.seal_roster(run_id, run_id[:10], seats, {"SPX": ["1d"]}, T0, T0, "one re-ask", "counted")


def test_roster_of_finds_rosters_sealed_before_and_after_its_first_scan(tmp_path: Path) -> None:
    path = tmp_path / "asks.jsonl"
    chain = AskChain(path, SimulatedClock(T0), "rule")
    _roster(chain, "2026-11-24-r1")
    chain.seal_ask("2026-11-24-r1", "2026-11-24", "aurora", 1, "text", "c" * 64)
    first = chain.roster_of("2026-11-24-r1")
    assert first is not None and first.n == 2 and chain.roster_of("2026-11-25-r1") is None
    _roster(chain, "2026-11-25-r1")  # sealed after the scan: found by the next one
    later = chain.roster_of("2026-11-25-r1")
    assert later is not None and later.n == 4 and later.content["session"] == "2026-11-25"
    _roster(chain, "2026-11-24-r1")  # idempotent: the roster already sealed is returned, nothing added
    chain.close()
    assert [x["kind"] for x in lines(path)] == ["counting_rule", "roster", "ask", "roster"]
    reopened = AskChain(path, SimulatedClock(T0), "rule")  # a new process reads the file once
    again = reopened.roster_of("2026-11-25-r1")
    assert again is not None and again.link == later.link
    reopened.close()


def test_roster_of_refuses_a_tampered_roster_line(tmp_path: Path) -> None:
    from league.errors import ChainBroken

    path = tmp_path / "asks.jsonl"
    chain = AskChain(path, SimulatedClock(T0), "rule")
    _roster(chain, "2026-11-24-r1")
    chain.seal_ask("2026-11-24-r1", "2026-11-24", "aurora", 1, "text", "c" * 64)  # the last line stays sound
    chain.close()
    raw = path.read_bytes()
    assert raw.count(b'"adapter":"scripted"') == 1  # in the roster line only
    path.write_bytes(raw.replace(b'"adapter":"scripted"', b'"adapter":"scripteD"'))
    reopened = AskChain(path, SimulatedClock(T0), "rule")
    with pytest.raises(ChainBroken):
        reopened.roster_of("2026-11-24-r1")
    reopened.close()
