"""Asks in flight, read from the books: sealed in the ask chain, no reply line sealed for them yet.

Whatever runs the seats — threads of the daemon, a lab's worker — an ask is in flight from its ``ask``
line (sealed before it is sent) until its ``answer``, ``incident`` or ``silence`` line. The books are the
truth, so `league status` reads this from them, in its own process, without asking the daemon; the
roster says where each seat runs (a lab's queue, or here).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from league.book.chain import iter_lines

if TYPE_CHECKING:
    from league.config import Config

REPLY_KINDS = frozenset({"answer", "incident", "silence"})
#: The remote runner's own view, written by the daemon every few seconds (queued/running, which worker).
REMOTE_STATE = Path("run") / "remote-in-flight.json"


def remote_state_file(config: Config) -> Path:
    """Where the league's remote runner keeps its asks in flight for `league status` (another process)."""
    return config.data_dir / REMOTE_STATE


def read_remote_state(config: Config) -> dict[str, Any] | None:
    """What the daemon's remote runner last wrote (``written_at``, ``asks``), or ``None``."""
    try:
        body = json.loads(remote_state_file(config).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return body if isinstance(body, dict) else None


@dataclass(frozen=True)
class InFlight:
    """One ask sent and not yet answered: where it runs (``queue`` empty = on the league's host)."""

    session: str
    run_id: str
    seat: str
    attempt: int
    asked_at: str
    queue: str


def in_flight(asks: Iterable[Mapping[str, Any]], book: Iterable[Mapping[str, Any]],
              queues: Mapping[str, str]) -> list[InFlight]:
    """The asks of ``asks`` (ask-chain lines) with no reply line in ``book``, oldest first."""
    replied = {_key(x) for x in book if x.get("kind") in REPLY_KINDS}
    return [InFlight(str(x["session"]), str(x["run_id"]), str(x["seat"]), int(x["attempt"]), str(x.get("at", "")),
                     queues.get(str(x["seat"]), ""))
            for x in asks if x.get("kind") == "ask" and _key(x) not in replied]


def _key(line: Mapping[str, object]) -> tuple[Any, Any, Any]:
    return line.get("run_id"), line.get("seat"), line.get("attempt")


def read_in_flight(books: Path, queues: Mapping[str, str], *, session: str | None = None) -> list[InFlight]:
    """:func:`in_flight` of a data folder's two books (``session``: the latest session asked, by default)."""
    asks = [line.content for line in iter_lines(books / "asks.jsonl")]
    sessions = [str(x["session"]) for x in asks if x["kind"] == "ask"]
    if not sessions:
        return []
    wanted = session or max(sessions)
    book = (line.content for line in iter_lines(books / "council-book.jsonl")
            if line.kind in REPLY_KINDS and line.content.get("session") == wanted)
    return in_flight([x for x in asks if x.get("session") == wanted], book, queues)
