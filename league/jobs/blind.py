"""Blind seasons: seal the seats' identity commitments before the first ask, mask answer lines, reveal.

The per-seat salts are the only secret: they are written to ``DATA/blind/salts.json`` (mode 0600,
never overwritten) before the commitments are sealed, and published only in the reveal line. What a
seat's identity is: its roster ``model``, ``options.version`` (``unreported`` if absent) and ``effort``
as its mode (``default`` if empty) — the declared identity, fixed before the season.
"""

from __future__ import annotations

import json
import os
import secrets
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from league import records
from league.blind import MASK, RULE, SALT_BYTES, identity_sha256
from league.book.chain import BookLine
from league.book.index import BookIndex
from league.book.lines import BlindLine, Line, RevealLine
from league.config import Config
from league.errors import LeagueError
from league_agents.base import SeatSpec


class BlindError(LeagueError):
    """A blind season cannot be sealed or revealed as asked."""


def salts_path(data_dir: Path) -> Path:
    return data_dir / "blind" / "salts.json"


def identity(spec: SeatSpec) -> tuple[str, str, str]:
    """(model, version, mode) a blind season commits to for this seat."""
    return spec.model, str(spec.options.get("version", "unreported")), spec.effort or "default"


def blind_content(config: Config) -> dict[str, Any]:
    """The ``blind`` line: fresh salts kept privately first, then one commitment per seat."""
    path = salts_path(config.data_dir)
    if path.exists():
        raise BlindError(f"{path} already exists; a blind season's salts are made once",
                         fix="keep the file (the reveal needs it) or start a new league folder")
    salts = {s.name: secrets.token_bytes(SALT_BYTES).hex() for s in config.roster.seat}
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(salts, fh, indent=1, sort_keys=True)
        fh.flush()
        os.fsync(fh.fileno())
    seats = [{"seat": s.name, "identity_sha256": identity_sha256(bytes.fromhex(salts[s.name]), *identity(s))}
             for s in config.roster.seat]
    return BlindLine.from_content({"rule": RULE, "seats": seats}).content()


def reveal_content(config: Config, committed: list[records.BlindSeat]) -> dict[str, Any]:
    """The ``reveal`` line from the kept salts and the roster, for exactly the committed seats."""
    path = salts_path(config.data_dir)
    try:
        salts = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BlindError(f"cannot read the blind season's salts {path}: {exc}") from exc
    specs = {s.name: s for s in config.roster.seat}
    seats = []
    for c in committed:
        spec = specs.get(c.seat)
        if spec is None:
            raise BlindError(f"seat {c.seat} was committed but is no longer in the roster",
                             fix="restore its roster entry as it was when the season was sealed")
        model, version, mode = identity(spec)
        seats.append({"seat": spec.name, "salt": salts[spec.name], "model": model, "version": version, "mode": mode})
    return RevealLine.from_content({"seats": seats}).content()


def masked(content: dict[str, Any]) -> dict[str, Any]:
    """An answer's content as a blind season seals it: no model, version, mode or usage report."""
    return {**content, "model": MASK, "version": MASK, "mode": MASK, "usage": {}}


class Revealing(Protocol):
    """What sealing the reveal reads and writes of a league (league.jobs.context.League is one)."""

    @property
    def index(self) -> BookIndex: ...

    @property
    def config(self) -> Config: ...

    def seal(self, line: Line, *, at: datetime | None = None) -> BookLine: ...


def seal_reveal(lg: Revealing) -> BookLine:
    """Seal the reveal line of a blind season (once); returns the sealed book line."""
    committed = lg.index.of(records.Blind)
    if not committed:
        raise BlindError("this league's book has no blind line: it is not a blind season",
                         fix='a season is blind when its roster says blind = true before `league init`')
    if lg.index.of_kind("reveal"):
        raise BlindError("this blind season is already revealed", fix="nothing to do: the reveal line is sealed")
    return lg.seal(RevealLine.from_content(reveal_content(lg.config, list(committed[0].seats))))
