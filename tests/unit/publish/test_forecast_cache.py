"""The publisher's per-session cache of council-forecasts.csv (league.publish.forecast_cache): publishing
night after night with the cache gives the very folder a publish from scratch gives, a correction to an
old cell still changes that old session's rows, only the sessions whose lines changed are rebuilt, and
step 11 (the rebuild from the published folder) holds on the result."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from league.book import Book
from league.book.chain import iter_lines
from league.clock import SimulatedClock
from league.publish import publish
from league.publish.forecast_cache import CACHE_DIR
from league.publish.forecast_layout import LAYOUT_FILE
from league.publish.rebuild import rebuild_step

AT = datetime(2026, 3, 2, 23, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def league(synth: Path) -> Path:
    return synth


def _folder(files: Path) -> dict[str, bytes]:
    return {p.relative_to(files).as_posix(): p.read_bytes() for p in sorted(files.rglob("*")) if p.is_file()}


def _publish(data: Path, out: Path) -> dict[str, bytes]:
    report = publish(data, out, clock=SimulatedClock(AT))
    assert report.ok, report.failed
    return _folder(out)


def _cut_at_runs(book: Path) -> list[int]:
    """The line numbers just before each run line after the first: where a night's book ended."""
    return [ln.n - 1 for ln in iter_lines(book) if ln.kind == "run"][1:]


def _seal_cell_correction(book: Path, answer: dict[str, Any]) -> None:
    market = next(iter(answer["items"]))
    horizon = next(iter(answer["items"][market]))
    with Book(book, SimulatedClock(AT)) as b:
        b.append("correction", {"of": answer["n"], "reason": "restored from the receipt", "target": "cell",
                                "seat": answer["seat"], "run_id": answer["run_id"], "market": market,
                                "horizon": horizon, "cell": {"prob_up": 41.0, "cell_status": "elicited"},
                                "source": "receipt"})


def test_nightly_publishes_with_the_cache_equal_a_publish_from_scratch(league: Path, tmp_path: Path) -> None:
    data = tmp_path / "league" / "data"
    shutil.copytree(league, tmp_path / "league")
    book = data / "books" / "council-book.jsonl"
    full = book.read_bytes().splitlines(keepends=True)
    for cut in _cut_at_runs(book):  # each night's publish, the cache kept between them
        book.write_bytes(b"".join(full[:cut]))
        _publish(data, data / "public")
    book.write_bytes(b"".join(full))
    nightly = _publish(data, data / "public")
    cached = {p.name.split(".")[0]: p.name for p in (data / CACHE_DIR).iterdir()}
    scratch = tmp_path / "scratch"
    shutil.copytree(league, scratch)
    assert nightly == _publish(scratch / "data", scratch / "data" / "public")

    first = next(ln for ln in iter_lines(book) if ln.kind == "answer")
    _seal_cell_correction(book, {**first.content, "n": first.n})
    _seal_cell_correction(scratch / "data" / "books" / "council-book.jsonl", {**first.content, "n": first.n})
    corrected = _publish(data, data / "public")
    rebuilt = [p.name for p in (data / CACHE_DIR).iterdir() if p.name not in cached.values()]
    assert [name.split(".")[0] for name in rebuilt] == [first.content["session"]]  # only the old session
    assert corrected != nightly
    assert b",correction," in corrected["council-forecasts.csv"]
    shutil.rmtree(scratch / "data" / CACHE_DIR, ignore_errors=True)
    assert corrected == _publish(scratch / "data", scratch / "data" / "public")
    status, detail = rebuild_step(data / "public")
    assert status == "ok", detail


def test_a_deleted_or_damaged_cache_is_rebuilt(league: Path, tmp_path: Path) -> None:
    shutil.copytree(league, tmp_path / "league")
    data = tmp_path / "league" / "data"
    first = _publish(data, data / "public")
    blocks = sorted((data / CACHE_DIR).iterdir())
    blocks[0].write_bytes(blocks[0].read_bytes()[:-40])  # a damaged block no longer hashes to its name
    blocks[1].unlink()
    assert _publish(data, data / "public") == first  # the published file kept in place needs no block
    (data / LAYOUT_FILE).unlink()  # written in full: every block read, the damaged and the missing built again
    assert _publish(data, data / "public") == first
    assert blocks[0].read_bytes() != b"" and blocks[1].is_file()
    shutil.rmtree(data / CACHE_DIR)
    assert _publish(data, data / "public") == first


def test_render_writes_what_dict_writer_writes() -> None:
    """The cached blocks are rendered through csv.writer in column order: the bytes DictWriter gives, quoting
    (commas, quotes, line breaks, leading spaces) and non-ASCII text included."""
    import csv
    import io

    from league.publish.forecast_cache import _render
    from league.publish.forecasts import COLUMNS

    odd = ["a,b", 'say "up"', "two\nlines", " lead", "", "é ü 漢", "x\r\ny", "0.1"]
    rows = [{c: odd[(i + j) % len(odd)] for j, c in enumerate(COLUMNS)} for i in range(len(odd))]
    buf = io.StringIO(newline="")
    writer = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    writer.writerows(rows)
    assert _render(rows) == buf.getvalue().encode("utf-8")
    assert _render([dict(zip(COLUMNS, COLUMNS, strict=True))]) == (",".join(COLUMNS) + "\n").encode()


def test_the_view_of_the_row_kinds_writes_what_the_whole_book_writes(league: Path, tmp_path: Path) -> None:
    """The publisher's view parses only the kinds the rows are made of: its CSV (through the cache) is the one
    write_forecasts gives over the whole book's index, a cell correction included, and its session keys are
    the whole index's."""
    from league.book.view import BookView
    from league.publish.forecast_cache import _common_digest, export_forecasts, session_keys, verified_view
    from league.publish.forecasts import RowContext, write_forecasts

    shutil.copytree(league, tmp_path / "league")
    data = tmp_path / "league" / "data"
    book = data / "books" / "council-book.jsonl"
    first = next(ln for ln in iter_lines(book) if ln.kind == "answer")
    _seal_cell_correction(book, {**first.content, "n": first.n})
    whole = BookView.open(data)
    write_forecasts(whole, tmp_path / "whole.csv")
    export_forecasts(data, tmp_path / "view.csv", book.read_bytes())
    assert (tmp_path / "view.csv").read_bytes() == (tmp_path / "whole.csv").read_bytes()
    assert b",correction," in (tmp_path / "view.csv").read_bytes()
    view = verified_view(data, book.read_bytes())
    kinds = {b.kind for b in whole.index.lines.values()}
    assert len(view.index.lines) < len(whole.index.lines) and kinds > {"run", "answer", "score"}
    sessions = RowContext.of(whole).sessions()
    assert session_keys(view, sessions, _common_digest(whole)) == session_keys(whole, sessions, _common_digest(whole))


@pytest.mark.fork
@pytest.mark.usefixtures("fork_ready")
@pytest.mark.parametrize("child_dies", [False, True])
def test_two_workers_build_the_same_csv(league: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        child_dies: bool) -> None:
    """Sessions built half in a forked child (through the cache): the CSV and the cache are those of one
    worker; a child that dies leaves its sessions to be built here."""
    import os

    from league.publish import forecast_cache
    from league.publish.forecast_cache import export_forecasts

    parent = os.getpid()
    real = forecast_cache._build

    def build(*args: Any) -> None:
        if child_dies and os.getpid() != parent:
            os._exit(5)
        real(*args)

    monkeypatch.setattr(forecast_cache, "_build", build)
    out = {}
    for workers in (1, 2):
        shutil.copytree(league, tmp_path / f"w{workers}")
        data = tmp_path / f"w{workers}" / "data"
        book = (data / "books" / "council-book.jsonl").read_bytes()
        rows = export_forecasts(data, tmp_path / f"w{workers}.csv", book, workers=workers)
        out[workers] = (rows, (tmp_path / f"w{workers}.csv").read_bytes(), _folder(data / CACHE_DIR))
    assert out[1] == out[2] and out[1][0] > 0 and len(out[1][2]) > 2
