"""The stamp stage: put the books' heads outside the operator's reach after every batch of seals.

A stamped list of both books' heads is written and stamped by every configured backend after the
first wave (before the second), after ingest closes and after the score (docs/stamps.md); the nightly
job upgrades pending proofs; ``[stamps] per_answer`` adds a quick RFC 3161 token after each counted
answer. The stamper never raises into sealing: a failing authority is recorded and retried later.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from weakref import WeakKeyDictionary

from league.arms.book import ARM_ASKS, ARMS_BOOK, ARMS_DIR
from league.jobs.context import League
from league.readers.book import READERS_BOOK, READERS_DIR
from league.stamping.stamper import Stamper, StampResult, Stamps, config_from_settings

BOOKS = ("council-book.jsonl", "asks.jsonl")
#: The CLI contest's book (DATA/books) and its published name (the contest's files sit in public/contest/).
CONTEST_BOOK = "contest-book.jsonl"
CONTEST_PUBLISHED = "contest/contest-book.jsonl"
#: The arms' books (DATA/books) and their published names (public/arms/), stamped with the others once they exist.
ARMS_PUBLISHED = ((ARMS_BOOK, f"{ARMS_DIR}/{ARMS_BOOK}"), (ARM_ASKS, f"{ARMS_DIR}/{ARM_ASKS}"))
#: One stamper per open league (its authorities are created at first use, not when the league opens).
_STAMPERS: WeakKeyDictionary[League, Stamps] = WeakKeyDictionary()


def stamper_for(lg: League) -> Stamps:
    """The league's stamper: the configured authorities, calendars and log (DATA/stamps)."""
    if lg not in _STAMPERS:
        config = config_from_settings(lg.config.settings.stamps, lg.data_dir)
        _STAMPERS[lg] = Stamper(config, lg.data_dir / "stamps", lg.clock)
    return _STAMPERS[lg]


def stamped_books(books_dir: Path) -> list[tuple[str, Path]]:
    """(published name, live path) of every book in ``books_dir`` a stamped list names: the council's two,
    and the CLI contest's once it exists, so a sweep's sealed SHA-256 gets the same outside time as an answer."""
    books = [(name, books_dir / name) for name in BOOKS]
    contest = books_dir / CONTEST_BOOK
    if contest.is_file():
        books.append((CONTEST_PUBLISHED, contest))
    books += [(published, books_dir / name) for name, published in ARMS_PUBLISHED if (books_dir / name).is_file()]
    if (books_dir / READERS_BOOK).is_file():  # written by the readers' service, stamped with the others
        books.append((f"{READERS_DIR}/{READERS_BOOK}", books_dir / READERS_BOOK))
    return books


def use_services(lg: League, *, calendars: tuple[str, ...] = (), rekor_url: str | None = None) -> Stamper:
    """Stamp this league through the given calendars and log in place of the configured ones (the demo's
    local stand-ins, which exist only while it runs); the configured authorities are kept."""
    config = config_from_settings(lg.config.settings.stamps, lg.data_dir)
    config = config.model_copy(update={"ots_calendars": calendars or config.ots_calendars,
                                       "rekor_url": rekor_url or config.rekor_url})
    stamper = Stamper(config, lg.data_dir / "stamps", lg.clock)
    _STAMPERS[lg] = stamper
    return stamper


def use_stamper(lg: League, stamper: Stamps) -> None:
    """Stamp this league through ``stamper``: a relay whose stamps another process takes (league.stamping.relay:
    the demo's season, whose parent stamps while the season goes on)."""
    _STAMPERS[lg] = stamper


def stamp(lg: League, session: str) -> StampResult | None:
    """A stamped list of every book's head after a batch of seals."""
    return stamp_note(lg, f"session {session}")


def stamp_note(lg: League, note: str) -> StampResult | None:
    """A stamped list with a free note (the contest's sweep seals and nightly resolutions)."""
    if not lg.stages.stamps:
        return None
    return stamper_for(lg).stamp_books(stamped_books(lg.books.dir), note=note)


def stamp_release(lg: League, public: Path, manifest: str) -> StampResult | None:
    """The release manifest's stamp by the league's stamper, when this league stamps."""
    if not lg.stages.stamps:
        return None
    return release_stamp(stamper_for(lg), public, manifest)


def release_stamp(stamper: Stamps, public: Path, manifest: str) -> StampResult | None:
    """The release manifest's SHA-256 in a stamped list (requirement 11), beside the heads of the books as
    published with it (the published copies, so the list never names lines the release does not hold)."""
    path = public / manifest
    if not path.is_file():
        return None
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    names = (*BOOKS, CONTEST_PUBLISHED, *(published for _, published in ARMS_PUBLISHED))
    books = [(name, public / name) for name in names if (public / name).is_file()]
    return stamper.stamp_books(books, note=f"{manifest}: sha256 {digest}")


def stamp_answer(lg: League, session: str) -> StampResult | None:
    """Per-answer-seal RFC 3161 tokens, when ``[stamps] per_answer = true``: each counted answer is
    then covered by a signed time from the moment it is sealed, well before the reference."""
    stamps = lg.config.settings.stamps
    if not stamps.tsa and not stamps.local_tsa:
        return None  # no authority configured: nothing to ask for a token
    return stamper_for(lg).stamp_books(stamped_books(lg.books.dir), note=f"answer seal, session {session}",
                                       only={"rfc3161"})


def stamp_upgrade(lg: League, session: str) -> list[tuple[Path, bool]] | None:
    """The nightly upgrade of pending OpenTimestamps proofs."""
    if not lg.stages.stamps:
        return None
    return stamper_for(lg).upgrade(backoff=True)
