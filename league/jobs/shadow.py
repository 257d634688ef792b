"""The shadow consensus's weights, frozen and sealed in the book (paper §5.3, §8).

The shadow consensus weighs each seat by the inverse of its mean pairwise correlation over the design
window, sessions 1-10 of the methodology segment. The paper freezes those weights for the season
before the confirmatory window (sessions 11-126) starts, so this stage, run after the score job, seals
them in a ``shadow_weights`` line once session 10 of the segment is scored — before session 11 is
asked. From then on the statistics read the sealed weights (re-checked by their SHA-256) and never
recompute them, so nothing learnt in sessions 11+ can move them.

The window and the rows are the ones the statistics would use: the segment's sessions numbered in date
order from the forecasts table the publisher writes, council rows only (counted runs, stated, sealed
before the reference).
"""

from __future__ import annotations

import structlog

from league import records
from league.book.index import STICKY_KINDS
from league.book.lines import ShadowWeightsLine
from league.calendar import Calendar
from league.config import Config
from league.counting import Sealed
from league.jobs.context import League, SeasonView
from league.jsonvalue import Json, obj, text
from league.publish.forecasts import iter_rows
from league.scoring import council
from league.scoring.frame import council_rows, load_forecasts

log = structlog.get_logger(__name__)
DESIGN_SESSIONS = 10


def _version(run: records.Run) -> str:
    return text(run.methodology.get("version"))


def sealed_versions(lg: Sealed) -> set[str]:
    return {x.methodology_version for x in lg.index.of_kind("shadow_weights") if isinstance(x, records.ShadowWeights)}


def design_window(lg: Sealed, version: str) -> list[str]:
    """The segment's first ten sessions in date order (every session with a run of that version).

    Read session by session from the first, stopping at the tenth (not every run of the season)."""
    sessions = getattr(lg.index, "sessions", None)
    if sessions is None:  # an index without the session list (a test's stand-in): every run
        found = sorted({r.session for r in lg.index.of_kind("run") if isinstance(r, records.Run)
                        and _version(r) == version})
        return found[:DESIGN_SESSIONS]
    window: list[str] = []
    for session in sessions("run"):
        if any(_version(r) == version for r in lg.index.runs(session)):
            window.append(session)
            if len(window) == DESIGN_SESSIONS:
                break
    return window


def _scored_1d(lg: Sealed, session: str) -> bool:
    return any(isinstance(x, records.Score) and x.horizon == "1d" for x in lg.index.of_kind("score", session))


def due(lg: Sealed, session: str) -> tuple[str, list[str]] | None:
    """(version, window) when the weights of the session's segment are to be sealed now: its design
    window is complete and scored, and no weights are sealed for that version yet."""
    versions = {_version(r) for r in lg.index.runs(session)}
    for version in sorted(versions - sealed_versions(lg)):
        window = design_window(lg, version)
        if len(window) == DESIGN_SESSIONS and session >= window[-1] and _scored_1d(lg, window[-1]):
            return version, window
    return None


class _UpTo:
    """The league's sealed lines as they answer for the sessions up to ``last`` (and every correction):
    what the forecasts table's rows of those sessions read, without reading the season after them.

    ``publish.forecasts.iter_rows`` reads whole kinds (runs, answers, score lines) before its first row;
    a row of a session depends only on that session's runs, their answers and score lines, and the
    corrections, so the rows of the window are the same through this view."""

    def __init__(self, lg: SeasonView, last: str) -> None:
        self._lg, self._last = lg, last

    @property
    def index(self) -> _UpTo:
        return self

    @property
    def config(self) -> Config:
        return self._lg.config

    @property
    def calendar(self) -> Calendar:
        return self._lg.calendar

    def of_kind(self, kind: str, session: str | None = None) -> list[records.Sealed]:
        real = self._lg.index
        if session is not None:
            return real.of_kind(kind, session) if session <= self._last else []
        if kind in STICKY_KINDS:
            return real.of_kind(kind)
        if kind == "answer":  # by run (an answer's own session is its run's)
            return list(real.answers({r.run_id for r in self.of_kind("run") if isinstance(r, records.Run)}))
        found = [x for s in real.sessions(kind) if s <= self._last for x in real.of_kind(kind, s)]
        return sorted(found, key=lambda x: x.n)

    def runs(self, session: str) -> list[records.Run]:
        return self._lg.index.runs(session) if session <= self._last else []

    def answers(self, run_ids: set[str]) -> list[records.Answer]:
        return self._lg.index.answers(run_ids)


def frozen_weights(lg: League, version: str, window: list[str]) -> dict[str, Json]:
    """The weights as the statistics compute them, on the segment's council rows of the window.

    The forecasts table is read through a view of the sessions up to the window's last (the same rows),
    and comes session by session in date order, so reading stops after that session: a league whose
    weights are sealed late, or a synthetic one without them, paid the whole history at a score job."""
    wanted = set(window)
    rows = []
    for r in iter_rows(_UpTo(lg.view, window[-1])):
        if r["session"] > window[-1]:
            break
        if r["methodology_version"] == version and r["session"] in wanted:
            rows.append(r)
    return council.shadow_weights(council_rows(load_forecasts(rows)), window)


def seal_shadow_weights(lg: League, session: str) -> int | None:
    """Seal the frozen weights when the session completes a segment's design window (else nothing)."""
    found = due(lg.view, session)
    if found is None:
        return None
    version, window = found
    weights = frozen_weights(lg, version, window)
    line = lg.books.seal(ShadowWeightsLine(session=session, methodology_version=version, window=window,
                                     weights=weights))
    log.info("shadow_weights.sealed", line=line.n, version=version, seats=len(obj(weights.get("weights"))))
    return line.n
