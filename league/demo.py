"""The demo season: configuration plus offline stand-ins, run through the live code paths at full speed.

The league is built by the one composition root (:func:`league.compose.build_league`) from the demo
configuration that ``league init --demo`` writes: replay prices (real daily history with synthesized
minutes), scripted seats running as real child processes inside the bubblewrap sandbox, the
baselines, two local RFC 3161 test authorities, SQLite. The stand-ins that no configuration can
express are added here: a seeded synthetic crowd resolved by the replay's own outcomes, the oracle
hints, and a local OpenTimestamps calendar and Rekor log on 127.0.0.1 for the season's duration.
The day's jobs run through the scheduler's catch-up path under a simulated clock; replies are sealed
at their simulated arrival times. It ends by publishing the open data (the caller verifies the book).

Demo-only: scripted seats may receive an "oracle hint" (the session's true direction, blurred by
each seat's ``skill``) in the ask's structured context so the league table has something to rank.
The hint never appears in the ask text and no live seat receives it. Only the ``league demo`` verb
imports this module (an import contract in pyproject.toml holds that).
"""

from __future__ import annotations

import fcntl
import gc
import json
import multiprocessing
import os
import pickle
import re
import shutil
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TypedDict, TypeVar, cast

import structlog

from league.arms.book import ARMS_BOOK, ArmsBooks
from league.calendar import Calendar, default_calendar, et_time, event_contract
from league.clock import Clock, SimulatedClock
from league.compose import build_league
from league.config import Config, MarketSpec, SourcesSettings, load_config, load_roster, shipped_config_dir
from league.contracts import EventContract
from league.counting import run_events
from league.crowd.recorded import SyntheticCrowd
from league.errors import LeagueError
from league.folder import init_folder
from league.heap import settle_heap
from league.inputs import InputError, read_json
from league.jobs import portfolio
from league.jobs.ask import default_context
from league.jobs.context import League, Reading, Stages
from league.jobs.portfolio import record_bill_rates
from league.jobs.predictions import register, resolve_in
from league.jobs.preflight import require
from league.jobs.scheduler import run_session, session_start
from league.jobs.score import Bars, event_outcome
from league.jobs.seal import pump
from league.jobs.stamp import release_stamp, use_services, use_stamper
from league.news.synthetic import write_demo_feeds
from league.prices.reference import terminal_price
from league.publish.compliance import MANIFEST
from league.publish.files import PublishReport, publish, refresh_proof
from league.publish.memory import release_memory
from league.scoring.climatology import WINDOW
from league.shutdown import die_with_parent
from league.sources.standin import OUTLETS, serve_pages
from league.stamping.relay import RelayStamper, StampDesk, StampRequest
from league.stamping.stamper import Stamper, config_from_settings
from league.stamps.standins import LocalCalendar, LocalRekor
from league.store import open_store
from league.store.follow import IndexFollower

log = structlog.get_logger(__name__)
DEFAULT_START = date(2026, 6, 1)
#: The demo publishes once, at the end (not every simulated night).
DEMO_STAGES = Stages(publish=False)


@dataclass(frozen=True)
class DemoResult:
    data_dir: Path
    public_dir: Path
    sessions: list[str]
    book_lines: int
    forecasts: int


@dataclass(frozen=True)
class Season:
    """What a finished (closed) season hands to the publish step, across a process boundary: its folders,
    the simulated clock when its books closed, and the local Rekor stand-in's log (the release stamp is
    appended to the same log, at the same simulated time, as when one process did both)."""

    config_dir: Path
    data_dir: Path
    ended_at: datetime
    book_lines: int
    rekor_leaves: tuple[bytes, ...]
    #: The season's last session (the registered predictions due by then are resolved at its publication).
    last_session: str = ""


def demo_sessions(calendar: Calendar, start: date, count: int) -> list[date]:
    first = calendar.session_on_or_after(start)
    return [calendar.offset(first, k) for k in range(count)]


def run_demo(out: Path, *, sessions: int = 10, seed: int = 7, start: date = DEFAULT_START,
             progress: Callable[[str], None] | None = None, split: bool | None = None,
             say: Callable[[str], None] | None = None, arms: bool = True) -> DemoResult:
    """Write a demo league into OUT, run SESSIONS days, publish; nothing is sealed if a tool is missing.

    ``split`` runs the season in a forked child process and publishes in this one once the child has exited,
    so the peak memory is the larger of the two, not their sum: the season's index, price memo and statistical
    imports are gone before publishing's whole-book reads begin. By default only where the system can fork and
    this process runs no other thread (a lock another thread holds at the fork would stay held in the child:
    `league demo` starts no thread before it; a test process may hold a League's threads open). ``arms``: the
    season runs the experiments' arms and repeats beside the council (:func:`enable_arms`).

    OUT is held for the whole run (:func:`claim_folder`): a season left unfinished in it by a killed
    ``league demo`` is started again from scratch; ``say`` is told so."""
    check_arguments(start=start, sessions=sessions, seed=seed)
    require(load_roster(shipped_config_dir() / "roster.demo.toml").seat, what="the demo")
    days = demo_sessions(default_calendar(), start, sessions)
    asked: dict[str, object] = {"sessions": sessions, "seed": seed, "start": start.isoformat(), "arms": arms}
    lock = claim_folder(out, asked, say)
    try:
        if split if split is not None else fork_safe():
            season = season_in_child(out, days, seed, progress, arms=arms)
        else:
            season = run_season(out, days, seed, progress, arms=arms)
            release_memory()  # the closed League's index, price memo and seats, before the publish step's own peak
        public = publish_season(season).out_dir
        count = _count_rows(public / "council-forecasts.csv")
        _write_state(out, {**asked, "state": FINISHED})
    finally:
        os.close(lock)  # the flock goes with it (the season's child, which shared it, has ended)
    return DemoResult(season.data_dir, public, [d.isoformat() for d in days], season.book_lines, count)


#: The first day a demo season may start: the day after the climatology window, since the table is
#: sealed from the 2016-2025 history before the season's first session (league.scoring.climatology).
EARLIEST_START = WINDOW[1] + timedelta(days=1)
#: The last: far past any use, and well inside the calendar's reach (exchange-calendars counts in pandas
#: timestamps, which end on 2262-04-11, and the season's last six-month horizon plus the calendar's two years
#: of growth must fit: a 400-session season from this day has its last horizon end in January 2202).
LATEST_START = date(2199, 12, 31)
MAX_SESSIONS = 400
#: The seed is written into config/league.toml, whose integers are 64-bit signed; seeded generators take no
#: negative seed.
MAX_SEED = 2**63 - 1


def check_arguments(*, start: date, sessions: int, seed: int) -> None:
    """Refuse a season the demo cannot run, before anything is written, naming the accepted range (a first day
    outside it ended in a ValueError, an OverflowError or a climatology error halfway through the season)."""
    if not EARLIEST_START <= start <= LATEST_START:
        raise InputError(f"--start {start.isoformat()}: the demo's first day must lie between "
                         f"{EARLIEST_START.isoformat()} and {LATEST_START.isoformat()}",
                         fix=f"give a first day (YYYY-MM-DD) in that range; the default is {DEFAULT_START.isoformat()}")
    if not 1 <= sessions <= MAX_SESSIONS:
        raise InputError(f"--sessions {sessions}: the demo runs from 1 to {MAX_SESSIONS} sessions",
                         fix=f"give a whole number from 1 to {MAX_SESSIONS}")
    if not 0 <= seed <= MAX_SEED:
        raise InputError(f"--seed {seed}: a seed is a whole number from 0 to {MAX_SEED}",
                         fix="give a seed in that range (the default is 7)")


#: What OUT holds besides config/ and data/ while `league demo` writes it and once it is done: the run's
#: state (its arguments, and whether its season finished), and the lock every process of the run holds.
DEMO_STATE = ".league-demo.json"
DEMO_LOCK = ".league-demo.lock"
RUNNING, FINISHED = "running", "finished"
_DEMO_PARTS = ("config", "data")


def claim_folder(out: Path, asked: dict[str, object], say: Callable[[str], None] | None = None) -> int:
    """Make OUT, lock it for this run and return the lock's file descriptor (closing it ends the claim).

    The lock is a flock on OUT/.league-demo.lock, shared by every process the run forks (the season's child,
    the publisher's workers), so the kernel releases it when the last of them is gone. Under it, OUT with a
    league in it is taken only if this verb left it there unfinished (its state file says ``running``, and
    nobody holds the lock, so no process of that run is alive): its config/ and data/ are removed and the
    season starts again from scratch, which gives the folder an uninterrupted run of the same arguments
    gives. Any other league in OUT (a finished demo, a folder of ``league init``) is refused, as before."""
    make_folder(out)
    if _holds_league(out) and not os.path.lexists(out / DEMO_STATE):
        raise LeagueError(f"{out} already holds a league", fix="choose an empty --out folder")
    lock = _lock_folder(out)
    try:
        if _holds_league(out):
            left = _unfinished(out)
            for part in _DEMO_PARTS:
                _remove(out / part)
            if say is not None:
                say(f"{out} held a demo season that never finished ({_described(left)}); its processes are gone: "
                    "it is removed, and this season starts from scratch")
        _write_state(out, {**asked, "state": RUNNING})
    except BaseException:
        os.close(lock)
        raise
    return lock


def make_folder(out: Path) -> None:
    """OUT created (with its parents) or found as a folder, or an InputError naming why not."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise InputError(f"--out {out}: exists and is not a folder",
                         fix="name a new folder (it is created) or an empty one") from None
    except OSError as exc:
        raise InputError(f"--out {out}: the folder cannot be created ({exc.strerror or exc})",
                         fix="name a folder in a place you can write, e.g. ./demo-out") from None


def _holds_league(out: Path) -> bool:
    return any(os.path.lexists(out / part) for part in _DEMO_PARTS)


def _lock_folder(out: Path) -> int:
    """Open and flock OUT/.league-demo.lock (never following a link), writing this process's id into it for
    the message another run shows; the first write into OUT, so an unwritable OUT is named here."""
    path = out / DEMO_LOCK
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as exc:
        raise InputError(f"--out {out}: cannot be written ({path.name}: {exc.strerror or exc})",
                         fix="name a folder you can write, e.g. ./demo-out") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "a process"
        os.close(fd)
        raise LeagueError(f"{out} is being written by a running `league demo` ({holder}, or a process it forked)",
                          fix="wait for it to finish, or stop it, then run this command again") from None
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}\n".encode("ascii"), 0)
    except OSError as exc:  # who holds it is for a person reading the error above: not worth failing for
        log.warning("demo.lock_holder_unwritten", folder=str(out), error=str(exc))
    return fd


def _unfinished(out: Path) -> dict[str, object]:
    """The state of the run that left OUT's league, if that run was this verb's and it did not finish;
    else the error that leaves OUT alone."""
    state = read_json(out / DEMO_STATE, what="demo state file", max_bytes=4096, max_depth=2, inside=out)
    if not isinstance(state, dict) or state.get("state") not in (RUNNING, FINISHED):
        raise InputError(f"{out / DEMO_STATE}: not the state file `league demo` writes",
                         fix="choose an empty --out folder")
    if state["state"] == FINISHED:
        raise LeagueError(f"{out} already holds a finished demo season", fix="choose an empty --out folder")
    return state


def _described(state: dict[str, object]) -> str:
    return " ".join(f"--{key} {state[key]}" for key in ("sessions", "seed", "start") if key in state)


def _remove(path: Path) -> None:
    """Remove a part of an unfinished demo (never through a link: the demo makes none)."""
    try:
        if path.is_symlink() or path.is_file():
            raise InputError(f"{path}: not the folder `league demo` made", fix="choose an empty --out folder")
        shutil.rmtree(path, ignore_errors=False)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise InputError(f"{path}: the unfinished demo's folder cannot be removed ({exc.strerror or exc})",
                         fix=f"remove {path} yourself, or choose an empty --out folder") from None


def _write_state(out: Path, state: dict[str, object]) -> None:
    """OUT/.league-demo.json replaced whole (a temporary file renamed over it): a run killed while writing
    it leaves the old state or the new one, never half of one."""
    path = out / DEMO_STATE
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(state, fh, sort_keys=True)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        raise InputError(f"--out {out}: cannot be written ({path.name}: {exc.strerror or exc})",
                         fix="name a folder you can write, with free space") from None


def run_season(out: Path, days: list[date], seed: int, progress: Callable[[str], None] | None = None, *,
               index_elsewhere: bool = False, stamps: Callable[[StampRequest], object] | None = None,
               arms: bool = False) -> Season:
    """The season itself: the league folder, every day's jobs under the simulated clock, the replies still
    due sealed, the books closed (and the closed League dropped from module-level tables).
    ``index_elsewhere``: the calling process indexes the books into the database (:func:`season_in_child`'s
    parent, after each ``progress`` call), not this season's League. ``stamps``: the calling process takes
    the stamps too (league.stamping.relay), sent the heads and times through this; the Season then holds no
    Rekor entries (the caller's log has them)."""
    clock = SimulatedClock(session_start(days[0]))
    config_dir, data_dir = init_folder(out, demo=True, seed=seed, clock=clock)
    if arms:
        enable_arms(config_dir, data_dir, days, seed)
    rekor = LocalRekor(clock.now)
    serving: AbstractContextManager[StampServices] = (
        nullcontext(StampServices()) if stamps is not None else local_stamp_services(clock, rekor))
    with serve_pages() as pages, serving as services:
        enable_sources(config_dir, pages)
        config = load_config(config_dir)
        store = open_store(config.database_url)
        with build_league(config, clock, stages=DEMO_STAGES, store=store, anchor=days[0]) as lg:
            add_stand_ins(lg, seed)
            if stamps is not None:
                use_stamper(lg, RelayStamper(clock, stamps))
            else:
                use_services(lg, **services)
            if index_elsewhere:
                lg.books.index_elsewhere()
            record_bill_rates(lg, days[0] - timedelta(days=10), days[-1])
            if arms:
                register_demo_predictions(lg, days)
            for day in days:
                run_session(lg, day, ledger=store)
                if progress:
                    progress(day.isoformat())
            pump(lg, clock.now() + timedelta(days=1))
            lines = lg.books.book.lines
        forget(lg)
    return Season(config_dir, data_dir, clock.now(), lines, tuple(rekor.leaves), days[-1].isoformat())


#: The demo's seats asked the repeats (three of the roster's, from three labs).
DEMO_REPEAT_SEATS = ("aurora", "basalt", "cobalt")
#: The demo's council talk: every scripted seat that answers a first ask (the silent ``mute`` and the second-wave
#: ``dozer`` never would; ``grumpy``'s malformed replies show a failed chair or reply in the files).
DEMO_TALK_SEATS = ("aurora", "aurora-mini", "basalt", "cobalt", "delta", "ember", "grumpy", "sloth")


def register_demo_predictions(lg: League, days: list[date]) -> None:
    """The example registry (config/predictions.toml, docs/predictions.md) registered before the season's first
    session, as a copy whose check dates are the season's last session and whose default window starts at its
    second session, so that the season's last publication resolves every line it can decide."""
    text = (lg.config.folder / "predictions.toml").read_text(encoding="utf-8")
    text = re.sub(r"(?m)^check_date = .*$", f"check_date = {days[-1].isoformat()}", text)
    text = re.sub(r"(?m)^from_session = 11\b", "from_session = 2", text)
    copy = lg.config.folder / "predictions.demo.toml"
    copy.write_text(text, encoding="utf-8")
    register(lg, copy)


def enable_arms(config_dir: Path, data_dir: Path, days: list[date], seed: int) -> None:
    """The demo runs the experiments beside its council (docs/experiments.md): the closed-book and price-only
    arms on every session, the repeats on Fridays, the extra reference runs (evening, weekend bitcoin, Sunday
    radar), the council talk on Fridays, the packets' headlines from synthetic feed files written into the data
    folder (the ``recorded``
    news provider reads them as it would recorded real feeds)."""
    path = config_dir / "league.toml"
    text = path.read_text(encoding="utf-8")
    text = re.sub(r'(?m)^(\[news\].*\n)provider = "none"', r'\1provider = "recorded"', text, count=1)
    text = re.sub(r'(?m)^arms = \[\]', 'arms = ["closed_book", "price_only"]', text, count=1)
    text = re.sub(r'(?m)^repeat_seats = \[\]', f"repeat_seats = {json.dumps(list(DEMO_REPEAT_SEATS))}", text, count=1)
    text = re.sub(r'(?m)^(seed = 20261206.*)$', r'\1\nextra_runs = ["evening", "weekend_btc", "sunday_radar"]', text,
                  count=1)
    text = re.sub(r'(?m)^(\[talk\].*\nenabled = )false(\n.*\n)# seats = \[\].*$',
                  rf'\1true\2seats = {json.dumps(list(DEMO_TALK_SEATS))}', text, count=1)
    path.write_text(text, encoding="utf-8")
    write_demo_feeds(data_dir / "news", days[0], days[-1], seed)


#: What the demo's seats cite in their one-day cells (outlet, path): overlapping sets, a citation named after one
#: outlet that leads to another (``/wire/``), a page that is gone (404) and the league's own data source
#: (``snapshot``, listed in ``ask_sites``: removed from the shared-sources figures).
DEMO_CITES: dict[str, tuple[tuple[str, str], ...]] = {
    "aurora": (("wire", "/markets-open"), ("rates", "/fed-minutes")),
    "aurora-mini": (("wire", "/markets-open"), ("energy", "/oil-stocks")),
    "basalt": (("rates", "/fed-minutes"), ("wire", "/wire/macro-brief")),
    "cobalt": (("energy", "/oil-stocks"), ("energy", "/asia-close"), ("snapshot", "/quotes")),
    "delta": (("rates", "/fed-minutes"), ("energy", "/gone")),
    "ember": (("wire", "/markets-open"), ("snapshot", "/quotes")),
}


def enable_sources(config_dir: Path, pages: dict[str, str]) -> None:
    """The demo's seats cite the stand-in pages (league/sources/standin.py) and the league fetches them after
    counted ingest (docs/experiments.md, "Fetch records"), from loopback: ``allow_private`` in the demo only."""
    roster = config_dir / "roster.toml"
    text = roster.read_text(encoding="utf-8")
    for name, cites in DEMO_CITES.items():
        links = json.dumps([f"{pages[outlet]}{path}" for outlet, path in cites])
        text = re.sub(rf'(?m)(^name = "{re.escape(name)}"\n(?:(?!\[\[seat\]\]).*\n)*?options = \{{[^}}\n]*?) \}}',
                      rf"\1, cite = {links} }}", text, count=1)
    roster.write_text(text, encoding="utf-8")
    sites = json.dumps([*SourcesSettings().ask_sites, OUTLETS["snapshot"]])
    with open(config_dir / "league.toml", "a", encoding="utf-8") as fh:
        fh.write(f"\n[sources]\nfetch = true\nallow_private = true  # the demo's stand-in pages are on loopback\n"
                 f"timeout_s = 5\nask_sites = {sites}  # the last: the demo's stand-in for the league's own data\n")


def fork_safe() -> bool:
    """True where the system can fork and this process runs no thread but the caller's."""
    return hasattr(os, "fork") and threading.active_count() == 1


def season_in_child(out: Path, days: list[date], seed: int, progress: Callable[[str], None] | None = None, *,
                    arms: bool = False) -> Season:
    """:func:`run_season` in a forked child process; its progress, its stamps and its :class:`Season` come back
    through a pipe. This process indexes the books and takes the stamps (league.stamping.relay) while the child
    goes on, on a thread of lower priority (:func:`_lowered`) that also serves the local stand-ins, started
    after the fork. The child exits before this returns, so none of its memory outlives the season."""
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_season_child, args=(send, receive, os.getpid(), out, days, seed, arms),
                        name="league-demo-season")
    child.start()
    send.close()  # the child's copy is the only writer left: its exit ends recv() with EOFError
    follower = _Follower(out)
    try:
        season = _lowered(lambda: _serve_and_follow(out, days, receive, progress, child, follower),
                          stop=child.terminate)
    finally:
        follower.close()
        receive.close()
        child.join(timeout=30)  # its books are closed before it sends its season: let it exit by itself
        if child.is_alive():
            child.terminate()
            child.join()
    return season


def _serve_and_follow(out: Path, days: list[date], receive: Connection, progress: Callable[[str], None] | None,
                      child: BaseProcess, follower: _Follower) -> Season:
    """This process's share of the season: the stamp stand-ins served, the child's stamps taken and its books
    indexed as they come (:func:`_follow`); the Season returned with this side's Rekor log."""
    settle_heap()  # the modules imported are this process's for good: its full collections need not walk them
    clock = SimulatedClock(session_start(days[0] if days else DEFAULT_START))  # set to each stamp's time
    rekor = LocalRekor(clock.now)
    with local_stamp_services(clock, rekor) as services:
        desk = StampDesk(clock, lambda on: demo_stamper(load_config(out / "config"), on, **services))
        season = _follow(receive, progress, child, follower, desk)
    return replace(season, rekor_leaves=tuple(rekor.leaves))


#: How much lower (in nice steps) this process's share of the season runs than the season itself.
BACKGROUND_NICE = 10
_T = TypeVar("_T")


def _lowered(work: Callable[[], _T], *, stop: Callable[[], object]) -> _T:
    """``work()`` on a thread of its own whose priority is :data:`BACKGROUND_NICE` steps lower, joined; its
    exception raised here. ``stop`` (the child's terminate) is called if this thread is interrupted while
    waiting, so that the work sees the pipe end and finishes.

    Why: during the season the critical path is the child's main thread and the seats' sandboxed runs; this
    process's work (the stamps, the index) is not, yet at the same priority it took the second core from the
    first wave's runs (3 % of the demo's wall, docs/costs.md "The demo's processes"). Linux keeps a nice value
    per thread and a thread's new threads inherit it (the stand-ins' servers and the stamp pools are started
    inside ``work``); a thread may lower its own priority without privileges, and it ends with the season, so the
    publish step after it runs at the process's own priority. Elsewhere the work runs unchanged."""
    box: dict[str, _T] = {}
    errors: list[BaseException] = []

    def run() -> None:
        try:
            _lower_this_thread(BACKGROUND_NICE)
            box["value"] = work()
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread, which raises it
            errors.append(exc)

    thread = threading.Thread(target=run, name="league-demo-parent")
    thread.start()
    try:
        thread.join()
    except BaseException:
        stop()
        thread.join()
        raise
    if errors:
        raise errors[0]
    return box["value"]


def _lower_this_thread(steps: int) -> None:
    """Lower the calling thread's priority (Linux: ``setpriority`` on its thread id); nowhere else."""
    if not sys.platform.startswith("linux"):
        return
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + steps))
    except OSError as exc:  # a policy that forbids it: the same work at the same priority
        log.info("demo.priority_unchanged", error=str(exc))


def _follow(receive: Connection, progress: Callable[[str], None] | None, child: BaseProcess,
            follower: _Follower, desk: StampDesk) -> Season:
    """Relay the child's sessions to ``progress`` until its season (or its failure) arrives; after each
    session (and once the books are closed), index what the books gained into the database; take each stamp
    the child relays, in order."""
    while True:
        try:
            what, value = receive.recv()
        except EOFError:
            child.join()
            raise LeagueError(f"the demo season's process ended without a result (exit code {child.exitcode})",
                              fix="see the messages above; run again with an empty --out folder") from None
        if what == "stamp":
            desk.take(value)
        elif what == "session":
            if progress:
                progress(value)
            follower.step()
        elif what == "season":
            follower.step()
            return cast(Season, value)
        else:
            raise value if isinstance(value, BaseException) else LeagueError(str(value))


class _Follower:
    """The parent's share of the season while it runs: the database index of the books the child writes
    (league.store.follow), so the season's own thread, the critical path, spends nothing on it. Opened at
    the first step (the child makes the folder and its database first)."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.indexer: IndexFollower | None = None

    def step(self) -> None:
        if self.indexer is None:
            try:
                config = load_config(self.out / "config")
                self.indexer = IndexFollower(open_store(config.database_url), config.data_dir / "books")
            except (LeagueError, OSError) as exc:  # the index is rebuildable: the next open indexes the books
                log.warning("store.follow_failed", error=str(exc), fix="the next open of the league indexes the books")
                self.indexer = IndexFollower(None, self.out)
        self.indexer.step()

    def close(self) -> None:
        if self.indexer is not None:
            self.indexer.close()


#: The season child's youngest generation: collected after this many new container objects, not 700. A day's jobs
#: make and drop many (parsed lines, models, rows) that reference counting frees; fewer collections walk fewer of
#: them (the child's young collections 0.98 -> 0.21 s over the 126-session season, docs/costs.md "The cyclic
#: collector").
SEASON_YOUNG_GENERATION = 20_000


def _season_child(send: Connection, receive: Connection, parent: int, out: Path, days: list[date], seed: int,
                  arms: bool = False) -> None:
    """The season's process: it ends with its parent (a season left writing the book after ``kill -9`` of
    ``league demo`` held the book's lock, so the restart could not open it), and it keeps no copy of the
    pipe's reading end, so a parent gone (where the kernel cannot be asked to end this process) is a broken
    pipe at its next message, not messages piling up in a pipe only it could read."""
    die_with_parent(parent)
    receive.close()
    gc.set_threshold(SEASON_YOUNG_GENERATION, *gc.get_threshold()[1:])  # this process only: it ends with the season

    def done(day: str) -> None:
        send.send(("session", day))
        settle_heap()  # the season's index only grows, and this process ends with the season

    try:
        season = run_season(out, days, seed, done, index_elsewhere=True,
                            stamps=lambda request: send.send(("stamp", request)), arms=arms)
    except BaseException as exc:  # noqa: BLE001 - handed to the parent, which raises it
        send.send(("failed", _portable(exc)))
        send.close()
        raise SystemExit(1) from None
    send.send(("season", season))
    send.close()


def _portable(exc: BaseException) -> BaseException | str:
    """The exception itself when it survives pickling (a LeagueError keeps its fix), else its text."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001 - any exception that does not round-trip is sent as text
        return f"{type(exc).__name__}: {exc}"
    return exc


def forget(lg: League) -> None:
    """Drop what module-level tables keep of a closed League at once, before the publish step. The portfolio
    stage keeps its seasons in a WeakKeyDictionary keyed by the League; its bar source holds the League
    weakly (a value referring to its own key kept the closed League and its season's index and price memo
    alive), so the entries also go by themselves once the League is collected: this only makes it immediate."""
    for name in ("_SEASONS", "_MARKED"):  # the stage's own caches, by League (gone once it keeps them weakly)
        table = getattr(portfolio, name, None)
        if table is not None:
            table.pop(lg, None)


def publish_season(season: Season) -> PublishReport:
    """What :func:`league.jobs.publish.publish_now` does, for a season whose books are already closed: the open
    data from the books, then the release manifest stamped by the league's stamper (the local stand-ins serve
    again for it, the Rekor log continued, at the season's last simulated time), then proof/ again."""
    config = load_config(season.config_dir)
    clock = SimulatedClock(season.ended_at)
    report = publish(season.data_dir, config=config, clock=clock, workers=2)
    if (season.data_dir / "books" / ARMS_BOOK).is_file():  # the registered predictions due by the last session
        books = ArmsBooks(season.data_dir / "books", clock)
        try:
            resolved = resolve_in(books, season.data_dir, season.last_session, report.out_dir)
        finally:
            books.close()
        if resolved:
            report = publish(season.data_dir, config=config, clock=clock, workers=2)
    if DEMO_STAGES.stamps:
        rekor = LocalRekor(clock.now)
        rekor.leaves = list(season.rekor_leaves)
        with local_stamp_services(clock, rekor) as services:
            stamped = release_stamp(demo_stamper(config, clock, **services), report.out_dir, MANIFEST)
        if stamped is not None:
            refresh_proof(season.data_dir, report.out_dir)
    for name, why in (*report.skipped, *report.failed):
        log.warning("publish.incomplete", file=name, why=why)
    return report


def demo_stamper(config: Config, clock: Clock, *, calendars: tuple[str, ...] = (),
                 rekor_url: str | None = None) -> Stamper:
    """The stamper :func:`league.jobs.stamp.use_services` gives a League of this config, without the League."""
    settings = config_from_settings(config.settings.stamps, config.data_dir)
    settings = settings.model_copy(update={"ots_calendars": calendars or settings.ots_calendars,
                                           "rekor_url": rekor_url or settings.rekor_url})
    return Stamper(settings, config.data_dir / "stamps", clock)


class StampServices(TypedDict, total=False):
    """Where the demo's local stamp stand-ins listen: what :func:`league.jobs.stamp.use_services` takes."""

    calendars: tuple[str, ...]
    rekor_url: str | None


@contextmanager
def local_stamp_services(clock: Clock, rekor: LocalRekor | None = None) -> Iterator[StampServices]:
    """The demo's OpenTimestamps calendar and Rekor log: local stand-ins on 127.0.0.1 for as long as the
    season runs (league/stamps/standins.py), so its folder has ``.ots`` proofs and log entries for the
    reader's steps 6 and 10 — reported as pending and as a log that is not Sigstore's public one.
    ``rekor``: the log to serve (one the caller reads afterwards, or one continued), else a new one."""
    with LocalCalendar().serve() as calendar, (rekor or LocalRekor(clock.now)).serve() as url:
        yield {"calendars": (calendar,), "rekor_url": url}


def add_stand_ins(lg: League, seed: int) -> None:
    """What the demo adds to a league built from its configuration: the synthetic crowd, and the oracle
    hints beside the climatology table in each ask's context."""
    lg.market.crowd = synthetic_crowd(lg.view, seed)
    hints: dict[str, dict[str, dict[str, float]]] = {}  # by session: the second wave's ask reuses the first's
    source, bars = lg.market.prices, Bars(lg.view)  # the hints' bars, kept from session to session (forget_bars_before)

    def context(league: League, session: str) -> dict[str, object]:
        if session not in hints:  # replay outcomes are fixed, so the hints of a session never change
            hints.clear()
            day = date.fromisoformat(session)
            forget_bars_before(bars, day - HINT_BARS_KEPT)
            kept = bars if league.market.prices is source else Bars(league.view)  # a source put in later: read afresh
            hints[session] = oracle_hints(league.view, day, kept)
        return {"hint": {code: dict(by_h) for code, by_h in hints[session].items()}, **default_context(league, session)}

    lg.asking.ask_context = context


#: How far back the hints keep their bars: a session's hints read its own day, the days of its draw band
#: (the sessions before it) and the day a week ahead; later sessions read most of them again.
HINT_BARS_KEPT = timedelta(days=14)


def forget_bars_before(bars: Bars, first: date) -> None:
    """Drop the days (and draw bands) before ``first`` from a :class:`Bars` kept across sessions. Only the
    replay's fixed prices make keeping them sound: a live job's Bars lives for that job alone. A day that
    could not be read is read again next session (a fresh Bars would): after any error, all is dropped."""
    if bars.errors:
        first = date.max
    for table in (bars.days, bars.starts, bars.bands):
        for key in [k for k in table if k[1] < first]:
            del table[key]
    bars.errors.clear()  # reported by a score line; the hints read outcomes only


def oracle_hints(lg: Reading, session: date, bars: Bars | None = None) -> dict[str, dict[str, float]]:
    """Demo only: the session's true 1d/1w direction per market, for scripted seats' ``skill``. ``bars``:
    bars already read by earlier hints (replay prices: the same bars whenever read)."""
    hints: dict[str, dict[str, float]] = {}
    bars = bars if bars is not None else Bars(lg)
    for code, by_h in run_events(lg, session.isoformat()).items():
        hints[code] = {}
        for h in ("1d", "1w"):
            if h in by_h:
                up = event_outcome(lg, code, h, EventContract.from_mapping(by_h[h]), bars)
                if up is not None:
                    hints[code][h] = 80.0 if up else 20.0
    return hints


def synthetic_crowd(lg: Reading, seed: int) -> SyntheticCrowd:
    """Seeded quotes for up to 8 markets, resolved by the replay's own 1d outcome."""
    return SyntheticCrowd(seed, resolver=lambda code, day: _replay_outcome(lg, code, day))


def _replay_outcome(lg: Reading, code: str, day: date) -> bool | None:
    spec = lg.config.markets.by_code().get(code)
    if spec is None:
        return None
    if not spec.daily:
        return _day_over_day(lg, spec, day)
    return event_outcome(lg, code, "1d", event_contract(lg.calendar, spec, day, "1d", None))


def _day_over_day(lg: Reading, spec: MarketSpec, day: date) -> bool | None:
    """24x7 markets: the 16:00 ET price of ``day`` against the day before's (the crowd's own terms)."""
    prices = []
    for d in (day - timedelta(days=1), day):
        end = et_time(d, time(16, 0))
        bars = lg.prices.bars(spec.symbol, end - timedelta(hours=1), end + timedelta(minutes=1))
        point = terminal_price(bars, end, since=end - timedelta(hours=1)) if bars else None
        if point is None:
            return None
        prices.append(point.price)
    return prices[1] > prices[0]


def _count_rows(path: Path) -> int:
    with open(path, encoding="utf-8") as fh:
        return max(0, sum(1 for _ in fh) - 1)

