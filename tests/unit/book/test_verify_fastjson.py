"""The fast path of verify (league/verify/fastjson.py) gives the reader loop's hashes or nothing.

Its promise: whenever ``canonical_hashes(row)`` returns, the line is what ``json.loads`` reads and the
two hashes are those of the protocol's formula over it, whatever the line claims. The properties
below draw lines in several spellings (the book's, orjson's, ASCII-escaped) with honest seals and
with seals forged over orjson's layout (what a careless fast path would compute), and compare with
the formula computed by the standard library. The premises the module's proof rests on (orjson
spells strings, ints and floats outside the guarded band as ``json.dumps`` does) are tested on
their own, and whole books with forged lines must get the reader loop's verdict.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path
from typing import Any
from unittest import mock

import msgspec
import orjson
import pytest
from book_oracle import ASSETS, H, oracle, reason_class, run_reader_loop
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from league.book.chain import BookLine
from league.verify import fastjson
from league.verify.chain import VerifyReport, verify

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PREV = "ab" * 32
SPECIAL_FLOATS = [
    0.0, -0.0, 5e-324, -5e-324, 1e-320, 2.2250738585072014e-308, 1.7976931348623157e308, 1e-300, 1e300,
    1e-10, 1.5e-10, 9.999999999999999e-10, 1e-9, 1e-7, 1e-6, 1e-5, 9.999999999999999e-05, 1e-4, 0.00015,
    0.1, 1.0, 1e15, 999999999999999.9, 1e16, 1.5e16, 1e22, 2.0**53, 2.0**53 + 2, 123456789.12345679,
]
SPECIAL_INTS = [0, -1, 2**53 + 1, 2**63 - 1, -(2**63), 2**63, 2**64 - 1, 2**64, -(2**63) - 1, 10**40]
SPECIAL_STRINGS = [
    "", "\u2028\u2029", "\x85", "\x00\x1f\x7f", "\b\f\n\r\t", '"', "\\", "/", "é", "中文", "𝄞🎉",
    "\ufeff", "\U0010ffff", '"n": 1', '"link": "x"', "0.0000", "e-7", "2026-01-02T14:30:00Z", "a, b: c",
]
text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12) | st.sampled_from(SPECIAL_STRINGS)
floats = st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from(SPECIAL_FLOATS)
ints = st.integers() | st.sampled_from(SPECIAL_INTS)
scalars = st.none() | st.booleans() | ints | floats | text
values = st.recursive(
    scalars, lambda kids: st.lists(kids, max_size=4) | st.dictionaries(text, kids, max_size=4), max_leaves=24
)
# content keys, the bookkeeping names allowed only nested (a top-level one is not content)
keys = text.filter(lambda k: k not in ("n", "prev", "seal", "link"))
contents = st.dictionaries(keys, values, max_size=8)


def python_compact(x: Any) -> bytes:
    """The book's spelling (what Book.append writes)."""
    return json.dumps(x, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


def orjson_compact(x: Any) -> bytes:
    return orjson.dumps(x, option=orjson.OPT_SORT_KEYS)


def ascii_compact(x: Any) -> bytes:
    return json.dumps(x, sort_keys=True, separators=(",", ":")).encode()


SPELLINGS = {"python": python_compact, "orjson": orjson_compact, "ascii": ascii_compact}


def layout_hash(spelled: bytes) -> str:
    """What a fast path that trusted the line's own spelling would hash (the forgery's seal)."""
    return hashlib.sha256(msgspec.json.format(spelled, indent=0)).hexdigest()


def make_line(content: dict[str, Any], n: int, prev: str, spell: str, forged: bool) -> bytes | None:
    """One line in the given spelling, sealed by the formula or forged over orjson's layout."""
    write = SPELLINGS[spell]
    x: dict[str, Any] = {**content, "n": n, "prev": prev}
    try:
        x["seal"] = layout_hash(orjson_compact(content)) if forged else H(content)
        x["link"] = layout_hash(orjson_compact(x)) if forged else H(x)
        return write(x)
    except (TypeError, ValueError, orjson.JSONEncodeError):  # a value that spelling cannot write
        return None


def assert_formula_or_nothing(row: bytes) -> bool:
    """The module's promise for one line; True when the fast path took it."""
    got = fastjson.canonical_hashes(row)
    if got is None:
        return False
    x, seal_h, link_h = got
    expected = json.loads(row.decode("utf-8"))
    assert x == expected and repr(x) == repr(expected)  # repr: -0.0 vs 0.0, 1 vs 1.0, True vs 1
    assert seal_h == H({k: v for k, v in expected.items() if k not in ("seal", "link", "prev", "n")})
    assert link_h == H({k: v for k, v in expected.items() if k != "link"})
    return True


@SETTINGS
@given(contents, st.integers(1, 10**6), st.sampled_from(sorted(SPELLINGS)), st.booleans())
def test_fast_path_gives_the_formula_or_nothing(content: dict[str, Any], n: int, spell: str, forged: bool) -> None:
    row = make_line(content, n, PREV, spell, forged)
    if row is not None:
        assert_formula_or_nothing(row)


@SETTINGS
@given(contents)
def test_the_books_own_lines_take_the_fast_path_unless_a_float_is_in_the_band(content: dict[str, Any]) -> None:
    """What Book.append writes is canonical for orjson; only refused are ints beyond 64 bits (orjson
    reads them as floats), floats orjson spells otherwise, and lines too deep or with a repeated
    bookkeeping item."""
    row = BookLine.seal_new(content, 3, PREV).to_bytes()[:-1]
    taken = assert_formula_or_nothing(row)
    spelled_alike = python_compact(json.loads(row)) == _orjson_or_none(json.loads(row))
    if spelled_alike and fastjson._plain(row) and not _bookkeeping_repeated(row):
        assert taken


def _orjson_or_none(x: Any) -> bytes | None:
    try:
        return orjson_compact(x)
    except orjson.JSONEncodeError:
        return None


def _bookkeeping_repeated(row: bytes) -> bool:
    text = msgspec.json.format(row, indent=0)
    x = json.loads(row)
    return any(text.count(f'"{k}": '.encode() + orjson.dumps(x[k])) > 1 for k in ("link", "n", "prev", "seal"))


@settings(max_examples=3000, deadline=None)
@given(floats)
def test_orjson_spells_every_float_outside_the_guarded_band_as_json_dumps(value: float) -> None:
    spelled = orjson.dumps(value)
    if not (fastjson._FLOAT_BAND.search(spelled) or fastjson._FIXED_BAND.search(spelled)):
        assert spelled == json.dumps(value).encode()
    assert json.loads(spelled) == value  # and reads back to the same double either way


def test_float_spellings_at_every_decimal_exponent() -> None:
    """Both sides of every boundary of repr()'s and orjson's layouts, at every exponent."""
    for exponent in range(-324, 309):
        for mantissa in ("1", "1.5", "9.999999999999999", "5", "1.2345678901234567"):
            value = float(f"{mantissa}e{exponent}")
            if value in (0.0, float("inf")):
                continue
            spelled = orjson.dumps(value)
            guarded = fastjson._FLOAT_BAND.search(spelled) or fastjson._FIXED_BAND.search(spelled)
            assert bool(guarded) == (spelled != json.dumps(value).encode()), (value, spelled)


def test_orjson_escapes_every_code_point_as_json_dumps() -> None:
    code_points = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    for start in range(0, len(code_points), 4096):
        block = "".join(map(chr, code_points[start : start + 4096]))
        assert orjson.dumps(block) == json.dumps(block, ensure_ascii=False).encode()
    for c in range(0x80):  # one by one where escapes live
        assert orjson.dumps(chr(c)) == json.dumps(chr(c), ensure_ascii=False).encode()


@SETTINGS
@given(st.dictionaries(text, st.integers(-(2**63), 2**63 - 1), max_size=12))
def test_orjson_sorts_keys_as_json_dumps(obj: dict[str, int]) -> None:
    assert orjson_compact(obj) == python_compact(obj)


def line_with(content: dict[str, Any], n: int = 1, prev: str = "") -> bytes:
    return BookLine.seal_new(content, n, prev).to_bytes()[:-1]


@pytest.mark.parametrize(
    ("row", "taken"),
    [
        (line_with({"v": 2**63 - 1}), True),
        (line_with({"v": -(2**63)}), True),
        (line_with({"v": 2**64 - 1}), True),
        (line_with({"v": 2**64}), False),  # orjson reads it as a float
        (line_with({"v": -(2**63) - 1}), False),
        (line_with({"v": 10**40}), False),
        (line_with({"v": 1e16}), True),
        (line_with({"v": 1e22}), True),
        (line_with({"v": 5e-324}), True),
        (line_with({"v": -0.0}), True),
        (line_with({"v": 1e-10}), True),
        (line_with({"v": 1e-05}), False),  # Python "1e-05", orjson "0.00001": not canonical
        (line_with({"v": 1e-07}), False),
        (line_with({"v": 0.0001}), True),
        (line_with({"v": "\x1f\x00\u2028é𝄞\U0010ffff"}), True),  # \u001f, \u0000 and raw UTF-8
        (line_with({"v": [[[[[[1]]]]]], "w": {"a": {"b": {}}}, "z": []}), True),
        (line_with({"at": "2026-01-02T14:30:00Z", "note": "a, b: c \"q\" \\"}), True),
        (line_with({"v": ["x"] * 600}), True),
        (line_with({"v": [{}] * 600}), False),  # more brackets than MAX_BRACKETS: the careful way
    ],
)
def test_targeted_book_lines(row: bytes, taken: bool) -> None:
    assert assert_formula_or_nothing(row) is taken


def _forged(spelled: bytes) -> bytes:
    """A line in orjson's spelling of the content ``spelled``, with seal and link over its layout."""
    x: dict[str, Any] = {**orjson.loads(spelled), "n": 1, "prev": ""}
    x["seal"] = layout_hash(spelled)
    x["link"] = layout_hash(orjson_compact(x))
    return orjson_compact(x)


@pytest.mark.parametrize(
    "row",
    [
        _forged(b'{"v":1e-7}'),  # Python writes 1e-07
        _forged(b'{"v":0.00001}'),  # Python writes 1e-05
        b'{"link":"x","n":1,"prev":"","seal":"y","v":1}\r',  # CRLF
        b'{"a":1,"a":2,"link":"x","n":1,"prev":"","seal":"y"}',  # duplicate keys
        b'{"link":"x","n":1,"prev":"","seal":"y","v":"\\u00e9"}',  # an escape json.dumps does not write
        b'{"link":"x","n":1,"prev":"","seal":"y","v":"\\ud800"}',  # lone surrogate
        b'{"link":"x","n":1,"prev":"","seal":"y","v":"\\ud834\\udd1e"}',  # a pair json.dumps writes raw
        b'{"link":"x","n":1,"prev":"","seal":"y","v":1.0E+16}',
        b'{"link":"x","n":1,"prev":"","seal":"y","v":18446744073709551616}',
        b'\xef\xbb\xbf{"link":"x","n":1,"prev":"","seal":"y"}',
        b'{"link":"x","n":1,"prev":"","seal":"y","v":"\xed\xa0\x80"}',  # UTF-8 of a surrogate
        b'{"link": "x","n":1,"prev":"","seal":"y"}',
        b'{"n":1,"prev":"","seal":"y"}',
        b"[1,2]",
        b"[" * 1000 + b"]" * 1000,
        b'{"link":"x","n":1,"prev":"","seal":"y","v":' + b"[" * 700 + b"]" * 700 + b"}",
    ],
)
def test_lines_the_fast_path_refuses(row: bytes) -> None:
    assert fastjson.canonical_hashes(row) is None


def test_a_nested_copy_of_a_bookkeeping_item_is_refused_or_cut_at_the_top() -> None:
    for content in (
        {"m": {"n": 1}},  # before prev: two "n": 1 where the top-level one must be
        {"o": {"prev": ""}},  # after link: two prev items after link
        {"a": {"prev": ""}},  # before link: harmless, the top-level prev is found after link
        {"z": {"seal": "x"}, "y": [{"n": 2}]},
    ):
        row = line_with(content)
        assert_formula_or_nothing(row)
    assert fastjson.canonical_hashes(line_with({"m": {"n": 1}})) is None
    assert fastjson.canonical_hashes(line_with({"a": {"prev": ""}})) is not None


def write(tmp: Path, rows: list[bytes]) -> Path:
    path = tmp / "book.jsonl"
    path.write_bytes(b"".join(r + b"\n" for r in rows))
    return path


def chain_of(contents: list[dict[str, Any]], forge_at: int = 0) -> list[bytes]:
    """A chain of book lines; line ``forge_at`` (1-based) is re-sealed over orjson's layout, as a
    writer spelling floats orjson's way would seal it."""
    rows, prev = [], ""
    for n, content in enumerate(contents, 1):
        if n == forge_at:
            x: dict[str, Any] = {**content, "n": n, "prev": prev}
            x["seal"] = layout_hash(orjson_compact(content))
            x["link"] = layout_hash(orjson_compact(x))
            rows.append(orjson_compact(x))
            prev = x["link"]
        else:
            line = BookLine.seal_new(content, n, prev)
            rows.append(line.to_bytes()[:-1])
            prev = line.link
    return rows


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("value", [1e-7, 3.5e-9, 1.25e-5, 1e-05])
def test_a_line_sealed_over_orjsons_spelling_fails_as_in_the_reader_loop(
    tmp_path: Path, workers: int, value: float
) -> None:
    contents = [{"kind": "mark", "v": i + 0.5} for i in range(5)]
    contents[2] = {"kind": "mark", "v": value}
    rows = chain_of(contents, forge_at=3)
    path = write(tmp_path, rows)
    data = path.read_bytes()
    report = check_both(path, workers)
    held, line, _ = run_reader_loop(data, tmp_path)
    assert (held, line) == (False, 3)
    assert (report.bad_line, reason_class(report.reason)) == oracle(data) == (3, "seal")


def check_both(path: Path, workers: int) -> VerifyReport:
    """verify with one chunk (every line but the first through the hot loop) and with chunks of
    ~3 lines (a chunk's first line goes the careful way): the same report."""
    whole = verify(path, workers=workers)
    with mock.patch("league.verify.chain.CHUNK_BYTES", 600):
        assert verify(path, workers=workers) == whole
    return whole


@pytest.mark.parametrize("workers", [1, 2])
def test_honest_lines_with_every_awkward_value_hold(tmp_path: Path, workers: int) -> None:
    awkward: list[Any] = [*SPECIAL_FLOATS, *SPECIAL_INTS, *SPECIAL_STRINGS, {"n": 4}, {"prev": ""}]
    contents = [{"kind": "mark", "v": v} for v in awkward]
    path = write(tmp_path, chain_of(contents))
    report = check_both(path, workers)
    assert report.ok and report.lines == len(contents)
    assert run_reader_loop(path.read_bytes(), tmp_path)[0]


def test_verify_without_the_fast_path_gives_the_same_reports() -> None:
    """With orjson and msgspec missing (AVAILABLE false) verify takes the standard library's way."""
    for name in ("good.jsonl", "foreign.jsonl", "broken-changed-byte.jsonl", "broken-content-edit.jsonl"):
        fast = verify(ASSETS / name)
        with mock.patch.object(fastjson, "AVAILABLE", False):
            assert fastjson.canonical_hashes((ASSETS / name).read_bytes().split(b"\n")[0]) is None
            slow = verify(ASSETS / name)
        assert fast == slow


def test_an_answer_sized_line_takes_the_fast_path() -> None:
    cells = {
        m: {h: {"prob_up": 55, "action": "hold", "target": 101.25, "risk": "a, b: c"} for h in ("1d", "1w", "1m")}
        for m in ("SPX", "NDX", "VIX")
    }
    row = line_with({"kind": "answer", "at": "2026-01-02T14:30:00Z", "items": cells, "usage": {}, "fetches": []})
    assert assert_formula_or_nothing(row)
    with tempfile.TemporaryDirectory() as tmp:
        assert verify(write(Path(tmp), [row])).ok
