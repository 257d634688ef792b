"""The optional stages of a league day, wired onto a :class:`League` as hooks.

The day's functions know nothing of stamps, portfolios or publishing; the scheduler calls hooks
by name after the jobs that need them (``stamp`` after the second wave, ingest close and scoring —
every batch of seals; ``stamp_upgrade``; ``publish``; ``portfolio`` after scoring). Each stage is
built lazily so a league without, say, portfolio rules still runs, and a failing stage is logged
with its session and never undoes a seal (the stamper itself never raises into sealing).
"""

from __future__ import annotations

from typing import Any

import structlog

from league.season import League

log = structlog.get_logger(__name__)
BOOKS = ("council-book.jsonl", "asks.jsonl")


def stamper_for(lg: League) -> Any:
    """One stamper per league: the configured authorities, calendars and log (DATA/stamps)."""
    if "_stamper" not in lg.hooks:
        from league.stamps.stamper import Stamper, config_from_settings

        config = config_from_settings(lg.config.settings.stamps, lg.data_dir)
        lg.hooks["_stamper"] = Stamper(config, lg.data_dir / "stamps", lg.clock)
    return lg.hooks["_stamper"]


def stamp(lg: League, session: str) -> Any:
    books = [(name, lg.books_dir / name) for name in BOOKS]
    return stamper_for(lg).stamp_books(books, note=f"session {session}")


def stamp_answer(lg: League, session: str) -> Any:
    """Per-answer-seal RFC 3161 tokens, when ``[stamps] per_answer = true``: each counted answer is
    then covered by a signed time from the moment it is sealed, well before the reference."""
    stamps = lg.config.settings.stamps
    if not stamps.tsa and not stamps.local_tsa:
        return None  # no authority configured: nothing to ask for a token
    books = [(name, lg.books_dir / name) for name in BOOKS]
    return stamper_for(lg).stamp_books(books, note=f"answer seal, session {session}", only={"rfc3161"})


def stamp_upgrade(lg: League, session: str) -> Any:
    return stamper_for(lg).upgrade()


def publish(lg: League, session: str) -> Any:
    from league.publish.files import publish as publish_folder

    return publish_folder(lg.data_dir, config=lg.config, clock=lg.clock)


def preflight(lg: League, session: str) -> Any:
    """The self-check before each batch (sandbox isolation, every seat's CLI and credentials), sealed
    as a ``preflight`` line so a failed check is on the record next to the run it preceded. Seats are
    still asked: a seat whose check failed and then does not answer is an infrastructure incident."""
    from agents.selfcheck import preflight as run_checks

    checks = run_checks(lg.config.roster.seat, lg.clock.now)
    failed = [c for c in checks if not c.ok]
    lg.append("preflight", {"session": session, "ok": not failed,
                            "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail[:300]} for c in checks]})
    if failed:
        log.error("preflight.failed", session=session, failed=[c.name for c in failed])
    return checks


def climatology_context(lg: League, session: str) -> dict[str, Any]:
    """The sealed climatology table (DATA/climatology.json, hash re-checked) for the `_climatology` seat."""
    import json

    path = lg.data_dir / "climatology.json"
    if not path.is_file():
        return {}
    from league.demo import climatology_context as probabilities

    return {"climatology": probabilities(json.loads(path.read_text(encoding="utf-8")))}


def wire(lg: League, *, publish_nightly: bool = True, self_check: bool = False) -> League:
    """Attach every stage this league's configuration asks for."""
    lg.hooks.update(stamp=stamp, stamp_upgrade=stamp_upgrade)
    lg.hooks.setdefault("ask_context", climatology_context)
    if publish_nightly:
        lg.hooks["publish"] = publish
    if self_check:
        lg.hooks["preflight"] = preflight
    if lg.config.settings.stamps.per_answer:
        lg.hooks["answer_sealed"] = stamp_answer
    from league.crowd_day import make_crowd, resolve_crowd

    if lg.crowd is None:
        lg.crowd = make_crowd(lg)
    lg.hooks["crowd"] = resolve_crowd
    try:
        from league.portfolio_day import mark_session
    except ImportError:
        log.info("wiring.no_portfolio")
    else:
        lg.hooks["portfolio"] = mark_session
    return lg
