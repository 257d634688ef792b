"""The arms' book through the API: ``/api/arms/stream`` follows the published ``arms/arms-book.jsonl``.

The arms' book (league/arms/book.py) holds the arms' lines (schedule, news packets, arm runs, answers,
silences, the arms' paper accounts, extra scores, fetch records) and the council talk's (``talk_*``). The API
streams the published copy in the open-data folder, the file it also serves byte for byte, so the stream
shows nothing the folder does not. :data:`ARMS_BOOK_KINDS` is every kind ``read_arm_line`` knows.
"""

from __future__ import annotations

import json
import threading
import typing
from dataclasses import dataclass, field
from pathlib import Path

from league.api.bookindex import appended_since, line_range
from league.arms.book import ARMS_BOOK, ARMS_DIR
from league.arms.lines import TALK_KINDS, TypedArmLine


def _kinds() -> frozenset[str]:
    """The kind of every line model the arms' book is read with (each model's ``kind`` literal)."""
    return frozenset(str(model.model_fields["kind"].default) for model in typing.get_args(TypedArmLine))


#: Every kind of the arms' book, the council talk's included.
ARMS_BOOK_KINDS = _kinds()
#: The council talk's kinds.
TALK_LINE_KINDS = frozenset(TALK_KINDS)
assert TALK_LINE_KINDS <= ARMS_BOOK_KINDS


def published_arms_book(public: Path) -> Path:
    """The published arms' book in the open-data folder (it may not exist yet)."""
    return public / ARMS_DIR / ARMS_BOOK


@dataclass
class _State:
    offsets: list[int] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    size: int = 0


class ArmsBookIndex:
    """An incremental index (byte offsets and kinds) of the arms' book; a republished, shorter copy starts it over."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._s = _State()

    def refresh(self) -> int:
        """Index the appended lines; return how many lines the book has."""
        with self._lock:
            lines, self._s.size = appended_since(self.path, self._s.size, self._reset)
            for offset, raw in lines:
                try:
                    obj = json.loads(raw)
                except ValueError:
                    obj = {}
                self._s.offsets.append(offset)
                self._s.kinds.append(str(obj.get("kind", "")) if isinstance(obj, dict) else "")
            return len(self._s.offsets)

    def _reset(self) -> None:
        self._s = _State()

    def kind(self, n: int) -> str:
        return self._s.kinds[n - 1]

    def raw_lines(self, first: int, last: int) -> list[bytes]:
        """Lines ``first..last`` (1-based, inclusive) without their LF."""
        with self._lock:
            last = min(last, len(self._s.offsets))
            offsets, size = self._s.offsets[: last + 1], self._s.size
        return line_range(self.path, offsets, size, first, last)
