"""Reply parsing: the last JSON object counts; nothing is repaired into a forecast."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from league.answers import extract_json, parse_cell, parse_reply

MARKETS = {"SPX": ["1d", "1w"], "BTC": ["1d"]}


def test_fenced_json_after_prose() -> None:
    body = '{"forecast": {"SPX": {"1d": {"prob_up": 61, "action": "hold"}}}}'
    raw = 'I think {"not": "this"} and then\n```json\n' + body + '\n```'
    p = parse_reply(raw, MARKETS)
    assert p.ok
    assert p.items["SPX"]["1d"].prob_up == 61.0
    assert p.items["SPX"]["1d"].cell_status == "elicited"


def test_statuses_explicit_50_and_invalid() -> None:
    raw = json.dumps({"forecast": {"SPX": {"1d": {"prob_up": 50}, "1w": {"prob_up": 140}}}})
    p = parse_reply(raw, MARKETS)
    assert p.items["SPX"]["1d"].cell_status == "explicit_50"
    assert p.items["SPX"]["1w"].cell_status == "invalid"
    assert p.items["SPX"]["1w"].prob_up is None


def test_unknown_market_and_horizon_are_notes_not_cells() -> None:
    raw = json.dumps({"forecast": {"XYZ": {"1d": {"prob_up": 70}},
                                   "SPX": {"9y": {"prob_up": 1}, "1d": {"prob_up": 3}}}})
    p = parse_reply(raw, MARKETS)
    assert set(p.items) == {"SPX"} and set(p.items["SPX"]) == {"1d"}
    assert any("XYZ" in n for n in p.notes) and any("9y" in n for n in p.notes)


def test_malformed_reply_is_refused_with_reason() -> None:
    p = parse_reply("Markets look frothy. {\"forecast\": {\"SPX\": {\"1d\": {\"prob_up\": 6", MARKETS)
    assert not p.ok and p.failure
    assert parse_reply('{"answer": 3}', MARKETS).failure.startswith("the reply's JSON object has no")


def test_word_outside_the_list_is_kept_as_action_word() -> None:
    cell = parse_cell({"prob_up": 55, "action": "YOLO"})
    assert cell is not None and cell.action == "" and cell.action_word == "YOLO"


@given(st.text(max_size=300))
def test_parser_never_raises(text: str) -> None:
    parse_reply(text, MARKETS)
    extract_json(text)


@given(st.floats(min_value=1, max_value=100, allow_nan=False) | st.just(0.0))
def test_any_probability_in_range_round_trips(p: float) -> None:
    """(A lone prob_up strictly between 0 and 1 is the 0-1 scale: see test_answers_hostile.py.)"""
    parsed = parse_reply(json.dumps({"forecast": {"BTC": {"1d": {"prob_up": p}}}}), MARKETS)
    assert parsed.items["BTC"]["1d"].prob_up == p


def test_an_empty_forecast_is_an_answer_with_every_cell_missing() -> None:
    p = parse_reply('{"forecast": {}}', MARKETS)
    assert p.ok and p.items == {} and p.notes
