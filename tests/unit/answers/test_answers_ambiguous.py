"""Ambiguous replies are sealed as such (docs/answer-format.md "Ambiguous replies"): a key the parser
reads given twice with different values, or two different answer objects, is refused_shape; the same
value twice is read once with a note; keys repeated elsewhere are noted; a reply of 0s and 1s is read
on the 0-100 scale with a note."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from league.answers import CELL_KEYS, find_json, parse_reply, same_value

MARKETS = {"SPX": ["1d", "1w"], "BTC": ["1d"]}


def repeat_notes(notes: tuple[str, ...]) -> list[str]:
    return [n for n in notes if " is given " in n or "keys are repeated" in n]


# -- a key given twice -------------------------------------------------------------------------------------

# (where, reply with the key given twice: different values, the same value twice)
REPEATED = [
    ("cell prob_up", '{"forecast":{"SPX":{"1d":{"prob_up":10,"prob_up":90}}}}',
     '{"forecast":{"SPX":{"1d":{"prob_up":10,"prob_up":10}}}}', 'SPX 1d "prob_up" is given 2 times'),
    ("cell action", '{"forecast":{"SPX":{"1d":{"prob_up":60,"action":"buy_strong","action":"sell"}}}}',
     '{"forecast":{"SPX":{"1d":{"prob_up":60,"action":"hold","action":"hold"}}}}', 'SPX 1d "action" is given 2 times'),
    ("market", '{"forecast":{"SPX":{"1d":{"prob_up":10}},"SPX":{"1d":{"prob_up":90}}}}',
     '{"forecast":{"SPX":{"1d":{"prob_up":10}},"SPX":{"1d":{"prob_up":10}}}}', 'forecast "SPX" is given 2 times'),
    ("horizon", '{"forecast":{"SPX":{"1d":{"prob_up":10},"1d":{"prob_up":90}}}}',
     '{"forecast":{"SPX":{"1d":{"prob_up":10},"1d":{"prob_up":10}}}}', 'SPX "1d" is given 2 times'),
    ("years", '{"forecast":{"SPX":{"1d":{"prob_up":60},"years":"up","years":"down"}}}',
     '{"forecast":{"SPX":{"1d":{"prob_up":60},"years":"up","years":"up"}}}', 'SPX "years" is given 2 times'),
    ("forecast", '{"forecast":{"SPX":{"1d":{"prob_up":10}}},"forecast":{"SPX":{"1d":{"prob_up":90}}}}',
     '{"forecast":{"SPX":{"1d":{"prob_up":10}}},"forecast":{"SPX":{"1d":{"prob_up":10}}}}',
     '"forecast" is given 2 times'),
]


@pytest.mark.parametrize(("where", "different", "same", "says"), REPEATED, ids=[r[0] for r in REPEATED])
def test_a_key_given_twice_with_different_values_is_refused(where: str, different: str, same: str, says: str) -> None:
    """Before: the last value won silently (prob_up 90, action sell...)."""
    p = parse_reply(different, MARKETS)
    assert not p.ok and p.items == {}
    assert p.failure.startswith(says + " with different values")
    assert "none was taken" in p.failure


@pytest.mark.parametrize(("where", "different", "same", "says"), REPEATED, ids=[r[0] for r in REPEATED])
def test_a_key_given_twice_with_the_same_value_is_read_once_with_a_note(where: str, different: str, same: str,
                                                                        says: str) -> None:
    p = parse_reply(same, MARKETS)
    assert p.ok and p.items["SPX"]["1d"].prob_up in (10, 60)
    assert [n for n in p.notes if n.startswith(says + ", each time the same")] and "read once" in p.notes[0]


def test_the_same_number_written_two_ways_is_the_same_value() -> None:
    p = parse_reply('{"forecast":{"SPX":{"1d":{"prob_up":10,"prob_up":10.0}}}}', MARKETS)
    assert p.ok and p.items["SPX"]["1d"].prob_up == 10
    assert p.notes == ('SPX 1d "prob_up" is given 2 times, each time the same (10); read once',)
    assert not parse_reply('{"forecast":{"SPX":{"1d":{"prob_up":1,"prob_up":true}}}}', MARKETS).ok


def test_three_values_and_several_conflicts_are_all_counted() -> None:
    raw = ('{"forecast":{"SPX":{"1d":{"prob_up":10,"prob_up":50,"prob_up":90},'
           '"1w":{"prob_up":1,"prob_up":2}}}}')
    p = parse_reply(raw, MARKETS)
    assert not p.ok
    assert p.failure.startswith('SPX 1d "prob_up" is given 3 times with different values (10, 50, 90)')
    assert p.failure.endswith("(1 more keys repeat with different values)")


def test_keys_repeated_where_nothing_is_read_are_noted_not_refused() -> None:
    raw = ('{"comment":"a","comment":"b","forecast":{"XYZ":{"1d":1,"1d":2},'
           '"SPX":{"9y":{"prob_up":1},"9y":{"prob_up":2},"1d":{"prob_up":61,"mood":"x","mood":"y"}}}}')
    p = parse_reply(raw, MARKETS)
    assert p.ok and p.items["SPX"]["1d"].prob_up == 61
    assert "4 keys are repeated where the parser reads nothing ('comment', '9y', 'mood', '1d'); ignored" in p.notes


def test_a_key_repeated_inside_an_unasked_market_does_not_refuse_the_asked_ones() -> None:
    p = parse_reply('{"forecast":{"BTC":{"1d":{"prob_up":70}},"NDX":{"1d":{"prob_up":1,"prob_up":99}}}}', MARKETS)
    assert p.ok and p.items["BTC"]["1d"].prob_up == 70
    assert any("keys are repeated where the parser reads nothing ('prob_up')" in n for n in p.notes)


def test_a_repeated_key_in_a_fenced_answer_is_seen() -> None:
    raw = 'Here.\n```json\n{"forecast": {"SPX": {"1d": {"prob_up": 10, "prob_up": 90}}}}\n```\n'
    assert not parse_reply(raw, MARKETS).ok


# -- two answer objects ------------------------------------------------------------------------------------

A10 = '{"forecast": {"SPX": {"1d": {"prob_up": 10}}}}'
A90 = '{"forecast": {"SPX": {"1d": {"prob_up": 90}}}}'


@pytest.mark.parametrize("raw", [
    f"Draft: {A10}\nFinal: {A90}",
    f"```json\n{A10}\n```\nOn second thought: {A90}",  # the fenced one used to win here, the later one nowhere
    f"{A10}\n```json\n{A90}\n```",
    f"```json\n{A10}\n```\n```json\n{A90}\n```",
], ids=["prose", "fence-then-prose", "prose-then-fence", "two-fences"])
def test_two_different_answer_objects_are_refused(raw: str) -> None:
    """Before: one of them won silently (the last, or the last fenced one)."""
    p = parse_reply(raw, MARKETS)
    assert not p.ok and p.items == {}
    assert p.failure.startswith("the reply holds 2 answer objects (JSON objects with a `forecast`) that differ")


def test_the_same_answer_object_twice_is_read_once_with_a_note() -> None:
    p = parse_reply(f"```json\n{A10}\n```\nAgain: {json.dumps(json.loads(A10), indent=2)}", MARKETS)
    assert p.ok and p.items["SPX"]["1d"].prob_up == 10
    assert p.notes == ("the reply holds 2 answer objects (JSON objects with a `forecast`), all the same; read once",)


def test_objects_without_a_forecast_do_not_count_as_answers() -> None:
    p = parse_reply('I think {"not": "this"} and {"x": {"forecast": 3}}\n' + A10, MARKETS)
    assert p.ok and p.notes == ()


def test_find_json_still_prefers_the_last_fenced_object() -> None:
    """The portfolio reads the reply's object through find_json: which object it is has not changed."""
    obj, why = find_json(f'```json\n{A10}\n```\n{{"later": 1}}')
    assert obj == {"forecast": {"SPX": {"1d": {"prob_up": 10}}}} and why == ""


def test_work_cap_after_a_fenced_answer_is_refused_with_its_reason() -> None:
    p = parse_reply("```json\n" + A10 + "\n```\n" + '{"a":' * 400_000, MARKETS)
    assert not p.ok
    assert p.failure.startswith("an answer object was found, but the rest of the reply could not be searched")


# -- a reply of 0s and 1s ----------------------------------------------------------------------------------

def test_a_lone_one_is_read_as_one_percent_with_a_note() -> None:
    """Before: read as 1 % with no note, though on a 0-1 scale it would mean certainty."""
    p = parse_reply('{"forecast": {"SPX": {"1d": {"prob_up": 1}}}}', MARKETS)
    assert p.ok and p.items["SPX"]["1d"].prob_up == 1
    assert p.notes == ("every prob_up is 0 or 1 (1 cells; 1 in SPX 1d): read on the 0-100 scale, so 1 is 1%, not "
                       "certainty (a reply is refused as a 0-1 scale only when a prob_up lies strictly between 0 "
                       "and 1); nothing was rescaled",)


def test_zeros_and_ones_name_every_one() -> None:
    p = parse_reply('{"forecast": {"SPX": {"1d": {"prob_up": 0}, "1w": {"prob_up": 1.0}}, '
                    '"BTC": {"1d": {"prob_up": "1%"}}}}', MARKETS)
    assert p.ok and any(n.startswith("every prob_up is 0 or 1 (3 cells; 1 in SPX 1w, BTC 1d)") for n in p.notes)


@pytest.mark.parametrize("probs", [(0,), (0, 0), (1, 57), (0, 100)])
def test_no_scale_note_where_the_scale_is_not_in_doubt(probs: tuple[int, ...]) -> None:
    """0 is 0 % on either scale; a 1 beside a 57 is on the 57's scale."""
    cells = dict(zip(["1d", "1w"], ({"prob_up": v} for v in probs), strict=False))
    p = parse_reply(json.dumps({"forecast": {"SPX": cells}}), MARKETS)
    assert p.ok and not [n for n in p.notes if "0 or 1" in n]


def test_same_value() -> None:
    assert same_value({"a": [1, 2.0]}, {"a": [1.0, 2]}) and same_value({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert not same_value(True, 1) and not same_value(None, 0) and not same_value("1", 1)
    assert not same_value([1], [1, 1]) and not same_value({"a": 1}, {"a": 1, "b": 1})
    deep: Any = 1
    for _ in range(3000):
        deep = [deep]
    assert not same_value(deep, deep)  # too deep to compare: the same as nothing


# -- fuzz: a generated reply with a repeated key is never answered silently ----------------------------------

@dataclass(frozen=True)
class Obj:
    """A JSON object as written: its pairs in order, a key possibly more than once."""

    pairs: tuple[tuple[str, Any], ...]


def dump(node: Any) -> str:
    if isinstance(node, Obj):
        return "{" + ", ".join(f"{json.dumps(k)}: {dump(v)}" for k, v in node.pairs) + "}"
    return json.dumps(node)


leaves = (st.none() | st.booleans() | st.integers(-5, 150) | st.floats(0, 100) | st.sampled_from(["hold", "x", ""])
          | st.text(max_size=4))
cells = st.lists(st.tuples(st.sampled_from(sorted(CELL_KEYS) + ["mood"]), leaves), max_size=4).map(
    lambda p: Obj(tuple(p)))
bodies = st.lists(st.tuples(st.sampled_from(["1d", "1w", "1m", "years"]), cells | leaves), max_size=3).map(
    lambda p: Obj(tuple(p)))
forecasts = st.lists(st.tuples(st.sampled_from(["SPX", "BTC", "XYZ"]), bodies), max_size=3).map(
    lambda p: Obj(tuple(p)))
tops = st.tuples(forecasts, st.lists(st.tuples(st.sampled_from(["note", "forecast"]), leaves), max_size=2)).map(
    lambda t: Obj((("forecast", t[0]), *t[1])))


def objects(node: Any, path: tuple[int, ...] = ()) -> list[tuple[int, ...]]:
    """Where every object of the tree is (a path of pair indices)."""
    if not isinstance(node, Obj):
        return []
    return [path, *(p for k, (_, v) in enumerate(node.pairs) for p in objects(v, (*path, k)))]


def with_repeat(node: Obj, path: tuple[int, ...], pick: int, value: Any) -> Obj:
    """The tree with, in the object at ``path``, its pair ``pick`` given again (with ``value``) at the end."""
    if not path:
        key = node.pairs[pick][0]
        return Obj((*node.pairs, (key, value)))
    k, rest = path[0], path[1:]
    key, child = node.pairs[k]
    return Obj((*node.pairs[:k], (key, with_repeat(child, rest, pick, value)), *node.pairs[k + 1:]))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=tops, data=st.data())
def test_fuzz_a_repeated_key_is_never_answered_without_a_note(tree: Obj, data: st.DataObject) -> None:
    candidates = [p for p in objects(tree) if _at(tree, p).pairs]
    path = data.draw(st.sampled_from(candidates))
    target = _at(tree, path)
    pick = data.draw(st.integers(0, len(target.pairs) - 1))
    same = data.draw(st.booleans())
    value = target.pairs[pick][1] if same else data.draw(cells | leaves)
    raw = data.draw(st.sampled_from(["{}", "Here:\n```json\n{}\n```\n"])).replace("{}", dump(with_repeat(tree, path,
                                                                                                         pick, value)))
    p = parse_reply(raw, MARKETS)
    assert not p.ok or repeat_notes(p.notes), (raw, p)


def _at(node: Obj, path: tuple[int, ...]) -> Obj:
    for k in path:
        node = node.pairs[k][1]
    return node
