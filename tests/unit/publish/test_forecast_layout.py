"""council-forecasts.csv appended night by night (league.publish.forecast_layout): the unchanged sessions are copied
from the published file, the nights' files are byte for byte one full publish's, a changed byte in the kept part
is caught by the prefix's SHA-256 and the file written in full, the new file always replaces the old by a rename
(a hard link elsewhere keeps its bytes), and a write stopped halfway leaves the published file and its layout as
they were."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from league.book.chain import iter_lines
from league.clock import SimulatedClock
from league.publish import publish
from league.publish.forecast_layout import LAYOUT_FILE, assemble, read_layout

AT = datetime(2026, 3, 2, 23, 0, tzinfo=UTC)
CSV = "council-forecasts.csv"


def _publish(data: Path, kept: list[int] | None = None) -> bytes:
    with capture_logs() as logs:
        report = publish(data, data / "public", clock=SimulatedClock(AT))
    assert report.ok, report.failed
    if kept is not None:
        kept.extend(int(e["kept_sessions"]) for e in logs if e.get("event") == "publish.forecasts_cached")
    return (data / "public" / CSV).read_bytes()


def _nights(book: Path) -> list[int]:
    """The line counts of the book at the end of each night: just before each run line after the first."""
    return [ln.n - 1 for ln in iter_lines(book) if ln.kind == "run"][1:]


def test_nights_append_and_end_with_the_bytes_of_one_full_publish(synth: Path, tmp_path: Path) -> None:
    shutil.copytree(synth, tmp_path / "league")
    data = tmp_path / "league" / "data"
    book = data / "books" / "council-book.jsonl"
    full = book.read_bytes().splitlines(keepends=True)
    kept: list[int] = []
    sizes = []
    for cut in _nights(book):
        book.write_bytes(b"".join(full[:cut]))
        sizes.append(len(_publish(data, kept)))
    book.write_bytes(b"".join(full))
    nightly = _publish(data, kept)
    # a night whose changed sessions all follow the first kept the sessions before them (the last night also
    # scores the first session's long horizon: written in full)
    assert len(kept) == len(sizes) + 1 and kept[0] == 0 and any(k > 0 for k in kept)
    assert sizes == sorted(sizes) and sizes[0] < len(nightly)

    scratch = tmp_path / "scratch"
    shutil.copytree(synth, scratch)
    assert nightly == _publish(scratch / "data")
    layout = read_layout(data / LAYOUT_FILE)
    assert layout is not None and layout.sessions[-1].end == len(nightly)
    assert layout.sessions[-1].prefix == hashlib.sha256(nightly).hexdigest()


def test_a_changed_byte_in_the_kept_part_is_caught_and_the_file_written_in_full(synth: Path, tmp_path: Path) -> None:
    shutil.copytree(synth, tmp_path / "league")
    data = tmp_path / "league" / "data"
    good = _publish(data)
    target = data / "public" / CSV
    at = good.index(b"\n") + 5  # a byte of the first session's first row
    flipped = bytes([good[at] ^ 1])
    target.write_bytes(good[:at] + flipped + good[at + 1:])
    kept: list[int] = []
    assert _publish(data, kept) == good
    assert kept == [0]  # the changed byte is in the first session: nothing kept, written in full

    target.write_bytes(good[: len(good) // 2])  # cut short
    assert _publish(data) == good


def _blocks(n: int) -> dict[str, bytes]:
    return {f"2026-01-{d:02d}": f"2026-01-{d:02d},row {d}\n".encode() * (d % 3 + 1) for d in range(1, n + 1)}


def _write(target: Path, layout: Path, keys: dict[str, str], blocks: dict[str, bytes]) -> tuple[int, list[str]]:
    asked: list[str] = []

    def block_of(session: str, key: str) -> tuple[bytes, int]:
        asked.append(session)
        return blocks[session], blocks[session].count(b"\n")

    rows, kept = assemble(target, layout, b"session,text\n", keys, lambda todo: None, block_of)
    assert rows == sum(b.count(b"\n") for b in blocks.values())
    assert target.read_bytes() == b"session,text\n" + b"".join(blocks[s] for s in keys)
    return kept, asked


def test_a_changed_key_rewrites_from_that_session_on(tmp_path: Path) -> None:
    target, layout = tmp_path / "f.csv", tmp_path / "cache" / "layout.json"
    blocks = _blocks(6)
    keys = {s: "k1" for s in blocks}
    assert _write(target, layout, keys, blocks) == (0, list(blocks))
    sessions = list(blocks)
    blocks[sessions[3]] = b"2026-01-04,scored later\n"
    keys[sessions[3]] = "k2"
    blocks["2026-01-07"], keys["2026-01-07"] = b"2026-01-07,new\n", "k1"
    assert _write(target, layout, keys, blocks) == (3, [*sessions[3:], "2026-01-07"])
    inode = target.stat().st_ino
    assert _write(target, layout, keys, blocks) == (7, [])  # nothing changed: nothing written
    assert target.stat().st_ino == inode


def test_a_session_gone_shortens_the_file(tmp_path: Path) -> None:
    target, layout = tmp_path / "f.csv", tmp_path / "layout.json"
    blocks = _blocks(5)
    _write(target, layout, {s: "k" for s in blocks}, blocks)
    del blocks["2026-01-05"]
    assert _write(target, layout, {s: "k" for s in blocks}, blocks) == (4, [])


@pytest.mark.parametrize("how", ["other file", "no layout", "damaged layout"])
def test_a_file_the_layout_does_not_vouch_for_is_written_in_full(tmp_path: Path, how: str) -> None:
    target, layout = tmp_path / "f.csv", tmp_path / "layout.json"
    blocks = _blocks(4)
    keys = {s: "k" for s in blocks}
    _write(target, layout, keys, blocks)
    if how == "other file":
        doc = json.loads(layout.read_text())
        layout.write_text(json.dumps({**doc, "file": str(tmp_path / "elsewhere.csv")}))
    elif how == "no layout":
        layout.unlink()
    else:
        layout.write_text("{not json")
    assert _write(target, layout, keys, blocks) == (0, list(blocks))


def test_the_new_file_replaces_the_old_so_a_hard_link_keeps_its_bytes(tmp_path: Path) -> None:
    target, layout = tmp_path / "f.csv", tmp_path / "layout.json"
    blocks = _blocks(4)
    keys = {s: "k" for s in blocks}
    _write(target, layout, keys, blocks)
    os.link(target, tmp_path / "snapshot.csv")
    before = target.read_bytes()
    blocks["2026-01-05"], keys["2026-01-05"] = b"2026-01-05,new\n", "k"
    assert _write(target, layout, keys, blocks) == (4, ["2026-01-05"])
    assert (tmp_path / "snapshot.csv").read_bytes() == before
    assert target.stat().st_ino != (tmp_path / "snapshot.csv").stat().st_ino


def test_a_write_stopped_halfway_leaves_the_file_and_its_layout_as_they_were(tmp_path: Path) -> None:
    target, layout = tmp_path / "f.csv", tmp_path / "layout.json"
    blocks = _blocks(4)
    keys = {s: "k" for s in blocks}
    _write(target, layout, keys, blocks)
    published, described = target.read_bytes(), layout.read_bytes()
    keys["2026-01-03"] = "changed"

    def failing(session: str, key: str) -> tuple[bytes, int]:
        raise OSError("disk full")

    with pytest.raises(OSError):
        assemble(target, layout, b"session,text\n", keys, lambda todo: None, failing)
    assert target.read_bytes() == published and layout.read_bytes() == described
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.csv", "layout.json"]  # the new file removed
    assert _write(target, layout, keys, blocks) == (2, ["2026-01-03", "2026-01-04"])


def test_a_folder_copied_whole_keeps_its_layout(tmp_path: Path) -> None:
    """The layout names its file from its own folder: a data folder copied elsewhere (a demo's folder, a restored
    backup) still appends, and two copies hold the same layout bytes."""
    first = tmp_path / "a"
    (first / "public").mkdir(parents=True)
    blocks = _blocks(4)
    keys = {s: "k" for s in blocks}
    _write(first / "public" / "f.csv", first / "cache" / "layout.json", keys, blocks)
    shutil.copytree(first, tmp_path / "b")
    second = tmp_path / "b"
    assert (second / "cache" / "layout.json").read_bytes() == (first / "cache" / "layout.json").read_bytes()
    blocks["2026-01-05"], keys["2026-01-05"] = b"2026-01-05,new\n", "k"
    assert _write(second / "public" / "f.csv", second / "cache" / "layout.json", keys, blocks) == (4, ["2026-01-05"])
