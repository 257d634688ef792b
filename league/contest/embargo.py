"""What of the contest's book may be shown while agents are still at work (the API's stream, the
published copy).

The live contest lets agents look things up on the web, so nothing one agent could copy from another
may leave while its clock runs. A line is *held* while it is

- a ``contest.bet`` or ``contest.forfeit`` line of a round with no ``contest.round.closed`` or
  ``contest.round.void`` line yet (another agent's bet while the round runs), or
- a ``contest.sweep.reply`` line of a date whose ``contest.sweep.sealed`` line is not written yet
  (another agent's forecasts while the sweep runs).

Only the prefix before the first held line is released: line numbers stay contiguous, so a follower
resumes with ``from = last + 1`` and a published copy is always a prefix of the book (its stamped
heads stay checkable).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

BET, FORFEIT = "contest.bet", "contest.forfeit"
ROUND_ENDS = ("contest.round.closed", "contest.round.void")
SWEEP_REPLY, SWEEP_SEALED = "contest.sweep.reply", "contest.sweep.sealed"


def kind_and_key(obj: Mapping[str, object]) -> tuple[str, str]:
    """The line's kind and what its release depends on: the date of a sweep line, else the round id."""
    kind = str(obj.get("kind", ""))
    key = str(obj.get("date", "")) if kind in (SWEEP_REPLY, SWEEP_SEALED) else str(obj.get("round_id", ""))
    return kind, key


@dataclass
class Frontier:
    """Incremental: :meth:`add` each line in book order; :attr:`released` is how many may be shown."""

    held: list[tuple[str, str]] = field(default_factory=list)
    ended_rounds: set[str] = field(default_factory=set)
    sealed_dates: set[str] = field(default_factory=set)
    released: int = 0
    seen: int = 0

    def add(self, kind: str, key: str) -> None:
        self.held.append((kind, key))
        self.seen += 1
        if kind in ROUND_ENDS:
            self.ended_rounds.add(key)
        elif kind == SWEEP_SEALED:
            self.sealed_dates.add(key)
        self._release()

    def _is_held(self, kind: str, key: str) -> bool:
        if kind in (BET, FORFEIT):
            return key not in self.ended_rounds
        return kind == SWEEP_REPLY and key not in self.sealed_dates

    def _release(self) -> None:
        while self.held and not self._is_held(*self.held[0]):
            self.held.pop(0)
            self.released += 1


def released_prefix(raw_lines: Iterable[bytes]) -> int:
    """How many of these complete lines (in book order) may be shown now."""
    frontier = Frontier()
    for raw in raw_lines:
        try:
            obj = json.loads(raw)
        except ValueError:
            obj = {}
        frontier.add(*kind_and_key(obj if isinstance(obj, dict) else {}))
    return frontier.released


def released_bytes(data: bytes) -> bytes:
    """The released prefix of a book's complete lines (``data`` ends with LF or is empty)."""
    lines = data.split(b"\n")[:-1] if data else []
    n = released_prefix(lines)
    return b"".join(line + b"\n" for line in lines[:n])
