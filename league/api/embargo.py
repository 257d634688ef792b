"""The embargo: no answer content of a session leaves the API before that session's score line.

The protocol discloses answers after the day's score (docs/protocol.md §5): a seat with web access must
not be able to read the other seats' probabilities before the open. Until the session's ``score``
line is sealed, every line of that session that carries a seat's content (answers, incidents and
silences, portfolio decisions and trades) is served with its line number, kind, seat, hashes and
times only — ``embargoed: true`` and the names of the withheld keys. The raw reply files and the
forecast rows of the session are withheld too. Sealed lines are never changed: a reader who got a
redacted line fetches it again after the score and checks it against the seal it already has.

The state is read from the live book (the one the API follows); a published copy of the book is
redacted by the same rule, line by line, from each line's own ``session``.
"""

from __future__ import annotations

import csv
import io
import json
import threading
from collections.abc import Iterable
from pathlib import Path

from league.api.bookindex import BookIndex
from league.api.errors import NotFound
from league.jsonvalue import Json, JsonObject

#: Kinds whose lines carry a seat's content for their session.
EMBARGOED_KINDS = frozenset({"answer", "incident", "silence", "reply_record",
                             "decision", "trade", "rejection", "shadow", "bet"})
#: Kinds held back only when the line says so: a ``correction`` of a cell is a probability.
MAYBE_EMBARGOED = frozenset({"correction"})


def held_back(line: JsonObject) -> bool:
    """Whether this line's content waits for its session's score (its kind, or a corrected cell)."""
    kind = line.get("kind")
    return kind in EMBARGOED_KINDS or (kind == "correction" and line.get("target") == "cell")
#: What stays visible of an embargoed line: where it is in the chain, whose it is, its hashes and times.
VISIBLE = ("n", "kind", "at", "prev", "link", "seal", "run_id", "session", "seat", "attempt", "league", "account",
           "booked_at", "started_at", "own_sha256", "ask_sha256", "seat_ask_sha256")
SCORE_KIND = "score"


class Embargo:
    """Which sessions are scored (their ``score`` line sealed), updated incrementally from the book."""

    def __init__(self, book: BookIndex) -> None:
        self.book = book
        self._scored: set[str] = set()
        self._content_sessions: set[str] = set()
        self._run_sessions: dict[str, str] = {}
        self._withheld_replies: set[str] = set()
        self._seen = 0
        self._lock = threading.Lock()

    def refresh(self) -> None:
        """Read the lines appended since the last look (the book index is refreshed by the caller)."""
        with self._lock:
            total = self.book.lines
            for n in range(self._seen + 1, total + 1):
                kind = self.book.kind(n)
                if kind == "run":
                    line = self.book.line(n)
                    self._run_sessions[str(line.get("run_id", ""))] = str(line.get("session", ""))
                elif kind == SCORE_KIND:
                    self._scored.add(self.session_of(self.book.line(n)))
                elif kind in EMBARGOED_KINDS or kind in MAYBE_EMBARGOED:
                    line = self.book.line(n)
                    if not held_back(line):
                        continue
                    session = self.session_of(line)
                    self._content_sessions.add(session)
                    if line.get("own_sha256"):
                        self._withheld_replies.add(f"{session}:{line['own_sha256']}")
            self._seen = total

    def seed(self, seen: int, run_sessions: dict[str, str], scored: set[str], content: set[str],
             withheld: set[str]) -> None:
        """Take the state of lines 1..``seen`` as read from the database (league.api.dbseed) instead of
        parsing them: the session of each run, the scored sessions, the sessions holding content, and
        ``session:own_sha256`` of the replies of those not scored yet (the only ones ever withheld)."""
        with self._lock:
            self._run_sessions, self._scored, self._content_sessions = run_sessions, scored, content
            self._withheld_replies, self._seen = withheld, seen

    def session_of(self, line: JsonObject) -> str:
        """A line's session: its own field, else its run's (lines of older books may lack it)."""
        return str(line.get("session") or self._run_sessions.get(str(line.get("run_id", "")), ""))

    def scored(self, session: str) -> bool:
        return session in self._scored

    def active(self) -> bool:
        """True while some session's content is in the book and its score line is not."""
        self.refresh()
        return bool(self._content_sessions - self._scored)

    def embargoed_sessions(self, sessions: Iterable[str]) -> set[str]:
        return {s for s in sessions if s not in self._scored}

    def reply_withheld(self, digest: str) -> bool:
        """True when a raw reply file belongs to an answer of a session not scored yet."""
        self.refresh()
        return any(key.endswith(f":{digest}") and not self.scored(key.split(":", 1)[0])
                   for key in self._withheld_replies)

    # ----------------------------------------------------------------------------- lines
    def public_raw(self, raw: bytes, kind: str | None = None) -> bytes:
        """The line as it may be served now: unchanged, or redacted while its session is embargoed."""
        if kind is not None and kind not in EMBARGOED_KINDS and kind not in MAYBE_EMBARGOED:
            return raw
        try:
            line: JsonObject = json.loads(raw)
        except ValueError:
            return raw
        redacted = self.redact(line)
        return raw if redacted is line else json.dumps(redacted, ensure_ascii=False).encode("utf-8")

    def redact(self, line: JsonObject) -> JsonObject:
        """``line`` itself when it may be shown, else a copy holding only :data:`VISIBLE` keys."""
        if not held_back(line) or self.scored(self.session_of(line)):
            return line
        kept = {k: line[k] for k in VISIBLE if k in line}
        withheld: list[Json] = [k for k in sorted(line) if k not in kept]
        return {**kept, "embargoed": True, "withheld": withheld}

    def public_book(self, data: bytes) -> bytes:
        """A whole book file (e.g. a published copy) with every embargoed line redacted."""
        self.refresh()
        out = []
        for raw in data.split(b"\n"):
            out.append(self.public_raw(raw) if raw.strip() else raw)
        return b"\n".join(out)

    # ------------------------------------------------------------------------------ rows
    def public_rows(self, rows: list[dict[str, str]]) -> list[dict[str, str]]:
        """Forecast rows of scored sessions only."""
        self.refresh()
        return [r for r in rows if self.scored(r.get("session", ""))]

    def public_csv(self, text: str) -> str:
        """A published forecasts CSV without the rows of sessions not scored yet."""
        self.refresh()
        source = io.StringIO(text, newline="")
        reader = csv.DictReader(source)
        out = io.StringIO(newline="")
        writer = csv.DictWriter(out, fieldnames=reader.fieldnames or [], lineterminator="\n")
        writer.writeheader()
        for row in reader:
            if self.scored(row.get("session", "")):
                writer.writerow(row)
        return out.getvalue()


def embargoed_file(embargo: Embargo, target: Path) -> bytes | None:
    """What an open-data file may show while a session is under embargo, or ``None`` to serve it as
    it is: books are redacted line by line, the forecast rows of unscored sessions left out, and the
    raw reply of an unscored answer refused."""
    if not embargo.active():
        return None
    if target.parent.name == "replies" and embargo.reply_withheld(target.stem):
        raise NotFound(f"reply {target.name} is under embargo until its session's score line is sealed",
                       fix="ask again after the session's score line (16:05 ET)")
    if target.suffix == ".jsonl":
        return embargo.public_book(target.read_bytes())
    if target.name == "council-forecasts.csv":
        return embargo.public_csv(target.read_text(encoding="utf-8")).encode("utf-8")
    return None
