"""The fault-injection season: one simulated league run uninterrupted, and once as a child
process SIGKILLed at random points and restarted each time, under the same outside world; then the two
data folders are compared (benchmarks/demo_compare.py, modulo the declared fields, docs/reliability.md).

Two kinds of fault, kept apart on purpose:

* the WORLD's (both runs suffer them at the same simulated instants, because the league's answer to
  them is part of what must repeat): the price provider down for a window (a snapshot row becomes
  ``unavailable``, a score cell unresolved, as the rules say), the timestamp authorities down for a
  window (the stamped list records the failed backends; the nightly upgrade retries);
* the DAEMON's (the faulted run only; the book must not show them): SIGKILL at random points (after
  the k-th book append of a process, before it, halfway through writing it, or after a random
  wall-clock delay), the disk full on
  an append (ENOSPC from the writer's own ``os.write``: BookError, the line cut back, the job failed,
  the catch-up stops and the process exits; the restart retries it), and clock steps (the simulated
  clock jumps forward inside a quiet period: before the next fire and the next reply's arrival).

A restarted simulated daemon resumes its clock where its books stopped (the latest ``at`` of the two
books' last lines): what it knows of when it died. Each child is forked by a :class:`Zygote`
(``python fault_season.py zygote``); :func:`season` runs both seasons and returns the figures.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta
from datetime import time as dtime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
START = date(2026, 6, 1)
SEED = 7

#: The season's roster: deterministic stand-ins covering every reply path of a day (on time, in flight
#: at the second wave, silent then answering the second wave, late after ingest close) and baselines.
ROSTER = """counting_rule = "The scheduled 08:30 ET morning run counts for its session."
deadline = "09:30"
second_wave = "09:00"
retry_policy = "one re-ask at the second wave for a silent seat; never a silent re-ask"

[[seat]]
name = "aurora"
adapter = "scripted"
model = "scripted-aurora-1"
options = { seed = 11, latency_s = 95 }

[[seat]]
name = "basalt"
adapter = "scripted"
model = "scripted-basalt-2"
options = { seed = 21, latency_s = 1500 }

[[seat]]
name = "cobalt"
adapter = "scripted"
model = "scripted-cobalt-3"
options = { seed = 31, mode = "second_wave", latency_s = 120 }

[[seat]]
name = "delta"
adapter = "scripted"
model = "scripted-delta-1"
options = { seed = 41, mode = "late", latency_s = 4000 }

[[seat]]
name = "_coin"
adapter = "coin"

[[seat]]
name = "_momentum"
adapter = "momentum"

[[seat]]
name = "_climatology"
adapter = "climatology"
"""


@dataclass(frozen=True)
class Window:
    """A stretch of simulated time (UTC ISO instants) during which a part of the world is down."""

    start: str
    end: str

    def covers(self, at: datetime) -> bool:
        return datetime.fromisoformat(self.start) <= at < datetime.fromisoformat(self.end)


@dataclass(frozen=True)
class World:
    """The outside world's faults, the same for both runs."""

    price_outages: tuple[Window, ...] = ()
    authority_outages: tuple[Window, ...] = ()


@dataclass(frozen=True)
class Plan:
    """One child process's faults: kill at its k-th book append (before or after the write), or after a
    wall-clock delay (set by the parent); ENOSPC on its j-th append; clock steps at fires (seeded)."""

    sessions: int
    world: World
    kill_at_append: int = 0
    kill_before_write: bool = False
    kill_mid_write: bool = False  # half the line's bytes written, then SIGKILL: a torn tail for the next open
    enospc_at_append: int = 0
    step_seed: int = 0  # 0: no clock steps


# ------------------------------------------------------------------------------- the child (a daemon)
def child(folder: Path, plan: Plan) -> int:
    """Run the season's sessions through the scheduler's catch-up under a simulated clock, then publish;
    0 when everything is done (a rerun then changes nothing), 3 when a job failed or a book could not be
    written (the caller restarts it, as systemd restarts a daemon that exited)."""
    from league.errors import BookError

    try:
        return _season_days(folder, plan)
    except BookError as exc:
        print(f"FAILED {exc}", file=sys.stderr, flush=True)
        return 3


def _season_days(folder: Path, plan: Plan) -> int:
    from fault_helpers import books_stopped_at

    from league.calendar import default_calendar, et_time
    from league.clock import SimulatedClock
    from league.compose import build_league
    from league.config import load_config
    from league.demo import add_stand_ins, demo_sessions, local_stamp_services
    from league.jobs.context import Stages
    from league.jobs.portfolio import record_bill_rates
    from league.jobs.publish import publish_now
    from league.jobs.scheduler import catch_up, session_start
    from league.jobs.seal import pump
    from league.jobs.stamp import use_services
    from league.store import open_store

    config = load_config(folder / "config")
    days = demo_sessions(default_calendar(), START, plan.sessions)
    clock = SimulatedClock(books_stopped_at(config.data_dir / "books") or session_start(days[0]))
    store = open_store(config.database_url)
    _arm_writer(plan)
    steps = random.Random(plan.step_seed) if plan.step_seed else None
    with local_stamp_services(clock) as services, \
            build_league(config, clock, stages=Stages(publish=False), store=store, anchor=days[0]) as lg:
        add_stand_ins(lg, SEED)
        lg.market.prices = _OutagePrices(lg.market.prices, clock, plan.world.price_outages)  # type: ignore[assignment]
        _authority_outages(use_services(lg, **services), clock, plan.world.authority_outages)
        if not (config.data_dir / config.settings.portfolio.bill_rates).is_file():  # the demo's set-up, once
            record_bill_rates(lg, days[0] - timedelta(days=10), days[-1])

        def before(fire: Any) -> None:
            if steps is not None:
                _step(lg, clock, fire.at, steps)
            pump(lg, fire.at)

        print("READY", file=sys.stderr, flush=True)  # the parent's timer kills start from here
        for day in days:
            ran = catch_up(lg, et_time(day, dtime(3, 0)), et_time(day + timedelta(days=1), dtime(3, 0)),
                           ledger=store, before_each=before, stop_on_failure=True)
            if any(result == "failed" for _, result in ran):
                return 3
        pump(lg, clock.now() + timedelta(days=1))
        publish_now(lg)
    return 0


def _step(lg: Any, clock: Any, fire_at: datetime, rng: random.Random) -> None:
    """A clock step forward inside the quiet period before ``fire_at`` (no reply arrives before it)."""
    if rng.random() > 0.3:
        return
    arrivals = [p.future.result().finished_at for p in lg.asking.pending]
    quiet_until = min([fire_at, *arrivals])
    gap = (quiet_until - clock.now()).total_seconds()
    if gap > 2:
        clock.set(clock.now() + timedelta(seconds=int(rng.uniform(1, gap - 1))))
        print(f"STEP {clock.now().isoformat()}", file=sys.stderr, flush=True)


class _OutagePrices:
    """The league's price source, down (PriceError) while the simulated clock is in an outage window."""

    def __init__(self, inner: Any, clock: Any, windows: tuple[Window, ...]) -> None:
        self._inner, self._clock, self._windows = inner, clock, windows

    def _check(self) -> None:
        from league.prices.interface import PriceError

        now = self._clock.now()
        if any(w.covers(now) for w in self._windows):
            raise PriceError(f"price provider outage (injected) at {now.isoformat()}")

    def bars(self, *args: Any, **kwargs: Any) -> Any:
        self._check()
        return self._inner.bars(*args, **kwargs)

    def daily_closes(self, *args: Any, **kwargs: Any) -> Any:
        self._check()
        return self._inner.daily_closes(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _authority_outages(stamper: Any, clock: Any, windows: tuple[Window, ...]) -> None:
    """Every stamp backend fails (StampError) while the simulated clock is in an outage window."""
    from league.stamps.interface import StampError

    for backend in stamper.backends:
        inner = backend.stamp

        def stamp(data: bytes, inner: Callable[[bytes], Any] = inner, name: str = backend.name) -> Any:
            now = clock.now()
            if any(w.covers(now) for w in windows):
                raise StampError(f"{name}: authority outage (injected) at {now.isoformat()}")
            return inner(data)

        backend.stamp = stamp
    stamper.config = stamper.config.model_copy(update={"retries": 1})


class _FullDisk:
    """``os`` as the book writer sees it, with ``write`` refusing once (ENOSPC): a full disk on one append."""

    def __init__(self) -> None:
        self.armed = False

    def write(self, fd: int, data: Any) -> int:
        if self.armed:
            self.armed = False
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return os.write(fd, data)

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)


def _arm_writer(plan: Plan) -> None:
    """Count this process's book appends; SIGKILL at the planned one, ENOSPC on another. The count is of
    lines put (``Book._put``), so a batch of lines written with one fsync (``Book.append_all``) is killed in
    too: before a line, in its middle or after it, before the batch's fsync."""
    import league.book.chain as chain

    disk = _FullDisk()
    chain.os = disk  # type: ignore[assignment]
    original = chain.Book._put
    count = {"n": 0}

    def write(self: Any, line: Any) -> None:
        count["n"] += 1
        n = count["n"]
        if n == plan.enospc_at_append:
            disk.armed = True
            print(f"ENOSPC append {n} {self.path.name} line {line.n}", file=sys.stderr, flush=True)
        if n == plan.kill_at_append and plan.kill_before_write:
            os.kill(os.getpid(), signal.SIGKILL)
        if n == plan.kill_at_append and plan.kill_mid_write:
            data = line.to_bytes()
            os.write(self._fd, data[: len(data) // 2])
            os.kill(os.getpid(), signal.SIGKILL)
        original(self, line)
        if n == plan.kill_at_append:
            os.kill(os.getpid(), signal.SIGKILL)

    chain.Book._put = write  # type: ignore[method-assign]


# ------------------------------------------------------------------------------- the parent
@dataclass
class Figures:
    sessions: int
    kills: int = 0
    kills_at_line: int = 0
    kills_on_timer: int = 0
    timer_kills_after_a_seal: int = 0  # the rest hit the child before its first line (starting up, resuming)
    enospc: int = 0
    failed_exits: int = 0
    steps: int = 0
    restarts: int = 0
    council_lines: int = 0
    ask_lines: int = 0
    calm_s: float = 0.0
    faulted_s: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)
    differences: list[str] = field(default_factory=list)
    exits: list[str] = field(default_factory=list)  # one line per faulted process: its plan and how it ended
    duplicates: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def make_folder(target: Path) -> Path:
    """A demo-style league folder (replay prices, local authorities, SQLite) with the season's roster."""
    from league.calendar import default_calendar
    from league.clock import SimulatedClock
    from league.demo import demo_sessions
    from league.folder import init_folder
    from league.jobs.scheduler import session_start

    first = demo_sessions(default_calendar(), START, 1)[0]
    config_dir, _ = init_folder(target, demo=True, seed=SEED, clock=SimulatedClock(session_start(first)))
    (config_dir / "roster.toml").write_text(ROSTER, encoding="utf-8")
    return target


def default_world(sessions: int) -> World:
    """Price outages over the 2nd session's score and the 3rd's snapshot; authorities down over the 1st
    session's ingest close (clear of every ask and reply of the season's roster)."""
    from league.calendar import default_calendar, et_time
    from league.demo import demo_sessions

    days = demo_sessions(default_calendar(), START, max(sessions, 3))

    def w(day: date, a: dtime, b: dtime) -> Window:
        return Window(et_time(day, a).isoformat(), et_time(day, b).isoformat())

    return World(price_outages=(w(days[1], dtime(16, 0), dtime(16, 30)), w(days[2], dtime(8, 20), dtime(8, 28))),
                 authority_outages=(w(days[0], dtime(9, 25), dtime(9, 45)),))


#: What every child daemon imports before its league opens: the zygote imports them once, and each child it forks
#: starts with them loaded (about 1.5 CPU s a child otherwise, 17 children a season).
PRELOADED = ("league.compose", "league.demo", "league.jobs.scheduler", "league.jobs.publish", "league.jobs.seal",
             "league.jobs.stamp", "league.store", "league.publish", "league.scoring", "fault_helpers")


class Zygote:
    """One process that imports :data:`PRELOADED` and then forks each child daemon on request, so a restart
    costs what a daemon's own work costs, not an interpreter's start-up and imports again.

    A forked child is a daemon process like one started from scratch for what this season tests: it holds no
    file, lock, socket or thread of the zygote's (the zygote opens none before it forks), reseeds ``random``,
    and recovers only from what is on disk. What it shares is the zygote's modules and string-hash seed.
    Each request is one line of JSON on the zygote's stdin; it answers ``PID n``, then each line the child
    writes to stderr as ``ERR ...``, then ``EXIT code`` (negative: killed by that signal) once the child's
    stderr has closed and it has been reaped."""

    def __init__(self) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), str(ROOT)]), "LEAGUE_OPS_LISTEN": "off"}
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__)), "zygote"], env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def run(self, folder: Path, plan: Plan, *, kill_after_s: float | None = None) -> tuple[int, str]:
        """One child daemon; with ``kill_after_s``, SIGKILL it that long after it said READY (its league
        open, its asks resumed: the timer then lands in its work, not in its start-up)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"folder": str(folder), "plan": _plan_json(plan)}).encode() + b"\n")
        self.proc.stdin.flush()
        first = self.proc.stdout.readline()
        if not first.startswith(b"PID "):
            raise RuntimeError(f"the zygote did not fork a child: {first!r}")
        pid, lines, ready, ended = int(first.split()[1]), [], threading.Event(), threading.Event()
        code: list[int] = []

        def read(stream: Any) -> None:
            for raw in iter(stream.readline, b""):
                if raw.startswith(b"EXIT "):
                    code.append(int(raw.split()[1]))
                    break
                lines.append(raw[4:])
                if raw.startswith(b"ERR READY"):
                    ready.set()
            ready.set()  # the child ended before it was ready
            ended.set()

        reader = threading.Thread(target=read, args=(self.proc.stdout,), daemon=True)
        reader.start()
        if kill_after_s is not None and ready.wait(300) and not ended.wait(timeout=kill_after_s):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        reader.join()
        if not code:
            raise RuntimeError(f"the zygote ended (exit {self.proc.poll()}) before child {pid} did")
        return code[0], b"".join(lines).decode("utf-8", "replace")

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)


def zygote() -> int:
    """The zygote's side of :class:`Zygote` (run as ``fault_season.py zygote``)."""
    import importlib

    for name in PRELOADED:
        importlib.import_module(name)
    if threading.active_count() != 1:  # a lock another thread holds at a fork stays held in the child
        raise SystemExit(f"an import started a thread: {threading.enumerate()}")
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        request = json.loads(line)
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            _become_child(write_end)
            sys.exit(child(Path(request["folder"]), _plan_of(request["plan"])))  # exits as a fresh process does
        os.close(write_end)
        out.write(f"PID {pid}\n".encode())
        out.flush()
        with os.fdopen(read_end, "rb") as err:
            for raw in err:
                out.write(b"ERR " + raw)
                out.flush()
        _, status = os.waitpid(pid, 0)
        out.write(f"EXIT {os.waitstatus_to_exitcode(status)}\n".encode())
        out.flush()
    return 0


def _become_child(stderr_fd: int) -> None:
    """In the forked child: stdin and stdout on /dev/null (the zygote's pipes are its own), stderr to the
    zygote's pipe, and ``random`` reseeded as a new interpreter seeds it."""
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.dup2(stderr_fd, 2)
    os.close(null)
    os.close(stderr_fd)
    random.seed()


def _plan_json(plan: Plan) -> dict[str, Any]:
    return asdict(plan)


def _plan_of(body: dict[str, Any]) -> Plan:
    world = body["world"]
    return Plan(**{**body, "world": World(tuple(Window(**x) for x in world["price_outages"]),
                                          tuple(Window(**x) for x in world["authority_outages"]))})


def season(work: Path, *, sessions: int, kills: int, seed: int, world: World | None = None,
           max_restarts: int | None = None) -> Figures:
    """Run the season uninterrupted in ``work/calm`` and with ``kills`` SIGKILLs (plus ENOSPC and clock
    steps) in ``work/faulted``; compare the two folders."""
    world = world or default_world(sessions)
    figures = Figures(sessions=sessions)
    calm, faulted = make_folder(work / "calm"), make_folder(work / "faulted")
    forks = Zygote()
    try:
        return _season(forks, calm, faulted, figures, sessions=sessions, kills=kills, seed=seed, world=world,
                       max_restarts=max_restarts)
    finally:
        forks.close()


def _season(forks: Zygote, calm: Path, faulted: Path, figures: Figures, *, sessions: int, kills: int, seed: int,
            world: World, max_restarts: int | None) -> Figures:
    t0 = time.perf_counter()
    code, err = forks.run(calm, Plan(sessions, world))
    if code != 0:
        raise RuntimeError(f"the uninterrupted season failed ({code}): {err[-3000:]}")
    figures.calm_s = time.perf_counter() - t0
    figures.council_lines = _count(calm / "data" / "books" / "council-book.jsonl")
    figures.ask_lines = _count(calm / "data" / "books" / "asks.jsonl")
    rng = random.Random(seed)
    total = figures.council_lines + figures.ask_lines
    t0 = time.perf_counter()
    limit = max_restarts or kills * 3 + 20
    while figures.restarts < limit:
        books = faulted / "data" / "books"
        sealed = _count(books / "council-book.jsonl") + _count(books / "asks.jsonl")
        room = _to_next_kill(figures.kills, kills, total, sealed)
        plan, timer = _next_plan(rng, sessions, world, room, figures, kills)
        code, err = forks.run(faulted, plan, kill_after_s=timer)
        after = _count(books / "council-book.jsonl") + _count(books / "asks.jsonl")
        progressed = after > sealed
        last = err.strip().splitlines()[-1][:300] if err.strip() else ""
        figures.exits.append(f"exit {code} after {sealed}->{after} lines; kill at append {plan.kill_at_append} "
                             f"(before {plan.kill_before_write}, mid {plan.kill_mid_write}), timer {timer}, "
                             f"enospc at {plan.enospc_at_append}: {last}")
        figures.steps += err.count("STEP ")
        figures.enospc += err.count("ENOSPC ")
        if code == 0:
            break
        figures.restarts += 1
        if code == -signal.SIGKILL:
            figures.kills += 1
            if timer is not None and timer < 120.0 and after - sealed < plan.kill_at_append:
                figures.kills_on_timer += 1
                figures.timer_kills_after_a_seal += int(progressed)
            else:
                figures.kills_at_line += 1
        elif code == 3:
            figures.failed_exits += 1
        else:
            raise RuntimeError(f"the faulted daemon exited {code}: {err[-3000:]}")
    else:
        raise RuntimeError(f"the faulted season did not finish in {limit} restarts: " + "\n".join(figures.exits[-8:]))
    figures.faulted_s = time.perf_counter() - t0
    figures.counts, figures.differences = compare(calm, faulted)
    figures.duplicates = duplicates(faulted)
    return figures


def _to_next_kill(done: int, kills: int, total: int, sealed: int) -> int:
    """How many appends this process may make before the next kill: the kills are spread evenly over the
    season's lines (the i-th near line i·total/(kills+1)), so every part of the season is killed in."""
    target = (done + 1) * total // (kills + 1)
    return max(2, target - sealed + 1)


def _next_plan(rng: random.Random, sessions: int, world: World, per_process: int, figures: Figures,
               kills: int) -> tuple[Plan, float | None]:
    """Kills until ``kills`` happened (two in three at a book append: before the write, after it, or in
    the middle of it, leaving a torn line; one in three on a wall-clock timer 0.2-4 s after the child is
    ready), a full disk (before the kill) in three processes in ten; then a clean run to the end."""
    if figures.kills >= kills:
        return Plan(sessions, world, step_seed=rng.randint(1, 10**6)), None
    full_disk = rng.random() < 0.3
    if rng.random() < 2 / 3:
        where, at = rng.choice(("before", "after", "mid")), rng.randint(1, per_process)
        enospc = rng.randint(1, at - 1) if full_disk and at > 1 else 0  # the disk fills before the kill
        return Plan(sessions, world, kill_at_append=at, kill_before_write=where == "before",
                    kill_mid_write=where == "mid", enospc_at_append=enospc, step_seed=rng.randint(1, 10**6)), 120.0
    enospc = rng.randint(1, per_process) if full_disk else 0
    # A backstop at the next planned kill's line: a fast process could otherwise finish the season before
    # its timer fires (a season of three sessions runs in about two seconds).
    return Plan(sessions, world, kill_at_append=per_process, enospc_at_append=enospc,
                step_seed=rng.randint(1, 10**6)), rng.uniform(0.2, 4.0)


def _count(path: Path) -> int:
    return len(path.read_bytes().splitlines())


def compare(calm: Path, faulted: Path) -> tuple[dict[str, int], list[str]]:
    """benchmarks/demo_compare.py's file-by-file comparison of the two data folders."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from demo_compare import compare as folder_compare
    finally:
        sys.path.pop(0)
    return folder_compare(calm, faulted, None)


def duplicates(folder: Path) -> list[str]:
    """Reply lines sealed twice for one (run, seat, attempt), or two rosters for one run: none may exist."""
    from collections import Counter

    books = folder / "data" / "books"
    book = [json.loads(x) for x in (books / "council-book.jsonl").read_bytes().splitlines()]
    chain = [json.loads(x) for x in (books / "asks.jsonl").read_bytes().splitlines()]
    keys = Counter((x["kind"] in ("answer", "silence", "incident"), x.get("run_id"), x.get("seat"), x.get("attempt"))
                   for x in book if x["kind"] in ("answer", "silence", "incident"))
    out = [f"reply {k[1:]} x{n}" for k, n in keys.items() if n > 1]
    rosters = Counter(x["run_id"] for x in chain if x["kind"] == "roster")
    return out + [f"roster {r} x{n}" for r, n in rosters.items() if n > 1]


if __name__ == "__main__":
    if sys.argv[1:2] == ["zygote"]:
        sys.exit(zygote())
    raise SystemExit("usage: fault_season.py zygote (the season itself: benchmarks/fault_season.py)")
