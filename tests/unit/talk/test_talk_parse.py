"""The total parsers of the chair's reply and a critiqued seat's reply (league/talk/parse.py)."""

from __future__ import annotations

import json

import pytest

from league.talk.critiques import Critique
from league.talk.parse import parse_chair, parse_reply

LETTERS = ["A", "B", "C", "D"]
MARKETS = ["SPX", "NDX", "GOLD"]
FUNDS = ["SPY", "QQQ", "GLD"]


def chair(**change: object) -> dict[str, object]:
    reply: dict[str, object] = {
        "council_portfolio": {"SPY": 40, "GLD": 20.5},
        "critiques": [
            {"target": "B", "market": "SPX", "risk": "half the book in one index", "weight": 25, "direction": "down"},
            {"target": "C", "market": "NDX", "risk": "all in", "weight": 60, "direction": "up"}]}
    reply.update(change)
    return reply


def read(obj: object, prefix: str = "My view, then the object:\n") -> str:
    return prefix + json.dumps(obj)


def test_a_good_chair_reply_is_read() -> None:
    got = parse_chair(read(chair(comment="x")), letters=LETTERS, markets=MARKETS, funds=FUNDS)
    assert got.ok and got.failure == ""
    assert got.council_portfolio == {"SPY": 40.0, "GLD": 20.5}
    assert got.critiques == (Critique("B", "SPX", "half the book in one index", 25.0, "down"),
                             Critique("C", "NDX", "all in", 60.0, "up"))
    assert got.notes == ("key 'comment' is not read",)


def test_the_last_json_object_is_the_one_read() -> None:
    first = chair(council_portfolio={"SPY": 90})
    raw = read(first) + "\nOn second thought:\n" + json.dumps(chair())
    got = parse_chair(raw, letters=LETTERS, markets=MARKETS, funds=FUNDS)
    assert got.ok and got.council_portfolio == {"SPY": 40.0, "GLD": 20.5}


def critique_with(**change: object) -> dict[str, object]:
    c: dict[str, object] = {"target": "B", "market": "SPX", "risk": "r", "weight": 25, "direction": "down"}
    c.update(change)
    return c


OK_SECOND = {"target": "C", "market": "NDX", "risk": "r", "weight": 60, "direction": "up"}


@pytest.mark.parametrize(("reply", "failure"), [
    (chair(critiques=[critique_with(target="E"), OK_SECOND]), "critiques[0].target: unknown letter 'E'"),
    (chair(critiques=[critique_with(market="DAX"), OK_SECOND]), "critiques[0].market: unknown market 'DAX'"),
    (chair(critiques=[critique_with(weight=101), OK_SECOND]), "critiques[0].weight: 101 is outside 0-100"),
    (chair(critiques=[critique_with(weight=-1), OK_SECOND]), "critiques[0].weight: -1 is outside 0-100"),
    (chair(critiques=[critique_with(weight="20"), OK_SECOND]), "critiques[0].weight: '20' is not a number"),
    (chair(critiques=[critique_with(weight=True), OK_SECOND]), "critiques[0].weight: True is not a number"),
    (chair(critiques=[critique_with(direction="sideways"), OK_SECOND]),
     "critiques[0].direction: 'sideways' is not \"up\" or \"down\""),
    (chair(critiques=[critique_with(risk=" "), OK_SECOND]), "critiques[0].risk is not a non-empty text"),
    (chair(critiques=[{"target": "B"}, OK_SECOND]), "critiques[0] lacks market, risk, weight, direction"),
    (chair(critiques=[critique_with()]), "1 critiques given; the chair writes 2 or 3"),
    (chair(critiques=[critique_with(), OK_SECOND, critique_with(target="A"), critique_with(target="D")]),
     "4 critiques given; the chair writes 2 or 3"),
    (chair(critiques=[critique_with(), critique_with(risk="again")]),
     "two critiques question B's SPX; one critique per position"),
    (chair(critiques="none"), "critiques is missing or not a list"),
    (chair(council_portfolio={"SPY": 60, "QQQ": 50}), "council_portfolio: weights sum to 110%, more than 100"),
    (chair(council_portfolio={"TLT": 10}), "council_portfolio: unknown fund 'TLT'"),
    (chair(council_portfolio=[40]), "council_portfolio is not an object"),
    ({"critiques": []}, "the reply's JSON object has no council_portfolio"),
])
def test_a_broken_chair_reply_is_refused_with_its_reason(reply: object, failure: str) -> None:
    got = parse_chair(read(reply), letters=LETTERS, markets=MARKETS, funds=FUNDS)
    assert not got.ok
    assert failure in got.failure
    assert got.critiques == () and got.council_portfolio == {}


def test_three_critiques_and_an_all_cash_council_are_accepted() -> None:
    third = critique_with(target="A", market="GOLD", direction="up", weight=0)
    got = parse_chair(read(chair(council_portfolio={}, critiques=[critique_with(), OK_SECOND, third])),
                      letters=LETTERS, markets=MARKETS, funds=FUNDS)
    assert got.ok and len(got.critiques) == 3 and got.council_portfolio == {}


@pytest.mark.parametrize("raw", ["", "no json at all", "{", "[1, 2]", "{" * 5_000, '{"x": 1e999999}'])
def test_the_chair_parser_never_raises(raw: str) -> None:
    got = parse_chair(raw, letters=LETTERS, markets=MARKETS, funds=FUNDS)
    assert not got.ok and got.failure


def test_a_stated_reply_is_read_or_refused() -> None:
    assert parse_reply('```json\n{"portfolio": {"SPY": 30, "QQQ": 70}}\n```', funds=FUNDS).portfolio == {
        "SPY": 30.0, "QQQ": 70.0}
    over = parse_reply('{"portfolio": {"SPY": 60.5, "QQQ": 40}}', funds=FUNDS)  # 100.5 > 100
    assert not over.ok and "weights sum to 100.5%, more than 100 (long-only" in over.failure
    assert "unknown fund 'TLT'" in parse_reply('{"portfolio": {"TLT": 1}}', funds=FUNDS).failure
    assert "no portfolio" in parse_reply('{"weights": {"SPY": 1}}', funds=FUNDS).failure
    assert parse_reply("nothing", funds=FUNDS).failure == "no JSON object found in the reply"
    assert not parse_reply('{"portfolio": {"SPY": -5}}', funds=FUNDS).ok
