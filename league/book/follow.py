"""Follow a local book file from a line number, polling for appended lines (``league tail``, ``--rows``).

Beside the book, not in the API: the API's client (:mod:`league.api.follow`) and the researchers' rows
(:mod:`league.publish.tailrows`) both read a local book this way, and the publisher must not import the API
(the API serves the rows the publisher computes).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from league.errors import LeagueError

Line = tuple[int, bytes]


class FollowError(LeagueError):
    """The book cannot be followed (missing file, the API refused the request, retries exhausted)."""


def follow_file(path: Path, start: int = 1, kinds: frozenset[str] = frozenset(), follow: bool = False,
                poll_s: float = 0.2, sleep: Callable[[float], None] = time.sleep) -> Iterator[Line]:
    """Lines ``start..`` of a local book; with ``follow`` keep polling for appended lines."""
    if not path.is_file():
        raise FollowError(f"{path}: no such book", fix="pass the path of council-book.jsonl or the API's URL")
    n, offset, pending = 0, 0, b""
    while True:
        with open(path, "rb") as fh:
            fh.seek(offset)
            data = fh.read()
        offset += len(data)
        pending += data
        *complete, pending = pending.split(b"\n")
        for raw in complete:
            n += 1
            if n >= start and _wanted(raw, kinds):
                yield n, raw
        if not follow:
            return
        sleep(poll_s)


def _wanted(raw: bytes, kinds: frozenset[str]) -> bool:
    if not kinds:
        return True
    try:
        return str(json.loads(raw).get("kind", "")) in kinds
    except ValueError:
        return False
