"""The arms' books: ``arms-book.jsonl`` (schedule, packets, arm runs, their answers) and its ask chain
``arm-asks.jsonl`` (the roster and the SHA-256 of each arm ask's exact text, sealed before it is sent).

Two chains of their own beside the council's, with the same chain formula and line rules, so that an arm
never changes a byte of the council book or of its ask chain. One process writes them (the daemon); the
whole arms' book is kept in memory as typed lines (a season holds a few thousand of them).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from league.arms.lines import (
    REPLY_KINDS,
    ArmAnswerLine,
    ArmRunLine,
    ArmScheduleLine,
    ArmSilenceLine,
    PacketLine,
    TypedArmLine,
    read_arm_line,
)
from league.asks import AskChain
from league.book import BookLine, iter_lines
from league.book.lines import Line
from league.clock import Clock
from league.seatcore.ledger import TrackBook

ARMS_BOOK = "arms-book.jsonl"
ARM_ASKS = "arm-asks.jsonl"
#: The published folder of the arms' books, packets and ask texts (open-data.md).
ARMS_DIR = "arms"
COUNTING_RULE = ("arms are never counted: no arm run, repeat or arm answer enters the council's tables, accounts "
                 "or statistics; each arm is reported on its own (docs/experiments.md)")


class ArmsBook(TrackBook):
    """The single writer of ``arms-book.jsonl``, with every line kept read back as its typed model."""

    def __init__(self, path: Path, clock: Clock) -> None:
        self.typed: list[tuple[int, TypedArmLine]] = []
        super().__init__(path, clock)

    def opened(self, count: int) -> None:
        self.typed = [(line.n, _typed(line)) for line in iter_lines(self.path)] if count else []

    def sealed(self, line: BookLine) -> None:
        self.typed.append((line.n, _typed(line)))


def _typed(line: BookLine) -> TypedArmLine:
    return read_arm_line({**line.content, "at": line.at})


class ArmsBooks:
    """The arms' book and its ask chain, opened for writing (league.jobs.arms is their only writer)."""

    def __init__(self, books_dir: Path, clock: Clock) -> None:
        books_dir.mkdir(parents=True, exist_ok=True)
        self.book = ArmsBook(books_dir / ARMS_BOOK, clock)
        try:
            self.asks = AskChain(books_dir / ARM_ASKS, clock, COUNTING_RULE)
        except BaseException:
            self.book.close()
            raise

    def seal(self, line: Line) -> BookLine:
        """Seal one typed line (validated when it was built)."""
        return self.book.append(line.kind, line.content())

    def seal_all(self, lines: Sequence[Line]) -> list[BookLine]:
        """Seal several typed lines in order with one fsync (lines a job computes, such as an arm's accounts
        of a session; a reply is sealed on arrival with :meth:`seal`)."""
        return self.book.append_all([(line.kind, line.content()) for line in lines])

    def lines(self) -> Iterator[tuple[int, TypedArmLine]]:
        return iter(list(self.book.typed))

    def schedule(self) -> ArmScheduleLine | None:
        return next((x for _, x in self.lines() if isinstance(x, ArmScheduleLine)), None)

    def packet(self, session: str) -> PacketLine | None:
        return next((x for _, x in self.lines() if isinstance(x, PacketLine) and x.session == session), None)

    def runs(self, session: str | None = None) -> list[ArmRunLine]:
        return [x for _, x in self.lines() if isinstance(x, ArmRunLine) and (session is None or x.session == session)]

    def arm_days(self) -> list[str]:
        """The sessions with arm runs, in the order of their first arm run."""
        return list(dict.fromkeys(r.session for r in self.runs()))

    def replied(self, run_id: str) -> set[tuple[str, int]]:
        """``(seat, attempt)`` of every reply line sealed for an arm run."""
        return {(x.seat, x.attempt) for _, x in self.lines() if x.kind in REPLY_KINDS
                and isinstance(x, ArmAnswerLine | ArmSilenceLine) and x.run_id == run_id}

    def close(self) -> None:
        try:
            self.asks.close()
        finally:
            self.book.close()
