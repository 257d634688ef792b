"""The publisher's cache of ``council-forecasts.csv``: each session's rows, kept by what they are made of.

Building a session's rows (typed score lines, the counting rule for horizons not scored yet, event ids)
was most of the CSV writer's time, and it was redone for every session of the season every night,
though a night changes the rows of a handful of sessions only. A session's rows are a function of that
session's own sealed lines — its run lines, their answers, its incidents and silences, its score lines,
the price corrections naming it and the cell corrections of its answers
(:func:`league.publish.forecasts.session_rows_of`) — of the league's configuration and of the code. So
each session's rendered CSV bytes are kept in ``DATA/publish-cache/forecasts/<session>.<key>.<rows>.<sha>.csv``
(``sha``: the SHA-256 of the file itself, checked before use), where ``key`` is the SHA-256 of:

* the ``n`` and ``link`` of each of those lines (a link hashes its line and every line before it, so a
  line changed in place changes it; a new correction touching the session adds a line to the list);
* the configuration files (``config/*.toml``) and the source of the modules the rows come from
  (:data:`SOURCES`): a new release or a changed market list rebuilds every session.

A session whose key has a file is copied from it; any other is built and its file written (replacing the
session's older files). The CSV is then the header and the sessions' blocks in order — byte for byte what
:func:`league.publish.forecasts.write_forecasts` writes (tests/unit/publish/test_forecast_cache.py). The
cache holds nothing that is not derived: deleting the folder only makes the next publish build every
session again. A block that cannot be read, or does not hash to its name, is rebuilt.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import sys
import threading
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from typing import Protocol

import structlog

from league.book import BOOKKEEPING
from league.book.index import Body, BodyIndex, BookIndex, Packed, PackedLines
from league.book.shared import KeptLines
from league.book.view import BookView
from league.calendar import Calendar, default_calendar
from league.config import Config, load_config
from league.counting import Sealed
from league.jsonvalue import Json
from league.publish.errors import PublishError
from league.publish.forecast_layout import LAYOUT_FILE, assemble
from league.publish.forecasts import COLUMNS, RowContext, session_rows_of
from league.publish.memory import fork_frozen
from league.records import Sealed as SeasonView

log = structlog.get_logger(__name__)

_LEAGUE = Path(__file__).resolve().parent.parent
#: The modules a session's rows are computed by (relative to the league package): a change to any of
#: them changes every key.
SOURCES = ("publish/forecasts.py", "publish/forecast_cache.py", "counting.py", "contracts", "book/lines.py",
           "calendar.py", "clock.py", "isotime.py", "config.py")
FORMAT = "forecast-rows-1"
#: The kinds a session's rows are made of: what :class:`league.publish.forecasts.RowContext` and the counting
#: rule read of the book (runs, answers, incidents, silences, corrections, score lines). The publisher's view
#: parses only these (a season's trades, marks, decisions and crowd quotes are most of its lines), and a
#: session's key names only these.
ROW_KINDS = frozenset({"run", "answer", "incident", "silence", "correction", "score", "score_h"})


def write_forecasts_cached(lg: BookView | _View, path: Path, cache: Path, workers: int = 1) -> int:
    """Write the CSV at ``path`` from the cached blocks and the sessions that changed; returns its rows.
    ``workers`` 2 (where the system can fork, in a process running no other thread): the sessions to build are
    shared with a forked child first, each writing its blocks into the cache, from which the CSV is then
    assembled as always (a block the child did not leave is built here)."""
    ctx = RowContext.of(lg)
    keys = session_keys(lg, ctx.sessions(), _common_digest(lg))
    cache.mkdir(parents=True, exist_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    built = [0]

    def prepare(todo: dict[str, str]) -> None:
        if workers > 1 and hasattr(os, "fork") and threading.active_count() == 1:  # no other thread's lock forked
            _build_shared(lg, ctx, cache, [(s, k) for s, k in todo.items() if _cached(cache, s, k)[0] is None])

    def block_of(session: str, key: str) -> tuple[bytes, int]:
        block, rows = _cached(cache, session, key)
        if block is None:
            data = session_rows_of(lg, ctx, session)
            block, rows = _render(data), len(data)
            _keep(cache, session, key, rows, block)
            built[0] += 1
        return block, rows

    count, kept = _assemble(path, cache, keys, prepare, block_of)
    log.info("publish.forecasts_cached", sessions=len(keys), built=built[0], reused=len(keys) - built[0],
             rows=count, kept_sessions=kept)
    return count


def _assemble(path: Path, cache: Path, keys: dict[str, str], prepare: Callable[[dict[str, str]], None],
              block_of: Callable[[str, str], tuple[bytes, int]]) -> tuple[int, int]:
    """The CSV from the header and the sessions' blocks, the unchanged part of the published file copied from it
    (league.publish.forecast_layout, its layout beside the cache)."""
    header = _render([dict(zip(COLUMNS, COLUMNS, strict=True))])
    return assemble(path, cache.parent / LAYOUT_NAME, header, keys, prepare, block_of)


def _build(lg: Sealed, ctx: RowContext, cache: Path, session: str, key: str) -> None:
    data = session_rows_of(lg, ctx, session)
    _keep(cache, session, key, len(data), _render(data))


def _build_shared(lg: Sealed, ctx: RowContext, cache: Path, missing: list[tuple[str, str]]) -> None:
    """Build the missing sessions' blocks into the cache, every other one in a forked child."""
    if len(missing) < 2:
        return
    for stream in (sys.stdout, sys.stderr):
        stream.flush()  # nothing buffered here is written twice
    pid = fork_frozen()
    if pid == 0:
        code = 1
        try:
            for session, key in missing[1::2]:
                _build(lg, ctx, cache, session, key)
            code = 0
        finally:
            os._exit(code)
    try:
        for session, key in missing[0::2]:
            _build(lg, ctx, cache, session, key)
    finally:
        os.waitpid(pid, 0)  # whatever the child did not leave in the cache is built by the caller


class Indexed(Protocol):
    """A view whose index the session keys are read from: whole records, or bodies cut to their key fields."""

    @property
    def index(self) -> BookIndex | BodyIndex: ...


class Configured(Protocol):
    """A view's config (the common digest hashes its files)."""

    @property
    def config(self) -> Config: ...


def session_keys(lg: Indexed, sessions: Iterable[str], common: str) -> dict[str, str]:
    """Each session's key: the common digest and the (n, link) of every line its rows are made of."""
    index = lg.index
    return _keys(kept_lines(index), session_lines(index), sessions, common)


#: A line as an index keeps it: a typed record (a whole line), a record packed by a windowed index (its key
#: fields at hand), or a body cut to its key fields (a slim view).
Kept = SeasonView | Packed | Body


def kept_lines(index: BookIndex | BodyIndex) -> Mapping[int, Kept]:
    """The index's lines as it holds them: a packed line is read for its key fields without being decoded."""
    lines = index.lines
    return lines.kept if isinstance(lines, PackedLines) else lines


def _get(item: Kept, name: str) -> Json:
    """A field of a kept line, whichever way it is kept (``None`` when it has none)."""
    if isinstance(item, dict):
        return item.get(name)
    value = getattr(item, name, None)
    return value if isinstance(value, str | int | float | bool) or value is None else None


def _keys(lines: Mapping[int, Kept], groups: dict[str, list[int]], sessions: Iterable[str],
          common: str) -> dict[str, str]:
    parts = {s: [f"{n}:{_get(lines[n], 'link') or ''}" for n in ns] for s, ns in groups.items()}
    return {s: hashlib.sha256("\n".join([common, s, *parts.get(s, [])]).encode()).hexdigest() for s in sessions}


def session_lines(index: BookIndex | BodyIndex) -> dict[str, list[int]]:
    """The numbers of the lines each session's rows are made of (the :data:`ROW_KINDS` lines that name it, its
    runs or one of its answers), in book order. Reads only ``kind``, ``session``, ``run_id``, ``target``, ``of``
    (league.book.shared.SLIM_FIELDS) of each line: an index of lines cut to those fields gives the same."""
    lines = kept_lines(index)
    run_session = {str(_get(r, "run_id")): str(_get(r, "session")) for r in index.of_kind("run")}
    groups: dict[str, list[int]] = defaultdict(list)
    for n in sorted(lines):
        body = lines[n]
        if _get(body, "kind") not in ROW_KINDS:
            continue
        session = _session_of(body, lines, run_session)
        if session:
            groups[session].append(n)
    return groups


def row_sessions(index: BookIndex | BodyIndex) -> list[str]:
    """The sessions the CSV has rows for, as :meth:`RowContext.sessions` lists them (the session of each run id's
    last run line), from the run lines' ``run_id`` and ``session`` only."""
    runs = {_get(r, "run_id"): r for r in index.of_kind("run")}
    return sorted({str(_get(r, "session")) for r in runs.values()})


def _session_of(body: Kept, lines: Mapping[int, Kept], run_session: dict[str, str]) -> str:
    """The session whose rows a line feeds: its own, its run's, or (a cell correction) its answer's."""
    if _get(body, "kind") == "correction" and _get(body, "target") == "cell":
        of = _get(body, "of")
        answer = lines.get(of) if isinstance(of, int) else None
        if answer is None:
            return ""
        return str(_get(answer, "session") or run_session.get(str(_get(answer, "run_id") or ""), ""))
    return str(_get(body, "session") or run_session.get(str(_get(body, "run_id") or ""), ""))


def _common_digest(lg: Configured) -> str:
    """What every session's rows share: the format, the columns, the config files and the code."""
    h = hashlib.sha256(f"{FORMAT}\n{','.join(COLUMNS)}\n".encode())
    folder = getattr(lg.config, "folder", None)
    configs = sorted(Path(folder).glob("*.toml")) if folder is not None else []
    for path in [*configs, *_source_files()]:
        h.update(f"{path.name}\n".encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _source_files() -> list[Path]:
    out: list[Path] = []
    for name in SOURCES:
        path = _LEAGUE / name
        out += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return out


def _render(rows: list[dict[str, str]]) -> bytes:
    """Rows as the CSV writer writes them (``csv.DictWriter`` over :data:`COLUMNS`, LF line ends, UTF-8): the
    values in column order through ``csv.writer``, which is what DictWriter does after checking each row's keys
    (every row here has exactly the columns, so that check is skipped; a row without one raises KeyError)."""
    buf = io.StringIO(newline="")
    csv.writer(buf, lineterminator="\n").writerows(map(_VALUES, rows))
    return buf.getvalue().encode("utf-8")


_VALUES = itemgetter(*COLUMNS)


def _name(session: str, key: str, rows: int, block: bytes) -> str:
    return f"{session}.{key}.{rows}.{hashlib.sha256(block).hexdigest()}.csv"


def _cached(cache: Path, session: str, key: str) -> tuple[bytes | None, int]:
    """The kept block of ``session`` under ``key`` and its row count; ``(None, 0)`` when there is none or
    it does not hash to the SHA-256 in its name (a damaged file is rebuilt, never published)."""
    for path in cache.glob(f"{session}.{key}.*.csv"):
        try:
            _, _, rows, sha, _ = path.name.split(".")
            block = path.read_bytes()
        except (OSError, ValueError):
            continue
        if rows.isdigit() and hashlib.sha256(block).hexdigest() == sha:
            return block, int(rows)
    return None, 0


def _keep(cache: Path, session: str, key: str, rows: int, block: bytes) -> Path:
    """Write the block (atomically), then drop the session's blocks under other keys; returns its path."""
    target = cache / _name(session, key, rows, block)
    tmp = target.with_suffix(f".tmp{os.getpid()}")
    tmp.write_bytes(block)
    tmp.replace(target)
    for old in cache.glob(f"{session}.*.csv"):
        if old != target:
            old.unlink(missing_ok=True)
    return target


def write_forecasts_streamed(view: SlimView, book: Path, sha256: str, path: Path, cache: Path) -> int:
    """Write the CSV at ``path`` as :func:`write_forecasts_cached` does, from an index of the :data:`ROW_KINDS`
    lines cut to their key fields (``view``: :func:`slim_view`) and the checked bytes of the book at ``book``
    (their SHA-256 ``sha256``); returns its rows.

    Why: the whole book's bodies in an index were the publisher's peak, though a night rebuilds a
    handful of sessions. The keys come from the cut lines; only the lines of the sessions whose key has no
    block are parsed, in one pass over the copy (:func:`_build_streamed`), each session built and let go as soon
    as its last line is read. A session's rows read nothing but its own lines (the lines its key names, pinned
    by tests/unit/publish/test_forecast_stream.py), the config and the calendar."""
    index = view.index
    sessions = row_sessions(index)
    groups = session_lines(index)
    keys = _keys(kept_lines(index), groups, sessions, _common_digest(view))
    cache.mkdir(parents=True, exist_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    missing: dict[str, str] = {}

    def prepare(todo: dict[str, str]) -> None:
        missing.update((s, k) for s, k in todo.items() if _cached(cache, s, k)[0] is None)
        _build_streamed(view, book, sha256, cache, missing, groups)

    def block_of(session: str, key: str) -> tuple[bytes, int]:
        block, rows = _cached(cache, session, key)
        if block is None:
            raise PublishError(f"{cache}: the block of session {session} just built cannot be read back",
                               fix="check the disk holding DATA/publish-cache, then publish again")
        return block, rows

    count, kept = _assemble(path, cache, keys, prepare, block_of)
    log.info("publish.forecasts_cached", sessions=len(keys), built=len(missing), reused=len(keys) - len(missing),
             rows=count, kept_sessions=kept)
    return count


def _build_streamed(view: SlimView, book: Path, sha256: str, cache: Path, missing: dict[str, str],
                    groups: dict[str, list[int]]) -> None:
    """Build the ``missing`` sessions' blocks into the cache from one pass over the checked copy ``book``: only the
    lines of those sessions are parsed (line ``n`` of a checked book is its ``n``-th line), and a session is built
    and dropped once its last line is read, so at most the sessions still awaiting a later line are held (their
    long horizons' score lines: half a year of sessions). Every byte is hashed; if the copy is not the checked
    bytes, the blocks written from it are removed and the step fails."""
    if not missing:  # nothing to build: the copy is not read
        return
    owner = {n: s for s in missing for n in groups.get(s, [])}
    ends = deque(sorted((groups[s][-1], s) for s in missing if groups.get(s)))
    links = kept_lines(view.index)
    held: dict[str, BookIndex] = {}
    written: list[Path] = []
    digest = hashlib.sha256()
    try:
        with open(book, "rb") as fh:
            for n, raw in enumerate(fh, 1):
                digest.update(raw)
                session = owner.get(n)
                if session is None:
                    continue
                held.setdefault(session, BookIndex()).add_body(_body(raw, n, str(_get(links[n], "link"))))
                while ends and ends[0][0] <= n:
                    done = ends.popleft()[1]
                    written.append(_build_one(view, held.pop(done, BookIndex()), cache, done, missing[done]))
        if digest.hexdigest() != sha256 or ends:
            raise PublishError(f"{book} is not the book checked by this publish (changed while publishing)",
                               fix="publish again")
    except BaseException:
        for block in written:  # never kept from bytes that were not the checked ones
            block.unlink(missing_ok=True)
        raise
    for session in missing.keys() - {s for s in missing if groups.get(s)}:  # a session without a line of its own
        _build_one(view, BookIndex(), cache, session, missing[session])


def _body(raw: bytes, n: int, link: str) -> Body:
    """Line ``n`` of the checked copy as the index keeps it (content, then n, seal and link), checked to be the
    line whose link the cut index holds."""
    obj = json.loads(raw.decode("utf-8"))
    if obj.get("n") != n or obj.get("link") != link:
        raise PublishError(f"line {n} of the published copy is not the line checked as {n}", fix="publish again")
    body = {k: v for k, v in obj.items() if k not in BOOKKEEPING}
    return {**body, "n": obj["n"], "seal": obj["seal"], "link": obj["link"]}


def _build_one(view: SlimView, index: BookIndex, cache: Path, session: str, key: str) -> Path:
    """One session's block from an index of its own lines only, kept in the cache."""
    own = _View(index, view.config, view.calendar)
    data = session_rows_of(own, RowContext.of(own), session)
    return _keep(cache, session, key, len(data), _render(data))


def export_forecasts(data_dir: Path, target: Path, book: bytes | None = None, *, workers: int = 1,
                     kept: KeptLines | None = None, copy: tuple[Path, str] | None = None) -> int:
    """The publisher's producer: write the CSV from the sealed book of DATA (read-only on the book: safe
    while the daemon writes), reusing the rows of every session whose lines did not change since the last
    publish (league.publish.forecast_cache, under DATA/publish-cache; deleting it is safe).

    ``book``: the book's complete lines as the publisher already read and verified them (every seal and
    link, league.publish.bookfacts.read_facts) and publishes as council-book.jsonl; they are only parsed
    here, not hashed again, and the CSV describes exactly that copy. Without it the book is read and
    verified from DATA, as before. ``kept``: those lines as the publisher's verified read parsed them (it holds
    the :data:`ROW_KINDS`), taken as they are instead of ``book``; when it holds those kinds cut to their key
    fields only (``kept.slim``), ``copy`` (the checked copy's path and SHA-256) is where the bodies of the
    sessions to build are read (:func:`write_forecasts_streamed`)."""
    data_dir = Path(data_dir)
    if kept is not None and copy is not None and ROW_KINDS <= kept.slim:
        return write_forecasts_streamed(slim_view(data_dir, kept), Path(copy[0]), copy[1], Path(target),
                                        data_dir / CACHE_DIR)
    if kept is not None:
        view: BookView | _View = kept_view(data_dir, kept)
    else:
        view = BookView.open(data_dir) if book is None else verified_view(data_dir, book)
    return write_forecasts_cached(view, Path(target), data_dir / CACHE_DIR, workers)


def verified_view(data_dir: Path, book: bytes) -> _View:
    """What :meth:`BookView.open` gives for the :data:`ROW_KINDS`, over lines already verified: each index
    entry is ``league.book.index.body_of`` of its line (content, then n, seal and link). A line of another kind
    is not parsed when its bytes do not hold one of those kinds' names in quotes (a top-level ``"kind"`` always
    does), and is dropped once parsed otherwise."""
    index = BookIndex()
    tokens = tuple(f'"{kind}"'.encode("ascii") for kind in sorted(ROW_KINDS))
    for raw in io.BytesIO(book):  # line by line, without a second copy of the book; all end with LF
        if not any(t in raw for t in tokens):
            continue
        obj = json.loads(raw.decode("utf-8"))
        if obj.get("kind") not in ROW_KINDS:
            continue
        body = {k: v for k, v in obj.items() if k not in BOOKKEEPING}
        index.add_body({**body, "n": obj["n"], "seal": obj["seal"], "link": obj["link"]})
    return _View(index, load_config(Path(data_dir).parent / "config"), default_calendar())


def kept_view(data_dir: Path, kept: KeptLines) -> _View:
    """:func:`verified_view` over the lines the publisher's verified read kept (league.book.shared): the
    same index entries (content, then n, seal and link), without parsing the bytes again."""
    index = BookIndex()
    for line in kept.of(ROW_KINDS):
        index.add_body({**line.content, "n": line.n, "seal": line.seal, "link": line.link})
    return _View(index, load_config(Path(data_dir).parent / "config"), default_calendar())


def slim_view(data_dir: Path, kept: KeptLines) -> SlimView:
    """A view over the :data:`ROW_KINDS` lines the publisher's verified read kept cut to their key fields
    (league.book.shared.slim_of): enough for the sessions and their keys, not for rows."""
    index = BodyIndex()
    for slim in kept.slims:
        if slim.get("kind") in ROW_KINDS:
            index.add_body(slim)
    return SlimView(index, load_config(Path(data_dir).parent / "config"), default_calendar())


@dataclass(frozen=True)
class _View:
    """A read-only view like :class:`BookView` (what the counting rule reads) over a given index."""

    index: BookIndex
    config: Config
    calendar: Calendar


@dataclass(frozen=True)
class SlimView:
    """A view over lines cut to their key fields: enough for the sessions and their keys, not for rows."""

    index: BodyIndex
    config: Config
    calendar: Calendar


#: Where the publisher keeps its per-session rows (relative to DATA); nothing else reads it.
CACHE_DIR = "publish-cache/forecasts"
LAYOUT_NAME = Path(LAYOUT_FILE).name
