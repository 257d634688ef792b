"""The account block's JSON: ``indented_json`` writes what ``json.dumps(…, sort_keys=True, indent=1)``
writes, character for character, on generated values and on the shapes a seat's paper account takes."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from league.asks import account_block, indented_json

SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                      | st.dictionaries(st.text(max_size=8), inner, max_size=5), max_leaves=40)


def reference(value: Any) -> str:
    return json.dumps(value, sort_keys=True, indent=1)


@settings(max_examples=400, deadline=None)
@given(VALUES)
def test_generated_values_encode_as_json_dumps_does(value: Any) -> None:
    assert indented_json(value) == reference(value)


@given(st.dictionaries(st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False), SCALARS, max_size=4))
def test_keys_that_are_not_strings_are_left_to_json_dumps(value: dict[Any, Any]) -> None:
    try:
        expected = reference(value)
    except TypeError:  # mixed key types json.dumps cannot sort: the same error either way
        return
    assert indented_json(value) == expected


class Shares(int):
    def __repr__(self) -> str:
        return "shares"


def test_edge_values_and_a_paper_account() -> None:
    account = {"paper": {"as_of": "2026-06-01", "cash": 12345.678, "value": 1e20, "bills": {}, "flag": True,
                         "positions": [{"market": "SPX", "qty": -0.0, "entry": 5012.25, "note": "héllo \u2028 \"q\""},
                                       {"market": "BTC", "qty": Shares(3), "entry": None, "held": []}]},
               "crowd": {"as_of": "2026-06-01", "positions": (), "nan": float("nan"), "inf": float("-inf")}}
    assert indented_json(account) == reference(account)
    assert account_block("s1", account).count(reference(account)) == 1
    assert account_block("s1", None) == account_block("s1", {})
