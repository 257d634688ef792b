"""Asking a seat for a window's forecast path (GIFT-Eval-CTX), in direct or editing mode; never raises.

The seat is asked through the seat core (:func:`league_agents.base.ask_one`), so a vendor CLI runs in its own
sandbox under the run's policy exactly as in the questions track; the prompt texts are
:mod:`league.evals.context.pathprompt`, the reading rules :mod:`league.evals.context.pathparse`.

**Direct mode**: one ask; the reply's JSON array is the path (any non-zero length: the scores fit it).

**Editing mode** (the model edits a statistical base forecast with code): a loop of at most
:data:`~league.evals.context.pathprompt.MAX_EDIT_STEPS` asks. Each reply is one Python program, run by the
league in the sandbox (:mod:`league.evals.context.editing`), or ``DONE``. Every reply is one
:class:`EditStep` (``index`` from 1), handed to ``on_step`` the moment it is known so the pipeline can seal it:
a program that ran is ``ok`` with the SHA-256 of the path it left (the canonical JSON of
:func:`~league.evals.context.pathprompt.canonical_path`); a program that failed, a reply without a program and a
seat that fell silent are ``ok = False`` with the ``error`` (the path is kept); ``DONE`` is a step of code
``"DONE"``, ``ok`` with the final path's digest. The final path is the last good one (the base if no program
ran). The loop ends at DONE, at the cap, or when the seat gives no reply (it is not asked again).

**How a reply ended** (``PathReply.ended``):

- ``answered``: a path was read (direct), or the seat took part in the editing (at least one program or DONE:
  the path is the last good one, perhaps the base);
- ``refused``: replies came but held no path (direct: the reason is ``error``; editing: no reply held a program
  or DONE). A malformed reply is "refused" in this sense: it is sealed as received and scored as missing;
- ``no_answer``: the seat gave no reply at all (silence, timeout, crash, an incident; ``error`` says which), or
  the sandbox could not run an editing program (``error`` starts ``sandbox incident:``; the loop stops there and
  no path is kept: the base is not the seat's answer).

``raw`` is the reply as received (direct), or every reply of the loop, each after a line ``### step N``
(editing). ``prompt_sha256`` is the SHA-256 of :func:`ask_text` (the direct prompt or the first editing ask;
later editing asks are that text's facts plus the steps so far, :func:`~.pathprompt.edit_text`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal, TypeVar

from league.evals.context.editing import run_program
from league.evals.context.pathparse import parse_path, parse_step
from league.evals.context.pathprompt import (
    ARMS,
    MAX_EDIT_STEPS,
    MAX_FEEDBACK_CHARS,
    MODES,
    PathQuestion,
    StepRecord,
    arm_effects,
    ask_text,
    canonical_path,
    edit_text,
)
from league_agents.base import Ask, Now, Seat, SeatReply, ask_one
from sandbox.interface import Sandbox

__all__ = ["ARMS", "MODES", "EditStep", "PathQuestion", "PathReply", "arm_effects", "ask_path", "ask_text",
           "parse_path"]

Ended = Literal["answered", "no_answer", "refused"]
T = TypeVar("T")
DONE: Final = "DONE"


@dataclass(frozen=True)
class EditStep:
    """One reply of the editing loop: its program (or ``DONE``, or ``""``), whether it ran, why not, the path."""

    index: int
    code: str
    ok: bool
    error: str | None
    path_sha256: str | None


@dataclass(frozen=True)
class PathReply:
    """What came of one path question (the module docstring says each field)."""

    prompt_sha256: str
    raw: str
    values: tuple[float, ...] | None
    error: str | None
    steps: tuple[EditStep, ...]
    ended: Ended


def sha256_text(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


def path_sha256(values: tuple[float, ...]) -> str:
    return sha256_text(canonical_path(values))


def _ask(q: PathQuestion, text: str, step: int) -> Ask:
    context = {"kind": "eval-ctx", "window_id": q.window_id, "arm": q.arm, "mode": q.mode, "step": step}
    return Ask(text=text, sha256=sha256_text(text), session=f"ctx-{q.window_id}", attempt=step, context=context)


def _silence(reply: SeatReply) -> str:
    why = reply.failure.value if reply.failure else "silent"
    return f"no reply ({why}{': ' + reply.detail[:300] if reply.detail else ''})"


class _HookFailed(Exception):
    """The caller's own ``on_step``/``on_ask`` raised: carried past the catch-all, re-raised as it was."""


def _hooked(fn: Callable[[T], None] | None) -> Callable[[T], None]:
    def call(arg: T) -> None:
        if fn is None:
            return
        try:
            fn(arg)
        except Exception as exc:
            raise _HookFailed from exc

    return call


def ask_path(seat: Seat, q: PathQuestion, *, sandbox: Sandbox, now: Now,
             on_step: Callable[[EditStep], None] | None = None,
             on_ask: Callable[[str], None] | None = None) -> PathReply:
    """Ask ``seat`` for the path of ``q``; ``sandbox`` runs editing programs (never the seat: the seat runs in
    its own). ``on_ask`` receives every ask's text before it leaves (so each can be stored under its hash).
    Never raises for the seat, its replies or the sandbox: a failure of this module's own code is a
    ``no_answer`` naming it. What ``on_step`` or ``on_ask`` raise (the caller's own: a book that cannot be
    written) propagates unchanged."""
    first = ask_text(q)
    try:
        if q.mode == "direct":
            return _direct(seat, q, first, now, _hooked(on_ask))
        return _editing(seat, q, first, sandbox, now, _hooked(on_step), _hooked(on_ask))
    except _HookFailed as hook:
        assert hook.__cause__ is not None
        raise hook.__cause__ from None
    except Exception as exc:  # noqa: BLE001 - one window must not stop a run; the reply names the failure
        return PathReply(sha256_text(first), "", None, f"internal error: {type(exc).__name__}: {exc}"[:500], (),
                         "no_answer")


def _direct(seat: Seat, q: PathQuestion, text: str, now: Now, on_ask: Callable[[str], None]) -> PathReply:
    on_ask(text)
    reply = ask_one(seat, _ask(q, text, 1), now)
    if reply.silent:
        return PathReply(sha256_text(text), reply.raw, None, _silence(reply), (), "no_answer")
    values, error = parse_path(reply.raw, q.horizon)
    return PathReply(sha256_text(text), reply.raw, values, error, (), "answered" if values else "refused")


def _editing(seat: Seat, q: PathQuestion, first: str, sandbox: Sandbox, now: Now,
             on_step: Callable[[EditStep], None], on_ask: Callable[[str], None]) -> PathReply:
    current = tuple(q.base or ())
    shown: list[StepRecord] = []
    steps: list[EditStep] = []
    raws: list[str] = []
    engaged = False
    silent_error: str | None = None

    def record(step: EditStep) -> None:
        steps.append(step)
        on_step(step)

    for index in range(1, MAX_EDIT_STEPS + 1):
        text = first if index == 1 else edit_text(q, shown, current)
        on_ask(text)
        reply = ask_one(seat, _ask(q, text, index), now)
        raws.append(f"### step {index}\n{reply.raw}")
        if reply.silent:
            silent_error = _silence(reply)
            record(EditStep(index, "", False, silent_error, None))
            break
        parsed = parse_step(reply.raw)
        if parsed.code is None:
            if parsed.done and parsed.error is None:
                engaged = True
                record(EditStep(index, DONE, True, None, path_sha256(current)))
                break
            error = parsed.error or "no program"
            record(EditStep(index, "", False, error, None))
            shown.append(StepRecord("# (no program)", f"error: {error}"))
            if parsed.done:
                break
            continue
        engaged = True
        result = run_program(sandbox, parsed.code, current, q.history)
        if result.incident:  # the league could not run the program: no verdict on the seat, no path
            record(EditStep(index, parsed.code, False, result.error, None))
            return PathReply(sha256_text(first), "\n".join(raws), None, result.error, tuple(steps), "no_answer")
        if result.values is not None:
            current = result.values
            record(EditStep(index, parsed.code, True, None, path_sha256(current)))
            shown.append(StepRecord(parsed.code, "ok, the current path below is its output"))
        else:
            error = result.error or "the program failed"
            record(EditStep(index, parsed.code, False, error, None))
            shown.append(StepRecord(parsed.code, f"error, path unchanged: {error[-MAX_FEEDBACK_CHARS:]}"))
        if parsed.done:
            break
    raw = "\n".join(raws)
    if engaged:
        return PathReply(sha256_text(first), raw, current, None, tuple(steps), "answered")
    if silent_error is not None and len(steps) == 1:
        return PathReply(sha256_text(first), raw, None, silent_error, tuple(steps), "no_answer")
    return PathReply(sha256_text(first), raw, None, silent_error or "no reply held a program or DONE", tuple(steps),
                     "refused")
