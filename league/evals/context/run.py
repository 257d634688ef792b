"""``league eval context``: the contextual track's run, sealed line by line in the evaluation book.

The order of a run (docs/evals.md, "C. The contextual point-forecast track"):

1. the window set is built (league.evals.context.windowset) and written as ``context-windows.json``;
2. every prompt an asking seat will receive (window × arm × mode) is rendered and stored under its SHA-256
   (``prompts/``);
3. ``ctx.open`` is sealed — the run, its seats, arms, modes, the window set's file SHA-256 and seal, every
   window's and effects record's SHA-256, the reference forecaster of each window, every prompt hash — BEFORE
   any seat is asked;
4. the baselines answer (league.evals.context.baselines) and the asking seats are asked, per seat × window × arm
   × mode, concurrently (at most ``concurrency`` at once); each reply is sealed the moment it arrives as a
   ``ctx.reply`` line (prompt hash, raw-reply hash — the raw text stored under it in ``replies/`` —, the parsed
   path's hash — the path stored as JSON in ``paths/`` —, its fit to the horizon, how the ask ended, the error);
   an editing step is sealed as it happens as a ``ctx.step`` line (its code stored in ``steps/``);
5. the results are computed from the book and the window set alone (league.evals.context.report), published,
   and ``ctx.close`` seals the SHA-256 of ``context-results.json``.

How a seat is asked is the asking module's (league.evals.context.ask: the prompt, the editing loop, the reply's
parsing). This module reaches it through :class:`AskPort`, the interface that module states; until it is
installed, only the baselines can run (:func:`load_port`).
"""

from __future__ import annotations

import csv
import importlib
import importlib.util
import inspect
import io
import json
import math
import shutil
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, fields
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import Final, Protocol, cast

from league.book import iter_lines
from league.clock import Clock, iso_seconds
from league.evals.context.baselines import baseline, is_baseline
from league.evals.context.report import ROW_COLUMNS, results
from league.evals.context.scores import fit
from league.evals.context.windowset import CtxEntry, WindowSet, shown_effects
from league.evals.errors import EvalError
from league.jsonvalue import Json, JsonObject, items
from league.seatcore.files import read_json, sha256_text, store_text, write_atomic, write_json
from league.seatcore.ledger import TrackBook
from league_agents.base import Now, Seat
from sandbox.interface import Sandbox

OPEN: Final = "ctx.open"
REPLY: Final = "ctx.reply"
STEP: Final = "ctx.step"
CLOSE: Final = "ctx.close"
BOOK_NAME: Final = "eval-book.jsonl"
ASK_MODULE: Final = "league.evals.context.ask"
WINDOWS_FILE: Final = "context-windows.json"
RESULTS_FILE: Final = "context-results.json"
SCORES_FILE: Final = "context-scores.csv"


@dataclass(frozen=True)
class QuestionFields:
    """What one ask carries (the fields of the asking module's ``PathQuestion``, same names, same order)."""

    window_id: str
    arm: str
    mode: str
    history: tuple[float, ...]
    history_timestamps: tuple[str, ...]
    future_timestamps: tuple[str, ...]
    stated_range: tuple[float, float] | None
    effects: dict[str, object] | None
    base: tuple[float, ...] | None


class StepLike(Protocol):
    """An editing step as the asking module reports it (its ``EditStep``)."""

    @property
    def index(self) -> int: ...
    @property
    def code(self) -> str: ...
    @property
    def ok(self) -> bool: ...
    @property
    def error(self) -> str | None: ...
    @property
    def path_sha256(self) -> str | None: ...


class ReplyLike(Protocol):
    """A seat's reply as the asking module reports it (its ``PathReply``)."""

    @property
    def prompt_sha256(self) -> str: ...
    @property
    def raw(self) -> str: ...
    @property
    def values(self) -> tuple[float, ...] | None: ...
    @property
    def error(self) -> str | None: ...
    @property
    def steps(self) -> Sequence[StepLike]: ...
    @property
    def ended(self) -> str: ...


class AskPort(Protocol):
    """How the run reaches the asking module: the exact prompt text of a question, and one ask (never raises)."""

    def text(self, q: QuestionFields) -> str: ...

    def ask(self, seat: Seat, q: QuestionFields, *, sandbox: Sandbox, now: Now,
            on_step: Callable[[StepLike], None] | None = None,
            on_ask: Callable[[str], None] | None = None) -> ReplyLike: ...


class ModulePort:
    """:class:`AskPort` over the asking module (``ask_text``, ``ask_path``, ``PathQuestion``)."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module

    def _question(self, q: QuestionFields) -> object:
        build = cast(Callable[..., object], self.module.PathQuestion)
        return build(**{f.name: getattr(q, f.name) for f in fields(q)})

    def text(self, q: QuestionFields) -> str:
        return str(cast(Callable[[object], str], self.module.ask_text)(self._question(q)))

    def ask(self, seat: Seat, q: QuestionFields, *, sandbox: Sandbox, now: Now,
            on_step: Callable[[StepLike], None] | None = None,
            on_ask: Callable[[str], None] | None = None) -> ReplyLike:
        """One ask; ``on_ask`` (every ask's text, the editing loop's later asks too) is passed on when the
        module's ``ask_path`` takes it."""
        ask_path = cast(Callable[..., ReplyLike], self.module.ask_path)
        extra: dict[str, Callable[[str], None]] = {}
        if on_ask is not None and "on_ask" in inspect.signature(ask_path).parameters:
            extra["on_ask"] = on_ask
        return ask_path(seat, self._question(q), sandbox=sandbox, now=now, on_step=on_step, **extra)


def load_port() -> AskPort | None:
    """The asking module's port, or None while it is not installed (then only baselines run)."""
    if importlib.util.find_spec(ASK_MODULE) is None:
        return None
    return ModulePort(importlib.import_module(ASK_MODULE))


@dataclass(frozen=True)
class AskingSeat:
    """A seat to ask, built on its sandbox under the run's policy, with its own concurrency limit."""

    name: str
    seat: Seat
    adapter: str
    model: str
    limit: int = 1


@dataclass(frozen=True)
class CtxOptions:
    arms: tuple[str, ...]
    modes: tuple[str, ...]
    concurrency: int = 4
    policy: str = "none"
    retrieval: str = "closed-book"


@dataclass(frozen=True)
class CtxRun:
    run_id: str
    public: Path
    results: JsonObject
    results_sha256: str
    rows: list[tuple[str, str, str, str, str]]


def question(entry: CtxEntry, arm: str, mode: str) -> QuestionFields:
    """The ask for one window, arm and mode: direct states the range, editing gives the ETS base path."""
    w = entry.window
    shown = shown_effects(entry.effects, arm)
    effects: dict[str, object] | None = None if shown is None else dict(shown)
    return QuestionFields(entry.window_id, arm, mode, w.history, w.history_timestamps, w.future_timestamps,
                          entry.stated_range if mode == "direct" else None, effects,
                          entry.reference if mode == "editing" else None)


def path_bytes(values: Sequence[float]) -> bytes:
    """A path's stored bytes: compact JSON list of its floats (exact ``repr``), hashed into ``path_sha256``."""
    return json.dumps([float(v) for v in values], separators=(",", ":"), allow_nan=False).encode("ascii")


@dataclass
class _Run:
    run_id: str
    book: TrackBook
    out: Path
    clock: Clock
    sets: WindowSet
    sandbox: Sandbox | None
    port: AskPort | None

    def store_prompt(self, text: str) -> None:
        """Every ask's text under its hash in ``prompts/`` (the editing loop's later asks are not in ctx.open)."""
        store_text(self.out / "prompts", text)

    def store_path(self, values: Sequence[float] | None) -> tuple[str | None, str | None]:
        """(path hash, error): a path with a non-finite value is not stored and is sealed as an error."""
        if values is None:
            return None, None
        if not all(isinstance(v, int | float) and math.isfinite(v) for v in values):
            return None, "the path holds a non-finite value"
        data = path_bytes(values)
        return store_text(self.out / "paths", data.decode("ascii")), None

    def seal(self, seat: str, entry: CtxEntry, arm: str, mode: str, *, prompt_sha: str | None, raw: str,
             values: Sequence[float] | None, error: str | None, ended: str, steps: int, started: str) -> None:
        raw_sha = store_text(self.out / "replies", raw) if raw.strip() else None
        path_sha, path_error = self.store_path(values)
        _, how = fit(tuple(values) if path_sha is not None and values is not None else None, entry.window.horizon)
        self.book.append(REPLY, {
            "run_id": self.run_id, "seat": seat, "window_id": entry.window_id, "arm": arm, "mode": mode,
            "prompt_sha256": prompt_sha, "raw_sha256": raw_sha, "path_sha256": path_sha,
            "path_steps": len(values) if path_sha is not None and values is not None else 0, "fit": how,
            "ended": ended, "error": (error or path_error or "")[:1000], "edit_steps": steps,
            "started_at": started, "finished_at": iso_seconds(self.clock.now())})

    def answer_baseline(self, name: str, entry: CtxEntry) -> None:
        started = iso_seconds(self.clock.now())
        try:
            path = entry.reference if name == "_ets" else tuple(
                baseline(name, entry.season).forecast(entry.window.history, entry.window.horizon))
            error = None
        except Exception as exc:  # noqa: BLE001 - a model that fails to fit is a sealed error, not a crash
            path, error = None, f"{type(exc).__name__}: {exc}"
        self.seal(name, entry, "history", "direct", prompt_sha=None, raw="", values=path, error=error,
                  ended="answered" if path is not None else "no_answer", steps=0, started=started)

    def ask(self, seat: AskingSeat, entry: CtxEntry, arm: str, mode: str) -> None:
        if self.port is None or self.sandbox is None:
            raise EvalError("no asking module", fix="install league.evals.context.ask")
        port, sandbox = self.port, self.sandbox
        q = question(entry, arm, mode)
        started = iso_seconds(self.clock.now())

        def on_step(step: StepLike) -> None:
            self.book.append(STEP, {
                "run_id": self.run_id, "seat": seat.name, "window_id": entry.window_id, "arm": arm, "mode": mode,
                "index": step.index, "code_sha256": store_text(self.out / "steps", step.code), "ok": step.ok,
                "error": (step.error or "")[:1000], "path_sha256": step.path_sha256})

        try:
            reply = port.ask(seat.seat, q, sandbox=sandbox, now=self.clock.now, on_step=on_step,
                             on_ask=lambda text: self.store_prompt(text))
        except Exception as exc:  # noqa: BLE001 - the port never raises; if it does, the reply is an error
            self.seal(seat.name, entry, arm, mode, prompt_sha=sha256_text(port.text(q)), raw="", values=None,
                      error=f"{type(exc).__name__}: {exc}", ended="no_answer", steps=0, started=started)
            return
        self.seal(seat.name, entry, arm, mode, prompt_sha=reply.prompt_sha256, raw=reply.raw, values=reply.values,
                  error=reply.error, ended=reply.ended, steps=len(reply.steps), started=started)


def _runs(path: Path) -> int:
    return sum(1 for line in iter_lines(path) if line.kind == OPEN) if path.is_file() else 0


def _open_line(run_id: str, sets: WindowSet, windows_sha: str, baselines: Sequence[str],
               seats: Sequence[AskingSeat], opts: CtxOptions, prompts: Mapping[str, str]) -> JsonObject:
    windows: list[Json] = [
        {"id": e.window_id, "sha256": e.window.sha256, "effects_sha256": e.effects_sha256,
         "reference": e.reference_name, "rmae": e.rmae} for e in sets.entries]
    asked: list[Json] = [{"name": s.name, "adapter": s.adapter, "model": s.model} for s in seats]
    return {"run_id": run_id, "track": "gift-eval-ctx", "windows_file": WINDOWS_FILE, "windows_sha256": windows_sha,
            "set_sha256": sets.seal, "windows": windows, "baselines": list(baselines), "seats": asked,
            "arms": list(opts.arms), "modes": list(opts.modes), "policy": opts.policy,
            "retrieval": opts.retrieval, "concurrency": opts.concurrency, "prompts": dict(prompts)}


def _path_reader(folder: Path) -> Callable[[str], tuple[float, ...]]:
    def path_of(sha: str) -> tuple[float, ...]:
        values = json.loads((folder / f"{sha}.txt").read_text(encoding="ascii"))
        return tuple(float(v) for v in values)
    return path_of


def _csv(rows: Sequence[tuple[str, str, str, str, str]]) -> bytes:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(ROW_COLUMNS)
    writer.writerows(rows)
    return buf.getvalue().encode("utf-8")


def run_context(sets: WindowSet, out: Path, clock: Clock, opts: CtxOptions, *, baselines: Sequence[str] = (),
                seats: Sequence[AskingSeat] = (), port: AskPort | None = None,
                sandbox: Sandbox | None = None, say: Callable[[str], None] = lambda _: None) -> CtxRun:
    """Run the baselines and seats on the window set; everything sealed in ``out/eval-book.jsonl``."""
    unknown = [b for b in baselines if not is_baseline(b)]
    if unknown:
        raise EvalError(f"unknown baseline(s) {unknown}", fix="the baselines are _naive, _ets, _theta")
    if seats and (port is None or sandbox is None):
        raise EvalError(f"asking {seats[0].name!r} needs the asking module {ASK_MODULE}, not installed here",
                        fix="run the baselines only (--seat _naive --seat _ets --seat _theta) or install it")
    if not sets.entries:
        raise EvalError(f"no hard window among {sets.candidates} candidates (dropped: {sets.dropped})",
                        fix="use longer series, other horizons or buckets")
    out.mkdir(parents=True, exist_ok=True)
    doc = sets.as_json()
    windows_sha = write_json(out / WINDOWS_FILE, doc)
    prompts: dict[str, str] = {}
    if seats and port is not None:
        for e in sets.entries:
            for arm in opts.arms:
                for mode in opts.modes:
                    prompts[f"{e.window_id}|{arm}|{mode}"] = store_text(out / "prompts",
                                                                         port.text(question(e, arm, mode)))
    run_id = f"c{_runs(out / BOOK_NAME) + 1:03d}"
    with TrackBook(out / BOOK_NAME, clock) as book:
        book.append(OPEN, _open_line(run_id, sets, windows_sha, baselines, seats, opts, prompts))
        say(f"{run_id}: {len(sets.entries)} hard windows of {sets.candidates} candidates, "
            f"{len(baselines)} baselines, {len(seats)} seats × {len(opts.arms)} arms × {len(opts.modes)} modes")
        run = _Run(run_id, book, out, clock, sets, sandbox, port)
        for name in baselines:
            for e in sets.entries:
                run.answer_baseline(name, e)
        limits = {s.name: threading.Semaphore(max(1, s.limit)) for s in seats}

        def job(args: tuple[AskingSeat, CtxEntry, str, str]) -> None:
            with limits[args[0].name]:
                run.ask(*args)

        jobs = [(s, e, arm, mode) for s in seats for e in sets.entries for arm in opts.arms for mode in opts.modes]
        with ThreadPoolExecutor(max_workers=max(1, opts.concurrency), thread_name_prefix="ctx") as pool:
            list(pool.map(job, jobs))
        return _finish(book, run_id, out, doc, windows_sha)


def _finish(book: TrackBook, run_id: str, out: Path, doc: JsonObject, windows_sha: str) -> CtxRun:
    replies = [{**line.content, "n": line.n} for line in iter_lines(book.path)
               if line.kind == REPLY and line.content.get("run_id") == run_id]
    opened = next(line for line in iter_lines(book.path) if line.kind == OPEN and line.content["run_id"] == run_id)
    figures, rows = results(replies, doc, _path_reader(out / "paths"))
    public = out / "public" / "context" / run_id
    res: JsonObject = {
        "run_id": run_id, "track": "gift-eval-ctx", "windows_sha256": windows_sha,
        "set_sha256": opened.content["set_sha256"], "windows": len(items(doc["windows"])),
        "candidates": doc["candidates"], "dropped": doc["dropped"], "baselines": opened.content["baselines"],
        "seats": opened.content["seats"], "arms": opened.content["arms"], "modes": opened.content["modes"],
        "retrieval": opened.content["retrieval"], "opened_line": opened.n, "reply_lines": len(replies),
        "figures": figures}
    digest = write_json(public / RESULTS_FILE, res)
    write_atomic(public / SCORES_FILE, _csv(rows))
    shutil.copyfile(out / WINDOWS_FILE, public / WINDOWS_FILE)
    for sub in ("prompts", "replies", "paths", "steps"):
        for src in sorted((out / sub).glob("*.txt")) if (out / sub).is_dir() else []:
            dst = public / sub / src.name
            dst.parent.mkdir(parents=True, exist_ok=True)
            if not dst.exists():
                shutil.copyfile(src, dst)
    book.append(CLOSE, {"run_id": run_id, "replies": len(replies), "results_sha256": digest})
    write_atomic(public / BOOK_NAME, book.path.read_bytes())
    tool = resources.files("league.evals").joinpath("tools/recount_context.py").read_bytes()
    write_atomic(public / "tools" / "recount_context.py", tool)
    return CtxRun(run_id, public, res, digest, rows)


def read_results(public: Path) -> JsonObject:
    """A published run's ``context-results.json``."""
    doc: JsonObject = read_json(public / RESULTS_FILE, what="contextual results")
    return doc
