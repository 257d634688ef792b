"""The CLI contest through the API: its published files in one view, and its book as a stream.

``/api/contest`` gathers what the page's contest section shows from the published files
(``contest/metrics.json``, ``contest/sealed.json``, the newest ``contest/rounds.json`` records and
their ``contest/cards/``); every file itself is served byte for byte like any open-data file.

``/api/contest/stream`` follows the contest's book (the live one under ``books/`` when the folder has
it), released as league/contest/embargo.py decides: never another agent's bet while its round runs,
nor its sweep reply before the sweep is sealed; the stream holds back from the first held line.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path

from league.api.bookindex import appended_since, line_range
from league.contest.embargo import Frontier, kind_and_key
from league.contest.ledger import KINDS
from league.jsonvalue import Json, items, obj

CONTEST_DIR = "contest"
CONTEST_BOOK = "contest-book.jsonl"
#: The contest's line kinds, as its ledger writes them.
CONTEST_KINDS = frozenset(KINDS)
NEWEST_ROUNDS = 10


def contest_book(data_dir: Path, public: Path) -> Path:
    """The live contest book when the data folder has one, else the published copy (which may not exist)."""
    live = data_dir / "books" / CONTEST_BOOK
    return live if live.is_file() else public / CONTEST_DIR / CONTEST_BOOK


@dataclass
class _State:
    offsets: list[int] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    size: int = 0
    frontier: Frontier = field(default_factory=Frontier)


class ContestBook:
    """An incremental index of the contest book that knows how far the stream may go."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._s = _State()

    def refresh(self) -> int:
        """Index appended lines; return how many lines may be shown (the embargo's frontier)."""
        with self._lock:
            lines, self._s.size = appended_since(self.path, self._s.size, self._reset)
            for offset, raw in lines:
                self._add(offset, raw)
            return self._s.frontier.released

    def _reset(self) -> None:
        self._s = _State()

    @property
    def lines(self) -> int:
        return len(self._s.offsets)

    def _add(self, offset: int, raw: bytes) -> None:
        try:
            obj = json.loads(raw)
        except ValueError:
            obj = {}
        kind, key = kind_and_key(obj if isinstance(obj, dict) else {})
        self._s.offsets.append(offset)
        self._s.kinds.append(kind)
        self._s.frontier.add(kind, key)

    def kind(self, n: int) -> str:
        return self._s.kinds[n - 1]

    def raw_lines(self, first: int, last: int) -> list[bytes]:
        """Lines ``first..last`` (1-based, inclusive, at most the released ones) without their LF."""
        with self._lock:
            last = min(last, self._s.frontier.released)
            offsets, size = self._s.offsets[: last + 1], self._s.size  # a copy taken under the lock
        return line_range(self.path, offsets, size, first, last)


def _json(path: Path) -> Json:
    """A published contest file as JSON; None when it is missing or not JSON."""
    try:
        value: Json = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value


def contest_view(public: Path) -> dict[str, object]:
    """What the page's contest section shows, from the published contest files only."""
    folder = public / CONTEST_DIR
    found = _json(folder / "metrics.json")
    if found is None:
        return {"contest": False}
    metrics = obj(found)
    newest = items(_json(folder / "rounds.json"))[:NEWEST_ROUNDS]
    cards = {str(r["round_id"]): _json(folder / "cards" / f"{r['round_id']}.json") for r in map(obj, newest)}
    return {"contest": True, "forecast_accuracy": metrics.get("forecast_accuracy", {}),
            "betting_record": metrics.get("betting_record", {}), "contestants": metrics.get("contestants", {}),
            "season": metrics.get("season"), "rules_sha256": metrics.get("rules_sha256"),
            "sealed": items(_json(folder / "sealed.json"))[:NEWEST_ROUNDS], "rounds": newest, "cards": cards}
