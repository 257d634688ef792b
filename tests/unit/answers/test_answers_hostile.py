"""Hostile replies (docs/hostile-inputs.md): bounded work, no exception,
a reason for every refusal, and nothing the book cannot carry."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from league.answers import MAX_NOTES, MAX_PARSE_CHARS, find_json, json_safe, parse_reply
from league.book import canonical

MARKETS = {"SPX": ["1d", "1w"], "BTC": ["1d"]}
HOSTILE_CHARS = [*'{}[]":,\\0123456789.e-', "\ud800", "\udc80", "\udfff", "\x00", "`"]
GOOD = '{"forecast": {"SPX": {"1d": {"prob_up": 61, "action": "hold"}}}}'


def sealable(parsed: object) -> None:
    """What the answer line carries from a parse must encode as the book's canonical JSON."""
    p = parsed
    canonical({"items": p.items_json(), "years": p.years, "notes": list(p.notes), "failure": p.failure})  # type: ignore[attr-defined]


def test_the_issue_repro_deep_risk_does_not_raise() -> None:
    raw = '{"forecast":{"SPX":{"1d":{"prob_up":5,"risk":' + "[" * 100000 + "]" * 100000 + "}}}}"
    p = parse_reply(raw, {"SPX": ["1d"]})
    assert not p.ok and p.failure
    sealable(p)


def test_nesting_deep_but_parseable_is_shown_bounded() -> None:
    risk = "[" * 500 + "]" * 500
    p = parse_reply('{"forecast":{"SPX":{"1d":{"prob_up":55,"risk":' + risk + ',"action":' + risk + "}}}}", MARKETS)
    assert p.ok
    cell = p.items["SPX"]["1d"]
    assert cell.prob_up == 55 and len(cell.risk) <= 500 and len(cell.action_word) <= 100
    sealable(p)


def test_lone_surrogates_become_visible_escapes() -> None:
    raw = ('{"forecast": {"SPX": {"1d": {"prob_up": 61, "risk": "a\\ud800b", "action": "\\udfff",'
           ' "source_urls": ["\\ud83d"]}, "years": "\\udc80"}, "\\ud800X": {}}}')
    p = parse_reply(raw, MARKETS)
    cell = p.items["SPX"]["1d"]
    assert cell.risk == "a\\ud800b" and cell.action_word == "\\udfff" and cell.source_urls == ("\\ud83d",)
    assert p.years["SPX"] == "\\udc80"
    sealable(p)
    # the same characters arriving as text (a CLI's JSON envelope decoded them) are treated alike
    p2 = parse_reply('{"forecast": {"SPX": {"1d": {"prob_up": 61, "risk": "a\ud800b"}}}}', MARKETS)
    assert p2.items["SPX"]["1d"].risk == "a\\ud800b"
    sealable(p2)


def test_json_comes_last_so_the_tail_is_parsed() -> None:
    """A 3 MB reply used to be cut to its first 2,000,000 characters and refused."""
    p = parse_reply("x" * 3_000_000 + GOOD, MARKETS)
    assert p.ok and p.items["SPX"]["1d"].prob_up == 61


def test_longer_than_the_cap_parses_the_tail_and_says_so() -> None:
    p = parse_reply("y" * (MAX_PARSE_CHARS + 10) + GOOD, MARKETS)
    assert p.ok and any("only its last" in n for n in p.notes)


def test_zero_one_scale_is_refused_not_rescaled() -> None:
    raw = json.dumps({"forecast": {"SPX": {"1d": {"prob_up": 0.57}, "1w": {"prob_up": 0.61}},
                                   "BTC": {"1d": {"prob_up": 1}}}})
    p = parse_reply(raw, MARKETS)
    assert not p.ok and "0-1 scale" in p.failure and "nothing was rescaled" in p.failure


def test_one_fractional_cell_among_percent_cells_is_flagged() -> None:
    raw = json.dumps({"forecast": {"SPX": {"1d": {"prob_up": 0.57}, "1w": {"prob_up": 61}}}})
    p = parse_reply(raw, MARKETS)
    assert p.ok and p.items["SPX"]["1d"].prob_up == 0.57
    assert any("SPX 1d: prob_up 0.57 is below 1" in n for n in p.notes)


def test_integer_edges_are_percent() -> None:
    p = parse_reply(json.dumps({"forecast": {"SPX": {"1d": {"prob_up": 0}, "1w": {"prob_up": 1}}}}), MARKETS)
    assert p.ok and p.items["SPX"]["1w"].prob_up == 1


def test_work_cap_refuses_a_reply_of_failing_deep_objects() -> None:
    p = parse_reply('{"a":' * 400_000 + GOOD, MARKETS)
    assert not p.ok and "work cap" in p.failure


def test_huge_numbers_and_non_finite_values_are_invalid_cells() -> None:
    raw = '{"forecast": {"SPX": {"1d": {"prob_up": 1' + "0" * 400 + '}, "1w": {"prob_up": "1e999"}}}}'
    p = parse_reply(raw, MARKETS)
    assert p.items["SPX"]["1d"].cell_status == "invalid" and p.items["SPX"]["1w"].cell_status == "invalid"
    digits = '{"forecast": {"SPX": {"1d": {"prob_up": 1' + "0" * 5000 + "}}}}"  # beyond int parsing limits
    assert not parse_reply(digits, MARKETS).ok


def test_notes_are_capped() -> None:
    raw = json.dumps({"forecast": {f"X{i}": {} for i in range(500)}})
    p = parse_reply(raw, MARKETS)
    assert len(p.notes) == MAX_NOTES + 1 and "more notes" in p.notes[-1]


def test_json_safe_bounds_whatever_a_seat_reports() -> None:
    usage = {"nan": float("nan"), "deep": json.loads("[" * 50 + "]" * 50), "\ud800": "\udfff", "big": 10**30,
             "many": list(range(1000))}
    safe = json_safe(usage)
    canonical(safe)
    assert safe["nan"] is None and safe["\\ud800"] == "\\udfff" and len(safe["many"]) == 201


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.characters(codec=None, categories=None) | st.sampled_from(HOSTILE_CHARS), max_size=400)
       | st.binary(max_size=400).map(lambda b: b.decode("utf-8", "surrogateescape")))
def test_fuzz_any_text_parses_and_is_sealable(text: str) -> None:
    """Arbitrary text, lone surrogates included, and arbitrary bytes decoded as a seat's output would be."""
    for raw in (text, GOOD[:-2] + text, "```json\n" + text + "\n```", '{"forecast": {"SPX": {"1d": ' + text):
        sealable(parse_reply(raw, MARKETS))
        find_json(raw)


@pytest.mark.parametrize("depth", [10, 999, 1000, 5000])
def test_depth_around_the_recursion_limit(depth: int) -> None:
    sealable(parse_reply("{" * depth + GOOD, MARKETS))
    sealable(parse_reply('{"forecast": {"SPX": {"1d": {"prob_up": 40, "risk": ' + "{\"a\":" * depth + "1"
                         + "}" * depth + "}}}}", MARKETS))
