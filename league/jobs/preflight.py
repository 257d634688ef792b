"""Preflight: the prerequisites checked before a demo or a daemon seals anything, and the self-check
sealed before each morning run.

Without bubblewrap every sandboxed seat would be sealed as an incident (the demo used to finish
"verified" with an empty league table). A missing prerequisite stops the run first, naming every one
that is missing and the fix. (The local RFC 3161 authorities sign in process with the league's clock,
so neither openssl nor libfaketime is a prerequisite any more.)

The ``preflight`` stage (:func:`preflight`) runs the sandbox and seat self-check before each morning
batch and seals it as a ``preflight`` line, so a failed check is on the record next to the run it
preceded.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable

import structlog

from league.book.lines import PreflightCheck, PreflightLine
from league.errors import LeagueError
from league.jobs.context import League
from league_agents.base import SeatSpec
from league_agents.registry import is_sandboxed, sandbox_installed
from league_agents.selfcheck import preflight as run_checks
from sandbox.selfcheck import Check

log = structlog.get_logger(__name__)


class MissingPrerequisite(LeagueError):
    """A tool the run needs is not installed: nothing has been sealed."""


def missing_for(seats: Iterable[SeatSpec]) -> list[tuple[str, str]]:
    """(what is missing, install command) for this roster."""
    seats = list(seats)
    missing = []
    if any(is_sandboxed(s.adapter) for s in seats) and not sandbox_installed():
        missing.append(("bubblewrap (bwrap): the seats' sandbox", "apt-get install -y bubblewrap"))
    if any(s.network != "none" for s in seats) and shutil.which("socat") is None:
        missing.append(("socat: the forwarder to a networked seat's egress proxy", "apt-get install -y socat"))
    return missing


def require(seats: Iterable[SeatSpec], *, what: str) -> None:
    """Raise :class:`MissingPrerequisite` (before anything is sealed) if anything is missing."""
    missing = missing_for(seats)
    if missing:
        names = "; ".join(m for m, _ in missing)
        raise MissingPrerequisite(f"{what} cannot start: missing {names}. Nothing was sealed.",
                                  fix=" && ".join(dict.fromkeys(f for _, f in missing)))


def preflight(lg: League, session: str) -> list[Check]:
    """The self-check before each batch (sandbox isolation, every seat's CLI and credentials), sealed
    as a ``preflight`` line. Seats are still asked: a seat whose check failed and then does not answer
    is an infrastructure incident. A seat on a lab's worker is checked there, before each run."""
    checks = run_checks([s for s in lg.config.roster.seat if not s.worker], lg.clock.now)
    failed = [c for c in checks if not c.ok]
    lg.books.seal(PreflightLine(session=session, ok=not failed,
                          checks=[PreflightCheck(name=c.name, ok=c.ok, detail=c.detail[:300]) for c in checks]))
    if failed:
        log.error("preflight.failed", session=session, failed=[c.name for c in failed])
    return checks
