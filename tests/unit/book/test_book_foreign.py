"""Books written by another correct implementation of the formula verify here too.

The test's own writer (book_oracle.write_foreign_book) shares no code with league: it shuffles key
order, puts spaces and tabs between tokens, escapes characters as \\uXXXX (astral ones as surrogate
pairs, hex digits in either case, "/" as "\\/") and spells floats as %.17g, %.17e, upper-case E or
with extra digits. None of that changes J(parsed line), so the chain must hold.
"""

from __future__ import annotations

import json
import random
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from unittest import mock

from book_oracle import ASSETS, H, oracle, reason_class, run_reader_loop, write_foreign_book
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from league.book import Book, iter_lines
from league.clock import SimulatedClock
from league.verify import chain as verify_fast
from league.verify.chain import verify

text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12) | st.sampled_from(
    ["", "\u2028", "𝄞", "é/\\\"", "\x00\x1f", "\ufeff"]
)
floats = st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from(
    [-0.0, 5e-324, 1.7976931348623157e308, 1e16]
)
scalars = st.none() | st.booleans() | st.integers() | floats | text
values = st.recursive(
    scalars, lambda kids: st.lists(kids, max_size=3) | st.dictionaries(text, kids, max_size=3), max_leaves=12
)
keys = text.filter(lambda k: k not in ("n", "prev", "seal", "link"))
contents = st.dictionaries(keys, values, max_size=5)
SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


def canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False)


@SETTINGS
@given(st.lists(contents, min_size=1, max_size=6), st.integers(0, 2**32))
def test_foreign_book_verifies_and_the_reader_loop_agrees(items: list[dict[str, Any]], seed: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "foreign.jsonl"
        data = write_foreign_book(path, items, random.Random(seed))
        assert oracle(data) == (0, "")
        assert run_reader_loop(data, Path(tmp))[:2] == (True, len(items))
        report = verify(path, workers=1)
        assert (report.ok, report.lines) == (True, len(items))
        assert report.last_link == json.loads(data.split(b"\n")[-2])["link"]
        with mock.patch.object(verify_fast, "CHUNK_BYTES", 128):
            assert verify(path, workers=2) == report
        assert [canon(line.content) for line in iter_lines(path)] == [canon(c) for c in items]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_tampered_foreign_book_same_verdict_serial_parallel_and_reader_loop(data: st.DataObject) -> None:
    good = (ASSETS / "foreign.jsonl").read_bytes()
    pos = data.draw(st.integers(0, len(good) - 1), label="position")
    new = data.draw(st.integers(0x20, 0x7E).filter(lambda b: b != good[pos]), label="printable byte")
    bad = good[:pos] + bytes([new]) + good[pos + 1 :]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bad.jsonl"
        path.write_bytes(bad)
        serial = verify(path, workers=1)
        with mock.patch.object(verify_fast, "CHUNK_BYTES", 256):
            parallel = verify(path, workers=2)
        held, at, _ = run_reader_loop(bad, Path(tmp))
    assert parallel == serial
    assert (serial.bad_line, reason_class(serial.reason)) == oracle(bad)
    if pos == len(good) - 1 and new == 0x20:
        assert held and reason_class(serial.reason) == "torn"  # see test_book_tamper: a torn last line
        return
    assert held == serial.ok
    if not held and reason_class(serial.reason) == "utf8":
        # the loop reads in text mode, which decodes a block ahead of the line it yields: a bad byte
        # stops it while it fetches that line, with ``i`` still on an earlier one (found by this test)
        assert at < serial.bad_line
    elif not held:
        assert at == serial.bad_line


def test_golden_foreign_book_looks_foreign_and_holds() -> None:
    data = (ASSETS / "foreign.jsonl").read_bytes()
    assert b"\\u" in data and b"\t" in data and b"E+" in data  # escapes, tabs, another float spelling
    good_rows = (ASSETS / "good.jsonl").read_bytes().split(b"\n")
    assert data.split(b"\n") != good_rows
    assert [H(json.loads(r)) for r in data.split(b"\n")[:-1]] == [H(json.loads(r)) for r in good_rows[:-1]]
    assert verify(ASSETS / "foreign.jsonl").ok


def test_book_continues_a_foreign_book(tmp_path: Path) -> None:
    """league's writer opens a book another implementation started and extends its chain."""
    path = tmp_path / "book.jsonl"
    path.write_bytes((ASSETS / "foreign.jsonl").read_bytes())
    lines = verify(path).lines
    with Book(path, SimulatedClock(datetime(2026, 12, 1, tzinfo=UTC))) as book:
        assert book.lines == lines
        book.append("answer", {"seat": "claude"})
    data = path.read_bytes()
    assert oracle(data) == (0, "")
    assert run_reader_loop(data, tmp_path)[:2] == (True, lines + 1)


def test_crlf_line_endings_hold_for_both(tmp_path: Path) -> None:
    """A CRLF ending still ends with LF; json ignores the CR and text mode folds CRLF to LF."""
    data = (ASSETS / "good.jsonl").read_bytes().replace(b"\n", b"\r\n")
    path = tmp_path / "crlf.jsonl"
    path.write_bytes(data)
    assert run_reader_loop(data, tmp_path)[0]
    assert verify(path).ok and oracle(data) == (0, "")
