"""What a book holds, indexed by (kind, session): rebuilt at open, updated on each append.

Jobs ask it what is already sealed before sealing anything (every job is idempotent by the book
itself); the publisher and the portfolio ask it for marks, runs and answers.

Two shapes (docs/book.md, "Startup checkpoint and memory window"):

* **whole** (:meth:`BookIndex.of_book`, the read-only views): every line in memory;
* **windowed** (the league's own index): only the sessions the open horizons need plus the small
  "sticky" kinds stay in memory; every question about an older session goes to ``older`` (the
  database's ``book_lines`` table, or a streaming read of the book when there is no database). The
  answers are the same either way; only where they come from differs.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from league.book.chain import BookLine, iter_lines, iter_raw

Body = dict[str, Any]

#: Kinds kept in memory whatever their age: few lines each, read by jobs without naming a session.
STICKY_KINDS = frozenset({"opening", "rules", "blind", "reveal", "correction", "shadow_weights"})


class OlderLines(Protocol):
    """Where a windowed index reads what it no longer keeps (the database index, or the book itself)."""

    def find(self, *, kind: str | None = None, session: str | None = None, run_ids: Iterable[str] | None = None,
             seat: str | None = None, n: int | None = None) -> list[Body]: ...

    def sessions(self, kind: str, since: str | None = None) -> list[str]: ...


def body_of(line: BookLine) -> Body:
    """What the index keeps of a line: its content plus n, seal and link (not prev)."""
    return {**line.content, "n": line.n, "seal": line.seal, "link": line.link}


def session_of(body: Body) -> str | None:
    session = body.get("session")
    return session if isinstance(session, str) and session else None


@dataclass
class BookIndex:
    """What is sealed, by kind and session; rebuilt from the book at open, updated on each append.

    ``cutoff`` (ISO date) and ``older`` make it windowed: a non-sticky line of a session before the
    cutoff may be absent from ``lines`` and is then read from ``older``. ``lines`` is what is in memory.
    """

    lines: dict[int, Body] = field(default_factory=dict)
    by_kind: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    by_session: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    by_key: dict[tuple[str, str], list[int]] = field(default_factory=lambda: defaultdict(list))
    by_run: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    run_line: dict[str, int] = field(default_factory=dict)
    cutoff: str | None = None
    older: OlderLines | None = None
    sticky: frozenset[str] = STICKY_KINDS
    partial: bool = False  # some line of the book is not in memory (else memory answers everything)

    # ------------------------------------------------------------------ building
    def add(self, line: BookLine) -> None:
        self.add_body(body_of(line))

    def add_body(self, body: Body) -> None:
        n = int(body["n"])
        if n in self.lines:
            return
        self.lines[n] = body
        kind = str(body.get("kind", ""))
        self.by_kind[kind].append(n)
        session = session_of(body)
        if session is not None:
            self.by_session[session].append(n)
            self.by_key[(kind, session)].append(n)
        run_id = body.get("run_id")
        if isinstance(run_id, str):
            if kind == "run":
                self.run_line.setdefault(run_id, n)
            elif kind == "answer":
                self.by_run[run_id].append(n)

    @classmethod
    def of_book(cls, path: Path) -> BookIndex:
        """Index every line of a book (verified line by line as it is read), all of it in memory."""
        index = cls()
        for line in iter_lines(path):
            index.add(line)
        return index

    @classmethod
    def of_bodies(cls, bodies: Iterable[Body], *, cutoff: str | None, older: OlderLines | None) -> BookIndex:
        index = cls(cutoff=cutoff, older=older)
        for body in bodies:
            index.add_body(body)
        return index

    def skip(self, n: int) -> None:
        """Note that line ``n`` was left out of memory (read from ``older`` when asked for)."""
        self.partial = True

    def keeps(self, body: Body, cutoff: str | None = None) -> bool:
        """True when a line belongs in memory under ``cutoff`` (default: this index's own)."""
        cut = self.cutoff if cutoff is None else cutoff
        session = session_of(body)
        return cut is None or session is None or session >= cut or str(body.get("kind")) in self.sticky

    def trim(self, cutoff: str) -> int:
        """Move the window forward in place: drop from memory what ``cutoff`` no longer keeps; returns
        how many. Only a windowed index (one with ``older``) drops anything: the lines stay readable there."""
        fresh, dropped = self.trimmed(cutoff)
        if fresh is not self:
            self.__dict__.update(fresh.__dict__)
        return dropped

    def trimmed(self, cutoff: str) -> tuple[BookIndex, int]:
        """The index under ``cutoff`` as a NEW object when lines drop (so a reader holding this one keeps a
        consistent view while the holder swaps the reference), else this one with its cutoff moved."""
        if self.older is None or (self.cutoff is not None and cutoff <= self.cutoff):
            return self, 0
        if not any(s < cutoff and k not in self.sticky for (k, s) in self.by_key):  # nothing to drop
            self.cutoff = cutoff
            return self, 0
        kept = [b for n, b in sorted(self.lines.items()) if self.keeps(b, cutoff)]
        fresh = BookIndex.of_bodies(kept, cutoff=cutoff, older=self.older)
        fresh.sticky = self.sticky
        fresh.partial = True
        return fresh, len(self.lines) - len(kept)

    # ------------------------------------------------------------------ reading
    def _complete(self, kind: str | None, session: str | None) -> bool:
        """True when memory alone answers for (kind, session)."""
        if not self.partial or self.older is None or self.cutoff is None or (kind is not None and kind in self.sticky):
            return True
        return session is not None and session >= self.cutoff

    def _merged(self, mine: Iterable[int], theirs: Iterable[Body]) -> list[Body]:
        out = {int(b["n"]): b for b in theirs}
        out.update((n, self.lines[n]) for n in mine)
        return [out[n] for n in sorted(out)]

    def of_kind(self, kind: str, session: str | None = None) -> list[Body]:
        """Every line of ``kind`` (of ``session`` when given), in book order; O(result) in memory."""
        mine = self.by_kind.get(kind, []) if session is None else self.by_key.get((kind, session), [])
        if self._complete(kind, session):
            return [self.lines[n] for n in mine]
        assert self.older is not None
        return self._merged(mine, self.older.find(kind=kind, session=session))

    def recent(self, kind: str) -> list[Body]:
        """The lines of ``kind`` in memory only: the window's sessions (or everything, when whole)."""
        return [self.lines[n] for n in self.by_kind.get(kind, [])]

    def runs(self, session: str) -> list[Body]:
        return self.of_kind("run", session)

    def run(self, run_id: str) -> Body | None:
        """The (first) run line of ``run_id``."""
        n = self.run_line.get(run_id)
        if n is not None or self._complete(None, None):
            return None if n is None else self.lines[n]
        assert self.older is not None
        found = self.older.find(kind="run", run_ids=[run_id])
        return found[0] if found else None

    def answers(self, run_ids: set[str]) -> list[Body]:
        """The answer lines of these runs, in book order."""
        mine = [n for r in run_ids for n in self.by_run.get(r, [])]
        missing = [r for r in run_ids if not self._run_in_window(r)]
        if not missing or self.older is None:
            return [self.lines[n] for n in sorted(mine)]
        return self._merged(mine, self.older.find(kind="answer", run_ids=sorted(missing)))

    def _run_in_window(self, run_id: str) -> bool:
        n = self.run_line.get(run_id)
        if n is None:
            return self._complete(None, None)
        session = session_of(self.lines[n])
        return self._complete("answer", session)

    def line(self, n: int) -> Body | None:
        """Line ``n`` wherever it is kept; ``None`` when the book has no such line."""
        if n in self.lines or self._complete(None, None):
            return self.lines.get(n)
        assert self.older is not None
        found = self.older.find(n=n)
        return found[0] if found else None

    def of_seat(self, kind: str, seat: str) -> list[Body]:
        """Every line of ``kind`` naming ``seat`` (all sessions), in book order."""
        mine = [n for n in self.by_kind.get(kind, []) if self.lines[n].get("seat") == seat]
        if self._complete(kind, None):
            return [self.lines[n] for n in mine]
        assert self.older is not None
        return self._merged(mine, self.older.find(kind=kind, seat=seat))

    def sessions(self, kind: str, since: str | None = None) -> list[str]:
        """The sessions (ISO dates, sorted) that have a line of ``kind``, from ``since`` on."""
        mine = {s for (k, s) in self.by_key if k == kind and (since is None or s >= since)}
        if self.older is not None and not self._complete(kind, since):
            mine.update(self.older.sessions(kind, since))
        return sorted(mine)


# ---------------------------------------------------------------------------- the book as "older"
@dataclass
class BookStream:
    """The book itself as the place of older lines, when there is no database: each question is one
    streaming read (memory stays flat; time is linear in the book, so a daemon should have a database)."""

    path: Path

    def _bodies(self) -> Iterator[Body]:
        for raw in iter_raw(self.path):
            obj = json.loads(raw)
            obj.pop("prev", None)
            yield obj

    def find(self, *, kind: str | None = None, session: str | None = None, run_ids: Iterable[str] | None = None,
             seat: str | None = None, n: int | None = None) -> list[Body]:
        runs = set(run_ids) if run_ids is not None else None
        out = []
        for body in self._bodies():
            if n is not None and body.get("n") != n:
                continue
            wanted = ((kind is None or body.get("kind") == kind) and (session is None or body.get("session") == session)
                      and (runs is None or body.get("run_id") in runs) and (seat is None or body.get("seat") == seat))
            if not wanted:
                continue
            out.append(body)
            if n is not None:
                break
        return out

    def sessions(self, kind: str, since: str | None = None) -> list[str]:
        found = {s for b in self._bodies() if b.get("kind") == kind and (s := session_of(b)) is not None}
        return sorted(s for s in found if since is None or s >= since)
