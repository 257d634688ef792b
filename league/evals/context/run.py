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
parsing); this module builds each :class:`~league.evals.context.ask.PathQuestion` and seals what
:func:`~league.evals.context.ask.ask_path` reports.
"""

from __future__ import annotations

import csv
import io
import json
import math
import shutil
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Final

from league.book import iter_lines
from league.clock import Clock, iso_seconds
from league.evals.context.ask import EditStep, PathQuestion, ask_path, ask_text
from league.evals.context.baselines import baseline, is_baseline
from league.evals.context.report import ROW_COLUMNS, results
from league.evals.context.scores import fit
from league.evals.context.validate import InvalidEffect, validate
from league.evals.context.windowset import CtxEntry, WindowSet, shown_effects
from league.evals.errors import EvalError
from league.jsonvalue import Json, JsonObject, as_float, as_int, items, obj, text
from league.jsonvalue import path as json_path
from league.seatcore.files import read_json, sha256_text, store_text, write_atomic, write_json
from league.seatcore.ledger import TrackBook
from league_agents.base import Seat
from sandbox.interface import Sandbox

OPEN: Final = "ctx.open"
REPLY: Final = "ctx.reply"
STEP: Final = "ctx.step"
CLOSE: Final = "ctx.close"
BOOK_NAME: Final = "eval-book.jsonl"
WINDOWS_FILE: Final = "context-windows.json"
RESULTS_FILE: Final = "context-results.json"
SCORES_FILE: Final = "context-scores.csv"


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


def question(entry: CtxEntry, arm: str, mode: str) -> PathQuestion:
    """The ask for one window, arm and mode: direct states the range, editing gives the ETS base path."""
    w = entry.window
    shown = shown_effects(entry.effects, arm)
    effects: dict[str, object] | None = None if shown is None else dict(shown)
    return PathQuestion(entry.window_id, arm, mode, w.history, w.history_timestamps, w.future_timestamps,
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
        if self.sandbox is None:
            raise EvalError(f"asking {seat.name!r} needs a sandbox", fix="pass run_context a sandbox")
        sandbox = self.sandbox
        q = question(entry, arm, mode)
        started = iso_seconds(self.clock.now())

        def on_step(step: EditStep) -> None:
            self.book.append(STEP, {
                "run_id": self.run_id, "seat": seat.name, "window_id": entry.window_id, "arm": arm, "mode": mode,
                "index": step.index, "code_sha256": store_text(self.out / "steps", step.code), "ok": step.ok,
                "error": (step.error or "")[:1000], "path_sha256": step.path_sha256})

        try:
            reply = ask_path(seat.seat, q, sandbox=sandbox, now=self.clock.now, on_step=on_step,
                             on_ask=self.store_prompt)
        except Exception as exc:  # noqa: BLE001 - ask_path never raises for the seat; the book's own failure does
            self.seal(seat.name, entry, arm, mode, prompt_sha=sha256_text(ask_text(q)), raw="", values=None,
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
                seats: Sequence[AskingSeat] = (), sandbox: Sandbox | None = None,
                say: Callable[[str], None] = lambda _: None) -> CtxRun:
    """Run the baselines and seats on the window set; everything sealed in ``out/eval-book.jsonl``."""
    unknown = [b for b in baselines if not is_baseline(b)]
    if unknown:
        raise EvalError(f"unknown baseline(s) {unknown}", fix="the baselines are _naive, _ets, _theta")
    if seats and sandbox is None:
        raise EvalError(f"asking {seats[0].name!r} needs a sandbox to run the seats in",
                        fix="pass run_context a sandbox (league_agents.registry.make_sandbox)")
    if not sets.entries:
        raise EvalError(f"no hard window among {sets.candidates} candidates (dropped: {sets.dropped})",
                        fix="use longer series, other horizons or buckets")
    out.mkdir(parents=True, exist_ok=True)
    doc = sets.as_json()
    windows_sha = write_json(out / WINDOWS_FILE, doc)
    prompts: dict[str, str] = {}
    if seats:
        for e in sets.entries:
            for arm in opts.arms:
                for mode in opts.modes:
                    prompts[f"{e.window_id}|{arm}|{mode}"] = store_text(out / "prompts",
                                                                         ask_text(question(e, arm, mode)))
    run_id = f"c{_runs(out / BOOK_NAME) + 1:03d}"
    with TrackBook(out / BOOK_NAME, clock) as book:
        book.append(OPEN, _open_line(run_id, sets, windows_sha, baselines, seats, opts, prompts))
        say(f"{run_id}: {len(sets.entries)} hard windows of {sets.candidates} candidates, "
            f"{len(baselines)} baselines, {len(seats)} seats × {len(opts.arms)} arms × {len(opts.modes)} modes")
        run = _Run(run_id, book, out, clock, sets, sandbox)
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
    _index(out / "public", res, digest)
    tool = resources.files("league.evals").joinpath("tools/recount_context.py").read_bytes()
    write_atomic(public / "tools" / "recount_context.py", tool)
    return CtxRun(run_id, public, res, digest, rows)


def _index(public: Path, res: JsonObject, digest: str) -> None:
    """List the run in the evaluation index (``OUT/public/index.json``, the questions track's), marked with its
    track so the questions' recount leaves it to ``tools/recount_context.py`` of its own folder."""
    run_id = text(res["run_id"])
    names: list[Json] = [*items(res["baselines"]), *(obj(s).get("name") for s in items(res["seats"]))]
    entry: JsonObject = {"run_id": run_id, "track": "gift-eval-ctx", "seats": names, "retrieval": res["retrieval"],
                         "windows": res["windows"], "results": f"context/{run_id}/{RESULTS_FILE}",
                         "results_sha256": digest, "recount": f"context/{run_id}/tools/recount_context.py"}
    path = public / "index.json"
    index: list[JsonObject] = read_json(path, what="evaluation index") if path.exists() else []
    write_json(path, [e for e in index if e.get("run_id") != run_id] + [entry])


def read_results(public: Path) -> JsonObject:
    """A published run's ``context-results.json``."""
    doc: JsonObject = read_json(public / RESULTS_FILE, what="contextual results")
    return doc


def _floats(value: Json | None) -> tuple[float, ...]:
    return tuple(as_float(v) for v in items(value))


def revalidate_effects(public: Path) -> tuple[int, list[str]]:
    """Re-validate every effects record of a published run's window set with :func:`validate` (the numpy
    validator the run itself applied before sealing): (windows checked, one problem line per window whose record
    does not hold, naming the key and the recomputed value). The stand-alone recount checks the records'
    hashes and bounds with the standard library only; this recomputes the values themselves."""
    doc: JsonObject = read_json(public / WINDOWS_FILE, what="the contextual window set")
    run_id = public.name
    problems: list[str] = []
    windows = items(doc.get("windows"))
    for raw in windows:
        w = obj(raw)
        season = as_int(w.get("season", 1))
        try:
            validate(obj(w.get("effects")), _floats(w.get("history")), _floats(w.get("future")),
                     _floats(json_path(w, "reference", "path")), season if season >= 2 else None)
        except InvalidEffect as exc:
            problems.append(f"DIFFERS {run_id}: window {text(w.get('id'))}: effects {exc}")
        except (TypeError, ValueError) as exc:
            problems.append(f"DIFFERS {run_id}: window {text(w.get('id'))}: effects cannot be read: {exc}")
    return len(windows), problems
