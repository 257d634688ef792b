"""The protocol's reader loop, copied verbatim, must hold on every book the project writes."""

from __future__ import annotations

import hashlib
import json
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from book_oracle import ASSETS, READER_LOOP, H, oracle, run_reader_loop, run_reader_loop_isolated
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from league.book import Book, iter_lines
from league.clock import SimulatedClock, iso_seconds
from league.errors import InvalidRecord
from league.verify.chain import verify

ROOT = Path(__file__).resolve().parents[3]
T0 = datetime(2026, 11, 30, 13, 30, tzinfo=UTC)

SPECIAL_STRINGS = [
    "", "\u2028", "\u2029", "a\u2028b\u2029c", "\x85", "\x0b\x0c\x1c\x1d\x1e", "é", "中文", "𝄞", "🎉🎉",
    "\ufeff", "\r\n", "\r", "\n", "\x00", '"', "\\", "/", "\ud7ff\ue000\uffff", "\U0010ffff",
]
SPECIAL_FLOATS = [
    0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
    -1.7976931348623157e308, 1e-300, 1e300, 0.1, 1e16, 1e22, 123456789.12345679, -1.5,
]
text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20) | st.sampled_from(SPECIAL_STRINGS)
long_text = st.integers(1_000, 40_000).map(lambda n: ("é𝄞\u2028x" * n)[:n])
floats = st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from(SPECIAL_FLOATS)
ints = st.integers() | st.sampled_from([0, -1, 2**63, -(2**63) - 1, 10**40])
scalars = st.none() | st.booleans() | ints | floats | text


def nest(value: Any, depth: int, as_list: bool) -> Any:
    for level in range(depth):
        value = [value] if as_list else {f"k{level}": value}
    return value


deep = st.builds(nest, scalars, st.integers(1, 150), st.booleans())
values = st.recursive(
    scalars, lambda kids: st.lists(kids, max_size=4) | st.dictionaries(text, kids, max_size=4), max_leaves=20
)
keys = text.filter(lambda k: k not in ("n", "prev", "seal", "link", "kind", "at"))
contents = st.dictionaries(keys, values | deep | long_text, max_size=6)


def canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False)


def write_book(path: Path, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Append every content with league's Book; return what a reader should find (kind and at added)."""
    expected = []
    with Book(path, SimulatedClock(T0)) as book:
        for content in items:
            book.append("answer", content)
            expected.append({**json.loads(json.dumps(content)), "kind": "answer", "at": iso_seconds(T0)})
    return expected


def test_reader_loop_asset_is_the_protocol_text_verbatim() -> None:
    """The loop under test is the one printed in docs/protocol.md §3 (and in docs/book.md), byte for byte."""
    assert READER_LOOP.startswith("import json, hashlib\nH = lambda o: ")
    assert 'open("council-book.jsonl", encoding="utf-8")' in READER_LOOP
    assert READER_LOOP in (ROOT / "docs" / "book.md").read_text(encoding="utf-8")
    assert READER_LOOP in (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    spec = ROOT.parent / "shared" / "spec" / "protocol.md"
    if spec.exists():  # the spec folder sits beside the work tree on the project's machines
        assert READER_LOOP in spec.read_text(encoding="utf-8")


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
@given(st.lists(contents, min_size=1, max_size=4))
def test_reader_loop_holds_on_property_based_books(items: list[dict[str, Any]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "book.jsonl"
        expected = write_book(path, items)
        data = path.read_bytes()
        held, last_i, exc = run_reader_loop(data, Path(tmp))
        assert held, exc
        assert last_i == len(items)
        assert oracle(data) == (0, "")
        report = verify(path, workers=1)
        assert (report.ok, report.lines) == (True, len(items))
        got = [line.content for line in iter_lines(path)]
        assert [canon(g) for g in got] == [canon(e) for e in expected]


def test_reader_loop_as_a_standalone_isolated_script_on_golden_and_fresh_books(tmp_path: Path) -> None:
    """``python3 -I reader_loop.py`` in a cwd holding council-book.jsonl: no project code involved."""
    fresh = tmp_path / "fresh.jsonl"
    write_book(fresh, [{"x": "\u2028" * 3, "f": [-0.0, 5e-324, 1e308], "deep": nest("𝄞", 100, False)}] * 3)
    for book in (ASSETS / "good.jsonl", ASSETS / "foreign.jsonl", fresh):
        work = tmp_path / book.stem
        work.mkdir()
        done = run_reader_loop_isolated(book, work)
        assert done.returncode == 0, done.stderr
    work = tmp_path / "bad"
    work.mkdir()
    done = run_reader_loop_isolated(ASSETS / "broken-changed-byte.jsonl", work)
    assert done.returncode != 0 and "AssertionError" in done.stderr


def test_line_separator_u2028_is_not_a_line_break_for_either_reader(tmp_path: Path) -> None:
    """str.splitlines() would split at U+2028; the book's line is only ever ended by LF."""
    path = tmp_path / "book.jsonl"
    write_book(path, [{"text": "a\u2028b\u2029c\x85d"}, {"text": "\u2028"}])
    assert path.read_bytes().count(b"\n") == 2
    assert "\u2028".encode() in path.read_bytes()  # written raw (ensure_ascii=False), not escaped
    assert run_reader_loop(path.read_bytes(), tmp_path)[0]
    assert verify(path).lines == 2


@pytest.mark.parametrize(
    "content",
    [
        {"x": float("nan")},
        {"x": float("inf")},
        {"x": [float("-inf")]},
        {"x": "\ud800"},
        {"n": 1},
        {"prev": ""},
        {"seal": "x"},
        {"link": "x"},
        {1: "a", "1": "b"},
        {"x": object()},
        {"x": nest(1, 5000, True)},
    ],
    ids=["nan", "inf", "nested-inf", "lone-surrogate", "n", "prev", "seal", "link", "key-clash", "object", "deep"],
)
def test_content_json_cannot_carry_is_refused_and_nothing_is_written(tmp_path: Path, content: Any) -> None:
    path = tmp_path / "book.jsonl"
    write_book(path, [{"first": 1}])
    before = path.read_bytes()
    with Book(path, SimulatedClock(T0)) as book, pytest.raises(InvalidRecord):
        book.append("answer", content)
    assert path.read_bytes() == before


def test_seal_and_link_follow_the_formula_for_a_hand_computed_line(tmp_path: Path) -> None:
    """One line checked against the formula by hand: seal = H(J(c)), link = H(J(c ∪ {n, prev, seal}))."""
    path = tmp_path / "book.jsonl"
    write_book(path, [{"b": 1.5, "a": "é"}])
    line = json.loads(path.read_bytes())
    content = {"a": "é", "at": "2026-11-30T13:30:00Z", "b": 1.5, "kind": "answer"}
    text = '{"a": "é", "at": "2026-11-30T13:30:00Z", "b": 1.5, "kind": "answer"}'
    assert canon(content) == text
    assert line["seal"] == hashlib.sha256(text.encode("utf-8")).hexdigest() == H(content)
    assert line["link"] == H({**content, "n": 1, "prev": "", "seal": line["seal"]})
