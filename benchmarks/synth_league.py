"""A synthetic council league of any length and width, written through the real writer.

Why: the growth benchmarks (benchmarks/growth_bench.py) need leagues of years × dozens of seats, and
running years of demo is out of reach (126 sessions of 15 seats take minutes). This writes the same
data folder ``league init --demo`` starts (config/, data/books/, the database) and then, per session,
the lines the daemon seals that day, in its order and shapes, each built as its typed model
(league/book/lines.py, validated on construction) and sealed by :class:`league.book.Book` (the council
book) and :class:`league.asks.AskChain` (the ask chain), each with the simulated time the daemon would
have sealed it at:

* 08:30 ET the counted run: the roster and one ask per seat in asks.jsonl (the real ask text, published
  under DATA/asks), the run line with the session's real event contracts and a seeded crowd (the demo's
  ``SyntheticCrowd``), then one reply line per seat at its arrival: the answer of a deterministic
  scripted seat (league_agents.scripted_child run in-process, parsed by the real parser; its raw reply
  kept under DATA/replies), a ``refused_shape`` answer for the malformed seats, a silence for the silent;
* 09:00 the second wave for the silent seats (roster, asks, run line ``-r2``, their replies);
* 09:30 ``ingest_close``; 16:05 the ``score`` line (rows by the real counting rule,
  :func:`league.counting.session_rows`; events resolved on a seeded price path instead of minute bars),
  the ``score_h`` lines whose windows close that day (:func:`league.jobs.score.end_groups`), the ``crowd``
  resolutions with each seat's answer-minute price, and the two paper leagues' ``rules`` (once),
  ``decision``/``rejection``/``trade``/``mark`` lines from the real portfolio engine
  (:class:`league.portfolio.season.Season`) fed with the counted decisions and a seeded bar source.

Not written: stamps (DATA/stamps; no book line), the shadow-weights line, preflight lines (the demo
configuration runs no self-check), price caches. The database index is filled while the lines are
sealed, through the store's own path (:class:`BookFeed`: ``Store.index_lines``, what
:func:`league.store.index_book` uses for the daemon and ``league rebuild``, given the sealed lines instead
of reading them back), and the job ledger marks every day job of every session done, as a daemon that ran
them would have left it.

Seats: ``seat-000``… scripted seats (one in 14 malformed, one silent, one silent until the second
wave), deterministic by seed. :class:`InProcessSeat` is the same seat answering in-process, the stand-in
the benchmarks pass to ``build_league(seats=...)`` for a morning's jobs.

Usage::

    python benchmarks/synth_league.py --out /tmp/league-1y14 --years 1 --seats 14
    python benchmarks/synth_league.py --out DIR --sessions 20 --seats 5 [--seed 7] [--start 2026-01-05]
    python benchmarks/synth_league.py --cache /var/tmp/synth --years 5 --seats 100   # DIR keyed by size+seed
    python benchmarks/synth_league.py --cache /var/tmp/synth --years 1 --seats 14 --anchor   # + the bare seal loop

``--scratch /dev/shm`` writes the folder on a RAM disk first (the book's per-line fsync is then nearly
free; Book offers no switch to skip it) and moves it to --cache afterwards; the database index is written
beside the cache meanwhile and moved in with it (it is ~1.8x the book: it stays off the RAM disk).
Prints lines per second of each book; ``league verify``, ``league status``, ``league stats`` and
``league publish`` run on the result.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import random
import shutil
import signal
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from datetime import time as dtime
from decimal import Decimal
from pathlib import Path
from typing import Any

from league import records
from league.answers import parse_reply
from league.asks import AskChain, MarketLine, account_block, common_text, publish_ask_text
from league.book import Book, BookLine
from league.book.index import BookIndex
from league.book.lines import (
    AnswerLine,
    IngestCloseLine,
    Line,
    RulesLine,
    RunLine,
    ScoreLine,
    SilenceLine,
    typed_line,
)
from league.calendar import ET, Calendar, default_calendar, et_time
from league.clock import SimulatedClock, iso_seconds
from league.config import Config, load_config
from league.contracts import CONTRACT_KEYS, EventContract
from league.counting import COUNTED, LONG_HORIZONS, Event, run_events, session_rows
from league.crowd.compare import sealed_quotes
from league.crowd.interface import CrowdQuote
from league.crowd.recorded import SyntheticCrowd
from league.folder import init_folder
from league.jobs.ask import SHOWN, markets_asked
from league.jobs.books import open_books
from league.jobs.crowd import at_answer
from league.jobs.scheduler import DAY_JOBS
from league.jobs.score import end_groups, noise_rolls
from league.jobs.seal import RAW_UTF8, raw_bytes
from league.portfolio.bills import BillRates
from league.portfolio.decisions import decision_from_reply
from league.portfolio.interface import Bar
from league.portfolio.rules import rule_set
from league.portfolio.seal import rules_content, session_lines
from league.portfolio.season import Season
from league.prices.reference import PricePoint, resolve
from league.store import SqlStore, Store, index_book, open_store
from league.store.sql import ANALYZE_AFTER
from league_agents import scripted_child
from league_agents.base import Ask, Seat, SeatReply, SeatSpec
from league_agents.scripted import ScriptedSeat

DEFAULT_START = date(2026, 1, 5)  # after the shipped climatology window (2016-2025)
SESSIONS_PER_YEAR = 252
RULE_SETS = ("arena-3", "pro-1")
#: One seat in every 14: its mode (the rest answer normally), so the book holds the hard counting cases.
MODES = {11: "second_wave", 12: "malformed", 13: "silent"}


# ------------------------------------------------------------------------------------ sizes
@dataclass(frozen=True)
class Size:
    """A synthetic league's length, width and seed: the cache key of a generated folder."""

    sessions: int
    seats: int
    seed: int = 7

    @classmethod
    def of(cls, *, years: float | None = None, sessions: int | None = None, seats: int = 14, seed: int = 7) -> Size:
        if sessions is None:
            sessions = round((years or 1) * SESSIONS_PER_YEAR)
        if sessions < 1 or seats < 1:
            raise ValueError("a synthetic league needs at least one session and one seat")
        return cls(sessions, seats, seed)

    @property
    def key(self) -> str:
        return f"s{self.sessions}-w{self.seats}-seed{self.seed}"

    @property
    def label(self) -> str:
        years = self.sessions / SESSIONS_PER_YEAR
        span = f"{years:g}y" if self.sessions % SESSIONS_PER_YEAR == 0 else f"{self.sessions} sessions"
        return f"{span} × {self.seats} seats"


# ------------------------------------------------------------------------------------ seats
def roster_toml(seats: int, seed: int) -> str:
    """A roster of scripted seats, deterministic by seed (the demo roster's shape, any width)."""
    head = [
        "# A synthetic league's roster (benchmarks/synth_league.py): scripted seats, deterministic by seed.",
        'counting_rule = "The scheduled 08:30 ET morning run counts for its session; every other run is a '
        'reference computation."',
        'deadline = "09:30"', 'second_wave = "09:00"',
        'retry_policy = "one re-ask at the second wave for a silent seat; never a silent re-ask"', "",
    ]
    out = head
    for i in range(seats):
        mode = MODES.get(i % 14, "normal")
        latency = 20 + (i * 37) % 900
        skill = round(0.05 + (i * 7 % 30) / 100, 2)
        out += ["[[seat]]", f'name = "seat-{i:03d}"', f'side = "{"us" if i % 2 == 0 else "cn"}"',
                'adapter = "scripted"', f'model = "scripted-{i:03d}-1"', f'family = "lab-{i % 7}"',
                'effort = "high"', "timeout_s = 60",
                f'options = {{ seed = {seed * 1000 + i}, skill = {skill}, latency_s = {latency}, mode = "{mode}" }}',
                ""]
    return "\n".join(out)


class InProcessSeat(ScriptedSeat):
    """A scripted seat answering in this process (no sandbox, no child): the same reply text the
    sandboxed child would print, so a benchmark measures the league, not bubblewrap."""

    sandboxed = False

    def ask(self, ask: Ask, now: Callable[[], datetime]) -> SeatReply:
        started = now()
        finished = started + timedelta(seconds=self.latency_s)
        return self._reply(started, finished, scripted_text(self.request(ask)), None, "")


def scripted_text(req: Mapping[str, Any]) -> str:
    """What league_agents/scripted_child.py prints for one request (its own functions, in-process)."""
    mode = req.get("mode", "normal")
    if mode == "silent":
        return ""
    if mode == "malformed":
        return 'I think markets will mostly rise.\n{"forecast": {"SPX": {"1d": {"prob_up": 6'
    forecast = scripted_child.answer(dict(req))
    reply: dict[str, Any] = {"forecast": forecast}
    targets = scripted_child.pro_targets(forecast)
    if targets:
        reply["targets"] = targets
    body = json.dumps(reply, indent=1, sort_keys=True)
    return f"Scripted seat {req['seat']}, session {req['session']}.\n\n```json\n{body}\n```\n"


def stand_in_seats(config: Config) -> dict[str, Seat]:
    """One in-process scripted seat per roster entry (the benchmarks' deterministic stand-ins)."""
    return {s.name: InProcessSeat(s) for s in config.roster.seat}


# ------------------------------------------------------------------------------------ prices
class SeededPrices:
    """Seeded daily levels per symbol (a log random walk over the league's sessions) and a few bars a
    session: enough to resolve events and to fill the portfolio engine's orders, without minute bars."""

    def __init__(self, seed: int, days: Sequence[date]) -> None:
        self.seed = seed
        self.pos = {d: i for i, d in enumerate(days)}
        self.paths: dict[str, list[float]] = {}
        self.count = len(days)

    def level(self, symbol: str, day: date) -> float:
        path = self.paths.get(symbol)
        if path is None:
            rng = random.Random(f"{self.seed}|{symbol}")
            price, path = 20.0 + 180.0 * rng.random(), []
            for _ in range(self.count + 2):
                path.append(round(price, 4))
                price *= 1.0 + rng.gauss(0.0002, 0.012)
            self.paths[symbol] = path
        return path[min(self.pos.get(day, self.count), self.count + 1)]

    def close(self, symbol: str, day: date) -> float:
        return self.level(symbol, day) * self._drift(symbol, day)

    def _drift(self, symbol: str, day: date) -> float:
        return 1.0 + random.Random(f"{self.seed}|{symbol}|{day}").gauss(0.0, 0.01)


class SeededBars:
    """The portfolio engine's ``BarSource``: 15-minute bars from the open to the close of a session."""

    def __init__(self, prices: SeededPrices, calendar: Calendar) -> None:
        self.prices = prices
        self.calendar = calendar
        self.cache: dict[tuple[str, date], list[Bar]] = {}

    def bars(self, symbol: str, session: date) -> Sequence[Bar]:
        key = (symbol, session)
        if key not in self.cache:
            if len(self.cache) > 4096:
                self.cache.clear()
            self.cache[key] = self._make(symbol, session)
        return self.cache[key]

    def _make(self, symbol: str, session: date) -> list[Bar]:
        start, end = self.calendar.session_open(session), self.calendar.session_close(session)
        first, last = self.prices.level(symbol, session), self.prices.close(symbol, session)
        steps = max(1, int((end - start).total_seconds() // 900))
        out = []
        for k in range(steps + 1):
            t = min(start + timedelta(minutes=15 * k), end - timedelta(minutes=1))
            p = first + (last - first) * k / steps
            out.append(Bar(t, p, p * 1.001, p * 0.999, p))
        return out


# ------------------------------------------------------------------------------------ the ask chain
class NewRunsAskChain(AskChain):
    """The ask chain's real writer, answering ``roster_of`` from the rosters this process sealed.

    Why: ``seal_roster`` first looks for the run's roster by reading the whole chain (so a daemon
    restarted mid-run does not seal a second one). This generator is the only writer of a chain it
    created, so its own record gives the same answer; the read, done for every run, made the generator
    quadratic in the chain's length (at 5 years × 100 seats, ~136 000 lines parsed twice a session).
    Only the current session's rosters are kept."""

    def __init__(self, path: Path, clock: SimulatedClock, counting_rule: str,
                 feed: BookFeed | None = None) -> None:
        super().__init__(path, clock, counting_rule)
        self.rosters: dict[str, BookLine] = {}
        self.feed = feed

    def roster_of(self, run_id: str) -> BookLine | None:
        return self.rosters.get(run_id)

    def seal_roster(self, run_id: str, session: str, *args: Any, **kwargs: Any) -> BookLine:
        line = super().seal_roster(run_id, session, *args, **kwargs)
        self.rosters = {r: ln for r, ln in self.rosters.items() if ln.content.get("session") == session}
        self.rosters[run_id] = line
        if self.feed is not None:
            self.feed.add("asks", line)
        return line

    def seal_ask(self, run_id: str, session: str, seat: str, attempt: int, text: str, common_sha256: str) -> BookLine:
        line = super().seal_ask(run_id, session, seat, attempt, text, common_sha256)
        if self.feed is not None:
            self.feed.add("asks", line)
        return line


# ------------------------------------------------------------------------------------ the index
class BookFeed:
    """The database index filled while the league is written: the lines just sealed are handed to the
    store's public indexing path (``Store.index_lines``, the one ``index_book`` uses) a few thousand at a
    time, instead of reading and re-verifying the whole book from the file once it is written.

    Why: the index after the fact re-read, re-parsed and re-checked every line the generator had just
    built and sealed (832 s at 5 years × 100 seats). A batch is indexed only where the index ends at the
    line before it (number and link); otherwise (the lines sealed before the feed, a gap) the file itself
    is indexed by :func:`league.store.index_book`, from where the index ends. The batches stay below the
    store's ``ANALYZE_AFTER``; the planner's statistics are refreshed once at the end, as one
    ``index_book`` of the whole book does (when a book has ``ANALYZE_AFTER`` lines or more). The rows are
    those of ``index_book`` (tests compare the two)."""

    BATCH = 4000

    def __init__(self, store: Store, books: Path) -> None:
        self.store = store
        self.paths = {"council-book": books / "council-book.jsonl", "asks": books / "asks.jsonl"}
        self.pending: dict[str, list[BookLine]] = {name: [] for name in self.paths}
        self.count = 0

    def add(self, name: str, line: BookLine) -> None:
        self.pending[name].append(line)
        self.count += 1

    def flush(self, *, at_least: int = 0) -> None:
        """Index what is pending (when at least ``at_least`` lines are)."""
        if self.count < max(at_least, 1):
            return
        for name, lines in self.pending.items():
            if not lines:
                continue
            last_n, last_link = self.store.last_indexed(name)
            if (lines[0].n, lines[0].prev) == (last_n + 1, last_link):
                self.store.index_lines(name, lines)
            else:
                index_book(self.store, self.paths[name], name)
            self.pending[name] = []
        self.count = 0

    def finish(self) -> None:
        """The rest, both books up to their last line, and the planner's statistics."""
        self.flush()
        for name, path in self.paths.items():
            index_book(self.store, path, name)  # reads nothing when the index ends at the file's last line
        if isinstance(self.store, SqlStore) and any(self.store.last_indexed(n)[0] >= ANALYZE_AFTER for n in self.paths):
            self.store.analyze()  # as the one index_lines call of index_book over a book this long does


# ------------------------------------------------------------------------------------ contract memo
class ContractMemo:
    """While generating, :class:`EventContract`'s ids, ``as_dict`` and ``from_mapping`` answer from a
    memo instead of recomputing them for every seat.

    Why: the counting rule (``session_rows``) places every seat's cell on the run's common event, so at
    100 seats it re-reads the same dozen contracts from the run line and re-hashes them (``asdict``, a
    canonical dump and a sha256) about 8 000 times a session: a third of the generator's CPU. All four
    are pure functions of a frozen value, so the memo answers the same strings (the books are byte for
    byte the ones written without it; docs/costs.md, "Generating a league"). The library's code is untouched: the
    class is patched only inside ``with ContractMemo()`` in this process, and put back on exit, so the
    benchmarks that measure the league (growth_bench's children) never see it. ``clear()`` after each
    session keeps the memo to one session's contracts.
    """

    NAMES = ("event_id", "event_id_v2", "as_dict", "from_mapping")

    def __init__(self) -> None:
        self.saved: dict[str, Any] = {}
        self.ids: dict[tuple[str, EventContract], str] = {}
        self.dicts: dict[EventContract, dict[str, str]] = {}
        self.read: dict[tuple[Any, ...], EventContract] = {}

    def __enter__(self) -> ContractMemo:
        self.saved = {name: EventContract.__dict__[name] for name in self.NAMES}
        plain_v1, plain_v2 = self.saved["event_id"].fget, self.saved["event_id_v2"].fget
        plain_dict, plain_read = self.saved["as_dict"], self.saved["from_mapping"].__func__
        ids, dicts, read = self.ids, self.dicts, self.read

        def memo_id(plain: Callable[[EventContract], str], tag: str) -> property:
            def get(contract: EventContract) -> str:
                key = (tag, contract)
                if key not in ids:
                    ids[key] = plain(contract)
                return ids[key]
            return property(get)

        def as_dict(contract: EventContract) -> dict[str, str]:
            if contract not in dicts:
                dicts[contract] = plain_dict(contract)
            return dict(dicts[contract])  # a fresh dict each time, as asdict gives

        def from_mapping(cls: type[EventContract], obj: Mapping[str, Any]) -> EventContract:
            key = tuple(obj.get(k) for k in CONTRACT_KEYS)
            if not all(isinstance(v, str) for v in key):  # a bad mapping: the real reader and its errors
                return plain_read(cls, obj)  # type: ignore[no-any-return]
            if key not in read:
                read[key] = plain_read(cls, obj)
            return read[key]

        memos = {"event_id": memo_id(plain_v1, "v1"), "event_id_v2": memo_id(plain_v2, "v2"), "as_dict": as_dict,
                 "from_mapping": classmethod(from_mapping)}
        for name, value in memos.items():
            setattr(EventContract, name, value)
        return self

    def clear(self) -> None:
        self.ids.clear()
        self.dicts.clear()
        self.read.clear()

    def __exit__(self, *exc: object) -> None:
        for name, value in self.saved.items():
            setattr(EventContract, name, value)
        self.clear()


# ------------------------------------------------------------------------------------ the view
@dataclass
class SessionView:
    """What the real read-side functions need (``Sealed`` + crowd): the config, the calendar, and an
    index of the lines of ONE session only, so the generator's memory does not grow with the book."""

    config: Config
    calendar: Calendar
    crowd: SyntheticCrowd
    index: BookIndex = field(default_factory=BookIndex)


@dataclass
class Writer:
    """The open books, the clock they seal at, and the state carried from session to session."""

    config: Config
    clock: SimulatedClock
    book: Book
    asks: AskChain
    calendar: Calendar
    prices: SeededPrices
    crowd: SyntheticCrowd
    seasons: dict[str, Season]
    due: dict[date, list[tuple[str, str, list[dict[str, Any]], list[dict[str, Any]]]]] = field(default_factory=dict)
    marks: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    view: SessionView | None = None
    rules_sealed: bool = False
    feed: BookFeed | None = None

    def seal(self, line: Line, at: datetime) -> BookLine:
        """One typed line into the council book at ``at`` (never before the book's last line)."""
        self.clock.set(max(at, self.clock.now()))
        sealed = self.book.append(line.kind, line.content(), at=self.clock.now())
        if self.view is not None:
            self.view.index.add(sealed)
        if self.feed is not None:
            self.feed.add("council-book", sealed)
        return sealed


# ------------------------------------------------------------------------------------ a session
def write_session(w: Writer, day: date, data_dir: Path) -> None:
    """Every line the daemon seals for one session, in its order (see the module docstring)."""
    w.view = SessionView(w.config, w.calendar, w.crowd)
    session = day.isoformat()
    specs = list(w.config.roster.seat)
    crowd = [q.as_json() for q in w.crowd.quotes(day, w.config.markets.codes, et_time(day, dtime(8, 25)))]
    snap_sha, rows = _snapshot(w, day, data_dir, crowd)
    raws: dict[int, str] = {}
    first = _run(w, day, "r1", specs, 1, None, snap_sha, rows, crowd, data_dir, raws)
    silent = [s for s in specs if first.get(s.name) == "silence"]
    if silent:
        _run(w, day, "r2", silent, 2, f"{session}-r1", snap_sha, rows, crowd, data_dir, raws)
    close_at = et_time(day, dtime(9, 30))
    runs = sorted(r.run_id for r in w.view.index.runs(session))
    inside = [a.n for a in w.view.index.answers(set(runs))]
    w.seal(IngestCloseLine(session=session, closed_at=iso_seconds(close_at), counted_runs=runs,
                           answer_lines=inside, book_lines=w.book.lines), close_at)
    rows_1d = _score(w, day)
    _crowd(w, day)
    _portfolio(w, day, raws, rows_1d)


def _snapshot(w: Writer, day: date, data_dir: Path, crowd: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """A seeded snapshot file (DATA/snapshots/<session>.json, the job's record shape) and its rows."""
    import hashlib

    taken = et_time(day, dtime(8, 25))
    prev = w.calendar.previous_session(day)
    markets: list[dict[str, Any]] = []
    for m in w.config.markets.markets:
        price, before = w.prices.level(m.symbol, day), w.prices.close(m.symbol, prev)
        markets.append({"code": m.code, "symbol": m.symbol, "status": "previous_session", "price": round(price, 4),
                        "price_at": iso_seconds(w.calendar.session_close(prev)), "previous_close": round(before, 4),
                        "change_1d_pct": round((price / before - 1) * 100, 4)})
    body = {"taken_at": iso_seconds(taken), "session": day.isoformat(), "provider": "synthetic", "markets": markets}
    sha = hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    path = data_dir / "snapshots" / f"{day.isoformat()}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"session": day.isoformat(), "sha256": sha, "snapshot": body, "crowd": crowd},
                               sort_keys=True), encoding="utf-8")
    return sha, {r["code"]: r for r in markets}


def _run(w: Writer, day: date, tag: str, specs: Sequence[SeatSpec], attempt: int, parent: str | None,
         snap_sha: str, rows: Mapping[str, Any], crowd: list[dict[str, Any]], data_dir: Path,
         raws: dict[int, str]) -> dict[str, str]:
    """One run (roster, run line, asks, replies); returns each seat's reply kind."""
    session, run_id = day.isoformat(), f"{day.isoformat()}-{tag}"
    asked_at = et_time(day, dtime(8, 30) if attempt == 1 else dtime(9, 0))
    w.clock.set(max(asked_at, w.clock.now()))
    lines = [MarketLine(m.code, m.name, tuple(m.horizons), f"reference = first 1-minute bar at/after 09:30 ET on "
                        f"{session}", rows.get(m.code, {})) for m in w.config.markets.markets]
    text = common_text(session, run_id, lines, snap_sha, crowd)
    common_sha = publish_ask_text(data_dir / "asks", text)
    asked = markets_asked(w.view)  # type: ignore[arg-type]
    deadline, second = et_time(day, dtime(9, 30)), et_time(day, dtime(9, 0))
    w.asks.seal_roster(run_id, session, specs, asked, deadline, second, w.config.roster.retry_policy, COUNTED)
    w.seal(RunLine.from_content({
        "run_id": run_id, "session": session, "role": COUNTED, "attempt": attempt, "parent_run": parent,
        "ask_sha256": common_sha, "snapshot_sha256": snap_sha, "roster": [s.name for s in specs],
        "methodology": w.config.settings.methodology.as_json(), "crowd": crowd,
        "events": run_events(w.view, session), "deadline": iso_seconds(deadline)}), asked_at)  # type: ignore[arg-type]
    context = {"markets": {m.code: {"horizons": list(m.horizons), "price": rows.get(m.code, {}).get("price"),
                                    "crowd": any(q.get("market") == m.code for q in crowd)}
                           for m in w.config.markets.markets}}
    replies = []
    for spec in specs:
        seat_text = text + account_block(spec.name, _accounts(w, spec.name))
        line = w.asks.seal_ask(run_id, session, spec.name, attempt, seat_text, common_sha)
        seat = InProcessSeat(spec)
        reply = seat.ask(Ask(text=seat_text, sha256=str(line.content["ask_sha256"]), session=session,
                             attempt=attempt, context=context), lambda: asked_at)
        replies.append((reply, str(line.content["ask_sha256"])))
    kinds: dict[str, str] = {}
    for reply, seat_sha in sorted(replies, key=lambda r: (r[0].finished_at, r[0].seat)):
        kinds[reply.seat] = _reply_line(w, run_id, session, attempt, reply, common_sha, seat_sha, asked, data_dir,
                                        raws)
    return kinds


def _accounts(w: Writer, seat: str) -> dict[str, Any] | None:
    """The seat's own paper accounts as its ask shows them (league.jobs.ask.seat_accounts's rule)."""
    latest = {league: m for (account, league), m in w.marks.items() if account == seat}
    if not latest:
        return None
    return {league: {"as_of" if k == "session" else k: m.get(k) for k in SHOWN if k in m}
            for league, m in sorted(latest.items())}


def _reply_line(w: Writer, run_id: str, session: str, attempt: int, reply: SeatReply, common_sha: str,
                seat_sha: str, asked: Mapping[str, Sequence[str]], data_dir: Path, raws: dict[int, str]) -> str:
    """Seal one reply as the seal job does (league.jobs.seal.seal_reply): an answer or a silence."""
    booked = iso_seconds(reply.finished_at)
    if not reply.raw:
        w.seal(SilenceLine(run_id=run_id, session=session, seat=reply.seat, attempt=attempt, failure="no_reply",
                           detail="no output", booked_at=booked), reply.finished_at)
        return "silence"
    data, encoding = raw_bytes(reply.raw)
    import hashlib

    own = hashlib.sha256(data).hexdigest()
    path = data_dir / "replies" / f"{own}.txt"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    parsed = parse_reply(reply.raw, asked)
    content: dict[str, Any] = {
        "run_id": run_id, "session": session, "seat": reply.seat, "attempt": attempt, "model": reply.model,
        "version": reply.version, "mode": reply.mode, "status": "answered" if parsed.ok else "refused_shape",
        "parse_failure": parsed.failure, "parse_notes": list(parsed.notes), "items": parsed.items_json(),
        "years": parsed.years, "own_sha256": own, "ask_sha256": common_sha, "seat_ask_sha256": seat_sha,
        "booked_at": booked, "started_at": iso_seconds(reply.started_at), "usage": dict(reply.usage),
        "elapsed_s": round((reply.finished_at - reply.started_at).total_seconds(), 3),
    }
    if encoding != RAW_UTF8:
        content["raw_encoding"] = encoding
    sealed = w.seal(AnswerLine.from_content(content), reply.finished_at)
    raws[sealed.n] = reply.raw
    return "answer"


# ------------------------------------------------------------------------------------ the close
def _resolve(w: Writer, ev: Event) -> None:
    """An event resolved on the seeded path: the reference day's level against the end day's close."""
    from league.clock import parse_iso

    c = ev.contract
    ref_at, end_at = parse_iso(c.reference_at), parse_iso(c.end_at)
    ref_day = w.calendar.session_on_or_after(ref_at.astimezone(ET).date())
    end_day = w.calendar.session_on_or_before(end_at.astimezone(ET).date())
    band = round(0.02 + random.Random(f"{w.prices.seed}|band|{ev.market}").random() * 0.1, 6)
    ref = PricePoint(w.prices.level(c.price_symbol, ref_day), ref_at, "close" if ev.seal_based else "open")
    end = PricePoint(w.prices.close(c.price_symbol, end_day), end_at - timedelta(minutes=1), "close")
    res = resolve(ref, end, band)
    ev.result = {"reference": round(ref.price, 4), "reference_bar": iso_seconds(ref.bar_start),
                 "close": round(end.price, 4), "close_bar": iso_seconds(end.bar_start), "change_pct": res.change_pct,
                 "up": res.up, "draw": res.draw, "band_pct": band, "status": "resolved"}


def _score_content(w: Writer, session: str, horizon: str, rows: list[dict[str, Any]],
                   events: Mapping[str, Event], runs: list[str]) -> ScoreLine:
    """The score line of league.jobs.score.score_line, from the counting rule's rows and resolved events."""
    for ev in events.values():
        _resolve(w, ev)
    for row in rows:
        found = events.get(row.get("event_id_v2", ""))
        up = found.result.get("up") if found else None
        row["outcome"] = None if up is None else int(up)
        p = row.get("prob_up")
        row["brier"] = (float(p) / 100.0 - int(up)) ** 2 if row["status"] == "counted" and p is not None \
            and up is not None else None
    rolled = noise_rolls(w.view, events.values())  # type: ignore[arg-type]
    return ScoreLine.from_content({
        "kind": "score" if horizon == "1d" else "score_h", "session": session, "horizon": horizon, "runs": runs,
        "markets": [ev.as_json() for ev in events.values()], "seats": rows,
        "of": sorted({r["line"] for r in rows if r.get("line")}),
        "noise": {ev.market: ev.result.get("band_pct") for ev in events.values() if not ev.late_ref},
        **({"noise_rolls": rolled} if rolled else {}), "price_errors": []})


def _score(w: Writer, day: date) -> list[dict[str, Any]]:
    """16:05 ET: the day's score, then every longer window closing today (oldest first)."""
    assert w.view is not None
    session, at = day.isoformat(), et_time(day, dtime(16, 5))
    runs = sorted({r.run_id for r in w.view.index.runs(session)})
    rows, events = session_rows(w.view, session, "1d")
    w.seal(_score_content(w, session, "1d", rows, events, runs), at)
    for h in LONG_HORIZONS:
        rows_h, events_h = session_rows(w.view, session, h)
        for end, codes in end_groups(w.view, day, h).items():  # type: ignore[arg-type]
            group_rows = [r for r in rows_h if r.get("market") in codes]
            group_events = [{"market": ev.market, "horizon": ev.horizon, "contract": ev.contract.as_dict(),
                             "late_ref": ev.late_ref, "seal_based": ev.seal_based}
                            for ev in events_h.values() if ev.market in codes]
            w.due.setdefault(end, []).append((session, h, json.loads(json.dumps(group_rows)), group_events))
    for session_h, h, rows_h, evs in sorted(w.due.pop(day, []), key=lambda d: d[0]):
        from league.contracts import EventContract

        events_h = {}
        for e in evs:
            contract = EventContract.from_mapping(e["contract"])
            events_h[contract.event_id_v2] = Event(e["market"], e["horizon"], contract, e["late_ref"], e["seal_based"])
        runs_h = sorted({r["run_id"] for r in rows_h if r.get("run_id")})
        w.seal(_score_content(w, session_h, h, rows_h, events_h, runs_h), at)
    return rows


def _crowd(w: Writer, day: date) -> None:
    """A ``crowd`` line per sealed quote of the session, resolved by the seeded path's 1d direction."""
    assert w.view is not None
    at = et_time(day, dtime(16, 5))
    from league.book.lines import CrowdLine

    for run in w.view.index.runs(day.isoformat()):
        if run.run_id.endswith("-r2"):
            continue
        for obj in sealed_quotes(run.crowd):
            quote = CrowdQuote.from_json(obj)
            spec = w.config.markets.by_code()[quote.market]
            up = w.prices.close(spec.symbol, day) > w.prices.level(spec.symbol, day)
            w.seal(CrowdLine(session=obj["session"], market=obj["market"], venue=obj["venue"],
                             contract_id=obj["contract_id"], resolved_up=up, run_id=run.run_id,
                             at_answer=at_answer(w.view.index, w.view.crowd, run.run_id, quote)), at)  # type: ignore[arg-type]


def _portfolio(w: Writer, day: date, raws: Mapping[int, str], rows: list[dict[str, Any]]) -> None:
    """Both paper leagues: rules once, then the real engine's session lines from the counted decisions."""
    assert w.view is not None
    at = et_time(day, dtime(16, 5))
    if not w.rules_sealed:
        for name in RULE_SETS:
            w.seal(RulesLine.from_content(rules_content(rule_set(name))), at)
        w.rules_sealed = True
    session = day.isoformat()
    lines = {r["line"] for r in rows if r.get("run_role") == "counted" and r.get("status") in ("counted", "counted_50")}
    decisions = []
    from league.answers import extract_json
    from league.counting import sealed_time

    for n in sorted(lines):
        a = w.view.index.lines[n]
        assert isinstance(a, records.Answer)
        obj = extract_json(raws[n]) if n in raws else None
        decisions.append(decision_from_reply(obj or {"forecast": a.items}, seat=a.seat, session=day,
                                             at=sealed_time(a), model=a.model, version=a.version, answer_line=n))
    for name, season in w.seasons.items():
        outcome = season.run_session(day, decisions)
        for kind, content in session_lines(outcome):
            line = typed_line({"kind": kind, "league": name, "session": session, **content})
            sealed = w.seal(line, at)
            if kind == "mark":
                w.marks[(str(content["account"]), name)] = {**sealed.content, "n": sealed.n}


# ------------------------------------------------------------------------------------ the folder
@dataclass(frozen=True)
class Report:
    """What was written: where, how many lines per book, and how long it took."""

    out: Path
    size: Size
    sessions: list[str]
    lines: dict[str, int]
    seconds: float
    index_seconds: float

    def lines_per_s(self) -> float:
        return sum(self.lines.values()) / self.seconds if self.seconds else 0.0


def league_sessions(calendar: Calendar, start: date, count: int) -> list[date]:
    first = calendar.session_on_or_after(start)
    return [calendar.offset(first, k) for k in range(count)]


def write_league(out: Path, size: Size, *, start: date = DEFAULT_START,
                 progress: Callable[[int, int], None] | None = None, index: bool = True,
                 index_db: Path | None = None) -> Report:
    """Write the synthetic league of ``size`` into the empty folder OUT (see the module docstring), its
    database index filled as the lines are sealed (:class:`BookFeed`); ``index=False`` leaves the index to
    the caller (:func:`index_store`). ``index_db``: write the database there (the caller moves it into the
    folder afterwards), so that a folder written on a RAM disk
    does not hold the index, which is ~1.8x the books."""
    if (out / "config").exists():
        raise SystemExit(f"{out} already holds a league; choose an empty folder")
    calendar = default_calendar()
    days = league_sessions(calendar, start, size.sessions)
    clock = SimulatedClock(et_time(days[0], dtime(8, 0)))
    config_dir, data_dir = init_folder(out, demo=True, seed=size.seed, clock=clock)
    (config_dir / "roster.toml").write_text(roster_toml(size.seats, size.seed), encoding="utf-8")
    config = load_config(config_dir)
    prices = SeededPrices(size.seed, [*calendar.sessions_before(days[0], 10), *days,
                                      *[calendar.offset(days[-1], k) for k in range(1, 140)]])
    started = time.perf_counter()
    indexing = 0.0
    store: Store | None = None
    if index:
        url = config.database_url
        if index_db is not None:
            index_db.parent.mkdir(parents=True, exist_ok=True)
            index_db.unlink(missing_ok=True)
            url = f"sqlite:///{index_db}"  # created there by the store's migrations, as in the folder
        store = open_store(url)
    feed = BookFeed(store, data_dir / "books") if store is not None else None
    try:
        book, opened_asks, _ = open_books(config, clock)
        opened_asks.close()  # the same chain again, through the writer that remembers its rosters
        asks = NewRunsAskChain(opened_asks.path, clock, config.roster.counting_rule, feed)
        bars = SeededBars(prices, calendar)
        seasons = {name: Season(rule_set(name), bars, BillRates.constant(Decimal("4.0")), seed=size.seed)
                   for name in RULE_SETS}
        crowd = SyntheticCrowd(size.seed, resolver=lambda _code, _day: None)
        w = Writer(config, clock, book, asks, calendar, prices, crowd, seasons, feed=feed)
        try:
            with ContractMemo() as memo:
                for i, day in enumerate(days, 1):
                    write_session(w, day, data_dir)
                    memo.clear()
                    if feed is not None:
                        t0 = time.perf_counter()
                        feed.flush(at_least=BookFeed.BATCH)
                        indexing += time.perf_counter() - t0
                    if progress:
                        progress(i, len(days))
        finally:
            lines = {"council-book": book.lines, "asks": asks.book.lines}
            asks.close()
            book.close()
        t0 = time.perf_counter()
        if feed is not None and store is not None:
            feed.finish()
            mark_jobs_done(store, days)
        indexing += time.perf_counter() - t0
    finally:
        if store is not None:
            store.close()
    seconds = time.perf_counter() - started - indexing
    return Report(out, size, [d.isoformat() for d in days], lines, seconds, indexing)


def index_store(config: Config, days: Sequence[date]) -> None:
    """The database index by the real path after the fact (incremental ``index_book``, as the daemon and
    ``league rebuild`` fill it, reading the books back), and every day job of every session marked done in
    the job ledger. What :class:`BookFeed` does while writing, from the file; the tests compare the two."""
    store = open_store(config.database_url)
    try:
        books = config.data_dir / "books"
        index_book(store, books / "council-book.jsonl", "council-book")
        index_book(store, books / "asks.jsonl", "asks")
        mark_jobs_done(store, days)
    finally:
        store.close()


def mark_jobs_done(store: Store, days: Sequence[date]) -> None:
    """Every day job of every session done in the job ledger, as a daemon that ran them leaves it."""
    for day in days:
        for job in DAY_JOBS:
            at = et_time(day, dtime(21, 30))
            if store.claim_job(day, job, at):
                store.finish_job(day, job, "done", "synthetic", at)


def cached_league(cache: Path, size: Size, *, scratch: Path | None = None, start: date = DEFAULT_START,
                  progress: Callable[[int, int], None] | None = None) -> tuple[Path, Report | None]:
    """The folder of ``size`` under CACHE (keyed by size and seed), generated when it is not there yet;
    ``None`` as report when it was cached. A half-written folder is never taken for a cached one."""
    target = cache / size.key
    if (target / "COMPLETE").is_file():
        return target, None
    if target.exists():
        shutil.rmtree(target)
    cache.mkdir(parents=True, exist_ok=True)
    work = (scratch / f"synth-{size.key}-{os.getpid()}") if scratch else target
    # With a scratch folder the index is written beside the cache while generating (the database is ~1.8x
    # the book: 1 y x 100 seats, 1.0 GB of books and 1.8 GB of league.db), so the RAM disk holds only the
    # books and replies; it is moved into the folder with it.
    index_db = (cache / f"{size.key}.league-{os.getpid()}.db") if scratch else None
    if work.exists():
        shutil.rmtree(work)
    try:
        report = write_league(work, size, start=start, progress=progress, index_db=index_db)
        if work != target:
            shutil.move(str(work), str(target))
        if index_db is not None:
            os.replace(index_db, target / "data" / "league.db")
    except BaseException:  # a stopped run leaves no half-written league on the RAM disk
        if work != target:
            shutil.rmtree(work, ignore_errors=True)
        if index_db is not None:
            index_db.unlink(missing_ok=True)
        raise
    report = replace(report, out=target)
    (target / "COMPLETE").write_text(json.dumps(summary(report)), encoding="utf-8")
    return target, report


def summary(report: Report) -> dict[str, Any]:
    return {"size": report.size.key, "label": report.size.label, "sessions": len(report.sessions),
            "first": report.sessions[0], "last": report.sessions[-1], "lines": report.lines,
            "generate_s": round(report.seconds, 1), "index_s": round(report.index_seconds, 1),
            "lines_per_s": round(report.lines_per_s(), 1)}


#: Lines decoded per batch before the anchor's timed part runs over them (the timer read once per batch).
ANCHOR_BATCH = 2000


def bare_seal_seconds(books: Sequence[Path], scratch: Path) -> tuple[float, int]:
    """The anchor: CPU seconds a bare loop takes to seal the same lines again, and how many.

    Why this anchor: it is the floor of what the generator does per line, with nothing of the project in it —
    each line's object (decoded beforehand, outside the timing, as the generator holds its lines already) encoded
    as canonical JSON by the standard library, hashed with SHA-256 after the previous line's hash, appended to a
    file on ``scratch`` (no fsync, as the generator's RAM disk makes it nearly free). What the generator spends
    beyond it is building each line as its validated model, the scripted seats' replies, the real writers'
    checks and the database index."""
    spent, lines = 0.0, 0
    out = scratch / f"bare-seal-{os.getpid()}.jsonl"
    try:
        with out.open("wb") as sink:
            link = b"0" * 64
            for book in books:
                with book.open("rb") as f:
                    while batch := [json.loads(line) for line in itertools.islice(f, ANCHOR_BATCH)]:
                        began = time.process_time()
                        for obj in batch:
                            body = json.dumps(obj, sort_keys=True, separators=(",", ":"),
                                              ensure_ascii=False).encode("utf-8")
                            link = hashlib.sha256(link + body).hexdigest().encode("ascii")
                            sink.write(body + b"\n")
                        spent += time.process_time() - began
                        lines += len(batch)
    finally:
        out.unlink(missing_ok=True)
    return spent, lines


def anchor_report(target: Path, generator_cpu_s: float | None, scratch: Path) -> dict[str, Any]:
    """The generator's CPU seconds (this run's, None when the league was cached) and its anchor's, side by side."""
    books = sorted((target / "data" / "books").glob("*.jsonl"))
    floor_s, lines = bare_seal_seconds(books, scratch)
    row: dict[str, Any] = {"anchor": "bare seal loop (stdlib canonical JSON + SHA-256 + append)",
                           "anchor_cpu_s": round(floor_s, 2), "anchor_lines": lines}
    if generator_cpu_s is not None:
        row.update(generator_cpu_s=round(generator_cpu_s, 1),
                   ratio=round(generator_cpu_s / floor_s, 1) if floor_s else None)
    else:
        row.update(generator_cpu_s=None, ratio=None, note="cached league: the generator did not run in this go")
    return row


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--out", type=Path, help="an empty folder to write the league into")
    where.add_argument("--cache", type=Path, help="a cache folder: the league goes to CACHE/<size key>")
    length = parser.add_mutually_exclusive_group()
    length.add_argument("--years", type=float, help="length in years of 252 sessions (default 1)")
    length.add_argument("--sessions", type=int, help="length in sessions")
    parser.add_argument("--seats", type=int, default=14)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--start", type=date.fromisoformat, default=DEFAULT_START)
    parser.add_argument("--scratch", type=Path, help="write here first (e.g. /dev/shm), then move")
    parser.add_argument("--anchor", action="store_true",
                        help="then seal the same lines with a bare stdlib loop and print both (bare_seal_seconds)")
    args = parser.parse_args(argv)
    size = Size.of(years=args.years, sessions=args.sessions, seats=args.seats, seed=args.seed)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # `kill PID` cleans the scratch folder up

    began, began_cpu = time.perf_counter(), time.process_time()

    def progress(i: int, n: int) -> None:
        if i % 50 == 0 or i == n:
            print(f"  {i}/{n} sessions, {time.perf_counter() - began:.0f} s, {time.process_time():.0f} CPU s",
                  file=sys.stderr, flush=True)

    if args.cache:
        target, report = cached_league(args.cache, size, scratch=args.scratch, start=args.start, progress=progress)
    else:
        report = write_league(args.out, size, start=args.start, progress=progress)
        target = args.out
    generator_cpu_s = None if report is None else time.process_time() - began_cpu
    print(json.dumps({"out": str(target), **summary(report)}) if report else f"cached: {target}")
    if args.anchor:
        print(json.dumps(anchor_report(target, generator_cpu_s, args.scratch or target)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
