"""Tampered books: verify names the first bad line and the reason class, every time.

The expected line is worked out independently of league's code: from the byte position (the LFs
before it), from the edit made, and by the test's own checker of protocol §3 (book_oracle).
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path
from unittest import mock

import pytest
from book_oracle import ASSETS, H, oracle, reason_class, run_reader_loop
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from league.verify import chain as verify_fast
from league.verify.chain import VerifyReport, verify

GOOD = (ASSETS / "good.jsonl").read_bytes()
ROWS = GOOD.split(b"\n")[:-1]
N = len(ROWS)
LINKS = [json.loads(r)["link"] for r in ROWS]
EXPECTED = json.loads((ASSETS / "expected.json").read_text(encoding="utf-8"))
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def join(rows: list[bytes]) -> bytes:
    return b"".join(r + b"\n" for r in rows)


def check(data: bytes, workers: int = 1) -> VerifyReport:
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as fh:
        fh.write(data)
        fh.flush()
        return verify(fh.name, workers=workers)


def assert_names(report: VerifyReport, data: bytes, line: int, cls: str) -> None:
    """verify names ``line`` with reason class ``cls``; its head describes the good lines before it."""
    assert (report.bad_line, reason_class(report.reason)) == (line, cls), report
    assert report.lines == line - 1
    assert report.sha256 == hashlib.sha256(join(data.split(b"\n")[: line - 1])).hexdigest()
    assert report.last_link == (LINKS[line - 2] if line > 1 else "")


def test_golden_good_book_holds() -> None:
    report = check(GOOD)
    assert (report.ok, report.lines, report.last_link) == (True, N, LINKS[-1])
    assert report.sha256 == hashlib.sha256(GOOD).hexdigest()
    assert oracle(GOOD) == (0, "")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_golden_files_give_their_recorded_verdict(name: str) -> None:
    data = (ASSETS / name).read_bytes()
    line, cls = EXPECTED[name]
    report = verify(ASSETS / name)
    assert (report.bad_line, reason_class(report.reason)) == (line, cls)
    assert oracle(data) == (line, cls)


@SETTINGS
@given(st.data())
def test_one_changed_byte_anywhere(data: st.DataObject) -> None:
    pos = data.draw(st.integers(0, len(GOOD) - 1), label="position")
    new = data.draw(st.integers(0, 255).filter(lambda b: b != GOOD[pos]), label="byte")
    bad = GOOD[:pos] + bytes([new]) + GOOD[pos + 1 :]
    line = GOOD.count(b"\n", 0, pos) + 1  # the line the byte belongs to (its LF included)
    report = check(bad)
    exp_line, exp_cls = oracle(bad)
    if exp_line == 0:
        # Invisible to the formula: the line still parses to the same object (e.g. "1e+300" →
        # "1E+300", "\u001f" → "\u001F"). Only the prefix digest of a stamp sees it.
        before, after = GOOD.split(b"\n")[line - 1], bad.split(b"\n")[line - 1]
        assert H(json.loads(after)) == H(json.loads(before))
        assert report.ok and report.sha256 != hashlib.sha256(GOOD).hexdigest()
        return
    assert exp_line == line
    assert_names(report, bad, line, exp_cls)


@SETTINGS
@given(st.data())
def test_one_changed_byte_the_reader_loop_agrees(data: st.DataObject) -> None:
    pos = data.draw(st.integers(0, len(GOOD) - 1), label="position")
    new = data.draw(st.integers(0, 255).filter(lambda b: b != GOOD[pos]), label="byte")
    bad = GOOD[:pos] + bytes([new]) + GOOD[pos + 1 :]
    report = check(bad)
    with tempfile.TemporaryDirectory() as tmp:
        held, at, _ = run_reader_loop(bad, Path(tmp))
    line = GOOD.count(b"\n", 0, pos) + 1
    try:
        bad.decode("utf-8")
    except UnicodeDecodeError:
        assert not held and not report.ok  # the loop's decoder fails on the whole block, before the line
        return
    if new == 0x0D and GOOD[pos] == 0x0A and pos != len(GOOD) - 1:
        # Text mode turns a CR into a line end, so the loop sees the same lines; the byte rule
        # (each line ends with LF) does not, and neither does the prefix digest. verify follows it.
        assert held and (report.bad_line, reason_class(report.reason)) == (line, "cr")
        return
    if pos == len(GOOD) - 1 and new in b" \t\r":
        # The last LF became whitespace: the loop reads a complete last line; verify calls it torn.
        assert held and (report.bad_line, reason_class(report.reason)) == (N, "torn")
        return
    assert held == report.ok
    if not held:
        assert at == report.bad_line


@pytest.mark.parametrize("k", range(1, N + 1))
def test_deleted_line(k: int) -> None:
    bad = join(ROWS[: k - 1] + ROWS[k:])
    report = check(bad)
    if k == N:
        # A cut tail is a shorter valid chain: only a stamp (prefix digest at N lines) can see it.
        assert report.ok and report.lines == N - 1 and report.sha256 == hashlib.sha256(join(ROWS[:-1])).hexdigest()
    else:
        assert_names(report, bad, k, "n")


@pytest.mark.parametrize("k", range(1, N))
def test_two_swapped_lines(k: int) -> None:
    rows = list(ROWS)
    rows[k - 1], rows[k] = rows[k], rows[k - 1]
    bad = join(rows)
    assert_names(check(bad), bad, k, "n")


@pytest.mark.parametrize("k", range(1, N + 2))
def test_inserted_copy_of_another_line(k: int) -> None:
    copy = ROWS[(k + 3) % N]  # never the line that belongs at k
    bad = join(ROWS[: k - 1] + [copy] + ROWS[k - 1 :])
    assert_names(check(bad), bad, k, "n")


def test_inserted_line_that_is_itself_well_sealed_breaks_the_next_one() -> None:
    """A line sealed correctly for position 5 is inserted there: line 5 holds, the old line 5 (now 6) fails."""
    content = {"kind": "answer", "at": "2026-11-30T13:31:00Z", "seat": "intruder"}
    forged = {**content, "n": 5, "prev": LINKS[3], "seal": H(content)}
    forged["link"] = H(forged)
    bad = join(ROWS[:4] + [json.dumps(forged).encode()] + ROWS[4:])
    report = check(bad)
    assert (report.bad_line, reason_class(report.reason)) == (6, "n")
    assert report.last_link == forged["link"]


@settings(max_examples=100, deadline=None)
@given(st.integers(0, len(GOOD)))
def test_truncated_file(cut: int) -> None:
    bad = GOOD[:cut]
    report = check(bad)
    complete = bad.count(b"\n")
    if cut == 0 or bad.endswith(b"\n"):
        assert report.ok and report.lines == complete
        assert report.sha256 == hashlib.sha256(bad).hexdigest()
    else:
        assert_names(report, bad, complete + 1, "torn")


def test_torn_line_that_is_complete_json_is_still_torn() -> None:
    """Byte rule: a last line without its LF does not count yet, even if it would verify."""
    bad = GOOD[:-1]
    report = check(bad)
    assert_names(report, bad, N, "torn")


@pytest.mark.parametrize("before_line", [1, 2, N])
def test_byte_order_mark(before_line: int) -> None:
    rows = list(ROWS)
    rows[before_line - 1] = b"\xef\xbb\xbf" + rows[before_line - 1]
    bad = join(rows)
    assert_names(check(bad), bad, before_line, "bom")
    with tempfile.TemporaryDirectory() as tmp:
        held, at, _ = run_reader_loop(bad, Path(tmp))
    assert (held, at) == (False, before_line)


@pytest.mark.parametrize(
    ("edit", "cls"),
    [
        (lambda r: b"", "json"),
        (lambda r: b"[1, 2]", "object"),
        (lambda r: r.replace(b'"seal":', b'"seaL":'), "missing"),
        (lambda r: r.replace(b'"prev":"', b'"prev":"0'), "prev"),
        (lambda r: r[:-1] + b',"extra":1}', "seal"),
        (lambda r: r.replace(b'"link":"', b'"link":"0'), "link"),
        (lambda r: b'{"a":' + b"[" * 100_000 + b"]" * 100_000 + b"}", "json"),
        (lambda r: r.decode().encode("utf-16-le"), "json"),
        (lambda r: r + b"\xff", "utf8"),
    ],
    ids=["empty", "array", "missing", "prev", "extra-key", "link", "deep", "utf16", "bad-utf8"],
)
def test_reason_classes(edit: object, cls: str) -> None:
    rows = list(ROWS)
    rows[6] = edit(rows[6])  # type: ignore[operator]
    bad = join(rows)
    assert_names(check(bad), bad, 7, cls)


def test_prev_null_on_line_one_is_caught() -> None:
    """A JSON null prev is a wrong prev, not a missing one (regression: it used to pass)."""
    content = {"kind": "run", "at": "2026-11-30T13:30:00Z"}
    line = {**content, "n": 1, "prev": None, "seal": H(content)}
    line["link"] = H(line)
    bad = json.dumps(line).encode() + b"\n"
    assert oracle(bad) == (1, "prev")
    for workers in (1, 2):
        assert_names(check(bad, workers), bad, 1, "prev")


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_parallel_path_gives_the_same_report(data: st.DataObject) -> None:
    """workers=2 with chunks of a few hundred bytes (several chunk boundaries) == workers=1."""
    pos = data.draw(st.integers(0, len(GOOD) - 1), label="position")
    new = data.draw(st.integers(0, 255).filter(lambda b: b != GOOD[pos]), label="byte")
    chunk = data.draw(st.sampled_from([64, 300, 1500, 5000]), label="chunk")
    bad = GOOD[:pos] + bytes([new]) + GOOD[pos + 1 :]
    with mock.patch.object(verify_fast, "CHUNK_BYTES", chunk):
        serial, parallel = check(bad, 1), check(bad, 2)
    assert parallel == serial
    assert (serial.bad_line, reason_class(serial.reason)) == oracle(bad)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_parallel_path_on_golden_files(name: str) -> None:
    with mock.patch.object(verify_fast, "CHUNK_BYTES", 200):
        serial = verify(ASSETS / name, workers=1)
        parallel = verify(ASSETS / name, workers=2)
    assert parallel == serial
    assert [serial.bad_line, reason_class(serial.reason)] == EXPECTED[name]


def _resealed(content: dict[str, object], n: int, prev: str) -> bytes:
    line = {**content, "n": n, "prev": prev, "seal": H(content)}
    line["link"] = H(line)
    return json.dumps(line, ensure_ascii=False).encode()


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("k", range(1, N + 1))
def test_resealed_line_with_a_wrong_prev(k: int, workers: int) -> None:
    """Line k is re-sealed so that its own seal and link hold, but its prev is not line k-1's link."""
    content = {key: v for key, v in json.loads(ROWS[k - 1]).items() if key not in ("n", "prev", "seal", "link")}
    rows = list(ROWS)
    rows[k - 1] = _resealed(content, k, "f" * 64)
    bad = join(rows)
    with mock.patch.object(verify_fast, "CHUNK_BYTES", 700):
        assert_names(check(bad, workers), bad, k, "prev")


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("k", range(1, N))
def test_two_valid_chains_spliced(k: int, workers: int) -> None:
    """Lines 1..k of this book, then lines k+1.. of another valid book: line k+1's prev breaks."""
    other, prev = [], ""
    for n, row in enumerate(ROWS, 1):
        content = {key: v for key, v in json.loads(row).items() if key not in ("n", "prev", "seal", "link")}
        other.append(_resealed({**content, "other": True}, n, prev))
        prev = json.loads(other[-1])["link"]
    assert oracle(join(other)) == (0, "")
    bad = join(ROWS[:k] + other[k:])
    with mock.patch.object(verify_fast, "CHUNK_BYTES", 700):
        assert_names(check(bad, workers), bad, k + 1, "prev")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (b"e+308", b"E+308"),
        (b"e+308", b"e0308"),
        (b"5e-324", b"4e-324"),
        (b"\\u001f", b"\\u001F"),
    ],
)
def test_respellings_the_formula_cannot_see_but_a_stamp_does(old: bytes, new: bytes, tmp_path: Path) -> None:
    """One changed byte that leaves the parsed line equal: the chain holds, the digest does not."""
    assert GOOD.count(old) == 1
    bad = GOOD.replace(old, new)
    assert sum(a != b for a, b in zip(GOOD, bad, strict=True)) == 1
    report = check(bad)
    assert report.ok and oracle(bad) == (0, "")
    assert run_reader_loop(bad, tmp_path)[0]
    assert report.sha256 != hashlib.sha256(GOOD).hexdigest()
