"""council-forecasts.csv appended night by night (league.publish.forecast_layout): the unchanged sessions are kept
in place (the file's inode stays), the nights' files are byte for byte one full publish's, a changed byte in the
kept part is caught by the prefix's SHA-256 and the file written in full, and a write stopped halfway leaves no
layout."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from league.book.chain import iter_lines
from league.clock import SimulatedClock
from league.publish import publish
from league.publish.forecast_layout import LAYOUT_FILE, assemble, read_layout

AT = datetime(2026, 3, 2, 23, 0, tzinfo=UTC)
CSV = "council-forecasts.csv"


def _publish(data: Path) -> bytes:
    report = publish(data, data / "public", clock=SimulatedClock(AT))
    assert report.ok, report.failed
    return (data / "public" / CSV).read_bytes()


def _nights(book: Path) -> list[int]:
    """The line counts of the book at the end of each night: just before each run line after the first."""
    return [ln.n - 1 for ln in iter_lines(book) if ln.kind == "run"][1:]


def test_nights_append_and_end_with_the_bytes_of_one_full_publish(synth: Path, tmp_path: Path) -> None:
    shutil.copytree(synth, tmp_path / "league")
    data = tmp_path / "league" / "data"
    book = data / "books" / "council-book.jsonl"
    full = book.read_bytes().splitlines(keepends=True)
    inodes, sizes = [], []
    for cut in _nights(book):
        book.write_bytes(b"".join(full[:cut]))
        sizes.append(len(_publish(data)))
        inodes.append((data / "public" / CSV).stat().st_ino)
    book.write_bytes(b"".join(full))
    nightly = _publish(data)
    inodes.append((data / "public" / CSV).stat().st_ino)
    # a night whose changed sessions all follow the first kept the file and appended to it (the last night also
    # scores the first session's long horizon: written in full)
    assert any(a == b for a, b in zip(inodes, inodes[1:], strict=False))
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
    inode = target.stat().st_ino
    assert _publish(data) == good
    assert target.stat().st_ino != inode  # written to a new file and renamed, not appended to

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
    inode = target.stat().st_ino
    sessions = list(blocks)
    blocks[sessions[3]] = b"2026-01-04,scored later\n"
    keys[sessions[3]] = "k2"
    blocks["2026-01-07"], keys["2026-01-07"] = b"2026-01-07,new\n", "k1"
    assert _write(target, layout, keys, blocks) == (3, [*sessions[3:], "2026-01-07"])
    assert target.stat().st_ino == inode
    assert _write(target, layout, keys, blocks) == (7, [])  # nothing changed: nothing written


def test_a_session_gone_shortens_the_file(tmp_path: Path) -> None:
    target, layout = tmp_path / "f.csv", tmp_path / "layout.json"
    blocks = _blocks(5)
    _write(target, layout, {s: "k" for s in blocks}, blocks)
    del blocks["2026-01-05"]
    assert _write(target, layout, {s: "k" for s in blocks}, blocks) == (4, [])


@pytest.mark.parametrize("how", ["hard link", "other file", "no layout", "damaged layout"])
def test_a_file_the_layout_does_not_vouch_for_is_written_in_full(tmp_path: Path, how: str) -> None:
    target, layout = tmp_path / "f.csv", tmp_path / "layout.json"
    blocks = _blocks(4)
    keys = {s: "k" for s in blocks}
    _write(target, layout, keys, blocks)
    if how == "hard link":
        os.link(target, tmp_path / "snapshot.csv")
    elif how == "other file":
        doc = json.loads(layout.read_text())
        layout.write_text(json.dumps({**doc, "file": str(tmp_path / "elsewhere.csv")}))
    elif how == "no layout":
        layout.unlink()
    else:
        layout.write_text("{not json")
    before = target.read_bytes()
    assert _write(target, layout, keys, blocks) == (0, list(blocks))
    if how == "hard link":
        assert (tmp_path / "snapshot.csv").read_bytes() == before  # the other link's bytes untouched


def test_a_write_stopped_halfway_leaves_no_layout_and_the_next_is_full(tmp_path: Path) -> None:
    target, layout = tmp_path / "f.csv", tmp_path / "layout.json"
    blocks = _blocks(4)
    keys = {s: "k" for s in blocks}
    _write(target, layout, keys, blocks)
    keys["2026-01-03"] = "changed"

    def failing(session: str, key: str) -> tuple[bytes, int]:
        raise OSError("disk full")

    with pytest.raises(OSError):
        assemble(target, layout, b"session,text\n", keys, lambda todo: None, failing)
    assert not layout.exists()
    assert _write(target, layout, keys, blocks) == (0, list(blocks))
