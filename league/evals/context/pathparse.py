"""Reading a path, or an editing step, from a seat's raw reply. Pure; never repairs, never raises.

**A direct reply** (:func:`parse_path`): the text read is the content of the reply's LAST fenced code block
(```` ``` ```` or ```` ```json ````) when the reply has one, else the whole reply; that text, stripped, must be
exactly one JSON array. Prose around a fenced block is tolerated (CLIs often add a sentence); prose around a bare
array is not (the ask says "the array alone, or alone in one code block"), so the rule is one sentence long and
the same for every seat. Every element must be a JSON number (not a boolean, not a string) and finite: ``NaN``,
``Infinity`` and numbers that overflow a float are refused. The LENGTH is not checked here: the scores fit a path
to the horizon (truncated or padded, and counted, league.evals.context.scores.fit); :func:`parse_path` only says
in its result how long it is. An empty array is no path. A reply that breaks a rule reads as no path with the
reason; the raw reply is sealed as received either way.

**An editing reply** (:func:`parse_step`): the LAST fenced code block is the program (```` ```python ````,
```` ```py ```` or a bare fence); without a block, a reply whose last non-empty line is ``DONE`` (backticks,
asterisks and a full stop around it are ignored, any case) ends the editing; a block followed by a last line
``DONE`` is run and then ends the editing. Anything else is a step without a program.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

from league.evals.context.pathprompt import MAX_PROGRAM_CHARS

FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)```", re.S)


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a finite number")


def _last_block(raw: str) -> re.Match[str] | None:
    blocks = list(FENCE.finditer(raw))
    return blocks[-1] if blocks else None


def parse_path(raw: str, horizon: int) -> tuple[tuple[float, ...] | None, str | None]:
    """(values, None) for a readable path of any non-zero length, else (None, the reason).

    ``horizon`` only words the reasons (a path's length is fitted by the scores, not refused here)."""
    block = _last_block(raw)
    body = (block.group(2) if block else raw).strip()
    where = "the last code block" if block else "the reply"
    if not body.startswith("["):
        return None, f"{where} is not a JSON array of {horizon} numbers"
    try:
        doc = json.loads(body, parse_constant=_reject_constant)
    except ValueError as exc:
        return None, f"{where} is not one JSON array ({str(exc)[:200]})"
    if not isinstance(doc, list):
        return None, f"{where} is not a JSON array"
    if not doc:
        return None, "the array is empty"
    values: list[float] = []
    for i, v in enumerate(doc):
        if isinstance(v, bool) or not isinstance(v, int | float):
            return None, f"element {i} is {json.dumps(v)[:40]}, not a number"
        f = float(v)
        if not math.isfinite(f):
            return None, f"element {i} is not a finite number"
        values.append(f)
    return tuple(values), None


@dataclass(frozen=True)
class StepReply:
    """What one editing reply asks for: a program to run (``code``), the end (``done``), both, or neither."""

    code: str | None
    done: bool
    error: str | None  # why the reply holds no usable program (None when it holds one, or is a plain DONE)


def _is_done(line: str) -> bool:
    return line.strip().strip("`*_.!").strip().upper() == "DONE"


def parse_step(raw: str) -> StepReply:
    """The program (or DONE) of one editing reply, by the rules of the module docstring."""
    block = _last_block(raw)
    if block is None:
        lines = [x for x in raw.splitlines() if x.strip()]
        if lines and _is_done(lines[-1]):
            return StepReply(None, True, None)
        return StepReply(None, False, "the reply holds no ```python block and is not DONE")
    tail = [x for x in raw[block.end():].splitlines() if x.strip()]
    done = bool(tail) and _is_done(tail[-1])
    lang = block.group(1).lower()
    code = block.group(2)
    if lang not in ("", "python", "py", "python3"):
        return StepReply(None, done, f"the last code block is {lang}, not Python")
    if not code.strip():
        return StepReply(None, done, "the code block is empty")
    if len(code) > MAX_PROGRAM_CHARS:
        return StepReply(None, done, f"the program has {len(code)} characters, more than {MAX_PROGRAM_CHARS}")
    return StepReply(code, done, None)
