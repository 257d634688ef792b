"""Stored bodies decode to the same values ``json.loads`` gives (league.store.sql.decode_body): msgspec's decoder
first, the standard library for what msgspec refuses; a body that is not an object is a StoreError."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from league.store.interface import StoreError
from league.store.sql import decode_body

_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20)


@given(st.dictionaries(st.text(max_size=12), _values, max_size=6))
def test_any_object_decodes_as_json_loads_does(body: dict[str, object]) -> None:
    for text in (json.dumps(body), json.dumps(body, ensure_ascii=False), json.dumps(body, separators=(",", ":"))):
        assert decode_body(text) == json.loads(text)


@pytest.mark.parametrize("text", [
    '{"a": "\\ud800"}',                       # a lone surrogate: msgspec refuses it
    '{"a": 1e400, "b": -1e400}',              # beyond a double: infinities, as json.loads reads them
    '{"a": 123456789012345678901234567890}',  # beyond 64 bits
    '{"a": 1, "a": 2}',                       # a repeated key: the last one
    '{"a": NaN}',                             # not JSON, but json.loads reads it
])
def test_what_msgspec_refuses_or_reads_otherwise_decodes_as_json_loads_does(text: str) -> None:
    got, want = decode_body(text), json.loads(text)
    assert got.keys() == want.keys()
    for key, value in want.items():
        if isinstance(value, float) and math.isnan(value):
            seen = got[key]
            assert isinstance(seen, float) and math.isnan(seen)
        else:
            assert got[key] == value and type(got[key]) is type(value)


@pytest.mark.parametrize("text", ["[1, 2]", '"text"', "3"])
def test_a_body_that_is_not_an_object_is_a_store_error(text: str) -> None:
    with pytest.raises(StoreError, match="not a JSON object"):
        decode_body(text)


def test_a_body_that_is_not_json_at_all_is_refused() -> None:
    with pytest.raises(ValueError):
        decode_body("{oops")
