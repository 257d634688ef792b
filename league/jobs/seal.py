"""Sealing on arrival (docs/protocol.md §5): exactly one line per reply, the moment it arrives.

Live, a reply is sealed in the thread that received it (:func:`seal_on_arrival`). Under a simulated
clock the seats still run as real processes, but each reply carries the simulated time it arrived
(``finished_at``); :func:`pump` seals due replies in arrival order, moving the clock to each arrival
first, so the demo season seals exactly as a live day would. Whatever a reply holds is sealed (an
answer line, well-formed or ``refused_shape``, or an incident/silence line); only an I/O failure of
the book itself raises, and then the reply stays in memory to be sealed later.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime
from pathlib import Path

import structlog

from league.answers import ParsedReply, clean_label, clean_text, json_safe_object, parse_reply
from league.book.chain import iter_lines
from league.book.lines import AnswerLine, IncidentLine, ReplyRecordLine, SilenceLine
from league.clock import SimulatedClock, iso_seconds
from league.errors import BookError, InvalidRecord
from league.jobs.blind import masked
from league.jobs.context import League, Pending
from league.jobs.stamp import stamp_answer
from league.jsonvalue import Json
from league.ops import metrics
from league.runner import ReplyRecord
from league_agents.base import FailureClass, SeatReply

log = structlog.get_logger(__name__)


def fetch_fields(reply: SeatReply) -> dict[str, object]:
    """The seat's fetch record (paper requirement 17): every host its run contacted through its egress
    proxy, allowed or refused, in the proxy's order; ``{}`` for a seat that ran without network."""
    if reply.fetches is None:
        return {}
    return {"fetches": [dict(f) for f in reply.fetches]}


def seal_on_arrival(lg: League, pend: Pending, arrived: Future[SeatReply], *, sealed: Future[SeatReply]) -> None:
    """Live: seal the reply in the thread that received it; ``sealed`` resolves once the line is on
    disk, so waiting for it (Asking.drain) waits for the seal."""
    reply = arrived.result()
    try:
        (pend.seal or seal_reply)(lg, pend, reply)
    except Exception as exc:  # noqa: BLE001 - recorded for `league run` and handed to whoever waits
        log.exception("seal.failed", seat=pend.seat, run_id=pend.run_id)
        metrics.SEAL_FAILURES.inc()
        lg.asking.seal_failures.append(f"{pend.run_id} {pend.seat}: {exc}")
        sealed.set_exception(exc)
        return
    sealed.set_result(reply)


def seal_record(lg: League, record: ReplyRecord) -> None:
    """Seal a reply that is not an answer as a ``reply_record`` line (its raw bytes kept as an answer's
    are): nothing a worker sent is lost, and nothing is sealed twice as an answer. Booked at its arrival
    by the league's clock (at most now: a simulated league books it at its own time)."""
    run_id, session, attempt = _asked(lg, record.ask_sha256, record.seat)
    reply = record.reply
    own, encoding, _ = store_raw(lg, reply.raw) if reply.raw else ("", RAW_UTF8, "")
    content: dict[str, object] = {
        "run_id": run_id, "session": session, "seat": record.seat, "attempt": attempt, "reason": record.reason,
        "worker": _short(record.worker), "redelivered": record.redelivered, "seat_ask_sha256": record.ask_sha256,
        "own_sha256": own, "failure": str(reply.failure or ""), "detail": clean_text(reply.detail, DETAIL_CAP),
        "model": _short(reply.model), "version": _short(reply.version),
        "booked_at": iso_seconds(min(record.arrived_at, lg.clock.now())),
    }
    if encoding != RAW_UTF8:
        content["raw_encoding"] = encoding
    lg.books.seal(ReplyRecordLine.from_content(content))
    log.warning("seal.reply_record", seat=record.seat, reason=record.reason, worker=record.worker, run_id=run_id)


def _asked(lg: League, seat_ask_sha256: str, seat: str) -> tuple[str, str, int]:
    """``(run_id, session, attempt)`` of the ask chain's line for this seat's ask, latest first; empty
    when the chain has none (read from the file: records are rare and the chain is the truth)."""
    found = ("", "", 0)
    try:
        for line in iter_lines(lg.books.asks.path):
            c = line.content
            if line.kind == "ask" and c.get("ask_sha256") == seat_ask_sha256 and c.get("seat") == seat:
                found = (str(c.get("run_id", "")), str(c.get("session", "")), int(c.get("attempt", 0)))
    except Exception as exc:  # noqa: BLE001 - the record is still sealed, unattributed
        log.error("seal.record_lookup_failed", error=str(exc))
    return found


def pump(lg: League, until: datetime) -> int:
    """Simulated clock only: seal every reply that has arrived by ``until``, in arrival order.

    Each sealed reply leaves ``lg.asking.pending`` at once, so a reply is never sealed twice. A reply whose
    seal fails (the book cannot be written: full disk…) stays pending for the next pump, and so do the
    replies that arrived after it: they are sealed in arrival order, as an uninterrupted run seals
    them (the fault season, docs/reliability.md), and :class:`SealFailed` is raised."""
    if not lg.simulated:
        return 0
    until = max(until, lg.clock.now())  # whatever has arrived by now is sealed, even when a job is late
    for p in lg.asking.pending:
        p.future.result()
    due = sorted((p for p in lg.asking.pending if p.future.result().finished_at <= until),
                 key=lambda p: (p.future.result().finished_at, p.seat))
    sealed, failed = 0, []
    with lg.books.indexing_batch(), _RawAhead(lg, [p.future.result() for p in due]) as ahead:
        for k, p in enumerate(due):  # the index gets the replies sealed here in one transaction
            reply = p.future.result()
            assert isinstance(lg.clock, SimulatedClock)
            lg.clock.set(max(reply.finished_at, lg.clock.now()))
            try:
                ahead.wait(k)
                (p.seal or seal_reply)(lg, p, reply)
            except Exception as exc:  # noqa: BLE001 - this one and the later ones stay pending; reported below
                log.exception("seal.failed", seat=p.seat, run_id=p.run_id)
                failed.append(f"{p.run_id} {p.seat}: {exc}")
                break
            lg.asking.pending.remove(p)
            sealed += 1
    if failed:
        raise SealFailed(f"{len(failed)} replies could not be sealed: {'; '.join(failed)[:1000]}",
                         fix="check the disk of the data folder; the replies stay pending and are sealed next time")
    if isinstance(lg.clock, SimulatedClock) and until > lg.clock.now():
        lg.clock.set(until)
    return sealed


#: Threads that store the raw replies of one pump ahead of their seals (each mostly waits on its fsync).
RAW_AHEAD_THREADS = 4


class _RawAhead:
    """Store the raw replies of a pump's due replies concurrently, ahead of sealing them in order.

    Each file is written, fsync'd and renamed exactly as :func:`store_raw` does when sealing; a reply's
    seal waits for its own file (:meth:`wait`) and then finds it in place (``store_raw``'s "already
    stored" path), so each raw reply is on disk before its answer line, as before. What changes is only
    that the fsyncs of a batch overlap each other and the book's: the main thread no longer waits for
    them one after the other. A file that could not be stored ahead is simply stored (or its problem
    named) by the seal itself: the sealed bytes are those of the one-by-one path."""

    def __init__(self, lg: League, replies: list[SeatReply]) -> None:
        raws = [r.raw if not r.silent and r.raw else "" for r in replies]
        self._pool: ThreadPoolExecutor | None = None
        self._done: list[Future[object] | None] = [None] * len(raws)
        if sum(1 for raw in raws if raw) < 2:  # nothing to overlap
            return
        self._pool = ThreadPoolExecutor(min(RAW_AHEAD_THREADS, len(raws)), thread_name_prefix="raw-ahead")
        seen: set[str] = set()
        for k, raw in enumerate(raws):
            if raw and raw not in seen:  # the same text twice is one file: stored once, ahead of the first
                seen.add(raw)
                self._done[k] = self._pool.submit(store_raw, lg, raw)

    def wait(self, k: int) -> None:
        """Return once the k-th reply's file is stored (or failed to be: its seal then tries itself)."""
        done = self._done[k]
        if done is not None:
            done.exception()  # waited for; a failure is left to the seal's own store_raw

    def __enter__(self) -> _RawAhead:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)


class SealFailed(BookError):
    """A reply's line could not be written to the book (I/O); the reply is not lost from memory."""


RAW_UTF8, RAW_SURROGATES = "utf-8", "utf-8-surrogatepass"
MAX_USAGE_CHARS = 16_384
#: A failure's ``detail`` as sealed: at most this many characters, controls escaped (tab and newline kept).
DETAIL_CAP = 500


def raw_bytes(raw: str) -> tuple[bytes, str]:
    """The exact bytes a reply is kept as, and how to read them back.

    UTF-8 when the text is valid Unicode; a reply holding lone surrogates (a CLI's JSON carrying
    ``\\ud800``, or bytes that were not UTF-8 decoded with ``surrogateescape``) is kept in
    generalised UTF-8 (each surrogate as its 3-byte form, Python's ``surrogatepass``), which maps
    every string to its own bytes and back: nothing is replaced, so nothing is lost."""
    try:
        return raw.encode("utf-8"), RAW_UTF8
    except UnicodeEncodeError:
        return raw.encode("utf-8", "surrogatepass"), RAW_SURROGATES


def read_reply(data_dir: Path, own_sha256: str, raw_encoding: str = "") -> str | None:
    """The raw reply an answer line names by its ``own_sha256`` and ``raw_encoding`` (``None`` when its file is
    gone)."""
    path = data_dir / "replies" / f"{own_sha256}.txt"
    if not path.is_file():
        return None
    errors = "surrogatepass" if raw_encoding == RAW_SURROGATES else "strict"
    return path.read_bytes().decode("utf-8", errors)


def store_raw(lg: League, raw: str) -> tuple[str, str, str]:
    """Keep the raw reply under the hash of its exact bytes before sealing: the book carries the hash.

    Returns ``(sha256, encoding, problem)``; a file that cannot be written (full disk) is a problem
    named in the answer line, never a reason not to seal the answer."""
    data, encoding = raw_bytes(raw)
    digest = hashlib.sha256(data).hexdigest()
    path = lg.data_dir / "replies" / f"{digest}.txt"
    if path.exists():
        return digest, encoding, ""
    tmp = path.with_name(f"{digest}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        tmp.replace(path)
    except OSError as exc:
        log.error("reply.store_failed", path=str(path), error=str(exc))
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        return digest, encoding, f"the raw reply could not be stored: {exc.strerror or exc}"
    return digest, encoding, ""


def sweep_temporary(data_dir: Path) -> list[Path]:
    """Remove the temporary files a killed daemon left half-written (a reply, a snapshot, an ask text:
    each is written to a temporary name and renamed, so the name it was meant for is absent or whole).
    Only what this process is not writing: a reply's temporary name carries its writer's pid."""
    mine = f".{os.getpid()}."
    gone = []
    for folder in ("replies", "snapshots", "asks"):
        for path in sorted((data_dir / folder).glob("*.tmp")):
            if mine in path.name:
                continue
            try:
                path.unlink()
            except OSError as exc:
                log.warning("sweep.failed", path=str(path), error=str(exc))
                continue
            gone.append(path)
    if gone:
        log.info("sweep.temporary_removed", files=[str(p.relative_to(data_dir)) for p in gone])
    return gone


def seal_fault(lg: League, run_id: str, session: str, seat: str, attempt: int, detail: str) -> None:
    """A seat the run could not ask because of its own configured value (the last guard behind the roster's
    bounds): its ``seat_fault`` silence, sealed at once, so the seat's morning is accounted for and every
    other seat's goes on."""
    log.error("seal.seat_fault", seat=seat, run_id=run_id, detail=detail)
    lg.books.seal(SilenceLine.from_content({
        "run_id": run_id, "session": session, "seat": seat, "attempt": attempt,
        "failure": str(FailureClass.SEAT_FAULT), "detail": clean_text(detail, DETAIL_CAP),
        "booked_at": iso_seconds(lg.clock.now())}))


def seal_reply(lg: League, p: Pending, reply: SeatReply) -> None:
    """Seal on arrival exactly ONE line per reply: an answer line (well-formed or refused_shape) or
    an incident/silence line. Whatever the reply holds, it is sealed; only an I/O failure of the
    book itself (full disk) raises."""
    started = time.perf_counter()
    if reply.silent:
        model = IncidentLine if reply.failure and reply.failure.is_incident else SilenceLine
        failure = str(reply.failure or "no_reply")
        lg.books.seal(model.from_content({
            "run_id": p.run_id, "session": p.session, "seat": p.seat, "attempt": p.attempt,
            "failure": failure, "detail": clean_text(reply.detail, DETAIL_CAP),
            "booked_at": iso_seconds(reply.finished_at), **json_safe_object(fetch_fields(reply))}))
        metrics.reply_sealed(p.seat, failure, time.perf_counter() - started)
        return
    content = answer_content(lg, p, reply)
    try:
        lg.books.seal(AnswerLine.from_content(content))
    except InvalidRecord as exc:  # a last guard: the line is sealed without what could not be written
        log.error("seal.answer_unwritable", seat=p.seat, run_id=p.run_id, error=exc.message)
        content = bare_answer(content, exc.message)
        lg.books.seal(AnswerLine.from_content(content))
    metrics.reply_sealed(p.seat, str(content["status"]), time.perf_counter() - started)
    if lg.stages.stamps and lg.config.settings.stamps.per_answer:
        stamp_answer(lg, p.session)


def answer_content(lg: League, p: Pending, reply: SeatReply) -> dict[str, object]:
    """The content of a reply's answer line: its raw bytes stored under their hash first, the parsed cells
    (or the parse failure), the asks' hashes, times, usage and egress record (an arm adds its own keys)."""
    own, encoding, store_problem = store_raw(lg, reply.raw)
    try:
        parsed = parse_reply(reply.raw, p.markets)
    except Exception as exc:  # noqa: BLE001 - the parser is total by design; this keeps the promise if not
        log.exception("parse.failed", seat=p.seat, run_id=p.run_id)
        parsed = ParsedReply(ok=False, failure=f"the parser failed on this reply ({type(exc).__name__})")
    content: dict[str, object] = {
        "run_id": p.run_id, "session": p.session, "seat": p.seat, "attempt": p.attempt,
        "model": _short(reply.model), "version": _short(reply.version), "mode": _short(reply.mode),
        "status": "answered" if parsed.ok else "refused_shape", "parse_failure": parsed.failure,
        "parse_notes": list(parsed.notes), "items": parsed.items_json(), "years": parsed.years,
        "own_sha256": own, "ask_sha256": p.common_sha256, "seat_ask_sha256": p.seat_ask_sha256,
        "booked_at": iso_seconds(min(reply.finished_at, lg.clock.now())),
        "started_at": iso_seconds(reply.started_at),
        "usage": _usage(reply.usage), "elapsed_s": round((reply.finished_at - reply.started_at).total_seconds(), 3),
        **json_safe_object(fetch_fields(reply)),
    }
    if lg.config.roster.blind and not lg.books.index.of_kind("reveal"):
        content = masked(content)
    if encoding != RAW_UTF8:
        content["raw_encoding"] = encoding
    if store_problem:
        content["raw_store_problem"] = store_problem
    return content


def _short(text: object) -> str:
    """A label the seat (or a lab's worker) reports about itself, as the book shows it: one line, at most
    200 characters, every control, bidirectional or invisible character escaped (``\\u202e``), so that a
    reported name cannot reverse, hide or recolour the text around it where the line is displayed."""
    return clean_label(str(text))


def _usage(usage: Mapping[str, object]) -> dict[str, Json]:
    """What the seat reported about its run, made safe for the book and bounded in size."""
    safe = json_safe_object(usage)
    size = len(json.dumps(safe, ensure_ascii=False))
    return safe if size <= MAX_USAGE_CHARS else {"dropped": f"usage was {size} characters (at most {MAX_USAGE_CHARS})"}


def bare_answer(content: Mapping[str, object], problem: str) -> dict[str, object]:
    """An answer line's content without what could not be sealed (a last guard), as ``refused_shape``."""
    keep = ("run_id", "session", "seat", "attempt", "own_sha256", "ask_sha256", "seat_ask_sha256", "booked_at",
            "started_at", "elapsed_s", "raw_encoding", "raw_store_problem", "fetches")
    return {**{k: content[k] for k in keep if k in content}, "model": "unreported", "version": "unreported",
            "mode": "", "status": "refused_shape", "items": {}, "years": {}, "parse_notes": [], "usage": {},
            "parse_failure": f"the parsed reply could not be sealed ({problem[:300]}); sealed without its cells"}
