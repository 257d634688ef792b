"""Each arm's own $100,000 paper accounts (both leagues) over three league days: sealed in the arms' book only,
shown in the arm's next ask, restored after a restart, published in arms/arm-accounts.csv."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import date, time, timedelta
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pytest
from arms_helpers import book_lines, enable_arms
from day_helpers import league_dir, roster, seat

from league.arms.book import ArmsBooks
from league.book import Book, BookLine
from league.calendar import et_time
from league.clock import SimulatedClock, parse_iso
from league.compose import build_league
from league.config import load_config
from league.jobs.arm_accounts import arm_account
from league.jobs.context import Stages
from league.jobs.scheduler import run_session
from league.publish.arm_accounts import write_arm_accounts
from league.publish.arms import write_arms
from league_agents.base import Ask, SeatReply, SeatSpec
from league_agents.base import Seat as AgentSeat

DAYS = (date(2026, 11, 23), date(2026, 11, 24), date(2026, 11, 25))
STAGES = Stages(publish=False, stamps=False)
ACCOUNT_KINDS = ("arm_rules", "arm_decision", "arm_rejection", "arm_trade", "arm_mark")
BOOKKEEPING = ("n", "at", "seal", "link")


class Seat:
    """An in-process seat that holds, but ``bull`` in the closed-book arm on the first day: buy_strong on SPX."""

    def __init__(self, spec: SeatSpec) -> None:
        self.spec = spec
        self.asks: list[tuple[str, str]] = []  # (variant, text)
        self.texts: dict[tuple[str, str], str] = {}  # (session, variant) -> text

    def ask(self, ask: Ask, now: Any) -> SeatReply:
        variant = str(ask.context.get("variant", "council"))
        self.asks.append((variant, ask.text))
        self.texts[(ask.session, variant)] = ask.text
        first = ask.session == DAYS[0].isoformat()
        action = "buy_strong" if self.spec.name == "bull" and variant == "closed_book" and first else "hold"
        raw = json.dumps({"forecast": {"SPX": {"1d": {"prob_up": 60, "action": action}}}})
        t = now()
        return SeatReply(seat=self.spec.name, raw=raw, model="m", version="v", mode="x", started_at=t, finished_at=t)


def _league(root: Path, *, arms: bool, restart_after: int | None = None) -> tuple[Path, dict[str, Seat], Any]:
    """Run the three days; with ``restart_after`` the league is closed and opened again after that many days."""
    config_dir, data_dir, clock = league_dir(root, roster(seat("bull", "coin"), seat("bear", "coin"),
                                                         seat("_base", "coin")), et_time(DAYS[0], time(3, 0)))
    if arms:
        enable_arms(config_dir, data_dir, DAYS[-1], repeat_seats=("bull",), repeat_day="wed")  # repeats on day 3
    config = load_config(config_dir)
    seats = {s.name: Seat(s) for s in config.roster.seat}
    agents: dict[str, AgentSeat] = dict(seats)
    spy: Any = None
    splits = [DAYS] if restart_after is None else [DAYS[:restart_after], DAYS[restart_after:]]
    for days in splits:
        with build_league(config, clock, seats=agents, anchor=DAYS[0], stages=STAGES) as lg:
            for day in days:
                run_session(lg, day)
            if spy is None:
                start = et_time(DAYS[0], time(9, 30))
                spy = lg.market.prices.bars("SPY", start, start + timedelta(minutes=15))
    return data_dir, seats, spy


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("armaccounts")
    return {"plain": _league(root / "plain", arms=False), "arms": _league(root / "arms", arms=True),
            "restarted": _league(root / "restarted", arms=True, restart_after=1)}


def _book(data_dir: Path) -> list[dict[str, Any]]:
    return book_lines(data_dir / "books" / "arms-book.jsonl")


def _marks(book: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [x for x in book if x["kind"] == "arm_mark"]


def test_each_arm_has_accounts_for_every_answering_seat_in_both_leagues_from_100000(runs: dict[str, Any]) -> None:
    book = _book(runs["arms"][0])
    marks = _marks(book)
    for arm in ("closed_book", "price_only"):
        for league in ("arena-3", "pro-1"):
            for day in DAYS:
                got = sorted(m["account"] for m in marks if (m["arm"], m["league"], m["session"]) ==
                             (arm, league, day.isoformat()))
                assert got == ["_base", "bear", "bull"], (arm, league, day)
            rules = [x for x in book if x["kind"] == "arm_rules" and x["arm"] == arm and x["rules"] == league]
            assert len(rules) == 1  # once per arm and rule set, before its first decision
            first_decision = min(x["n"] for x in book if x["kind"] in ("arm_decision", "arm_rejection")
                                 and x["arm"] == arm and x["league"] == league)
            assert rules[0]["n"] < first_decision
    for m in marks:
        assert m["capital"] == "100000" and m["opened"] == DAYS[0].isoformat()
        if (m["account"], m["arm"]) != ("bull", "closed_book") or m["league"] == "pro-1":
            assert m["positions"] == {}  # held (or rejected): nothing but cash and its interest
            assert Decimal("100000") <= Decimal(m["value"]) < Decimal("100100")
    # no benchmark account, no repeat: only the arms' seats
    assert {m["account"] for m in marks} == {"_base", "bear", "bull"}


def test_one_buy_strong_is_sized_and_charged_by_the_rules(runs: dict[str, Any]) -> None:
    data_dir, _, spy = runs["arms"]
    book = _book(data_dir)
    trades = [x for x in book if x["kind"] == "arm_trade"]
    assert [(t["arm"], t["league"], t["account"], t["session"]) for t in trades] == [
        ("closed_book", "arena-3", "bull", DAYS[0].isoformat())]  # the only buy_strong, on the first day only
    t = trades[0]
    # arena-3: SPX -> SPY at 25% of equity, pulled 0.001 pp inward, sized net of its 0.1% fee, 4-decimal shares;
    # at the open of the first minute bar from 09:30 ET (the arm answer was sealed before it).
    price = Decimal(repr(spy[0].open)).quantize(Decimal("0.0001"))
    assert (t["symbol"], t["side"], Decimal(t["price"])) == ("SPY", "buy", price)
    w = Decimal("0.24999")
    want_qty = (w * Decimal(100000) / (1 + w * Decimal("0.001")) / price).quantize(Decimal("0.0001"), ROUND_DOWN)
    assert abs(Decimal(t["qty"]) - want_qty) <= Decimal("0.0001")
    amount = (Decimal(t["qty"]) * price).quantize(Decimal("0.01"), ROUND_HALF_UP)
    fee = (amount * Decimal("0.001")).quantize(Decimal("0.01"), ROUND_HALF_UP)
    assert Decimal(t["amount"]) == amount and Decimal(t["fee"]) == fee and t["fee_rate"] == "0.001"
    assert Decimal(t["cash_after"]) == Decimal(100000) - amount - fee
    # pro-1: one +30% position cannot reach the 100% gross floor: rejected, nothing traded
    rejected = [x for x in book if x["kind"] == "arm_rejection"]
    assert [(r["arm"], r["league"], r["account"]) for r in rejected] == [("closed_book", "pro-1", "bull")]
    mark = next(m for m in _marks(book) if (m["arm"], m["league"], m["account"], m["session"]) ==
                ("closed_book", "arena-3", "bull", DAYS[0].isoformat()))
    assert mark["positions"] == {"SPY": t["qty"]} and Decimal(mark["fees_total"]) == fee


def test_the_arm_ask_shows_the_seat_its_own_arm_account(runs: dict[str, Any]) -> None:
    data_dir, seats, _ = runs["arms"]
    asks = [text for variant, text in seats["bull"].asks if variant == "closed_book"]
    assert len(asks) == 3 and "No positions yet" in asks[0]
    block = json.loads(asks[1].split("## Your paper account (bull)")[1].split("```json")[1].split("```")[0])
    mark = {m["league"]: m for m in _marks(_book(data_dir)) if (m["arm"], m["account"], m["session"]) ==
            ("closed_book", "bull", DAYS[0].isoformat())}
    assert set(block) == {"arena-3", "pro-1"}
    for league, account in block.items():
        assert account["as_of"] == DAYS[0].isoformat()
        assert (account["value"], account["positions"]) == (mark[league]["value"], mark[league]["positions"])
    assert block["arena-3"]["positions"]
    council = [text for variant, text in seats["bull"].asks if variant == "council"]
    assert "SPY" not in council[1].split("## Your paper account (bull)")[1]  # the council account held


def test_the_council_book_is_the_same_byte_for_byte_with_and_without_arms(runs: dict[str, Any]) -> None:
    plain, arms = runs["plain"][0], runs["arms"][0]
    for name in ("council-book.jsonl", "asks.jsonl"):
        assert (plain / "books" / name).read_bytes() == (arms / "books" / name).read_bytes(), name
    assert any(x["kind"] == "mark" for x in book_lines(plain / "books" / "council-book.jsonl"))
    assert not (plain / "books" / "arms-book.jsonl").exists()


def test_a_restart_restores_the_arm_seasons_as_an_uninterrupted_run(runs: dict[str, Any]) -> None:
    def accounts(data_dir: Path) -> list[dict[str, Any]]:
        return [{k: v for k, v in x.items() if k not in BOOKKEEPING} for x in _book(data_dir)
                if x["kind"] in ACCOUNT_KINDS]

    straight, restarted = accounts(runs["arms"][0]), accounts(runs["restarted"][0])
    assert len([x for x in straight if x["kind"] == "arm_mark"]) == 2 * 2 * 3 * 3
    assert restarted == straight


def test_the_published_arm_accounts(runs: dict[str, Any], tmp_path: Path) -> None:
    data_dir = runs["arms"][0]
    out = write_arm_accounts(data_dir / "books" / "arms-book.jsonl", tmp_path / "arm-accounts.csv")
    assert tmp_path / "open" / "arms" / "arm-accounts.csv" in write_arms(data_dir, tmp_path / "open")
    assert (tmp_path / "open" / "arms" / "arm-accounts.csv").read_bytes() == out.read_bytes()
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "arm,league,rules_version,account,session,cash,value,positions,fees_total,peak"
    assert len(lines) == 1 + 2 * 2 * 3 * 3
    trade = next(x for x in _book(data_dir) if x["kind"] == "arm_trade")
    bull = [r for r in lines if r.startswith(f"closed_book,long_only,arena-3,bull,{DAYS[0]},")]
    assert len(bull) == 1 and f",SPY:{trade['qty']},{trade['fee']}," in bull[0]
    assert f"price_only,long_short,pro-1,bear,{DAYS[0]},100000" in "\n".join(lines)


def _block(text: str, seat: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(text.split(f"## Your paper account ({seat})")[1].split("```json")[1]
                                        .split("```")[0])
    return loaded


def test_the_repeats_hold_no_account_and_show_the_account_of_the_question_they_repeat(runs: dict[str, Any]) -> None:
    data_dir, seats, _ = runs["arms"]
    asks = {v: t for (day, v), t in seats["bull"].texts.items() if day == DAYS[-1].isoformat()}
    assert sorted(asks) == sorted(["council", "closed_book", "price_only", *(f"repeat_{q}-{k}" for q in
                                                                            ("open", "packet") for k in (1, 2, 3))])
    assert _block(asks["repeat_packet-1"], "bull") == _block(asks["closed_book"], "bull")
    assert _block(asks["repeat_open-2"], "bull") == _block(asks["council"], "bull")
    assert _block(asks["closed_book"], "bull") != _block(asks["council"], "bull")  # the arm's own account
    assert not {m["arm"] for m in _marks(_book(data_dir))} - {"closed_book", "price_only"}


def test_an_arm_account_is_read_up_to_a_time(runs: dict[str, Any]) -> None:
    data_dir = runs["arms"][0]
    marks = [m for m in _marks(_book(data_dir)) if (m["arm"], m["account"]) == ("price_only", "bear")]
    first_at = min(parse_iso(m["at"]) for m in marks)
    books = ArmsBooks(data_dir / "books", SimulatedClock(et_time(DAYS[-1] + timedelta(days=1), time(8, 0))))
    try:
        assert arm_account(books, "bear", "price_only", until=first_at - timedelta(seconds=1)) is None
        day_one = arm_account(books, "bear", "price_only", until=first_at + timedelta(seconds=1))
        latest = arm_account(books, "bear", "price_only")
        assert arm_account(books, "nobody", "price_only") is None
    finally:
        books.close()
    assert day_one is not None and latest is not None
    assert {x["as_of"] for x in day_one.values()} == {DAYS[0].isoformat()}
    assert {x["as_of"] for x in latest.values()} == {DAYS[-1].isoformat()}
    assert set(latest["arena-3"]) == {"as_of", "capital", "cash", "value", "interest", "positions", "prices",
                                      "weights", "fees_total", "peak"}


def test_a_sessions_account_lines_of_an_arm_and_rule_set_are_sealed_with_one_fsync(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Computed lines, not replies: each (arm, rule set, session)'s lines written and fsync'd at once."""
    writes: list[list[str]] = []  # the kinds of each write of the arms' book
    real = Book._write_lines

    def spy(book: Book, lines: Sequence[BookLine]) -> None:
        if book.path.name == "arms-book.jsonl":
            writes.append([line.content["kind"] for line in lines])
        real(book, lines)

    monkeypatch.setattr(Book, "_write_lines", spy)
    data_dir, _, _ = _league(tmp_path, arms=True)
    book = _book(data_dir)
    accounts = [w for w in writes if set(w) & set(ACCOUNT_KINDS)]
    assert all(set(w) <= set(ACCOUNT_KINDS) for w in accounts)  # never batched with a reply
    rules = [w for w in accounts if "arm_rules" in w]
    assert rules == [["arm_rules", "arm_rules"]] * 2  # each arm's two rule sets at once
    marked = {(x["arm"], x["league"], x["session"]) for x in book if x["kind"] == "arm_mark"}
    assert len(marked) == 2 * 2 * len(DAYS)
    assert len(accounts) - len(rules) == len(marked)  # one write per arm, rule set and session
    assert sum(map(len, accounts)) == sum(1 for x in book if x["kind"] in ACCOUNT_KINDS)
