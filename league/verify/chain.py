"""Streaming chain verification, faster than the reader loop and with the same verdicts.

What makes it fast without changing what is checked:

* a line in the book's own spelling (compact, sorted keys: what ``Book.append`` writes) gets its two
  canonical texts from :mod:`league.verify.fastjson`: orjson parses it and proves it canonical,
  msgspec lays it out with the separators of ``json.dumps``, and the bookkeeping items are cut out
  of that text; no standard-library serialisation at all (the module says why the bytes are the
  same, and refuses every line where that is not proven);
* any other line (another writer's spelling) takes the standard library's way, with the C encoder
  and the C scanner behind ``json`` built once and called directly (``json.dumps`` builds a new
  encoder on every call, and the reader loop calls it twice per line): short lines serialised
  twice, long lines once, with the top-level keys split into the groups that sort around ``n``,
  ``prev`` and ``seal``;
* chunks are split into lines as bytes, never decoded as a whole;
* seals and links of different lines are independent, so chunks are checked on every core; the
  workers read their byte range of the file themselves and only the ``prev`` of each chunk's first
  line is joined up in the parent, in order.

A line that fails the tight path is checked again by :func:`check_line`, which follows the reader
loop's order (UTF-8 and JSON, ``n`` and ``prev``, seal, link) and names the reason, so the first
bad line and its reason are those the reader loop stops at. Memory stays flat: chunks are a few MB
and at most ``2 × workers`` are in flight.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing.context import BaseContext
from typing import Any, Protocol

from league.jsonvalue import Json, JsonObject
from league.jsonvalue import text as json_text
from league.verify.fastjson import canonical_hashes

_dumps = json.JSONEncoder(sort_keys=True, ensure_ascii=False).encode
_loads = json.loads
# The C scanner behind json.loads, without its whitespace regexes: the tight path only takes rows
# that start with "{" and are consumed to their last character (anything else goes the careful way).
_scan_once: Callable[[str, int], tuple[Json, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
_sha = hashlib.sha256
_BOOK = ("n", "prev", "seal", "link")
_BOM = b"\xef\xbb\xbf"
CHUNK_BYTES = 4 << 20
# No line the league writes comes near this (answers are a few KB; Book.append refuses longer). A
# longer line is reported, not read: verifying a hostile 1 GB line (or /dev/zero) stays bounded.
MAX_LINE_BYTES = 16 << 20
OVERLONG = f"line longer than {MAX_LINE_BYTES >> 20} MiB (no book line the league writes is): not read"
SMALL_FILE = 8 << 20
LONG_LINE = 1024  # above this many characters a line is serialised once, in groups


def _raw_encoder() -> Callable[[Json, int], Iterable[str]]:
    """The C encoder of ``json.dumps(o, sort_keys=True, ensure_ascii=False)``, built once.

    ``json.dumps`` (and ``JSONEncoder.encode``) build a new C encoder on every call, about a third
    of the cost of serialising a short line. Same settings, without cycle detection, which parsed
    JSON cannot need. Called as ``encode(obj, 0)``; returns the text in pieces.
    """
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # no C accelerator: the plain encoder gives the same text
        return lambda obj, _level: (_dumps(obj),)
    encode: Callable[[Json, int], Iterable[str]] = make(
        None, None, json.encoder.encode_basestring, None, ": ", ", ", True, False, True
    )
    return encode


_ENCODE = _raw_encoder()


def _J(obj: Json) -> str:  # noqa: N802 - the protocol's name
    """``J(o)`` of docs/protocol.md §3 as text."""
    return "".join(_ENCODE(obj, 0))


def _inner(group: JsonObject) -> bytes:
    return _J(group)[1:-1].encode("utf-8")


def _seal_and_link(x: JsonObject) -> tuple[str, str]:
    """Return (seal, link) exactly as the formula defines them, serialising each value once."""
    a: JsonObject = {}
    b: JsonObject = {}
    c: JsonObject = {}
    d: JsonObject = {}
    for k, v in x.items():
        if k in ("n", "prev", "seal", "link"):
            continue
        if k < "n":
            a[k] = v
        elif k < "prev":
            b[k] = v
        elif k < "seal":
            c[k] = v
        else:
            d[k] = v
    parts = [_inner(g) if g else b"" for g in (a, b, c, d)]
    seal_h = _sha(b"{" + b", ".join(p for p in parts if p) + b"}").hexdigest()
    extra = [
        b'"n": ' + _J(x["n"]).encode("utf-8"),
        b'"prev": ' + _J(x["prev"]).encode("utf-8"),
        b'"seal": ' + _J(x["seal"]).encode("utf-8"),
    ]
    ordered = [parts[0], extra[0], parts[1], extra[1], parts[2], extra[2], parts[3]]
    link_h = _sha(b"{" + b", ".join(p for p in ordered if p) + b"}").hexdigest()
    return seal_h, link_h


def _seal_and_link_short(x: JsonObject) -> tuple[str, str]:
    """Same result as :func:`_seal_and_link`; for short lines two C-encoder calls are cheaper."""
    y = dict(x)
    del y["link"]
    link_h = _sha(_J(y).encode("utf-8")).hexdigest()
    del y["n"], y["prev"], y["seal"]
    return _sha(_J(y).encode("utf-8")).hexdigest(), link_h


def _hashes(x: JsonObject, length: int) -> tuple[str, str]:
    return _seal_and_link(x) if length > LONG_LINE else _seal_and_link_short(x)


def check_line(raw: bytes, i: int, prev: str | None) -> tuple[str | None, dict[str, Any] | None]:
    """Check one line (LF stripped). ``prev=None`` skips the prev check (chunk boundaries).

    The accepted line comes back as parsed JSON for the callers in other packages to read as they
    read a sealed line's body (``n`` an int and ``link`` a str once it held).
    """
    problem, x = _check(raw, i, prev)
    return problem, (None if problem else x)


def _check(raw: bytes, i: int, prev: str | None) -> tuple[str | None, JsonObject | None]:
    """Like :func:`check_line`, but also returns the parsed line when it failed after its ``n`` check
    (the parent still needs that line's ``prev`` to join chunks)."""
    x, problem = _parse(raw)
    if problem:
        return problem, None
    assert x is not None
    if x["n"] != i:
        return f"wrong n (has {x['n']!r}, expected {i})", None
    if prev is not None and x["prev"] != prev:
        return "wrong prev (does not equal the previous line's link)", x
    try:
        seal, link = _hashes(x, len(raw))
    except (TypeError, ValueError, RecursionError) as exc:
        return f"cannot be hashed ({exc!r})", x
    if x["seal"] != seal:
        return "bad seal (content does not hash to the line's seal)", x
    if x["link"] != link:
        return "bad link (line does not hash to its link)", x
    return None, x


def _parse(raw: bytes) -> tuple[JsonObject | None, str | None]:
    """Decode and parse one line the way the reader loop reads it (text mode, strict UTF-8)."""
    if raw.startswith(_BOM):
        return None, "byte-order mark at the start of the line"
    if b"\r" in raw[:-1]:
        # The reader loop opens the book in text mode, where a lone CR ends a line: it would see
        # two lines here. (A CR just before the LF is a CRLF ending, which both accept.)
        return None, "stray carriage return inside the line (the reader loop splits it there)"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 ({exc})"
    try:
        # decode first: json.loads(bytes) would also accept UTF-16/32 and a BOM on any line
        x: Json = _loads(text)
    except ValueError as exc:
        return None, f"not JSON ({exc})"
    except RecursionError:
        return None, "not JSON (nested too deeply to parse)"
    if not isinstance(x, dict):
        return None, "not a JSON object"
    for key in _BOOK:
        if key not in x:
            return None, f"missing field {key!r}"
    return x, None


def _tight_run(rows: list[bytes], pos: int, i: int, prev: str) -> tuple[int, str]:
    """Check ``rows[pos:]`` (line numbers from ``i``) while they hold; return (first row that did
    not hold or ``len(rows)``, link of the last row that held, or ``prev``).

    The hot loop: it accepts only what the reader loop accepts (same comparisons, same canonical
    texts) and stops at any doubt; :func:`_check` then decides about that row and names the
    problem. A long line (an answer) gets its texts from
    :func:`~league.verify.fastjson.canonical_hashes` when it is in the book's own spelling, else
    from the standard library (:func:`_stdlib_hashes`); a short one the standard library's way
    inline, where per-line overheads matter more than the serialising.
    """
    sha, encode, scan, join, fast, slow = _sha, _ENCODE, _scan_once, "".join, canonical_hashes, _stdlib_hashes
    end = len(rows)
    x: Json
    while pos < end:
        row = rows[pos]
        try:
            if len(row) > LONG_LINE:
                got = fast(row) or slow(row)
                if got is None:
                    break
                x, seal_h, link_h = got
                if x["n"] != i or x["prev"] != prev or x["seal"] != seal_h or x["link"] != link_h:
                    break
                prev = link_h
            else:
                text = row.decode("utf-8")
                if "\r" in text or text[:1] != "{":
                    break
                x, stop = scan(text, 0)
                if stop != len(text) or not isinstance(x, dict):
                    break
                link = x.pop("link")
                if x["n"] != i or x["prev"] != prev:
                    break
                link_h = sha(join(encode(x, 0)).encode("utf-8")).hexdigest()
                seal = x.pop("seal")
                del x["n"], x["prev"]
                if seal != sha(join(encode(x, 0)).encode("utf-8")).hexdigest() or link != link_h:
                    break
                prev = link
        except Exception:  # the careful path re-checks the row and names the problem
            break
        pos += 1
        i += 1
    return pos, prev


def _stdlib_hashes(row: bytes) -> tuple[JsonObject, str, str] | None:
    """``(parsed line, seal hash, link hash)`` the standard library's way, for a line in any spelling
    the formula allows (another writer's book); ``None`` at any doubt (a CR, bad UTF-8, no object)."""
    try:
        text = row.decode("utf-8")
        if "\r" in text or text[:1] != "{":
            return None
        x, stop = _scan_once(text, 0)
        if stop != len(text) or not isinstance(x, dict):
            return None
        seal_h, link_h = _hashes(x, len(text))
    except Exception:
        return None
    return x, seal_h, link_h


class _Digest(Protocol):
    """What verification needs of a running SHA-256: feed it the bytes read, read its hex at the end."""

    def update(self, data: bytes | memoryview, /) -> None: ...

    def hexdigest(self) -> str: ...


@dataclass(frozen=True)
class ChunkResult:
    count: int  # lines that held, from the chunk's first line
    has_first_prev: bool  # False when the first line failed before its prev could be read
    first_prev: Json
    last_link: str  # link of the last line that held ("" when none did)
    error_at: int  # absolute 1-based line number, 0 when none
    reason: str


def check_chunk(data: bytes, start: int) -> ChunkResult:
    """Check the lines of ``data`` up to its last LF, numbered from ``start`` (anything after the
    last LF is not looked at: the caller reads it again with the next chunk).

    The first line's prev is not known here (the parent joins it up); it and any line the tight
    path stops at go through :func:`_check`.
    """
    rows = _rows(data)
    has_first, first_prev, link = False, None, ""
    pos = 0
    while pos < len(rows):
        if pos:
            pos, link = _tight_run(rows, pos, start + pos, link)
            if pos == len(rows):
                break
        problem, x = _check(rows[pos], start + pos, link if pos else None)
        if pos == 0 and x is not None:
            has_first, first_prev = True, x["prev"]
        if problem:
            return ChunkResult(pos, has_first, first_prev, link, start + pos, problem)
        assert x is not None
        link = json_text(x["link"])  # a str: it equalled the hex digest computed for it
        pos += 1
    return ChunkResult(pos, has_first, first_prev, link, 0, "")


def _rows(data: bytes) -> list[bytes]:
    """The lines of ``data`` before its last LF, without their LFs; never decoded as a whole."""
    rows = data.split(b"\n")
    rows.pop()  # what follows the last LF
    return rows


def check_chunk_at(path: str, offset: int, length: int, start: int) -> ChunkResult:
    """Worker entry point: read ``length`` bytes at ``offset`` (whole lines) and check them."""
    with open(path, "rb") as fh:
        fh.seek(offset)
        data = fh.read(length)
    return check_chunk(data, start)


@dataclass(frozen=True)
class VerifyReport:
    """The verdict: either ``ok`` with the head, or the first bad line and why.

    ``lines``, ``sha256`` and ``last_link`` always describe the same prefix: every line when the
    chain holds, the lines before the first bad one otherwise.
    """

    lines: int
    sha256: str
    last_link: str
    bad_line: int = 0
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.bad_line == 0


def _blocks(path: str | os.PathLike[str], digest: _Digest) -> Iterator[tuple[int, bytes, int, bytes | None]]:
    """Yield ``(offset, block, cut, tail)``: ``block`` starts at a line and ``block[:cut]`` are whole
    lines (bytes after ``cut`` are read again with the next block); feed the digest as we go.

    ``tail`` is ``b""`` for a block of lines, the torn bytes after the last LF at the end (with an
    empty block), or ``None`` when the next line is longer than :data:`MAX_LINE_BYTES` (reading
    stops there). Blocks are handed on as read: no copies of a few MB per block.
    """
    with open(path, "rb") as fh:
        offset = 0
        while True:
            fh.seek(offset)
            block = fh.read(CHUNK_BYTES)
            if not block:
                return
            cut = block.rfind(b"\n") + 1
            while not cut:  # the line at ``offset`` is longer than a block: read on
                if len(block) > MAX_LINE_BYTES:
                    yield offset, b"", 0, None
                    return
                more = fh.read(CHUNK_BYTES)
                if not more:
                    yield offset, b"", 0, block
                    return
                block += more
                cut = block.rfind(b"\n") + 1
            if block.find(b"\n") > MAX_LINE_BYTES:
                yield offset, b"", 0, None
                return
            digest.update(memoryview(block)[:cut])
            yield offset, block, cut, b""
            offset += cut


def verify(path: str | os.PathLike[str], workers: int | None = None) -> VerifyReport:
    """Verify the whole book; ``workers=1`` checks in this process."""
    size = os.path.getsize(path)
    if workers is None:
        workers = 1 if size < SMALL_FILE else max(1, min(os.cpu_count() or 1, 8))
    digest = hashlib.sha256()
    state = _State()
    if workers == 1:
        for _, block, _, torn in _blocks(path, digest):
            if torn is None:
                return state.overlong(path, digest)
            if torn or not state.absorb(check_chunk(block, state.next_line)):
                return state.report(path, digest, torn)
        return state.report(path, digest, b"")
    with ProcessPoolExecutor(max_workers=workers, mp_context=_context()) as pool:
        return _verify_parallel(pool, path, digest, state, workers)


def _context() -> BaseContext:
    """Fork is fastest, but forking a process that runs other threads (the daemon's seats and
    scheduler) can copy a held lock into the child: there, start workers from a fork server."""
    return multiprocessing.get_context("forkserver" if threading.active_count() > 1 else "fork")


def _verify_parallel(
    pool: ProcessPoolExecutor, path: str | os.PathLike[str], digest: _Digest, state: _State, workers: int
) -> VerifyReport:
    pending: deque[Future[ChunkResult]] = deque()
    start = 1
    torn_tail = b""
    for offset, block, cut, torn in _blocks(path, digest):
        if torn is None:
            while pending:
                if not state.absorb(pending.popleft().result()):
                    _cancel(pending)
                    return state.report(path, digest, b"")
            return state.overlong(path, digest)
        if torn:
            torn_tail = torn
            break
        pending.append(pool.submit(check_chunk_at, os.fspath(path), offset, cut, start))
        start += block.count(b"\n")  # (none after ``cut``)
        while len(pending) >= 2 * workers:
            if not state.absorb(pending.popleft().result()):
                _cancel(pending)
                return state.report(path, digest, b"")
    while pending:
        if not state.absorb(pending.popleft().result()):
            _cancel(pending)
            return state.report(path, digest, b"")
    return state.report(path, digest, torn_tail)


def _cancel(pending: deque[Future[ChunkResult]]) -> None:
    for fut in pending:
        fut.cancel()


def _prefix_sha256(path: str | os.PathLike[str], lines: int) -> str:
    """SHA-256 of the first ``lines`` lines with their LFs (only needed after a failure)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for _ in range(lines):  # never reads the line after them (it may be the overlong one)
            digest.update(fh.readline())
    return digest.hexdigest()


class _State:
    """Joins chunk results in order and keeps the first failure."""

    def __init__(self) -> None:
        self.next_line = 1
        self.link = ""
        self.bad = 0
        self.reason = ""

    def absorb(self, res: ChunkResult) -> bool:
        first = self.next_line
        if res.has_first_prev and res.first_prev != self.link:
            # has_first_prev means the first line got past its n check; the reader loop checks
            # prev next, before seal and link, so this is the line's first fault.
            self.bad, self.reason = first, "wrong prev (does not equal the previous line's link)"
            return False
        if res.error_at:
            self.bad, self.reason = res.error_at, res.reason
            if res.count:
                self.link = res.last_link
            self.next_line = res.error_at
            return False
        self.next_line += res.count
        self.link = res.last_link
        return True

    def overlong(self, path: str | os.PathLike[str], digest: _Digest) -> VerifyReport:
        self.bad, self.reason = self.next_line, OVERLONG
        return self.report(path, digest, b"")

    def report(self, path: str | os.PathLike[str], digest: _Digest, torn: bytes) -> VerifyReport:
        if self.bad:
            lines = self.bad - 1
            return VerifyReport(lines, _prefix_sha256(path, lines), self.link, self.bad, self.reason)
        if torn:
            self.bad, self.reason = self.next_line, "torn line (no LF at the end of the file)"
        return VerifyReport(self.next_line - 1, digest.hexdigest(), self.link, self.bad, self.reason)
