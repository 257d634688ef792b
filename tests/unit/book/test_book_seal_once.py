"""The one-encoding seal (chain._seal_once) gives exactly what the step-by-step path gives.

The step-by-step path is the formula of docs/protocol.md §3 as first written: normalise the content
through JSON, seal = H(J(c)), link = H(J(c ∪ {n, prev, seal})), the line = compact sorted JSON of it
all, the index's body = compact sorted JSON of the content. Every case here is sealed both ways.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from league.book import Book, BookLine, chain
from league.clock import SimulatedClock
from league.verify.chain import verify

CLOCK = SimulatedClock(datetime(2026, 11, 30, 13, 30, tzinfo=UTC))


def step_by_step(content: dict[str, Any], n: int, prev: str) -> tuple[dict[str, Any], str, str, bytes, str]:
    body = chain._normalise(content)
    seal = chain.seal_of(body)
    link = chain.link_of(body, n, prev, seal)
    whole = {**body, "n": n, "prev": prev, "seal": seal, "link": link}
    line = json.dumps(whole, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
    return body, seal, link, line, json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def both_ways(content: dict[str, Any], n: int = 7, prev: str = "ab" * 32) -> chain._Sealed:
    once = chain._seal_once(content, n, prev)
    assert once is not None
    body, seal, link, line, body_json = step_by_step(content, n, prev)
    assert (once.seal, once.link, once.line, once.content_json) == (seal, link, line, body_json)
    assert once.body == body and list(once.body) == list(body)  # equal, and the same key order
    assert json.dumps(once.body, ensure_ascii=False) == json.dumps(body, ensure_ascii=False)  # nested order too
    return once


@pytest.mark.parametrize("content", [
    {},
    {"a": 1},
    {"z": 1, "a": {"y": [1, 2.5, -0.0, 1e300, 5e-324], "b": None}, "m": True, "k": False},
    {"é": "ü", "text": "line\u2028sep \"quoted\" \\ back\tslash \x00", "emoji": "\U0001f600"},
    {"n0": 0, "nest": [[[]], [{}], {"x": [{"q": "r"}]}], "big": 10**30, "neg": -(10**20)},
    {"kind": "answer", "at": "2026-11-30T13:30:00Z", "items": {"ES": {"1d": {"prob_up": 0.61, "action": "buy"}}}},
    {"key with space": 1, "Key": 2, "key": 3, "_k": 4, "k1": 5, "k10": 6, "k9": 7},  # code point order
    {"a": {"b": {"é": 1, "e": 2, "z": 3, "A": 4}}},
], ids=["empty", "one", "mixed", "unicode", "nested", "answer-like", "key-order", "nested-keys"])
def test_one_encoding_equals_the_step_by_step_seal(content: dict[str, Any]) -> None:
    both_ways(content)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=8).filter(lambda k: k not in chain.BOOKKEEPING), JSON, max_size=8),
       st.integers(min_value=1, max_value=10**9), st.text(alphabet="0123456789abcdef", max_size=64))
def test_one_encoding_equals_the_step_by_step_seal_for_any_json(content: dict[str, Any], n: int, prev: str) -> None:
    try:
        step_by_step(content, n, prev)
    except Exception:  # noqa: BLE001 - what JSON cannot carry (a lone surrogate): both refuse
        assert chain._seal_once(content, n, prev) is None
        return
    both_ways(content, n, prev)


@pytest.mark.parametrize("content", [
    {"a": {9: "nine", 10: "ten"}},  # an int key sorts as a number, its JSON string does not
    {"a": (1, 2)},  # a tuple: written as a list, read back as one
    {"a": {1: "x"}},
    {"a": 1.5, "b": [float("nan")]},
    {"x": "\ud800"},
    {"x": object()},
    {"n": 1},
])
def test_content_that_is_not_plain_json_takes_the_step_by_step_path(content: dict[str, Any]) -> None:
    assert chain._seal_once(content, 1, "") is None


def test_a_book_sealed_with_int_keys_and_tuples_still_verifies_and_reads_back_as_json(tmp_path: Path) -> None:
    path = tmp_path / "book.jsonl"
    with Book(path, CLOCK) as book:
        line = book.append("answer", {"a": {9: "nine", 10: "ten"}, "t": (1, 2)})
        plain = book.append("answer", {"a": {"9": "nine", "10": "ten"}, "t": [1, 2]})
    assert line.content["a"] == {"9": "nine", "10": "ten"} and line.content["t"] == [1, 2]
    assert plain.to_bytes().split(b'"link"')[0] != b""  # both written
    assert verify(path).lines == 2
    reread = [BookLine.parse(raw) for raw in path.read_bytes().splitlines()]
    assert [r.content for r in reread] == [line.content, plain.content]
    assert [r.to_bytes() for r in reread] == path.read_bytes().splitlines(keepends=True)
    assert [r.content_json() for r in reread] == [line.content_json(), plain.content_json()]


def test_a_sealed_line_keeps_the_bytes_it_wrote_and_the_index_body(tmp_path: Path) -> None:
    path = tmp_path / "book.jsonl"
    with Book(path, CLOCK) as book:
        line = book.append("run", {"session": "2026-11-30", "roster": ["b", "a"], "events": {"z": {}, "a": {"x": 1}}})
    reread = BookLine.parse(path.read_bytes())
    assert "_bytes" in line.__dict__ and "_content_json" in line.__dict__
    assert line.to_bytes() == path.read_bytes() == reread.to_bytes()
    assert line.content_json() == reread.content_json()
    assert line == reread


def test_a_line_the_verifier_accepted_is_the_line_the_checking_constructor_builds() -> None:
    """BookLine.checked (after check_line) skips the second hashing; it must build the same line, and
    iter_lines must still refuse what check_line refuses (the tamper tests cover the refusals)."""
    from book_oracle import ASSETS

    from league.book import iter_lines

    path = ASSETS / "good.jsonl"
    read = list(iter_lines(path))
    assert read and read == [BookLine.parse(raw) for raw in path.read_bytes().splitlines()]
    obj = json.loads(path.read_bytes().splitlines()[0])
    obj["seal"] = "0" * 64
    with pytest.raises(chain.InvalidRecord):
        BookLine.parse(json.dumps(obj))  # the ordinary constructor still checks
    assert BookLine.checked(obj).seal == "0" * 64  # checked trusts its caller: only after check_line
