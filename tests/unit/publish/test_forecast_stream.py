"""The CSV writer from cut lines (league.publish.forecast_cache.write_forecasts_streamed): the keys from
the ROW_KINDS lines cut to their key fields are the keys of the whole bodies, a session's rows read nothing but
that session's own lines (the premise of the cache and of building a session from its lines alone), the
streamed CSV is the CSV of the whole view, cold and warm, only the sessions whose key missed are parsed and
rebuilt, and a copy that is not the checked bytes fails the step without leaving a block behind."""

from __future__ import annotations

import hashlib
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from league.book import Book, iter_lines
from league.book.index import BookIndex
from league.book.shared import KeptLines
from league.clock import SimulatedClock
from league.publish import forecast_cache as fc
from league.publish.bookfacts import read_facts
from league.publish.errors import PublishError
from league.publish.forecasts import RowContext, session_rows_of
from league.publish.writing import complete_lines

AT = datetime(2026, 3, 2, 23, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def league(synth: Path) -> Path:
    """The synthetic league with a cell correction of its first answer and a price correction of its first
    session's 1d close, both sealed after its last session (they reach back to old sessions)."""
    book = synth / "data" / "books" / "council-book.jsonl"
    answer = next(ln for ln in iter_lines(book) if ln.kind == "answer" and ln.content.get("items"))
    market = next(iter(answer.content["items"]))
    horizon = next(iter(answer.content["items"][market]))
    score = next(ln for ln in iter_lines(book) if ln.kind == "score")
    with Book(book, SimulatedClock(AT)) as b:
        b.append("correction", {"of": answer.n, "reason": "restored from the receipt", "target": "cell",
                                "seat": answer.content["seat"], "run_id": answer.content["run_id"],
                                "market": market, "horizon": horizon,
                                "cell": {"prob_up": 41.0, "cell_status": "elicited"}})
        ev = score.content["markets"][0]
        b.append("correction", {"target": "price", "session": score.content["session"],
                                "horizon": score.content["horizon"], "market": ev["market"], "field": "close",
                                "value": float(ev["close"]) * 1.01, "reason": "the vendor's corrected close"})
    return synth


def _slim_kept(book: Path) -> KeptLines:
    kept = KeptLines(parsed=frozenset(), slim=fc.ROW_KINDS)
    read_facts(book, complete_lines(book), kept.add)
    return kept


def test_the_cut_lines_give_the_keys_and_sessions_of_the_whole_bodies(league: Path) -> None:
    data = league / "data"
    book = data / "books" / "council-book.jsonl"
    whole = fc.verified_view(data, complete_lines(book))
    slim = fc.slim_view(data, _slim_kept(book))
    body = next(iter(slim.index.lines.values()))  # type: ignore[attr-defined]
    assert set(body) <= {"kind", "session", "run_id", "target", "of", "n", "link"}  # cut, not whole
    sessions = RowContext.of(whole).sessions()
    assert fc.row_sessions(slim.index) == fc.row_sessions(whole.index) == sessions
    common = fc._common_digest(whole)
    assert fc.session_keys(slim, sessions, common) == fc.session_keys(whole, sessions, common)
    assert fc.session_lines(slim.index) == fc.session_lines(whole.index)


def test_a_sessions_rows_read_only_its_own_lines(league: Path) -> None:
    """Pins what the counting rule and RowContext read of other sessions: nothing. Each session's rows built from
    an index of only the lines its key names (its runs, their answers, its notes and score lines, the price
    corrections naming it, the cell corrections of its answers) equal its rows from the whole book."""
    data = league / "data"
    whole = fc.verified_view(data, complete_lines(data / "books" / "council-book.jsonl"))
    index: Any = whole.index
    ctx = RowContext.of(whole)
    groups = fc.session_lines(index)
    corrected = 0
    for session in ctx.sessions():
        own = BookIndex()
        for n in groups[session]:
            own.add_item(index.lines[n])
        view = fc._View(own, whole.config, whole.calendar)
        rows = session_rows_of(view, RowContext.of(view), session)
        assert rows == session_rows_of(whole, ctx, session)
        corrected += sum(1 for r in rows if r["corrected_by"])
    assert corrected >= 2  # both corrections reached their old session's rows


def test_without_the_corrections_an_old_session_would_differ(league: Path) -> None:
    """The test above can fail: dropping a session's correction lines from its own index changes its rows."""
    data = league / "data"
    whole = fc.verified_view(data, complete_lines(data / "books" / "council-book.jsonl"))
    index: Any = whole.index
    groups = fc.session_lines(index)
    session = next(s for s, ns in groups.items() if any(index.lines[n].kind == "correction" for n in ns))
    own = BookIndex()
    for n in groups[session]:
        if index.lines[n].kind != "correction":
            own.add_item(index.lines[n])
    view = fc._View(own, whole.config, whole.calendar)
    assert session_rows_of(view, RowContext.of(view), session) != session_rows_of(whole, RowContext.of(whole), session)


def _streamed(data: Path, out: Path, copy: Path | None = None) -> int:
    book = data / "books" / "council-book.jsonl"
    raw = complete_lines(book)
    if copy is None:
        copy = out.with_suffix(".jsonl")
        copy.write_bytes(raw)
    view = fc.slim_view(data, _slim_kept(book))
    return fc.write_forecasts_streamed(view, copy, hashlib.sha256(raw).hexdigest(), out, data / fc.CACHE_DIR)


def _counting_bodies(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    parsed: list[int] = []
    real = fc._body

    def counted(raw: bytes, n: int, link: str) -> dict[str, Any]:
        parsed.append(n)
        return real(raw, n, link)

    monkeypatch.setattr(fc, "_body", counted)
    return parsed


def test_the_streamed_csv_is_the_whole_views_cold_and_warm(league: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "league"
    shutil.copytree(league, root)
    data = root / "data"
    book = data / "books" / "council-book.jsonl"
    fc.export_forecasts(data, tmp_path / "whole.csv", complete_lines(book))
    shutil.rmtree(data / fc.CACHE_DIR)
    parsed = _counting_bodies(monkeypatch)

    rows = _streamed(data, tmp_path / "cold.csv")  # cold: every session built from its bodies
    assert (tmp_path / "cold.csv").read_bytes() == (tmp_path / "whole.csv").read_bytes()
    assert rows == (tmp_path / "whole.csv").read_bytes().count(b"\n") - 1
    whole = fc.verified_view(data, complete_lines(book))
    assert sorted(parsed) == sorted(whole.index.lines)  # type: ignore[attr-defined]  # the row kinds, once each

    parsed.clear()
    _streamed(data, tmp_path / "warm.csv")  # warm, nothing new: no body parsed
    assert parsed == []
    assert (tmp_path / "warm.csv").read_bytes() == (tmp_path / "whole.csv").read_bytes()

    answer = next(ln for ln in iter_lines(book) if ln.kind == "answer" and ln.content.get("items"))
    market = next(iter(answer.content["items"]))
    horizon = list(answer.content["items"][market])[-1]
    with Book(book, SimulatedClock(AT)) as b:  # a new line reaching back to one old session: only it misses
        b.append("correction", {"of": answer.n, "reason": "a second receipt", "target": "cell",
                                "seat": answer.content["seat"], "run_id": answer.content["run_id"],
                                "market": market, "horizon": horizon,
                                "cell": {"prob_up": 12.0, "cell_status": "elicited"}})
    before = {p.name for p in (data / fc.CACHE_DIR).iterdir()}
    _streamed(data, tmp_path / "night.csv")
    groups = fc.session_lines(fc.verified_view(data, complete_lines(book)).index)
    session = answer.content["session"]
    assert sorted(parsed) == groups[session]  # the bodies of the one session whose key missed, nothing else
    rebuilt = [p.name for p in (data / fc.CACHE_DIR).iterdir() if p.name not in before]
    assert [name.split(".")[0] for name in rebuilt] == [session]
    fc.export_forecasts(data, tmp_path / "whole2.csv", complete_lines(book))
    assert (tmp_path / "night.csv").read_bytes() == (tmp_path / "whole2.csv").read_bytes()
    assert b"a second receipt" in (tmp_path / "night.csv").read_bytes()


def test_a_copy_that_is_not_the_checked_bytes_fails_and_keeps_nothing(league: Path, tmp_path: Path) -> None:
    root = tmp_path / "league"
    shutil.copytree(league, root)
    data = root / "data"
    shutil.rmtree(data / fc.CACHE_DIR, ignore_errors=True)
    raw = complete_lines(data / "books" / "council-book.jsonl")
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(raw[:-1] + b" \n")  # the last line's bytes changed after the check (its JSON still parses)
    with pytest.raises(PublishError, match="not the book checked"):
        _streamed(data, tmp_path / "out.csv", copy)
    assert not list((data / fc.CACHE_DIR).glob("*.csv"))  # no block kept from those bytes
    assert not (tmp_path / "out.csv").exists()
    lines = raw.splitlines(keepends=True)
    n = next(i for i, ln in enumerate(lines) if b'"answer"' in ln)
    lines[n], lines[n + 1] = lines[n + 1], lines[n]  # two lines swapped: caught at the first parsed one
    copy.write_bytes(b"".join(lines))
    with pytest.raises(PublishError):
        _streamed(data, tmp_path / "out.csv", copy)
    assert not list((data / fc.CACHE_DIR).glob("*.csv"))


def test_the_books_step_streams_the_complete_lines_to_the_copy(league: Path, tmp_path: Path) -> None:
    """league.publish.files._copy_checked: the copy is ``complete_lines`` of the book (a line still being written
    left out), with the same facts and digest; an identical copy is kept as it is; a broken chain raises and
    leaves the old copy."""
    from league.errors import LeagueError
    from league.publish import files

    book = tmp_path / "book.jsonl"
    raw = complete_lines(league / "data" / "books" / "council-book.jsonl")
    book.write_bytes(raw + b'{"n": 99999, "kind": "ans')  # the daemon halfway through its next line
    copy = tmp_path / "public" / "council-book.jsonl"
    seen: list[int] = []
    facts, sha, head = files._copy_checked(book, copy, lambda obj, content, line: seen.append(obj["n"]))
    assert copy.read_bytes() == raw and sha == hashlib.sha256(raw).hexdigest()
    assert head == raw[: raw.index(b"\n") + 1]
    assert facts == read_facts(book, raw) and seen == list(range(1, raw.count(b"\n") + 1))
    before = copy.stat().st_mtime_ns, copy.stat().st_ino
    files._copy_checked(book, copy, lambda *a: None)
    assert (copy.stat().st_mtime_ns, copy.stat().st_ino) == before  # unchanged: not rewritten
    lines = raw.splitlines(keepends=True)
    lines[3] = lines[3].replace(b'"n":4', b'"n":5').replace(b'"n": 4', b'"n": 5')
    book.write_bytes(b"".join(lines))
    with pytest.raises(LeagueError):
        files._copy_checked(book, copy, lambda *a: None)
    assert copy.read_bytes() == raw
    assert [p.name for p in copy.parent.iterdir()] == ["council-book.jsonl"]  # no temporary file left
