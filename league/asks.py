"""The outgoing-ask chain (docs/protocol.md §4) and the ask text.

``asks.jsonl`` is a second hash-chained book recording what the operator sends, BEFORE it is sent:
its first line declares which run counts for each session; before a run's first ask the roster of
expected answers (deadlines, retry policy); at send time the SHA-256 of the exact text each seat
receives. The common text (without the per-seat account block) is published as
``asks/<sha256>.md``; its hash is the ``ask_sha256`` repeated in the run line and every answer line.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from league.book import Book, BookLine, iter_lines
from league.book.chain import _checked as checked_line
from league.book.chain import sealable
from league.book.lines import AskLine, CountingRuleLine, Line, RosterLine, RosterSeat, RunRole
from league.clock import Clock, iso_seconds
from league.errors import BookError, ChainBroken, InvalidRecord
from league.verify.chain import MAX_LINE_BYTES, OVERLONG
from league_agents.base import SeatSpec

ASK_FORMAT_VERSION = "ask-1"
#: How a roster line's kind reads in its canonical bytes (sorted keys, no spaces): the cheap filter of a scan.
ROSTER_MARK = b'"kind":"roster"'
RUN_ID_MARK = b'"run_id":"'


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class AskChain:
    """Writer of ``asks.jsonl``; the counting rule is sealed as line 1 when the chain is new."""

    def __init__(self, path: Path, clock: Clock, counting_rule: str) -> None:
        self.book = Book(path, clock)
        if self.book.lines == 0:
            self._seal(CountingRuleLine(rule=counting_rule, version=1))
        else:
            first = next(iter_lines(path))
            if first.kind != "counting_rule":
                self.book.close()
                raise BookError(f"{path}: line 1 is `{first.kind}`, not the counting-rule declaration")
        self.path = path
        self._rosters = RosterScan()

    def seal_roster(
        self, run_id: str, session: str, seats: Sequence[SeatSpec], markets: Mapping[str, Sequence[str]],
        deadline: datetime, second_wave: datetime, retry_policy: str, role: RunRole,
    ) -> BookLine:
        """The expected answers of one run, sealed before its first ask (requirement 13).

        Idempotent per run: a daemon killed between this line and the run line seals the same run
        again when it restarts, and finds its roster already here (that line is returned, nothing is
        sealed): one roster per run, whatever the number of restarts."""
        sealed = self.roster_of(run_id)
        if sealed is not None:
            return sealed
        roster = [roster_seat(s, markets, deadline) for s in seats]
        return self._seal(RosterLine(run_id=run_id, session=session, role=role, seats=roster,
                                     second_wave=iso_seconds(second_wave), retry_policy=retry_policy))

    def roster_of(self, run_id: str) -> BookLine | None:
        """The roster line sealed for ``run_id``, or ``None`` (read from the chain: the file is the truth).

        Not a verified read of the whole chain at each call (three calls a morning, each re-hashing every
        line sealed since the league began made the morning grow with the season): the file's
        raw lines are scanned once per process, from where the previous call stopped, and a roster line
        is parsed and checked (its seal, and its link from the line before it) only when found. The
        whole chain is verified where it always was: at the open and by ``league verify``."""
        return self._rosters.roster(self.path, run_id)

    def seal_ask(self, run_id: str, session: str, seat: str, attempt: int, text: str, common_sha256: str) -> BookLine:
        """Hash of the exact text this seat receives, sealed before it is sent."""
        return self._seal(AskLine(run_id=run_id, session=session, seat=seat, attempt=attempt,
                                  ask_sha256=sha256_text(text), common_sha256=common_sha256))

    def seal_asks(self, run_id: str, session: str, attempt: int, texts: Sequence[tuple[str, str]],
                  common_sha256: str) -> list[BookLine]:
        """:meth:`seal_ask` for several seats ``(seat, text)`` with one fsync (``Book.append_all``): a run's
        asks are all sealed before the first is sent, so nothing is sent between them that a shared fsync
        could get ahead of; a crash in the middle leaves a sealed prefix and nothing sent, as before."""
        lines = [AskLine(run_id=run_id, session=session, seat=seat, attempt=attempt, ask_sha256=sha256_text(text),
                         common_sha256=common_sha256) for seat, text in texts]
        return self.book.append_all([(line.kind, line.content()) for line in lines])

    def _seal(self, line: Line) -> BookLine:
        return self.book.append(line.kind, line.content())

    def close(self) -> None:
        self.book.close()


@dataclass(frozen=True)
class _Where:
    """A roster line's place in the file: its number, its bytes' offset and length, its predecessor's."""

    n: int
    start: int
    size: int
    prev_start: int
    prev_size: int


@dataclass
class RosterScan:
    """The roster lines of one ask chain by run, read incrementally (the file's raw lines once per process).

    The scan keeps where each run's first roster line is (not its bytes: a 100-seat roster is large), and
    checks a line only when it is asked for. Where the last scan stopped is kept with the file's inode; a
    file that was replaced or shortened is scanned again from its first line."""

    inode: int = -1
    offset: int = 0
    n: int = 0
    last: tuple[int, int] = (0, 0)  # offset and length of the last line scanned
    places: dict[str, _Where] = field(default_factory=dict)
    checked: dict[str, BookLine] = field(default_factory=dict)

    def roster(self, path: Path, run_id: str) -> BookLine | None:
        """The first roster line of ``run_id`` in the chain at ``path`` as it is now, checked; or ``None``."""
        self._scan(path)
        if run_id in self.checked:
            return self.checked[run_id]
        where = self.places.get(run_id)
        if where is None:
            return None
        with open(path, "rb") as fh:
            fh.seek(where.prev_start)
            before = fh.read(where.prev_size)
            fh.seek(where.start)
            body = fh.read(where.size)
        prev = str(json.loads(before)["link"]) if where.n > 1 else ""
        line = checked_line(body, where.n, prev)  # raises ChainBroken, as the full read did
        if line.kind != "roster" or line.content.get("run_id") != run_id:
            raise ChainBroken(f"line {where.n}: not the roster of {run_id}", line=where.n, reason="not a roster")
        self.checked[run_id] = line
        return line

    def _scan(self, path: Path) -> None:
        stat = os.stat(path)
        if stat.st_ino != self.inode or stat.st_size < self.offset:
            self.inode, self.offset, self.n, self.last = stat.st_ino, 0, 0, (0, 0)
            self.places, self.checked = {}, {}
        with open(path, "rb") as fh:
            fh.seek(self.offset)
            while raw := fh.readline(MAX_LINE_BYTES + 1):
                if not raw.endswith(b"\n"):  # a torn tail is not a line yet; an overlong one never is
                    if len(raw) > MAX_LINE_BYTES:
                        raise ChainBroken(f"line {self.n + 1}: {OVERLONG}", line=self.n + 1, reason=OVERLONG)
                    break
                self.n += 1
                run_id = _roster_run_id(raw)
                if run_id is not None and run_id not in self.places:
                    self.places[run_id] = _Where(self.n, self.offset, len(raw) - 1, *self.last)
                self.last = (self.offset, len(raw) - 1)
                self.offset += len(raw)


def _roster_run_id(raw: bytes) -> str | None:
    """The run id of a roster line read from its canonical bytes (sorted keys: ``run_id`` is a top-level
    key before the seats), without parsing it; ``None`` for any other line."""
    if ROSTER_MARK not in raw:
        return None
    at = raw.find(RUN_ID_MARK)
    if at < 0:
        return None
    start = at + len(RUN_ID_MARK)
    end = raw.find(b'"', start)
    return raw[start:end].decode("utf-8", "replace") if end > start else None


def roster_seat(spec: SeatSpec, markets: Mapping[str, Sequence[str]], deadline: datetime) -> RosterSeat:
    """One seat's entry in a run's roster line (what is expected of it)."""
    return RosterSeat(seat=spec.name, adapter=spec.adapter, model=spec.model, effort=spec.effort,
                      markets=sorted(markets), horizons={m: list(h) for m, h in sorted(markets.items())},
                      deadline=iso_seconds(deadline), timeout_s=spec.timeout_s, **_lab(spec))


def unsealable(specs: Sequence[SeatSpec], markets: Mapping[str, Sequence[str]], deadline: datetime) -> dict[str, str]:
    """The seats whose roster entry cannot be sealed, with why (a value JSON cannot carry: an infinite
    timeout, a lone surrogate in a name). The roster loader refuses such values; this is the last guard,
    so that one seat's value that slipped through costs that seat its run and never every other seat's."""
    problems: dict[str, str] = {}
    for spec in specs:
        try:
            entry = roster_seat(spec, markets, deadline).dumped()
        except ValueError as exc:  # the line model refuses a value (a ValidationError is a ValueError)
            problems[spec.name] = f"its roster entry cannot be built: {str(exc)[:300]}"
            continue
        bad = [key for key, value in entry.items() if _unsealable_value(value)]
        if bad:
            values = ", ".join(f"{k} = {entry[k]!r:.80}" for k in bad)
            problems[spec.name] = f"its roster entry cannot be sealed: {values}"
    return problems


def _unsealable_value(value: object) -> bool:
    try:
        sealable({"value": value})
    except InvalidRecord:
        return True
    return False


def _lab(seat: SeatSpec) -> dict[str, str]:
    """The seat's family and side when the roster names them (unset keys stay out of the line)."""
    return {k: v for k, v in (("family", seat.family), ("side", seat.side)) if v}


def publish_ask_text(asks_dir: Path, text: str) -> str:
    """Write the common ask text under its hash (idempotent) and return the hash."""
    digest = sha256_text(text)
    asks_dir.mkdir(parents=True, exist_ok=True)
    target = asks_dir / f"{digest}.md"
    if not target.exists():
        tmp = target.with_suffix(".md.tmp")
        tmp.write_bytes(text.encode("utf-8"))
        tmp.replace(target)
    return digest


@dataclass(frozen=True)
class MarketLine:
    code: str
    name: str
    horizons: tuple[str, ...]
    reference: str
    snapshot: Mapping[str, object]


def common_text(session: str, run_id: str, markets: Sequence[MarketLine], snapshot_sha256: str,
                crowd: Sequence[Mapping[str, object]]) -> str:
    """The text every seat receives (before its own account block). Our own wording."""
    parts = _opening(session, run_id, _NO_CROWD, markets, snapshot_sha256)
    parts += ["", "## The events", ""]
    parts += [f"- {m.code} ({m.name}): {m.reference}; horizons {', '.join(m.horizons)}" for m in markets]
    if crowd:
        parts += ["", "## Crowd contracts (state `crowd_up`, your probability the contract resolves up)", ""]
        parts += [f"- {c.get('market')}: {c.get('question')} — rules: {c.get('rules', '')}" for c in crowd]
    parts += ["", "## Answer format", "", _FORMAT_TEXT.strip(), ""]
    return "\n".join(parts)


_NO_CROWD = "Do NOT look up or use prediction-market odds (Polymarket, Kalshi or similar) for these questions."
#: What each arm tells the seat about where its information may come from (docs/experiments.md).
ARM_RULES = {
    "closed_book": "This is a CLOSED-BOOK ask. Answer from the market snapshot and the sealed headlines below "
                   "ONLY. Do NOT search the web, fetch pages or use any tool. Cite only links from the headlines.",
    "price_only": "This is a PRICE-ONLY ask. Answer from the market snapshot below ONLY: no news, no search, no "
                  "tool. Leave source_urls and source_domains empty.",
    "evening": "This is an EVENING reference ask, made after the close about the session named above; it is never "
               "counted, and each answer is scored from the first price at or after it is sealed. " + _NO_CROWD,
    "weekend_btc": "This is a WEEKEND reference ask about bitcoin for the session named above; it is never counted, "
                   "and each answer is scored from the first price at or after it is sealed. " + _NO_CROWD,
    "sunday_radar": "This is the SUNDAY RADAR ask about the coming session named above; it is never counted, and "
                    "each answer is scored from the first price at or after it is sealed. " + _NO_CROWD,
}


def arm_text(session: str, run_id: str, markets: Sequence[MarketLine], snapshot_sha256: str, *, arm: str,
             packet_sha256: str | None = None, headlines: str = "") -> str:
    """The text of a closed-book or price-only ask: the counted run's question and snapshot, no crowd price,
    the arm's rule and (closed book) the sealed packet's headlines. Our own wording."""
    parts = _opening(session, run_id, ARM_RULES[arm], markets, snapshot_sha256)
    if arm == "closed_book":
        parts += ["", f"## Headlines (sealed packet sha256 {packet_sha256})", "", headlines.rstrip("\n")]
    parts += ["", "## The events", ""]
    parts += [f"- {m.code} ({m.name}): {m.reference}; horizons {', '.join(m.horizons)}" for m in markets]
    parts += ["", "## Answer format", "", _FORMAT_TEXT.strip(), ""]
    return "\n".join(parts)


def _opening(session: str, run_id: str, rule: str, markets: Sequence[MarketLine], snapshot_sha256: str) -> list[str]:
    """The ask's title, the council's sentence, the ask's rule and the snapshot table (every variant's start)."""
    parts = [
        f"# Forecasting league — session {session} (run {run_id}, format {ASK_FORMAT_VERSION})",
        "",
        "You are one seat of a council of forecasters. Your answer is sealed in a public hash chain the moment "
        "it arrives and is scored later against prices taken after the seal. Give your own judgement.",
        "",
        rule,
        "",
        f"## Market snapshot (sha256 {snapshot_sha256})",
        "",
        "| code | indicator | last | read at (UTC) | 1-day % | 5-day % | 21-day % | 52-week range | pre-market % |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    return parts + [_snapshot_row(m) for m in markets]


def _fmt(value: object, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}" if isinstance(value, int | float) else str(value)


def _snapshot_row(m: MarketLine) -> str:
    s = m.snapshot
    if s.get("status") == "unavailable":
        return f"| {m.code} | {m.name} | unavailable ({s.get('error', '')}) | | | | | | |"
    rng = f"{_fmt(s.get('low_52w'))}–{_fmt(s.get('high_52w'))}"
    return (f"| {m.code} | {m.name} | {_fmt(s.get('price'), 4)} | {s.get('price_at') or 'n/a'} | "
            f"{_fmt(s.get('change_1d_pct'))} | {_fmt(s.get('change_5d_pct'))} | {_fmt(s.get('change_21d_pct'))} | "
            f"{rng} | {_fmt(s.get('premarket_change_pct'))} |")


_FORMAT_TEXT = """
End your reply with ONE JSON object (you may put it in a ```json fence) of this shape, with every market
code and every horizon listed above:

{"forecast": {"SPX": {"1d": {"prob_up": 57, "action": "hold", "entry": null, "target": 6012.5,
  "invalidation": 5950.0, "risk": "one line", "revise_if": "one line", "crowd_up": null,
  "source_urls": [], "source_domains": []}, "1w": {...}, "1m": {...}, "6m": {...},
  "years": "one sentence about the year"}, "NDX": {...}}}

- prob_up: 0-100, your probability that the indicator ends the horizon STRICTLY above its reference price
  (for the yield: the yield rising; for VIX: volatility rising). 50 means you have no view.
- action: one of buy_strong, buy_dips, hold, trim, sell. buy_dips needs entry, a level below the reference.
- target: the price you expect; invalidation: the level at which you would be wrong.
"""


def account_block(seat: str, account: Mapping[str, object] | None) -> str:
    """The per-seat part of the ask: that seat's own paper account, and nothing of anyone else's."""
    if not account:
        return f"\n## Your paper account ({seat})\n\nNo positions yet: $100,000 in cash.\n"
    return f"\n## Your paper account ({seat})\n\n```json\n{indented_json(account)}\n```\n"


def indented_json(value: object) -> str:
    """``json.dumps(value, sort_keys=True, indent=1)``, character for character, about twice as fast.

    With ``indent`` set the standard library encodes in pure Python, through one generator per container
    and a check per value; here strings go to the C string encoder and numbers to their ``repr`` (what
    json.dumps writes), the layout in plain string joins. Anything else (a key that is not a string, a
    subclass or another type, NaN and the infinities) goes to ``json.dumps`` as a whole."""
    try:
        return _indented(value, "\n")
    except _Fallback:
        return json.dumps(value, sort_keys=True, indent=1)


class _Fallback(Exception):
    """A value :func:`indented_json` leaves to ``json.dumps``."""


def _indented(value: Any, newline: str) -> str:
    kind = type(value)
    if kind is str:
        return _STRING(value)
    if kind is dict:
        if not value:
            return "{}"
        inner = newline + " "
        if not all(type(k) is str for k in value):
            raise _Fallback
        items = [f"{_STRING(k)}: {_indented(value[k], inner)}" for k in sorted(value)]
        return "{" + inner + ("," + inner).join(items) + newline + "}"
    if kind is list or kind is tuple:
        if not value:
            return "[]"
        inner = newline + " "
        return "[" + inner + ("," + inner).join([_indented(v, inner) for v in value]) + newline + "]"
    if kind is float:
        if value != value or value in _INFINITE:
            raise _Fallback
        return float.__repr__(value)
    if kind is int:
        return int.__repr__(value)
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    raise _Fallback  # subclasses and other types: json.dumps' own rules


#: The C encoder of one string, with json.dumps' default ``ensure_ascii``.
_STRING = json.encoder.encode_basestring_ascii  # type: ignore[attr-defined]
_INFINITE = (float("inf"), float("-inf"))
