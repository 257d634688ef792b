"""The ``recorded`` news provider: feed documents kept as files, the demo's and the tests'.

Every ``*.xml`` file of the folder is one recorded feed (RSS 2.0 or Atom), read in file-name order, its
headlines named after the file's stem. The same bytes go through the same parser as a live feed, so a packet
rebuilt from the recorded feed gives the same hash. Unlike a live feed, a recorded file that cannot be read
is an error, not a skip: a replay that silently lost a file would seal a different packet.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import structlog

from league.config import Config
from league.news.interface import Headline, NewsError, aware_utc
from league.news.parse import MAX_FEED_BYTES, parse_feed

log = structlog.get_logger(__name__)


class RecordedSource:
    """Replays the feed files of ``folder``; the folder is read at each call (files added later are seen)."""

    name = "recorded"

    def __init__(self, folder: Path) -> None:
        self._folder = Path(folder)

    def _read(self, path: Path) -> bytes:
        try:
            if path.stat().st_size > MAX_FEED_BYTES:
                raise NewsError(f"recorded news feed {path}: larger than {MAX_FEED_BYTES} bytes")
            return path.read_bytes()
        except OSError as exc:
            raise NewsError(f"cannot read recorded news feed {path}: {exc}") from exc

    def headlines(self, cutoff: datetime) -> list[Headline]:
        """Every file's headlines, file by file in name order; ``cutoff`` is left to the packet."""
        aware_utc(cutoff, "cutoff")
        if not self._folder.is_dir():
            raise NewsError(f"recorded news folder {self._folder} does not exist",
                            fix="create it with the feed files (*.xml), or set [news] recorded_dir")
        found: list[Headline] = []
        for path in sorted(self._folder.glob("*.xml")):
            items, skipped = parse_feed(path.stem, self._read(path))
            for reason in skipped:
                log.info("news entry skipped", file=str(path), reason=reason)
            found.extend(items)
        return found


def from_config(config: Config) -> RecordedSource:
    """The ``recorded`` news provider (entry point ``forecast_league.news``): ``DATA/<[news] recorded_dir>``."""
    return RecordedSource(config.data_dir / config.settings.news.recorded_dir)
