"""What the page discloses of the council to a reader: the latest published one-day consensus per market.

A session's own answers stay sealed until its score (the protocol's delayed disclosure), so a reader forecasting
a session before its reference is shown the council as the open data already shows it: for each market, the
consensus probability of up at one day of the latest session published before the one being forecast
(``council-stats.json``, ``consensus.per_event``). The same figure is sealed with every reader forecast as the
consensus on offer, whatever the reader's group, so anchoring is measured alike in both.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path

STATS = "council-stats.json"


@dataclass(frozen=True)
class Shown:
    """The council on offer for a session: the session it comes from and each market's consensus p (percent)."""

    session: str | None
    up: dict[str, float]


class CouncilView:
    """The published consensus, re-read when the file changes."""

    def __init__(self, public: Path) -> None:
        self.path = public / STATS
        self._lock = threading.Lock()
        self._stamp: tuple[int, int] | None = None
        self._by_session: dict[str, dict[str, float]] = {}

    def _load(self) -> dict[str, dict[str, float]]:
        try:
            st = self.path.stat()
        except OSError:
            return {}
        stamp = (st.st_mtime_ns, st.st_size)
        with self._lock:
            if stamp != self._stamp:
                by: dict[str, dict[str, float]] = {}
                try:
                    doc = json.loads(self.path.read_text(encoding="utf-8"))
                    events = doc.get("consensus", {}).get("per_event", [])
                except (OSError, ValueError, AttributeError):
                    events = []
                for e in events if isinstance(events, list) else []:
                    if isinstance(e, dict) and e.get("horizon") == "1d" and isinstance(e.get("p"), int | float):
                        by.setdefault(str(e.get("session")), {})[str(e.get("asset"))] = float(e["p"])
                self._by_session, self._stamp = by, stamp
            return self._by_session

    def shown_for(self, session: str) -> Shown:
        """The latest published session before ``session`` with a one-day consensus, and its figures."""
        by = self._load()
        earlier = sorted(s for s in by if s < session)
        if not earlier:
            return Shown(None, {})
        return Shown(earlier[-1], dict(sorted(by[earlier[-1]].items())))
