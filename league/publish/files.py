"""``publish``: regenerate the open-data folder (open-data.md) from the books and what others produce.

The folder is derived data: every run rewrites it from the sealed books, the database and the
price cache, so publishing twice gives the same files (bar ``generated_at`` stamps). Some files come
from producers (the CSV writer, the scoring statistics, the portfolio tables, the proof pages), named
in :data:`PRODUCERS` (:mod:`league.publish.producers`); a producer a league does without (``None``)
is named as not produced in the report and on the index page, and a producer that raises is
recorded as failed, never hidden.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import json
import os
import pickle
import sys
import tempfile
import threading
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn, TypeVar

import structlog

from league.arms.book import ARM_ASKS, ARMS_BOOK, ARMS_DIR
from league.book.shared import (
    EntryTable,
    KeptLines,
    checked_copy,
    checked_entries,
    file_state,
    forget_kept,
    kept_lines,
    shared_reads,
    slim_lines,
)
from league.clock import Clock, SystemClock, iso_seconds
from league.config import Config, load_config
from league.contest.embargo import released_bytes
from league.errors import LeagueError
from league.heap import collector_paused, settle_heap
from league.jsonvalue import JsonObject
from league.publish import commitments, crowd, portfolio, producers
from league.publish import documents as docs
from league.publish import readers as readers_files
from league.publish import sides as sides_files
from league.publish.bookfacts import BookFacts, read_facts
from league.publish.catalogue import RENAMED, info_for
from league.publish.compliance import MANIFEST, compliance_document
from league.publish.crowd import COMPARED_KINDS
from league.publish.errors import PublishError
from league.publish.forecast_cache import ROW_KINDS
from league.publish.forecasts_index import forecasts_index
from league.publish.memory import fork_frozen, release_memory
from league.publish.producers import Producer
from league.publish.rebuild import sealed_inputs, write_roster
from league.publish.sources import SOURCES, write_sources
from league.publish.writing import complete_lines, copy_file, sha256_file, write_bytes, write_json
from league.readers.book import READERS_BOOK
from league.readers.rules import GROUP_LABELS
from league.scoring.sources import DEFAULT_ASK_SITES
from league.verify.linecheck import Entry, check_lines, check_table, line_entry, prob_entry

log = structlog.get_logger(__name__)
#: What a split producer computes beside the statistics and merges once they are done.
_T = TypeVar("_T")

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
#: Who writes which files; ``None`` = this league does without (named as not produced, never hidden).
PRODUCERS: dict[str, Producer | None] = dict(producers.ALL)
STATS_FILES = ("council-stats.json", "council-calibration.json", "council-clim-window.json", "council-league.json")
PORTFOLIO_FILES = ("arena-trades.csv", "arena-accounts.csv")
ARMS_FILES = ("arms/", "arena-cb-experiment.json", "council-repeats.json", "council-talk.json",
              "council-talk-critiques.csv", "predictions/", "predictions.json")
#: (source relative to the league package, published name)
COPIES: tuple[tuple[str, str], ...] = (
    ("contracts/event-contract.schema.json", "event-contract.schema.json"),
    ("verify/tools/conformance.py", "tools/conformance.py"),
    ("verify/tools/replay_brier.py", "tools/replay_brier.py"),
    ("verify/tools/recount_consensus.py", "tools/recount_consensus.py"),
    ("verify/tools/recount_arms.py", "tools/recount_arms.py"),
    ("verify/tools/recount_talk.py", "tools/recount_talk.py"),
    ("verify/tools/resolve_predictions.py", "tools/resolve_predictions.py"),
    ("verify/tools/recount_sides.py", "tools/recount_sides.py"),
    ("verify/tools/recount_sources.py", "tools/recount_sources.py"),
    ("verify/tools/recount_readers.py", "tools/recount_readers.py"),
    ("verify/tools/recount_points.py", "tools/recount_points.py"),
    ("verify/tools/replay.py", "replay.py"),
    ("../docs/protocol.md", "protocol.md"),  # the rules a recount follows (§10: consensus and N_eff)
)
ENGINE_DIRS = ("scoring", "portfolio")
#: The CLI contest: its files (DATA/contest, written as it seals) and its book, published under contest/.
CONTEST_DIR = "contest"
CONTEST_BOOK = "contest-book.jsonl"


@dataclass(frozen=True)
class PublishedFile:
    name: str
    bytes: int
    sha256: str


@dataclass(frozen=True)
class PublishReport:
    """What one publish run wrote, what it skipped (producer absent) and what failed."""

    out_dir: Path
    files: tuple[PublishedFile, ...]
    skipped: tuple[tuple[str, str], ...]
    failed: tuple[tuple[str, str], ...]
    book_lines: int
    generated_at: str
    line_check: str = ""

    def file(self, name: str) -> PublishedFile | None:
        return next((f for f in self.files if f.name == name), None)

    @property
    def ok(self) -> bool:
        return not self.failed


@dataclass
class _Run:
    """Mutable state of one publish run; frozen into a :class:`PublishReport` at the end."""

    data_dir: Path
    out: Path
    generated_at: str
    config: Config | None
    facts: BookFacts = field(default_factory=BookFacts)
    book_sha256: str = ""  # of the book's complete lines the books step verified, as published in council-book.jsonl
    book_head: bytes = b""  # their first line (the opening, for config.json)
    workers: int = 1
    book_state: tuple[int, int, int] | None = None  # the live book's state when ``facts`` were read, if unchanged
    line_check: str = ""
    kept_parsed: frozenset[str] = frozenset()  # the kinds the books step keeps parsed for the readers after it
    skipped: list[tuple[str, str]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    #: The running step's place in the plan: entries are reported in plan order even when a step's part
    #: finished later (the statistics in their own process, the merges that wait for them).
    rank: int = 0
    ranks: dict[str, list[int]] = field(default_factory=lambda: {"skipped": [], "failed": []})
    side: _Side | None = None  # the statistics' and proof pages' process, while it runs
    later: list[tuple[int, Callable[[], None]]] = field(default_factory=list)  # merges into the statistics' files

    def skip(self, name: str, reason: str) -> None:
        self.skipped.append((name, f"not produced: {reason}"))
        self.ranks["skipped"].append(self.rank)
        log.info("publish.skipped", file=name, reason=reason)

    def fail(self, name: str, exc: BaseException | str) -> None:
        why = exc if isinstance(exc, str) else f"failed: {type(exc).__name__}: {exc}"
        self.failed.append((name, why))
        self.ranks["failed"].append(self.rank)
        log.error("publish.failed", file=name, error=str(exc), exc_info=None if isinstance(exc, str) else exc)

    def settle(self) -> None:
        """Both lists in plan order (stable within a step)."""
        for name in ("skipped", "failed"):
            entries: list[tuple[str, str]] = getattr(self, name)
            order = sorted(range(len(entries)), key=lambda i: self.ranks[name][i])
            setattr(self, name, [entries[i] for i in order])
            self.ranks[name] = [self.ranks[name][i] for i in order]


def publish(data_dir: Path, out_dir: Path | None = None, *, config: Config | None = None,
            clock: Clock | None = None, progress: Callable[[str, int, int], None] | None = None,
            workers: int = 1) -> PublishReport:
    """Write every open-data file the installed features produce into ``out_dir`` (default DATA/public);
    ``progress(step, done, total)`` is told before each step (the CLI's progress bar).

    ``workers`` 2 (where the system can fork, in a process running no other thread, with the shipped
    producers; else one worker): the CSV writer shares the sessions
    it builds with a forked child (league.publish.forecast_cache); a child forked at the start writes the proof
    pages (beside the books step, which runs on one core), then, once the CSV is written, the statistics
    (:func:`_beside`) while this one checks the CSV's
    lines and computes the point track, the crowd comparison, the portfolio files and the CSV's digest and
    index; the blocks these merge into the statistics' files are written once the child is done, so every
    file has the same bytes as with one worker (tests/unit/publish/test_publish_workers.py)."""
    data_dir = Path(data_dir)
    if not data_dir.is_dir():
        raise PublishError(f"{data_dir}: data folder not found", fix="pass --data DIR (the folder with books/)")
    out = Path(out_dir) if out_dir is not None else data_dir / "public"
    out.mkdir(parents=True, exist_ok=True)
    run = _Run(data_dir, out, iso_seconds((clock or SystemClock()).now()), config or _load_config(data_dir))
    plan = (_books, _commitments, _forecasts, _line_check, _stats, _points, _crowd, _readers, _portfolio,
            _sides_files, _contest, _arms, _sources, _proof, _copies, _protocol, _code, _digest, _forecasts_index,
            _compliance, _dataset, _manifest, _index)
    beside = workers > 1 and _can_fork()
    run.workers = workers
    with shared_reads():  # the book is verified once, then each producer parses its kinds only (league/book/shared.py)
        try:
            if beside:  # forked now, while this process holds nothing of the book (the child's peak is its own)
                run.side = _fork_side(run, [(i, s) for i, s in enumerate(plan) if s in _beside()])
            for done, step in enumerate(plan):
                run.rank = done
                if progress is not None:
                    progress(step.__name__.strip("_"), done, len(plan))
                if run.side is not None and step is _line_check:  # the CSV is written: the statistics can start
                    release_memory()
                    _go(run.side, run)
                if step is _stats:  # the statistics hold the whole table in pandas: not the book beside it
                    if run.side is None:
                        forget_kept()  # the readers after the statistics parse their kinds from the copy
                        release_memory()
                if run.side is not None and step in _beside():
                    continue  # the child's
                if step is _compliance and run.side is not None:  # the steps from here read the child's files
                    _join_side(run)
                with collector_paused():  # each step's tables live on; memory is handed back by release_memory
                    step(run)
                if step is _books:  # what it kept lives to the last reader: no full collection need walk it
                    settle_heap()
                if step is _stats:  # the table's frames are gone: give their pages back before the book readers
                    release_memory()
                if step is _crowd:  # the last reader of the parsed kept lines: the portfolio's are bytes
                    forget_kept(run.kept_parsed)
                    release_memory()
                if step is _portfolio:  # the last reader of the kept lines
                    forget_kept()
                    release_memory()
        finally:
            _abandon(run)
            gc.unfreeze()  # the caller's objects are the collector's again
    if progress is not None:
        progress("done", len(plan), len(plan))
    return _report(run)


def _load_config(data_dir: Path) -> Config | None:
    """``league init DIR`` puts config/ beside data/; without it publish still works (no families)."""
    folder = data_dir.parent / "config"
    if not (folder / "league.toml").is_file():
        return None
    try:
        return load_config(folder)
    except Exception as exc:  # noqa: BLE001 - a bad config must not stop the nightly publish
        log.warning("publish.config_unreadable", folder=str(folder), error=str(exc))
        return None


# ---------------------------------------------------------------------------- the books
def _books(run: _Run) -> None:
    book = run.data_dir / "books" / "council-book.jsonl"
    if not book.is_file():
        raise PublishError(f"{book}: no book to publish", fix="run a league day (or `league demo`) first")
    state = file_state(book)
    kept = _kept(run.side is not None)
    run.kept_parsed = kept.parsed
    run.facts, run.book_sha256, run.book_head = _copy_checked(book, run.out / "council-book.jsonl", kept.add)
    if file_state(book) == state:  # the readers after the statistics take these checked bytes (league/book/shared.py)
        checked_copy(book, state, run.out / "council-book.jsonl", run.book_sha256, kept)
        run.book_state = state
    asks_book = run.data_dir / "books" / "asks.jsonl"
    if asks_book.is_file():
        write_bytes(run.out / "asks.jsonl", complete_lines(asks_book))
        write_roster(run.out / "asks.jsonl", run.out / "roster.json")
    else:
        run.skip("asks.jsonl", f"{asks_book} not found")
    for ask in sorted((run.data_dir / "asks").glob("*.md")):
        copy_file(ask, run.out / "asks" / ask.name)


def _copy_checked(book: Path, target: Path, keep: Callable[[JsonObject, JsonObject, bytes], None]
                  ) -> tuple[BookFacts, str, bytes]:
    """Verify the book's complete lines (``read_facts``: every seal and link; raises ``ChainBroken`` at the first
    bad one, the published copy then left as it was) while writing them to ``target``; returns the facts, the
    SHA-256 of the lines copied and the first line.

    Why streamed: the whole book's bytes were held from here to the forecasts step and the line check (the
    publish's peak with the CSV writer's index, growing with the season); every later reader now
    reads the copy back line by line. The copy is written to a temporary file and renamed, and an identical
    copy already there is kept (as ``write_bytes`` does)."""
    digest, head, size = hashlib.sha256(), [b""], [0]
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with open(book, "rb") as src, os.fdopen(fd, "wb") as out:

            def lines() -> Iterator[bytes]:
                for raw in src:
                    if not raw.endswith(b"\n"):
                        return  # a line still being written is not part of the book yet
                    out.write(raw)
                    digest.update(raw)
                    size[0] += len(raw)
                    head[0] = head[0] or raw
                    yield raw[:-1]

            facts = read_facts(book, keep=keep, lines=lines())
        sha = digest.hexdigest()
        if _same_copy(target, size[0], sha):
            Path(tmp).unlink()
        else:
            os.chmod(tmp, 0o644)
            os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return facts, sha, head[0]


def _same_copy(target: Path, size: int, sha256: str) -> bool:
    try:
        return target.stat().st_size == size and sha256_file(target) == sha256
    except OSError:
        return False


def _kept(beside: bool) -> KeptLines:
    """What the books step keeps of its parse for the readers after it (league.book.shared).

    With the statistics ``beside`` (two workers) the readers before :func:`forget_kept` are the CSV writer, the
    line check, the points track, the crowd comparison and the portfolio: the kinds the CSV writer's view holds
    (parsed once here instead of again by each), the crowd quotes, and the portfolio's trade and mark lines as
    bytes (most of a season's lines: parsed only when the portfolio step reads them).

    With one worker everything kept is let go before the statistics, so only the CSV writer and the line check
    read it, and they need little of it (the bodies were the publish's peak, growing with the
    season): the CSV writer's lines cut to their cache keys' fields (it parses the bodies of the sessions it
    rebuilds from the published copy, league.publish.forecast_cache.write_forecasts_streamed), and the line
    check's entries of the answers and corrections cut to their probabilities."""
    if beside:
        return KeptLines(parsed=frozenset(ROW_KINDS | set(COMPARED_KINDS)), raw=frozenset(("trade", "mark")))
    return KeptLines(parsed=frozenset(), slim=ROW_KINDS, check=frozenset(("answer", "correction")),
                     checked=functools.partial(prob_entry, shared={}))


def _commitments(run: _Run) -> None:
    """The bytes behind the book's snapshot, config and climatology hashes (publish/commitments.py)."""
    for session in commitments.write_snapshots(run.data_dir, run.out):
        run.fail(f"snapshots/{session}.json", PublishError("the kept snapshot no longer hashes to its sealed value"))
    try:
        if not commitments.write_config(run.book_head, run.out):
            run.skip("config.json", "the council book has no opening line sealing config_sha256")
    except (PublishError, ValueError) as exc:
        run.fail("config.json", exc)
    if not commitments.write_climatology(run.data_dir, run.out):
        run.skip("climatology.json", "DATA/climatology.json not found")


# ----------------------------------------------------------------------------- producers
def _call(run: _Run, key: str, names: tuple[str, ...], *args: object, **kwargs: object) -> bool:
    """Call producer ``key``; record ``names`` as skipped when it is absent, failed when it raises."""
    fn = PRODUCERS.get(key)
    if fn is None:
        for name in names:
            run.skip(name, f"this league has no {key} producer")
        return False
    return _attempt(run, names, fn, *args, **kwargs)[0]


def _attempt(run: _Run, names: tuple[str, ...], fn: Callable[..., object], *args: object,
             **kwargs: object) -> tuple[bool, object]:
    """``(True, fn(...))``, or ``(False, None)`` with ``names`` recorded as failed when it raises."""
    try:
        return True, fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - one producer's failure must not stop the others
        for name in names:
            run.fail(name, exc)
        return False, None


# ------------------------------------------------------------- the statistics beside the other steps
#: The producers whose work is split in two (computed while the statistics run, merged after them); the
#: statistics run beside the other steps only while every one of them is the shipped one.
_SPLIT = ("stats", "points", "crowd", "portfolio_tables")


def _beside() -> dict[Callable[[_Run], None], tuple[str, ...]]:
    """The steps a forked child runs beside the others (with the files each writes): no other step reads
    what they write before :func:`_compliance`, and they read nothing the others write meanwhile. The proof
    pages (DATA/stamps and the live books) start before the books step, on the core the books step leaves idle;
    the statistics, in the same child, once the CSV is written (:func:`_fork_side`)."""
    return {_stats: STATS_FILES, _proof: ("proof/",)}


@dataclass
class _Side:
    """The child's process, the pipe its skipped and failed entries come back through, and its steps."""

    pid: int
    fd: int
    steps: list[tuple[int, Callable[[_Run], None]]]
    go: int = -1  # the pipe that tells it the statistics can start (-1 once told)


def _can_fork() -> bool:
    """Fork only a process that runs no other thread (a lock one holds at the fork stays held in the child)."""
    return (hasattr(os, "fork") and threading.active_count() == 1
            and all(PRODUCERS.get(k) is producers.ALL[k] for k in _SPLIT))


def _fork_side(run: _Run, steps: list[tuple[int, Callable[[_Run], None]]]) -> _Side:
    """Start ``steps`` in a forked child (the proof pages at once, the statistics once :func:`_go` says the CSV
    is written); this process goes on with the other steps.

    Why at the start: a forked child's resident size counts every page it shares with its parent, so a child
    forked once the books step had kept its parse (league.book.shared.KeptLines) would show that parse
    plus the statistics' frames (650 MiB at the 126-session demo against the season's 565); and the proof pages
    need nothing the other steps write, so they run beside the books step, on the core it leaves idle."""
    for stream in (sys.stdout, sys.stderr):
        stream.flush()  # nothing buffered here is written twice
    read, write = os.pipe()
    go_read, go_write = os.pipe()
    pid = fork_frozen()
    if pid == 0:
        os.close(read)
        os.close(go_write)
        _side_child(run, steps, write, go_read)
    os.close(write)
    os.close(go_read)
    return _Side(pid, read, steps, go_write)


def _go(side: _Side, run: _Run) -> None:
    """Tell the child the statistics can start, with what the books step read (its facts and the book's state)."""
    fh = os.fdopen(side.go, "wb")
    side.go = -1
    try:
        with fh:
            pickle.dump((run.facts, run.book_state), fh)
    except BrokenPipeError:  # the child has ended already: its files are reported failed when it is joined
        pass


def _side_child(run: _Run, steps: list[tuple[int, Callable[[_Run], None]]], fd: int, go: int) -> NoReturn:
    code = 1
    try:
        mine = _Run(run.data_dir, run.out, run.generated_at, run.config, run.facts, book_state=run.book_state)
        if any(step is _stats for _, step in steps):
            producers.preload_stats()  # before the proof pages: the statistics' imports while the books step runs
        for rank, step in sorted(steps, key=lambda s: s[1] is _stats):  # what needs the CSV last
            if step is _stats:
                with os.fdopen(go, "rb") as fh:
                    told = fh.read()
                if not told:
                    raise SystemExit(1)  # the parent stopped before the CSV (and ends this process)
                mine.facts, mine.book_state = pickle.loads(told)
            mine.rank = rank
            step(mine)
        with os.fdopen(fd, "wb") as fh:
            pickle.dump((mine.skipped, mine.failed, mine.ranks), fh)
        code = 0
    finally:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        os._exit(code)


def _join_side(run: _Run) -> None:
    """Wait for the children, record their entries at their steps' places, then write the blocks that merge into
    the statistics' files, each at its own step's place."""
    side, run.side = run.side, None
    assert side is not None
    here = run.rank
    _collect(run, side)
    for place, merge in run.later:
        run.rank = place
        merge()
    run.later.clear()
    run.rank = here
    run.settle()


def _collect(run: _Run, side: _Side) -> None:
    """Wait for one child and record its skipped and failed entries (all its files failed if it died)."""
    with os.fdopen(side.fd, "rb") as fh:
        data = fh.read()
    code = os.waitstatus_to_exitcode(os.waitpid(side.pid, 0)[1])
    if code == 0 and data:
        skipped, failed, ranks = pickle.loads(data)
        run.skipped += skipped
        run.failed += failed
        for name in ("skipped", "failed"):
            run.ranks[name] += ranks[name]
    else:
        for rank, step in side.steps:
            run.rank = rank
            for name in _beside()[step]:
                run.fail(name, f"failed: the publishing child process ended with status {code}")


def _abandon(run: _Run) -> None:
    """A run stopped by an exception: end the child, if one is still running."""
    side, run.side = run.side, None
    if side is None:
        return
    try:
        os.kill(side.pid, 9)
        os.waitpid(side.pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass
    os.close(side.fd)
    if side.go >= 0:
        os.close(side.go)


def _after_stats(run: _Run, names: tuple[str, ...], compute: Callable[[], _T],
                 merge: Callable[[_T], None], *, if_league: bool = False) -> None:
    """A producer that merges into the statistics' files, split: ``compute`` now (its failure recorded here,
    or, with ``if_league``, only if the statistics wrote council-league.json, as the one-process run calls it
    only then), ``merge`` once the statistics are done."""
    value: _T | None = None
    error: Exception | None = None
    try:
        value = compute()
    except Exception as exc:  # noqa: BLE001 - recorded as the producer's failure below
        error = exc
    if error is not None and not if_league:
        for name in names:
            run.fail(name, error)
        return

    def later() -> None:
        if if_league and not (run.out / "council-league.json").is_file():
            return
        if error is not None:
            for name in names:
                run.fail(name, error)
            return
        _attempt(run, names, merge, value)

    run.later.append((run.rank, later))


def _forecasts(run: _Run) -> None:
    target = run.out / "council-forecasts.csv"
    if PRODUCERS.get("forecasts") is None and target.is_file():
        log.info("publish.forecasts_kept", file=str(target))
        return
    shipped = PRODUCERS.get("forecasts") is producers.forecasts
    options: dict[str, object] = {"workers": run.workers} if run.workers > 1 and shipped else {}
    kept = kept_lines(run.book_sha256, ROW_KINDS) if shipped else None
    slim = slim_lines(run.book_sha256, ROW_KINDS) if shipped and kept is None else None
    if kept is not None:  # the books step's parse stands for the bytes
        options["kept"] = kept
    elif slim is not None:  # the keys from the cut lines, the bodies of the sessions to build from the copy
        options.update(kept=slim, copy=(run.out / "council-book.jsonl", run.book_sha256))
    try:  # no parse to stand for the checked bytes: they are read back from the copy
        book = None if "kept" in options or PRODUCERS.get("forecasts") is None else _published_book(run)
    except PublishError as exc:
        run.fail("council-forecasts.csv", exc)
        return
    _call(run, "forecasts", ("council-forecasts.csv",), run.data_dir, target, book, **options)


def _line_check(run: _Run) -> None:
    """Every forecast row must name the book line that sealed it (else the table is reported failed)."""
    forecasts = run.out / "council-forecasts.csv"
    if not forecasts.is_file():
        return
    kept = kept_lines(run.book_sha256, ("answer", "correction"))
    cut = checked_entries(run.book_sha256, ("answer", "correction")) if kept is None else None
    with open(forecasts, encoding="utf-8", newline="") as fh:
        if kept is not None:  # the books step's parse: every line's kind, the answers and corrections
            table: dict[int, Entry] = dict(enumerate(((kind, None) for kind in kept.kinds), 1))
            table.update((line.n, line_entry(line.content)) for line in kept.of(("answer", "correction")))
            result = check_table(table, fh)
        elif cut is not None:  # every line's kind, the answers' and corrections' probabilities (books step)
            result = check_table(EntryTable(cut.kinds, cut.checks), fh)
        else:
            result = check_lines(_published_book(run), fh)
    run.line_check = result.summary()
    if not result.ok:
        run.fail("council-forecasts.csv", PublishError(result.summary()))


def _published_book(run: _Run) -> bytes:
    """The book's bytes read back from the published copy (the books step streams them there), matched to the
    digest of the bytes it verified and wrote: for a reader the books step kept nothing for (a book sealed to
    meanwhile, or a producer that is not the shipped one)."""
    data = (run.out / "council-book.jsonl").read_bytes()
    if hashlib.sha256(data).hexdigest() != run.book_sha256:
        raise PublishError("public/council-book.jsonl changed while publishing", fix="publish again")
    return data


def _stats(run: _Run) -> None:
    forecasts = run.out / "council-forecasts.csv"
    if not forecasts.is_file():
        for name in STATS_FILES:
            run.skip(name, "council-forecasts.csv was not produced")
        return
    books = run.data_dir / "books"
    book = books / "council-book.jsonl"
    same = run.book_state is not None and book.is_file() and file_state(book) == run.book_state
    inputs = sealed_inputs(book, books / "asks.jsonl", _climatology(run), families=_families(run),
                           sides=_sides(run), facts=run.facts if same else None)  # the books step's verified read
    args, kwargs = inputs.arguments()
    _call(run, "stats", STATS_FILES, forecasts, run.out, *args, **kwargs)


def _families(run: _Run) -> dict[str, str]:
    roster = getattr(run.config, "roster", None)
    seats = getattr(roster, "seat", ())
    return {s.name: s.family for s in seats if getattr(s, "family", "")}


def _sides(run: _Run) -> dict[str, str]:
    """Seat → side from the roster (``side = "us"`` …); the sides diagnostics need two sides at least."""
    seats = getattr(getattr(run.config, "roster", None), "seat", ())
    return {s.name: s.side for s in seats if getattr(s, "side", "")}


def _climatology(run: _Run) -> JsonObject | None:
    """The sealed climatology table, when the data or config folder holds one (else scoring's default)."""
    folders = [run.data_dir] + ([Path(run.config.folder)] if run.config is not None and run.config.folder else [])
    for folder in folders:
        for name in ("climatology.json", "council-climatology.json"):
            if (folder / name).is_file():
                table: JsonObject = json.loads((folder / name).read_text(encoding="utf-8"))
                return table
    return None


def _points(run: _Run) -> None:
    """The point-forecast track (MASE) over the council's sealed target levels, beside the Brier tables."""
    if run.side is None:
        _call(run, "points", ("council-points.json",), run.data_dir, run.out)
        return
    _after_stats(run, ("council-points.json",), lambda: producers.points_block(run.data_dir, run.out),
                 lambda report: producers.points_merge(run.out, report))


def _crowd(run: _Run) -> None:
    """The crowd comparison of scoring.md §8, merged into council-league.json from the sealed book."""
    names = ("council-league.json", "council-calibration.json")
    if run.side is None:
        if (run.out / "council-league.json").is_file():
            _call(run, "crowd", names, run.data_dir, run.out)
        return
    _after_stats(run, names, lambda: crowd.crowd_blocks(run.data_dir),
                 lambda blocks: crowd.merge_blocks(run.out, blocks), if_league=True)


def _readers(run: _Run) -> None:
    """The readers' book (league/publish/readers.py) and, once the statistics are written, the reader
    experiment's block of council-league.json computed from the copy just published."""
    _attempt(run, (readers_files.PUBLISHED,), readers_files.write_readers_book, run.data_dir, run.out)
    book = run.out / readers_files.PUBLISHED
    if not book.is_file():
        return
    forecasts = run.out / "council-forecasts.csv"
    if run.side is None:
        if (run.out / "council-league.json").is_file():
            _attempt(run, ("council-league.json",), lambda: readers_files.merge_experiment(
                run.out, readers_files.experiment_block(book, forecasts)))
        return
    _after_stats(run, ("council-league.json",), lambda: readers_files.experiment_block(book, forecasts),
                 lambda block: readers_files.merge_experiment(run.out, block), if_league=True)


def _portfolio(run: _Run) -> None:
    _call(run, "portfolio", PORTFOLIO_FILES, run.data_dir, run.out)
    if run.side is None:
        if (run.out / "council-league.json").is_file():
            _call(run, "portfolio_tables", ("council-league.json",), run.data_dir, run.out)
        return
    _after_stats(run, ("council-league.json",), lambda: portfolio.tables_block(run.data_dir),
                 lambda block: portfolio.merge_tables(run.out, block), if_league=True)


def _sides_files(run: _Run) -> None:
    """council-sides.json and council-tertiles.json from the published forecasts, roster and statistics
    (league/publish/sides.py): once the statistics are written, in whichever process wrote them."""
    _attempt(run, (sides_files.STYLE_JSON,), sides_files.write_style, run.data_dir, run.out)
    memo = run.data_dir / sides_files.MEMO_FILE
    if run.side is None:
        _attempt(run, sides_files.SIDES_FILES, sides_files.write_sides, run.out, memo)
        return

    def merge(_: None) -> None:
        sides_files.write_sides(run.out, memo)

    _after_stats(run, sides_files.SIDES_FILES, lambda: None, merge)


def _contest(run: _Run) -> None:
    """The CLI contest's files as its jobs wrote them (sealed sweeps byte for byte, metrics, rounds,
    cards), and its book up to the last complete line, in ``contest/``; nothing when it never ran."""
    source = run.data_dir / CONTEST_DIR
    book = run.data_dir / "books" / CONTEST_BOOK
    if not source.is_dir() and not book.is_file():
        return
    out = run.out / CONTEST_DIR
    if source.is_dir():
        for path in _listing(source):
            if path.name != CONTEST_BOOK:
                copy_file(path, out / path.relative_to(source))
    if book.is_file():  # never another agent's bet while its round runs (league/contest/embargo.py)
        write_bytes(out / CONTEST_BOOK, released_bytes(complete_lines(book)))


def _arms(run: _Run) -> None:
    """The arms' books, packets, rows and reports (league/publish/arms.py); nothing when no arm ever ran."""
    if (run.data_dir / "books" / ARMS_BOOK).is_file():
        _call(run, "arms", ARMS_FILES, run.data_dir, run.out)


def _sources(run: _Run) -> None:
    """The shared-sources figures (league/publish/sources.py) from the CSV and fetch records just written."""
    sites = run.config.settings.sources.ask_sites if run.config is not None else DEFAULT_ASK_SITES
    _attempt(run, (SOURCES,), write_sources, run.out, sites)


def _proof(run: _Run) -> None:
    """Proof pages from DATA/stamps; only the public half of the signing key is ever passed on."""
    books = {name: run.data_dir / "books" / name for name in ("council-book.jsonl", "asks.jsonl")}
    if (run.data_dir / "books" / CONTEST_BOOK).is_file():
        books[f"{CONTEST_DIR}/{CONTEST_BOOK}"] = run.data_dir / "books" / CONTEST_BOOK
    for name in (ARMS_BOOK, ARM_ASKS):
        if (run.data_dir / "books" / name).is_file():
            books[f"{ARMS_DIR}/{name}"] = run.data_dir / "books" / name
    if (run.data_dir / "books" / READERS_BOOK).is_file():
        books[readers_files.PUBLISHED] = run.data_dir / "books" / READERS_BOOK
    public_key = run.data_dir / "keys" / "league-signing.pub.pem"
    _call(run, "proof", ("proof/",), run.data_dir / "stamps", run.out, books=books,
          public_key=public_key if public_key.is_file() else None)


# --------------------------------------------------------------------- copies and docs
def _copies(run: _Run) -> None:
    for source, name in COPIES:
        path = PACKAGE_ROOT / source
        if path.is_file():
            copy_file(path, run.out / name)
        else:
            run.skip(name, f"league/{source} not present in this checkout")


def _protocol(run: _Run) -> None:
    settings = _settings(run)
    write_json(run.out / "arena-protocol.json", docs.protocol_document(run.facts, settings, run.generated_at))


def _settings(run: _Run) -> dict[str, object]:
    """The methodology settings in force: the config's, else the league.toml beside the data folder's."""
    if run.config is not None:
        dumped: dict[str, object] = run.config.settings.methodology.model_dump(mode="json")
        return dumped
    toml = run.data_dir.parent / "config" / "league.toml"
    if toml.is_file():
        return dict(tomllib.loads(toml.read_text(encoding="utf-8")).get("methodology", {}))
    return {}


def _code(run: _Run) -> None:
    sources = []
    for folder in ENGINE_DIRS:
        for path in sorted((PACKAGE_ROOT / folder).glob("*.py")):
            sources.append((f"league/{folder}/{path.name}", path.read_bytes()))
    manifest, bodies = docs.code_manifest(sources)
    for old in run.out.glob("arena-code-*.txt"):
        if old.name not in bodies:
            old.unlink()
    for name, data in bodies.items():
        write_bytes(run.out / name, data)
    write_json(run.out / "arena-code.json", {**manifest, "generated_at": run.generated_at})


def _digest(run: _Run) -> None:
    forecasts = run.out / "council-forecasts.csv"
    if not forecasts.is_file():
        run.skip("markets-digest.json", "council-forecasts.csv was not produced")
        return
    with open(forecasts, encoding="utf-8", newline="") as fh:
        digest = docs.markets_digest(fh, run.generated_at)
    write_json(run.out / "markets-digest.json", digest)


def _forecasts_index(run: _Run) -> None:
    """Per-run and per-session slices of the CSV (paper Appendix C): rows, bytes and hashes."""
    forecasts = run.out / "council-forecasts.csv"
    if not forecasts.is_file():
        run.skip("council-forecasts-index.json", "council-forecasts.csv was not produced")
        return
    write_json(run.out / "council-forecasts-index.json", forecasts_index(forecasts.read_bytes(), run.generated_at))


def _compliance(run: _Run) -> None:
    write_json(run.out / "arena-compliance.json", compliance_document(run.out, run.generated_at))


# --------------------------------------------------------------------- dataset and index
def _listing(out: Path) -> list[Path]:
    return sorted(p for p in out.rglob("*") if p.is_file() and not p.name.startswith("."))


def _dataset(run: _Run) -> None:
    described: dict[str, dict[str, object]] = {}
    for path in _listing(run.out):
        name = path.relative_to(run.out).as_posix()
        described[name] = _describe(run, name, path)
    described["arena-dataset.json"] = {"format": "json", "description": "this data dictionary"}
    labels: dict[str, str] = {}
    if (run.out / readers_files.PUBLISHED).is_file():
        labels = {f"council-league.json:experiment.groups.{g}": text for g, text in GROUP_LABELS.items()}
    described["index.html"] = {"format": "html", "description": "the index of the files"}
    described[MANIFEST] = {"format": "json", "description": info_for(MANIFEST).description}
    write_json(run.out / "arena-dataset.json", {"generated_at": run.generated_at, "files": described,
                                                "labels": labels, "renamed": list(RENAMED)})


def _describe(run: _Run, name: str, path: Path) -> dict[str, object]:
    entry = info_for(name)
    info = {"description": entry.description, "update_frequency": entry.frequency}
    if name.endswith(".csv"):
        header, rows = docs.csv_columns(path)
        return {**info, **docs.describe_csv(name, header, rows)}
    if name == "council-book.jsonl":
        return {**info, **docs.describe_book(run.facts)}
    if name in ("asks.jsonl", f"{CONTEST_DIR}/{CONTEST_BOOK}"):
        return {**info, **docs.describe_book(_safe_facts(path))}
    if name.endswith(".rekor.json"):  # keyed by the entry's UUID: one shape, not one key per entry
        return {**info, "format": "json", "keys": [{"name": "<entry UUID>", "type": "object", "description":
                "Rekor's answer: body, integratedTime, logID, logIndex, verification (docs/stamps.md)"}]}
    if name.endswith(".json"):
        try:
            return {**info, **docs.describe_json(json.loads(path.read_text(encoding="utf-8")))}
        except (ValueError, UnicodeDecodeError):
            return {**info, "format": "json", "note": "not valid JSON"}
    return {**info, "format": path.suffix.lstrip(".") or "file"}


def _safe_facts(path: Path) -> BookFacts:
    try:
        return read_facts(path)
    except (LeagueError, ValueError, KeyError):
        return BookFacts()


def _index(run: _Run) -> None:
    entries: list[docs.IndexEntry] = [{"name": p.relative_to(run.out).as_posix(), "bytes": p.stat().st_size}
               for p in _listing(run.out) if p != run.out / "index.html"]
    text = docs.index_html(entries, run.skipped + run.failed, run.generated_at)
    write_bytes(run.out / "index.html", text.encode("utf-8"))


def _manifest(run: _Run) -> None:
    """``release-manifest.json``: every published file with its SHA-256 and size (requirement 11).

    ``proof/`` is left out: it holds the stamps of the books and of this manifest (added after the
    manifest is written), and each of its files verifies by itself (open-data.md steps 2-10); so is
    ``index.html``, the page listing the files, written last."""
    files = [{"name": p.relative_to(run.out).as_posix(), "bytes": p.stat().st_size, "sha256": sha256_file(p),
              "generated_at": run.generated_at}
             for p in _listing(run.out) if not _unlisted(p.relative_to(run.out).as_posix())]
    write_json(run.out / MANIFEST, {"generated_at": run.generated_at, "book_lines": run.facts.lines,
                                    "excluded": "proof/ (stamps verify by themselves), index.html (the page "
                                                "listing the files, written last) and this file",
                                    "files": files})


def _unlisted(name: str) -> bool:
    return name in (MANIFEST, "index.html") or name.startswith("proof/")


def refresh_proof(data_dir: Path, out: Path) -> bool:
    """Republish ``proof/`` after a stamp taken since the folder was written (the release manifest's);
    False (logged) when the proof producer failed or is absent."""
    run = _Run(Path(data_dir), Path(out), "", None)
    _proof(run)
    return not (run.failed or run.skipped)


def _report(run: _Run) -> PublishReport:
    files = tuple(PublishedFile(p.relative_to(run.out).as_posix(), p.stat().st_size, sha256_file(p))
                  for p in _listing(run.out))
    log.info("publish.done", out=str(run.out), files=len(files), skipped=len(run.skipped), failed=len(run.failed))
    return PublishReport(run.out, files, tuple(run.skipped), tuple(run.failed), run.facts.lines, run.generated_at,
                         run.line_check)
