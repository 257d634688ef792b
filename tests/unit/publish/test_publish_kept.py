"""The publisher parses the book once (league.book.shared.KeptLines): every reader after its verified read
gets the very lines the read-back copy gives — the CSV writer's view, the line check, the points track, the
crowd comparison, the portfolio — and the folder is byte for byte the folder of the old path (each reader
parsing the published copy again). Also the smaller fast paths of the same change: the line check's row reader,
the books step's line splitter, the CSV index's field splitter and the publisher's frozen fork."""

from __future__ import annotations

import csv
import gc
import hashlib
import io
import json
import os
import random
import shutil
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from league.book import Book, iter_lines
from league.book import shared as bookread
from league.book.shared import (
    EntryTable,
    KeptLines,
    book_lines,
    checked_copy,
    file_state,
    forget_kept,
    shared_reads,
)
from league.clock import SimulatedClock
from league.contracts.columns import BOOK_KIND
from league.publish import files, publish
from league.publish.bookfacts import _complete, read_facts
from league.publish.forecast_cache import ROW_KINDS, export_forecasts, kept_view, verified_view
from league.publish.forecasts_index import _values, forecasts_index, records
from league.publish.memory import fork_frozen
from league.publish.writing import complete_lines
from league.verify.linecheck import LineCheck, check_lines, check_table, line_entry, prob_entry

AT = datetime(2026, 3, 2, 23, 0, tzinfo=UTC)
CLOCK = SimulatedClock(datetime(2026, 3, 2, 14, 0, tzinfo=UTC))


@pytest.fixture(scope="module")
def league(synth: Path) -> Path:
    """The synthetic league (conftest's ``synth``) with a cell correction sealed after its last session."""
    out = synth
    book = out / "data" / "books" / "council-book.jsonl"
    answer = next(ln for ln in iter_lines(book) if ln.kind == "answer" and ln.content.get("items"))
    market = next(iter(answer.content["items"]))
    horizon = next(iter(answer.content["items"][market]))
    with Book(book, SimulatedClock(AT)) as b:
        b.append("correction", {"of": answer.n, "reason": "restored from the receipt", "target": "cell",
                                "seat": answer.content["seat"], "run_id": answer.content["run_id"],
                                "market": market, "horizon": horizon,
                                "cell": {"prob_up": 41.0, "cell_status": "elicited"}})
    return out


def _seen(lines: Iterable[Any]) -> list[tuple[int, str, str, str, dict[str, Any]]]:
    return [(x.n, x.prev, x.seal, x.link, x.content) for x in lines]


def _kept(book: Path, copy: Path, parsed: Iterable[str], raw: Iterable[str] = ()) -> KeptLines:
    """What the publisher's books step does: one verified read keeping some kinds, noted with its copy."""
    data = complete_lines(book)
    kept = KeptLines(parsed=frozenset(parsed), raw=frozenset(raw))
    read_facts(book, data, kept.add)
    copy.write_bytes(data)
    checked_copy(book, file_state(book), copy, hashlib.sha256(data).hexdigest(), kept)
    return kept


def _mixed_book(tmp_path: Path) -> Path:
    path = tmp_path / "books" / "council-book.jsonl"
    path.parent.mkdir(parents=True)
    with Book(path, CLOCK) as book:
        for i in range(4):
            book.append("score", {"session": "2026-03-02", "i": i, "x": [1.5, {"y": None}]})
            book.append("mark", {"session": "2026-03-02", "i": i, "note": "score ü"})  # "score" as a value only
            book.append("trade", {"session": "2026-03-02", "i": i})
            book.append("note", {"session": "2026-03-02", "i": i})
    return path


# ----------------------------------------------------------------------------------- the kept lines
def test_kept_lines_are_the_lines_the_copy_and_a_verified_read_give(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    book = _mixed_book(tmp_path)
    every = list(iter_lines(book))
    cases = (("score",), ("mark",), ("score", "mark"), ("trade", "mark"), ("score", "trade", "mark"))
    with shared_reads():  # the old path: the copy read back and parsed per reader
        checked_copy(book, file_state(book), tmp_path / "old.jsonl", hashlib.sha256(complete_lines(book)).hexdigest())
        (tmp_path / "old.jsonl").write_bytes(complete_lines(book))
        old = {kinds: _seen(book_lines(book, kinds)) for kinds in cases}
    with shared_reads():
        _kept(book, tmp_path / "copy.jsonl", parsed=("score",), raw=("trade", "mark"))

        def no_copy(*_: object) -> None:
            raise AssertionError("a covered reader read the copy")

        monkeypatch.setattr(bookread, "_parsed", no_copy)
        for kinds in cases:
            got = book_lines(book, kinds)
            assert _seen(got) == old[kinds] == _seen(x for x in every if x.kind in kinds), kinds


def test_kinds_not_kept_or_forgotten_are_parsed_from_the_copy(tmp_path: Path) -> None:
    book = _mixed_book(tmp_path)
    every = list(iter_lines(book))
    with shared_reads():
        kept = _kept(book, tmp_path / "copy.jsonl", parsed=("score",), raw=("mark",))
        assert not kept.covers(("note",)) and not kept.covers(None) and kept.covers(("score", "mark"))
        assert _seen(book_lines(book, ("note", "score"))) == _seen(x for x in every if x.kind in ("note", "score"))
        forget_kept(("score",))
        assert bookread.kept_lines(hashlib.sha256(complete_lines(book)).hexdigest(), ("score",)) is None
        assert bookread.kept_lines(hashlib.sha256(complete_lines(book)).hexdigest(), ("mark",)) is not None
        assert _seen(book_lines(book, ("score",))) == _seen(x for x in every if x.kind == "score")
        forget_kept()
        assert bookread.kept_lines(hashlib.sha256(complete_lines(book)).hexdigest(), ("mark",)) is None
        assert _seen(book_lines(book, ("mark",))) == _seen(x for x in every if x.kind == "mark")
    assert kept.kinds == [x.kind for x in every]


def test_a_book_grown_after_the_kept_read_is_read_and_verified_again(tmp_path: Path) -> None:
    book = _mixed_book(tmp_path)
    with shared_reads():
        _kept(book, tmp_path / "copy.jsonl", parsed=("score",))
        with Book(book, CLOCK) as b:
            b.append("score", {"session": "2026-03-03", "i": 9})
        got = book_lines(book, ("score",))
        assert _seen(got) == _seen(x for x in iter_lines(book) if x.kind == "score") and len(got) == 5  # type: ignore[arg-type]


def test_the_kept_view_is_the_verified_view_and_writes_the_same_csv(league: Path, tmp_path: Path) -> None:
    data = league / "data"
    book = data / "books" / "council-book.jsonl"
    raw = complete_lines(book)
    with shared_reads():
        kept = _kept(book, tmp_path / "copy.jsonl", parsed=ROW_KINDS)
        assert kept_view(data, kept).index.lines == verified_view(data, raw).index.lines  # type: ignore[attr-defined]
    for name, how in (("kept", {"kept": kept}), ("bytes", {"book": raw})):
        shutil.rmtree(data / "publish-cache", ignore_errors=True)
        export_forecasts(data, tmp_path / f"{name}.csv", **how)  # type: ignore[arg-type]
    assert (tmp_path / "kept.csv").read_bytes() == (tmp_path / "bytes.csv").read_bytes()


# ------------------------------------------------------------------------------ the whole publish
def _folder(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _published(league: Path, out: Path, workers: int = 1) -> dict[str, bytes]:
    shutil.rmtree(league / "data" / "publish-cache", ignore_errors=True)
    report = publish(league / "data", out, clock=SimulatedClock(AT), workers=workers)
    assert report.ok, report.failed
    return _folder(out)


def _nothing_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """The old path: the books step keeps nothing, so every reader parses the published copy again."""
    monkeypatch.setattr(files, "_kept", lambda beside: KeptLines(parsed=frozenset()))


def _counting_copy_reads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    asked: list[tuple[str, ...]] = []
    real = bookread._parsed

    def counted(checked: Any, kinds: Any, cut: Any = None) -> Any:
        asked.append(tuple(sorted(kinds or ())))
        return real(checked, kinds, cut)

    monkeypatch.setattr(bookread, "_parsed", counted)
    return asked


def test_publish_with_the_kept_lines_writes_the_old_folder(league: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from league.publish import forecast_cache

    parses: list[int] = []
    real = forecast_cache.verified_view
    monkeypatch.setattr(forecast_cache, "verified_view", lambda *a: parses.append(1) or real(*a))
    asked = _counting_copy_reads(monkeypatch)
    new = _published(league, tmp_path / "new")
    assert parses == []  # the CSV writer took the kept lines (one worker: the readers after the statistics
    assert ("score", "score_h") in asked  # parse the copy, the kept lines being let go before them)
    _nothing_kept(monkeypatch)
    old = _published(league, tmp_path / "old")
    assert parses == [1]  # the old path parsed the bytes again (so the comparison can fail)
    assert new == old
    assert json.loads(new["council-forecasts-index.json"])["rows"] > 0


@pytest.mark.fork
def test_two_workers_with_the_kept_lines_write_the_old_folder(league: Path, tmp_path: Path, fork_ready: None,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _counting_copy_reads(monkeypatch)
    new = _published(league, tmp_path / "new", workers=2)
    assert asked == []  # every reader (points, crowd, portfolio) took the kept lines
    _nothing_kept(monkeypatch)
    old = _published(league, tmp_path / "old", workers=2)
    assert ("score", "score_h") in asked and ("mark", "trade") in asked
    assert new == old == _published(league, tmp_path / "one", workers=1)


# ------------------------------------------------------------------------------------ the line check
def _reference_check(book: bytes, forecasts: Iterable[str]) -> LineCheck:
    """The line check as it was (csv.DictReader over every column), for comparison."""
    lines = {}
    for raw in book.split(b"\n")[:-1]:
        obj = json.loads(raw)
        kind = str(obj.get("kind", ""))
        items = obj.get("items") if kind == "answer" else None
        if kind == "correction" and obj.get("target") == "cell":
            items = {obj.get("market"): {obj.get("horizon"): obj.get("cell") or {}}}
        lines[int(obj["n"])] = (kind, items)
    result = LineCheck()
    for i, row in enumerate(csv.DictReader(forecasts), 2):
        result.rows += 1
        try:
            n = int(row.get("line") or "")
        except ValueError:
            result.problem(f"row {i}: line {row.get('line')!r} is not a line number")
            continue
        if n not in lines:
            result.problem(f"row {i}: line {n} is not in the book")
            continue
        kind, items = lines[n]
        said = row.get("line_kind") or kind
        expected = BOOK_KIND.get(said, said)
        if kind != expected:
            result.problem(f"row {i}: line {n} is a {kind} line, the row says {said}")
            continue
        stated = row.get("prob_up", "")
        if kind not in ("answer", "correction") or stated == "":
            continue
        try:
            cell = items[row["asset"]][row["horizon"]]["prob_up"]
        except (KeyError, TypeError):
            cell = None
        try:
            same = cell is not None and abs(float(cell) - float(stated)) < 1e-9
        except (TypeError, ValueError):
            same = False
        if not same:
            result.problem(f"row {i}: prob_up {stated} but line {n} holds {cell!r} for {row['asset']} {row['horizon']}")
            continue
        result.checked_cells += 1
    return result


def _variants(text: str, rng: random.Random) -> list[str]:
    """The CSV as written, and damaged: a changed probability, a wrong line, a short row, blank lines, a
    repeated column, a missing column, a wrong kind, a quoted field with a newline."""
    lines = text.splitlines(keepends=True)
    header, rows = lines[0], lines[1:]
    cols = header.rstrip("\n").split(",")
    out = [text]
    for _ in range(6):
        i = rng.randrange(len(rows))
        values = next(csv.reader([rows[i]]))
        j = rng.choice([cols.index("prob_up"), cols.index("line"), cols.index("line_kind"), cols.index("asset")])
        values[j] = rng.choice(["", "12.5", "99999", "x", "answer", "correction", "no_line"])
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerow(values)
        out.append("".join([header, *rows[:i], buf.getvalue(), *rows[i + 1:]]))
    out.append("".join([header, *rows[:3], rows[3].split(",", 8)[0] + "\n", "\n", *rows[4:]]))  # short, blank
    out.append("".join([header.rstrip("\n") + ",line\n", *(r.rstrip("\n") + ",7\n" for r in rows)]))  # repeated
    gone = cols.index("prob_up")
    out.append("".join(",".join(c for k, c in enumerate(next(csv.reader([ln]))) if k != gone) + "\n" for ln in lines))
    out.append(header + '"a\nb",' + rows[0])
    out.append("")
    return out


def test_the_line_check_from_the_kept_parse_is_the_old_check(league: Path, tmp_path: Path) -> None:
    data = league / "data"
    book = data / "books" / "council-book.jsonl"
    raw = complete_lines(book)
    with shared_reads():
        kept = _kept(book, tmp_path / "copy.jsonl", parsed=ROW_KINDS)
    table: dict[int, tuple[str, Any]] = dict(enumerate(((kind, None) for kind in kept.kinds), 1))
    table.update((line.n, line_entry(line.content)) for line in kept.of(("answer", "correction")))
    cut = KeptLines(parsed=frozenset(), check=frozenset(("answer", "correction")), checked=prob_entry)
    read_facts(book, raw, cut.add)  # what the one-worker publish keeps: kinds and probabilities only
    assert cut.checks and all(isinstance(entry, tuple) for entry in cut.checks.values())
    entries = EntryTable(cut.kinds, cut.checks)
    assert dict(entries) != table  # cut entries, not the whole items
    assert {n: kind for n, (kind, _) in entries.items()} == {n: kind for n, (kind, _) in table.items()}
    export_forecasts(data, tmp_path / "f.csv", raw)
    text = (tmp_path / "f.csv").read_text(encoding="utf-8")
    assert "correction" in text  # the fixture's cell correction has its row
    rng = random.Random(5)
    for variant in _variants(text, rng):
        want = _reference_check(raw, io.StringIO(variant, newline=""))
        for got in (check_table(table, io.StringIO(variant, newline="")),
                    check_table(entries, io.StringIO(variant, newline="")),
                    check_lines(raw, io.StringIO(variant, newline=""))):
            assert (got.rows, got.checked_cells, got.problem_count, got.problems) == \
                (want.rows, want.checked_cells, want.problem_count, want.problems)
    assert _reference_check(raw, io.StringIO(text, newline="")).ok


# ------------------------------------------------------------------------------- the smaller paths
def test_complete_lines_split_as_before() -> None:
    rng = random.Random(3)
    for data in (b"", b"\n", b"a", b"a\n", b"a\nb", b"\n\nx\n", b"{}\n{\"a\": 1}\n{\"b\""):
        assert list(_complete(data)) == data.split(b"\n")[:-1]
    for _ in range(200):
        data = bytes(rng.choice(b"ab\n\r{}") for _ in range(rng.randrange(30)))
        assert list(_complete(data)) == data.split(b"\n")[:-1]


def test_csv_index_fields_are_the_readers(tmp_path: Path) -> None:
    rng = random.Random(11)
    alphabet = ['a', 'ü', ',', '"', '\r', '\n', ' ', '', '\x00', '1.5', '\u2028']
    for _ in range(300):  # random bytes cut into records as the index cuts them (RFC 4180 quoting)
        data = "".join(rng.choice(alphabet) for _ in range(rng.randrange(40))).encode("utf-8")
        for start, end in records(data):
            raw = data[start:end]
            try:
                want = next(csv.reader(io.StringIO(raw.decode("utf-8"))), [])
            except csv.Error:
                with pytest.raises(csv.Error):
                    _values(raw)
                continue
            assert _values(raw) == want, raw
    rows = [["r1", "2026-03-02", "counted", 'say "hi", then\nleave'], ["r1", "2026-03-02", "counted", ""],
            ["r2", "2026-03-03", "rerun", "x"], []]
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([["run_id", "session", "run_role", "why"], *rows])
    data = buf.getvalue().encode("utf-8")
    index = forecasts_index(data, "t")
    assert index["rows"] == len(list(records(data))) - 1 == 4
    assert [r["run_id"] for r in index["runs"]] == ["r1", "r2", ""]


@pytest.mark.fork
def test_a_frozen_fork_gives_the_collector_back_to_the_parent(fork_ready: None) -> None:
    held = [{"k": [i]} for i in range(1000)]
    read, write = os.pipe()
    pid = fork_frozen()
    if pid == 0:
        os.close(read)
        os.write(write, str(gc.get_freeze_count() >= len(held)).encode() + str(sum(d["k"][0] for d in held)).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        said = fh.read()
    os.waitpid(pid, 0)
    assert gc.get_freeze_count() == 0
    assert said == b"True" + str(sum(range(1000))).encode()


def test_the_cut_entries_find_what_the_items_hold() -> None:
    """prob_entry (what the one-worker publish keeps for the line check) answers every (asset, horizon) lookup of
    the check as the whole items do, odd shapes included; equal cells are shared through the caller's pool."""
    from league.verify.linecheck import _cell_prob

    odd: list[Any] = [
        {"spx": {"1d": {"prob_up": 55.0, "action": "buy"}, "1w": {"prob_up": -0.0}, "1m": {"action": "hold"},
                 "6m": {"prob_up": 1}}, "vix": {"1d": {"prob_up": 1.0}, "1w": [1, 2], "1m": "x"},
         "gold": [], "oil": None, "btc": {"1d": {"prob_up": [55]}, "1w": {"prob_up": None}}},
        [], "text", None, {}, {"spx": "flat"},
    ]
    pool: dict[Any, Any] = {}
    for items in odd:
        for kind, content in (("answer", {"kind": "answer", "items": items}),
                              ("correction", {"kind": "correction", "target": "cell", "market": "spx",
                                              "horizon": "1d", "cell": items})):
            whole, cut = line_entry(content), prob_entry(content, pool)
            assert cut[0] == whole[0] == kind
            for asset in ("spx", "vix", "gold", "oil", "btc", "nope"):
                for horizon in ("1d", "1w", "1m", "6m", "3y"):
                    got, want = _cell_prob(cut[1], asset, horizon), _cell_prob(whole[1], asset, horizon)
                    assert repr(got) == repr(want), (items, asset, horizon)
    assert prob_entry({"kind": "run"}) == ("run", None)
    a = prob_entry({"kind": "answer", "items": {"spx": {"1d": {"prob_up": 40.0}}}}, pool)[1]
    b = prob_entry({"kind": "answer", "items": {"spx": {"1d": {"prob_up": 40.0, "why": "x"}}}}, pool)[1]
    assert a == b and a["spx"]["1d"] is b["spx"]["1d"]


@pytest.mark.parametrize("shared", [False, True])
def test_the_point_track_from_cut_score_lines_is_the_whole_lines_report(league: Path, shared: bool,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """league.evals.points reads its score lines cut to the fields it uses (league.book.shared.book_contents): the same
    report as from the whole lines, read verified (no block) or parsed from checked bytes (inside a block)."""
    from contextlib import nullcontext

    from league.evals import points

    def report() -> dict[str, Any]:
        with shared_reads() if shared else nullcontext():
            if shared:
                points.points_report(league / "data", min_history=1)  # the first read verifies and notes
            return points.points_report(league / "data", min_history=1)

    cut = report()
    lines = [ln.content for ln in iter_lines(league / "data" / "books" / "council-book.jsonl") if ln.kind == "score"]
    assert points.score_fields(lines[0]) != lines[0]  # cut, not whole
    monkeypatch.setattr(points, "score_fields", lambda content: content)
    whole = report()
    assert cut == whole
    assert sum(s["windows"] for s in whole["seats"].values()) > 0  # something was scored, so it can differ


@pytest.mark.parametrize("shared", [False, True])
def test_the_crowd_comparison_from_cut_lines_is_the_whole_lines_comparison(league: Path, shared: bool,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """league.publish.crowd reads its kinds cut to the fields it uses (crowd.compared_fields,
    league.book.shared.book_index's cut): the same blocks as from the whole lines, read verified (no block) or
    parsed from checked bytes."""
    from contextlib import nullcontext

    from league.publish import crowd

    def blocks() -> Any:
        with shared_reads() if shared else nullcontext():
            if shared:
                crowd.crowd_blocks(league / "data")  # the first read verifies and notes
            return crowd.crowd_blocks(league / "data")

    cut = blocks()
    answer = next(ln.content for ln in iter_lines(league / "data" / "books" / "council-book.jsonl")
                  if ln.kind == "answer" and ln.content.get("items"))
    assert crowd.compared_fields(answer) != answer  # cut, not whole
    monkeypatch.setattr(crowd, "compared_fields", lambda content: content)
    whole = blocks()
    assert cut == whole
    assert whole[0]["rows"] > 0 and whole[1]["seats"]  # questions were compared, so it can differ


def test_the_crowd_cut_reads_odd_answers_as_the_whole_lines() -> None:
    """The cut keeps the crowd_up _cell finds (or the error it fails with) for odd items."""
    from league.publish import crowd

    odd: list[Any] = [{"spx": {"1d": {"crowd_up": 60, "prob_up": 55}, "1w": {}}, "vix": {"1w": {"crowd_up": 1}},
                       "gold": {"1d": [1]}, "oil": {}, "btc": None, "eth": {"1d": {"prob_up": 3}}}, None, {}]
    for items in odd:
        whole = {"kind": "answer", "seat": "a", "run_id": "r", "session": "2026-03-02", "items": items}
        cut = crowd.compared_fields(whole)
        for market in ("spx", "vix", "gold", "oil", "btc", "eth", "nope"):
            assert crowd._cell(cut, market).get("crowd_up") == crowd._cell(whole, market).get("crowd_up")
    for items in ([1], {"spx": [1]}, "x"):
        whole = {"kind": "answer", "items": items}
        for content in (whole, crowd.compared_fields(whole)):
            with pytest.raises(AttributeError):
                crowd._cell(content, "spx")
