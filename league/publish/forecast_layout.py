"""Where each session's block lies in the published ``council-forecasts.csv``: the night appends instead of
rewriting the season.

The CSV is its header and then one block per session, in session order (league.publish.forecast_cache), and a
night changes the blocks of a few sessions only — the new one, and older ones whose long horizons were scored or
which a correction names. So beside the cache, in ``DATA/publish-cache/forecasts-layout.json``, the publisher
keeps the layout of the file it last wrote: the file's path (from the layout's folder), the header's SHA-256
and, for each session, its key, its rows, the byte offset where its block ends and the SHA-256 of the file's
bytes from the start to there.

A night finds the first session whose key is not the layout's at the same place (a changed block, a new session,
or a session gone); every session before it is kept. The published file's bytes up to the end of the last kept
block are read, hashed and copied into a new file in one pass, and only when that SHA-256 is the layout's are the
remaining blocks appended to the copy; otherwise — a byte changed anywhere in that prefix, the file shorter, moved
or replaced, no layout, a layout written by other code — the new file is written whole from the cache, as a first
publish does. Either way the new file is renamed into place: a reader downloading the CSV gets the old file or
the new one, never one being written, and a file hard-linked elsewhere (a snapshot) keeps its bytes. Copying the
prefix is one sequential read and write of bytes already on disk (no parse, no cache block opened): the saving is
the rendering of the kept sessions, and the check is what proves the kept part is the bytes the layout describes,
not just a file of the right size. A night that changes no session leaves the file as it is.

A night stopped while it writes the new file leaves the published file and its layout as they were (the new file
is removed); the layout is removed just before the new file is renamed into place and written (atomically) only
after it, so a stop between the two leaves no layout and the next night writes the file in full. The release
manifest is written after the CSV either way.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol

import structlog

from league.jsonvalue import Json

log = structlog.get_logger(__name__)

#: Where the layout is kept (relative to DATA), beside the blocks of league.publish.forecast_cache.
LAYOUT_FILE = "publish-cache/forecasts-layout.json"
FORMAT = "forecasts-layout-1"
CHUNK = 1 << 20


class Digest(Protocol):
    """A running SHA-256 (``hashlib.sha256()``)."""

    def update(self, data: bytes, /) -> None: ...

    def copy(self) -> Digest: ...

    def hexdigest(self) -> str: ...


@dataclass(frozen=True)
class Placed:
    """One session's block in the file: its key, its rows, where it ends, and the SHA-256 of the file up to there."""

    session: str
    key: str
    rows: int
    end: int
    prefix: str

    def as_json(self) -> list[Json]:
        return [self.session, self.key, self.rows, self.end, self.prefix]


@dataclass(frozen=True)
class Layout:
    """The layout of one written file (:data:`LAYOUT_FILE`)."""

    file: str
    header: str
    header_end: int
    sessions: tuple[Placed, ...]

    def as_json(self) -> dict[str, Json]:
        return {"format": FORMAT, "file": self.file, "header": self.header, "header_end": self.header_end,
                "sessions": [p.as_json() for p in self.sessions]}


def read_layout(path: Path) -> Layout | None:
    """The layout kept at ``path``; ``None`` when there is none or it is not one this code wrote."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            return None
        placed = tuple(Placed(str(s), str(k), int(r), int(e), str(h)) for s, k, r, e, h in doc["sessions"])
        return Layout(str(doc["file"]), str(doc["header"]), int(doc["header_end"]), placed)
    except (OSError, ValueError, TypeError, KeyError):
        return None


@dataclass(frozen=True)
class Kept:
    """The part of the published file a night keeps: its first ``count`` sessions, the hash state after them."""

    count: int
    end: int
    rows: int
    digest: Digest
    placed: tuple[Placed, ...]


def file_name(target: Path, layout_path: Path) -> str:
    """How a layout names its file: the path from the layout's folder to it, so that a data folder copied or
    moved whole (a demo's folder, a restored backup) keeps a layout that names the same file and the same bytes."""
    return os.path.relpath(target.resolve(), layout_path.parent.resolve())


def kept_prefix(target: Path, name: str, layout: Layout | None, header: bytes, keys: dict[str, str],
                copy_to: IO[bytes] | None = None) -> Kept | None:
    """The sessions of ``keys`` (in order) the file at ``target`` holds unchanged, checked against the layout by
    the SHA-256 of every byte up to the end of the last of them; ``None`` when none can be kept. The bytes read
    are also written to ``copy_to`` when given (whatever the verdict: the caller starts again on ``None``)."""
    if layout is None or layout.file != name:
        return None
    if layout.header != hashlib.sha256(header).hexdigest() or layout.header_end != len(header):
        return None
    count = 0
    for placed, (session, key) in zip(layout.sessions, keys.items(), strict=False):
        if placed.session != session or placed.key != key:
            break
        count += 1
    if count == 0:
        return None
    last = layout.sessions[count - 1]
    try:
        if target.stat().st_size < last.end:
            return None
        digest = hashlib.sha256()
        with open(target, "rb") as fh:
            _hash_into(digest, fh, last.end, copy_to)
    except OSError:
        return None
    if digest.hexdigest() != last.prefix:
        log.warning("publish.forecasts_prefix_changed", file=str(target), sessions=count,
                    detail="the published file is not the bytes its layout describes; written in full")
        return None
    return Kept(count, last.end, sum(p.rows for p in layout.sessions[:count]), digest, layout.sessions[:count])


def _hash_into(digest: Digest, fh: IO[bytes], size: int, copy_to: IO[bytes] | None) -> None:
    left = size
    while left > 0:
        chunk = fh.read(min(CHUNK, left))
        if not chunk:
            raise OSError("the file ended early")
        digest.update(chunk)
        if copy_to is not None:
            copy_to.write(chunk)
        left -= len(chunk)


def assemble(target: Path, layout_path: Path, header: bytes, keys: dict[str, str],
             prepare: Callable[[dict[str, str]], None],
             block_of: Callable[[str, str], tuple[bytes, int]]) -> tuple[int, int]:
    """Write the CSV at ``target``: ``header``, then each session's block in the order of ``keys`` (session -> key).
    The sessions the published file already holds unchanged (:func:`kept_prefix`) are copied from it and the
    others appended after them, in a new file renamed into place; ``prepare`` is told the sessions to write (to
    build what the cache lacks) and ``block_of`` gives each one's block and rows. Returns the CSV's rows and the
    number of sessions kept."""
    layout, name = read_layout(layout_path), file_name(target, layout_path)
    if layout is not None and [(p.session, p.key) for p in layout.sessions] == list(keys.items()):
        kept = kept_prefix(target, name, layout, header, keys)  # nothing changed: the file stays if it is the layout's
        if kept is not None and target.stat().st_size == kept.end:
            return kept.rows, kept.count
    tmp = target.with_suffix(".csv.tmp")
    try:
        with open(tmp, "wb") as out:
            kept = kept_prefix(target, name, layout, header, keys, copy_to=out)
            if kept is None:
                out.seek(0)
                out.truncate()
                out.write(header)
            todo = dict(list(keys.items())[kept.count if kept else 0:])
            prepare(todo)
            placed: list[Placed] = list(kept.placed) if kept else []
            digest = kept.digest.copy() if kept else hashlib.sha256(header)
            offset = kept.end if kept else len(header)
            rows = (kept.rows if kept else 0) + _write_blocks(out, offset, digest, todo, block_of, placed)
    except BaseException:
        tmp.unlink(missing_ok=True)  # the published file and its layout stay as they were
        raise
    layout_path.unlink(missing_ok=True)  # no layout while the file is replaced: a stop means a full write
    tmp.replace(target)
    fresh = Layout(name, hashlib.sha256(header).hexdigest(), len(header), tuple(placed))
    tmp_layout = layout_path.with_suffix(f".tmp{os.getpid()}")
    tmp_layout.parent.mkdir(parents=True, exist_ok=True)
    tmp_layout.write_text(json.dumps(fresh.as_json(), separators=(",", ":")), encoding="utf-8")
    tmp_layout.replace(layout_path)
    return rows, kept.count if kept else 0


def _write_blocks(fh: IO[bytes], offset: int, digest: Digest, todo: dict[str, str],
                  block_of: Callable[[str, str], tuple[bytes, int]], placed: list[Placed]) -> int:
    rows = 0
    for session, key in todo.items():
        block, n = block_of(session, key)
        fh.write(block)
        digest.update(block)
        offset += len(block)
        rows += n
        placed.append(Placed(session, key, n, offset, digest.hexdigest()))
    return rows
