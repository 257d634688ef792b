"""The nightly full verification of the council book and the ask chain, on a background thread (docs/book.md).

At open only the lines after the sealed checkpoint are re-hashed; this check re-hashes every line up
to the one sealed when it starts (the writer keeps appending meanwhile: lines are never rewritten, so
the first N stay what they were), compares the first N of the current checkpoint with its digest, and
only on success moves the checkpoint to the new head. A failure is an error in the log, a degraded
health report and a metric; the checkpoint stays where it was, so the next open re-hashes from there.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import cast

import structlog

from league.book.checkpoint import Checkpoint, full_scan
from league.book.startup import LineStore, is_line_store, nightly_check
from league.errors import ChainBroken, LeagueError
from league.jobs.books import COUNCIL_BOOK
from league.jobs.context import League
from league.ops import health as ops_health
from league.ops import metrics

log = structlog.get_logger(__name__)
HEALTH_KEY = "book_verification"
_RUNNING = threading.Lock()


def verify_book_now(lg: League, *, by: str) -> Checkpoint | None:
    """Verify the ask chain, then the council book, in full up to their current heads; with a database,
    move the council book's checkpoint there (returned). Raises :class:`ChainBroken` (or another
    LeagueError) on the first bad line; a bad ask chain leaves the checkpoint where it was."""
    with lg.books.frozen():  # the heads as sealed right now; later appends are not part of this check
        upto, link = lg.books.book.lines, lg.books.book.last_link
        asks_upto, asks_link = lg.books.asks.book.lines, lg.books.asks.book.last_link
    verify_asks(lg.books.asks.path, asks_upto, asks_link)
    if lg.books.store is None or not is_line_store(lg.books.store):
        _verify_to(lg.books.book.path, upto, link)
        return None
    return nightly_check(lg.books.book.path, upto=upto, link=link, store=cast(LineStore, lg.books.store),
                         book=COUNCIL_BOOK, now=lg.clock.now, by=by)


def verify_asks(path: Path, upto: int, link: str) -> None:
    """asks.jsonl in full up to line ``upto``, which must carry ``link``: the ask chain's daily check,
    its messages naming the file.

    Why here: the jobs index the ask chain from where its database index ends, found from the end of the
    file (league.store.rebuild.lines_after), so no job re-hashes its older lines; this check and
    `league verify` do."""
    try:
        _verify_to(path, upto, link)
    except ChainBroken as exc:
        raise ChainBroken(f"{path}: {exc.message}", line=exc.line, reason=exc.reason) from exc


def _verify_to(path: Path, upto: int, link: str) -> None:
    """Lines 1..``upto`` of the book at ``path`` verified from scratch, line ``upto`` carrying ``link``."""
    if full_scan(path, upto=upto).last_link != link:
        raise ChainBroken(f"line {upto}: its link is not the one the writer sealed", line=upto,
                          reason="last link differs from the writer's")


def nightly(lg: League, health: ops_health.Health | None = None, *, by: str = "nightly full verification") -> bool:
    """One full verification with its consequences (log, health, metric, window); True when it held."""
    health = health or ops_health.DAEMON
    started = time.perf_counter()
    try:
        cp = verify_book_now(lg, by=by)
    except (LeagueError, OSError, ValueError) as exc:
        why = getattr(exc, "message", str(exc))
        log.error("book.verification_failed", book=str(lg.books.book.path), error=why,
                  fix=f"run `league verify {lg.books.book.path}` and compare with a backup; "
                      "the checkpoint was not moved")
        health.degrade(HEALTH_KEY, why)
        metrics.book_verification(False, time.perf_counter() - started)
        return False
    metrics.book_verification(True, time.perf_counter() - started)
    health.recover(HEALTH_KEY)
    dropped = lg.books.refresh_window()
    log.info("book.verified", book=str(lg.books.book.path), lines=cp.lines if cp else None, window_dropped=dropped,
             seconds=round(time.perf_counter() - started, 3))
    return True


def start_nightly(lg: League, health: ops_health.Health | None = None,
                  done: threading.Event | None = None) -> threading.Thread | None:
    """Run :func:`nightly` on a daemon thread (never blocking the day's jobs); ``None`` when one is
    already running. ``done`` is set when it finishes (tests wait on it)."""
    if not _RUNNING.acquire(blocking=False):
        log.warning("book.verification_still_running")
        return None

    def run() -> None:
        try:
            nightly(lg, health)
        except Exception:  # noqa: BLE001 - a thread's failure must reach the log, never vanish
            log.exception("book.verification_crashed")
            (health or ops_health.DAEMON).degrade(HEALTH_KEY, "the verification crashed (see the log)")
        finally:
            _RUNNING.release()
            if done is not None:
                done.set()

    thread = threading.Thread(target=run, name="book-verification", daemon=True)
    thread.start()
    return thread
