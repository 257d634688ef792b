"""A book's last lines, read back from the end of the file: what a job needs of recent history without
reading (and re-hashing) every line since the league began."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from league.book.chain import BookLine, _checked
from league.errors import ChainBroken
from league.jsonvalue import Json, JsonObject

BACK_BLOCK = 1 << 16


def raw_lines_back(fh: IO[bytes], limit: int | None = None) -> Iterator[tuple[int, bytes]]:
    """The file's complete lines (with their LF) from the last one back, with their offsets, within about
    ``limit`` bytes of the end (whole blocks of ``BACK_BLOCK``; ``None``: the whole file). Bytes after the
    last LF (a line being written, or torn) are not a line."""
    block = BACK_BLOCK
    size = fh.seek(0, os.SEEK_END)
    pos, buf, ended = size, b"", False  # buf: the bytes from pos up to the end of the last line not yet given
    while pos > 0 and (limit is None or size - pos < limit):
        step = min(block, pos)
        pos -= step
        fh.seek(pos)
        buf = fh.read(step) + buf
        if not ended:
            cut = buf.rfind(b"\n")
            if cut < 0:
                continue
            buf, ended = buf[: cut + 1], True
        while (cut := buf.rfind(b"\n", 0, len(buf) - 1)) >= 0:
            yield pos + cut + 1, buf[cut + 1:]
            buf = buf[: cut + 1]
    if pos == 0 and ended and buf:
        yield 0, buf


def recent_lines(path: Path, keep: Callable[[JsonObject], bool]) -> list[BookLine]:
    """The book's last lines, from the end back as long as ``keep`` holds for each line's JSON object, in
    book order and verified: each line's seal, and its link from the line before it. The line before the
    first one kept (the one ``keep`` refused) is read only for its number and link, not re-hashed: the
    lines up to it are covered by the nightly full check and `league verify` (docs/book.md).

    Why: resuming asks left in flight after a restart needs the asks of the runs still in memory, not the
    whole ask chain; reading it from line 1 made every new process's first job grow with the league's age."""
    kept: list[bytes] = []
    n, prev = 0, ""
    with open(path, "rb") as fh:
        for _start, raw in raw_lines_back(fh):
            head = line_object(raw)
            if head is None:
                raise ChainBroken(f"{path}: the line {len(kept) + 1} from the end is not a book line (run "
                                  f"`league verify {path}`)", line=0, reason="not a book line")
            if not keep(head.body):
                n, prev = head.n, head.link
                break
            kept.append(raw)
    out = []
    for raw in reversed(kept):
        n += 1
        line = _checked(raw[:-1], n, prev)
        out.append(line)
        prev = line.link
    return out


@dataclass(frozen=True)
class LineHead:
    """A raw line read as a JSON object whose ``n`` is an int and ``link`` a str (not checked further)."""

    n: int
    link: str
    body: JsonObject  # the whole object, n and link included


def line_object(raw: bytes) -> LineHead | None:
    """A raw line's JSON object when it has an int ``n`` and a str ``link`` (not checked further), else None."""
    try:
        obj: Json = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(obj, dict):
        return None
    n, link = obj.get("n"), obj.get("link")
    if type(n) is not int or not isinstance(link, str):
        return None
    return LineHead(n, link, obj)
