"""A read-only view of a league's books for publishing and exporting (takes no writer lock).

It offers what the counting rule reads (:class:`league.counting.Sealed`): the index of the council
book, the config and the calendar — so the CSV writer and the publisher see exactly what the jobs saw.
"""

from __future__ import annotations

from pathlib import Path

from league.book.index import BookIndex
from league.calendar import Calendar, default_calendar
from league.config import Config, load_config


class BookView:
    """A read-only view of a league's books for publishing and exporting (takes no writer lock)."""

    def __init__(self, config: Config, calendar: Calendar) -> None:
        self.config = config
        self.data_dir = config.data_dir
        self.calendar = calendar
        self.index = BookIndex.of_book(self.data_dir / "books" / "council-book.jsonl")

    @classmethod
    def open(cls, data_dir: Path) -> BookView:
        """The view of DATA, with its config from the sibling ``config/`` folder that `league init` made."""
        return cls(load_config(Path(data_dir).parent / "config"), default_calendar())
