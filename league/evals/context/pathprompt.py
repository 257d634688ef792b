"""What a seat is asked for a window's forecast path (GIFT-Eval-CTX), in both modes. Pure: no I/O, no clock.

A :class:`PathQuestion` is one (window, arm, mode): the history, the future's timestamps, the raw-unit range the
future lies in, the effects the arm shows and, in editing mode, the statistical base forecast to edit. The texts
here are the whole of what a seat sees; they name no seat, model or family (the same bytes for every seat).

**Direct mode** (:func:`ask_text`): the history, the horizon and the future timestamps, the stated range, the
arm's effects as ``key = value`` lines with the keys' meaning explained once, and the answer format: one JSON
array of exactly H numbers, alone or in one fenced code block.

**Editing mode** (:func:`edit_text`): the same facts plus the base forecast; each ask asks for ONE short Python
program that transforms ``path`` (the H current values), or the word ``DONE``; the steps so far (program and
outcome) and the current path are shown in every ask, since a seat's CLI starts each ask afresh.

**Numbers** are written with 10 significant digits (``format(v, ".10g")``): compact for ordinary data and far
finer than any forecast error. **Timestamps** that parse as ISO 8601 and are evenly spaced are written as the
first one, the step and the count; any others are listed one by one (monthly data, whose steps differ in days,
is listed).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from league.evals.errors import EvalError

ARMS: Final = ("history", "macro", "micro", "both")
MODES: Final = ("direct", "editing")
#: The effects' key families each arm shows (effects.py's ``Effects.record()`` keys start with these).
ARM_FAMILIES: Final[dict[str, tuple[str, ...]]] = {
    "history": (), "macro": ("macro.",), "micro": ("micro.",), "both": ("macro.", "micro."),
}
#: The editing loop's cap: at most this many asks (programs or DONE) per path.
MAX_EDIT_STEPS: Final = 10
#: A program longer than this is not run (the ask says "one short program").
MAX_PROGRAM_CHARS: Final = 8000
#: How much of a failed program's error is fed back in the next ask.
MAX_FEEDBACK_CHARS: Final = 1500


class PathQuestionError(EvalError):
    """A path question that cannot be asked as built (unknown arm or mode, lengths that disagree, NaN values)."""


def arm_effects(record: Mapping[str, object], arm: str) -> dict[str, object] | None:
    """The key-values of an effects record that ``arm`` shows (``None`` for the history-only arm)."""
    if arm not in ARM_FAMILIES:
        raise PathQuestionError(f"unknown arm {arm!r}", fix=f"use one of {', '.join(ARMS)}")
    families = ARM_FAMILIES[arm]
    if not families:
        return None
    return {k: v for k, v in record.items() if k.startswith(families)}


def _finite(values: Sequence[float], what: str, window_id: str) -> None:
    bad = [i for i, v in enumerate(values) if not isinstance(v, int | float) or not math.isfinite(v)]
    if bad:
        raise PathQuestionError(f"window {window_id!r}: {what} step {bad[0]} is not a finite number",
                                fix="drop the window (windows.py skips spans with NaN) or repair the series")


@dataclass(frozen=True)
class PathQuestion:
    """One window asked under one arm and one mode; checked when built (a bad question never reaches a seat)."""

    window_id: str
    arm: str
    mode: str
    history: tuple[float, ...]
    history_timestamps: tuple[str, ...]
    future_timestamps: tuple[str, ...]
    stated_range: tuple[float, float] | None = None
    effects: dict[str, object] | None = None
    base: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        wid = self.window_id
        if not wid:
            raise PathQuestionError("a path question needs a window_id", fix="pass the window's id or digest")
        if self.arm not in ARMS:
            raise PathQuestionError(f"window {wid!r}: unknown arm {self.arm!r}", fix=f"use one of {', '.join(ARMS)}")
        if self.mode not in MODES:
            raise PathQuestionError(f"window {wid!r}: unknown mode {self.mode!r}", fix=f"use one of {', '.join(MODES)}")
        if len(self.history) < 2 or len(self.history) != len(self.history_timestamps):
            raise PathQuestionError(
                f"window {wid!r}: {len(self.history)} history values, {len(self.history_timestamps)} timestamps",
                fix="pass at least 2 history values, one timestamp each")
        _finite(self.history, "history", wid)
        if self.horizon < 1:
            raise PathQuestionError(f"window {wid!r}: no future timestamps", fix="pass the window's future timestamps")
        if self.stated_range is not None:
            low, high = self.stated_range
            if not (math.isfinite(low) and math.isfinite(high) and low <= high):
                raise PathQuestionError(f"window {wid!r}: stated range [{low}, {high}] is not finite low <= high",
                                        fix="state the range as (low, high) in raw units, low <= high")
        self._check_effects()
        self._check_base()

    def _check_effects(self) -> None:
        families = ARM_FAMILIES[self.arm]
        if not families:
            if self.effects:
                raise PathQuestionError(f"window {self.window_id!r}: the history arm shows no effects",
                                        fix="pass effects=None for the history arm")
            return
        if self.effects is None:
            raise PathQuestionError(f"window {self.window_id!r}: the {self.arm} arm needs its effects",
                                    fix="pass arm_effects(record, arm) of the window's effects record")
        stray = [k for k in self.effects if not k.startswith(families)]
        if stray:
            raise PathQuestionError(f"window {self.window_id!r}: the {self.arm} arm would show {stray[0]!r}",
                                    fix="pass arm_effects(record, arm): only the arm's own keys")

    def _check_base(self) -> None:
        wid = self.window_id
        if self.mode == "direct":
            if self.base is not None:
                raise PathQuestionError(f"window {wid!r}: a base forecast is for editing mode only",
                                        fix="pass base=None in direct mode")
            return
        if self.base is None or len(self.base) != self.horizon:
            got = "none" if self.base is None else f"{len(self.base)} steps"
            raise PathQuestionError(f"window {wid!r}: editing mode needs a base forecast of {self.horizon} steps, "
                                    f"got {got}", fix="pass the statistical base forecast, one value per future step")
        _finite(self.base, "base forecast", wid)

    @property
    def horizon(self) -> int:
        return len(self.future_timestamps)


def num(value: float) -> str:
    """A number as the prompts write it: 10 significant digits, no trailing zeros."""
    return format(float(value), ".10g")


def numbers(values: Sequence[float]) -> str:
    """A JSON-compatible array of :func:`num` values (so a seat may copy it into code)."""
    return "[" + ", ".join(num(v) for v in values) + "]"


def _parse(ts: str) -> datetime | None:
    try:
        return datetime.fromisoformat(ts)
    except ValueError:
        return None


def timestamps_text(stamps: Sequence[str]) -> str:
    """Evenly spaced ISO timestamps as "N steps from X, every D"; anything else as the list itself."""
    parsed = [_parse(t) for t in stamps]
    if len(stamps) >= 3 and all(p is not None for p in parsed):
        points = [p for p in parsed if p is not None]
        try:
            steps = {b - a for a, b in zip(points, points[1:], strict=False)}
        except TypeError:  # naive and aware timestamps mixed: list them
            steps = set()
        if len(steps) == 1:
            (step,) = steps
            if step.total_seconds() > 0:
                return f"{len(stamps)} steps from {stamps[0]} to {stamps[-1]}, one every {_span(step.total_seconds())}"
    return f"{len(stamps)} steps: " + ", ".join(stamps)


def _span(seconds: float) -> str:
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds % size == 0:
            n = int(seconds // size)
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return f"{num(seconds)} seconds"


def _value(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return num(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return str(value)


MACRO_KEYS: Final = (
    "macro.* keys describe the whole future. macro.trend.count: 1 or 2 trend segments, in time order; "
    "macro.trend.<i>.direction: up, down or flat; macro.trend.<i>.shape: linear, convex or concave; "
    "macro.trend.<i>.share: the segment's share of the horizon (the shares sum to 1). macro.season.period: the "
    "seasonal period in steps (none: no season); macro.season.waveform: the mean seasonal deviation per phase, "
    "phases counted from the first future step, in points. macro.min / macro.max: the future's minimum and "
    "maximum, in points."
)
MICRO_KEYS: Final = (
    "micro.* keys list intervals where the future departs from a plain seasonal continuation. micro.count: how "
    "many; micro.<i>.start / micro.<i>.end: a closed interval of 0-based future steps (0 is the first future "
    "step); micro.<i>.kind: deviation (departs, then recovers), level_shift (a new level that lasts to the "
    "horizon's end) or period_change (the season's period changes to micro.<i>.period); micro.<i>.strength: the "
    "signed size of the departure, in points."
)


def _effects_block(q: PathQuestion) -> list[str]:
    if not q.effects:
        return []
    low, high = min(q.history), max(q.history)
    lines = ["", "Known effects of the future, as key = value lines:"]
    lines += [f"{k} = {_value(v)}" for k, v in q.effects.items()]
    families = ARM_FAMILIES[q.arm]
    lines += ["", "What the keys mean. Points are history-normalised: 0 = the history's minimum "
              f"({num(low)}), 100 = the history's maximum ({num(high)}); a value may lie outside 0..100, and a "
              "strength or waveform in points is a difference (1 point = 1/100 of the history's range)."]
    if "macro." in families:
        lines.append(MACRO_KEYS)
    if "micro." in families:
        lines.append(MICRO_KEYS)
    return lines


def _facts(q: PathQuestion) -> list[str]:
    lines = [
        f"History ({len(q.history)} values, oldest first), timestamps: {timestamps_text(q.history_timestamps)}",
        f"History values: {numbers(q.history)}",
        "",
        f"Horizon: {q.horizon} steps. Future timestamps: {timestamps_text(q.future_timestamps)}",
    ]
    if q.stated_range is not None:
        low, high = q.stated_range
        lines.append(f"The future lies within [{num(low)}, {num(high)}]; keep every step inside.")
    return lines + _effects_block(q)


def ask_text(q: PathQuestion) -> str:
    """The prompt of a direct-mode question, or the first ask of an editing-mode one (no step yet)."""
    if q.mode == "editing":
        return edit_text(q, (), q.base or ())
    lines = ["Forecast the next values of a univariate time series.", "", *_facts(q), "",
             f"Answer with a JSON array of exactly {q.horizon} numbers: the forecast for the {q.horizon} future "
             "timestamps, in order. Write the array alone, or alone in one ``` code block; no other numbers, "
             "no NaN, no ranges."]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class StepRecord:
    """What the next editing ask shows of a step already run: its program and what became of it."""

    code: str
    outcome: str  # "ok" or the error text (truncated)


def edit_text(q: PathQuestion, steps: Sequence[StepRecord], current: Sequence[float]) -> str:
    """The editing ask after ``steps`` (empty: the first ask), with ``current`` the path as it stands."""
    step_no = len(steps) + 1
    lines = ["Improve a statistical base forecast of a univariate time series by editing it with code.", "",
             *_facts(q), "", f"Base forecast ({q.horizon} values): {numbers(q.base or ())}", "",
             "How editing works: each reply is either ONE short Python program in one ```python code block, or "
             "the single word DONE. The league runs the program with python3 (standard library only, no network, "
             "no files, a few seconds) with two variables set: `path`, a list of the "
             f"{q.horizon} current values (floats), and `history`, the history values. The program must leave "
             f"`path` as a list of exactly {q.horizon} finite numbers: that becomes the current path. A failing "
             "program changes nothing; its error is shown in the next ask. Printed output is ignored. "
             f"At most {MAX_EDIT_STEPS} replies; DONE ends the editing and the current path is the answer."]
    if steps:
        lines += ["", "Steps so far:"]
        for i, s in enumerate(steps, start=1):
            lines += [f"Step {i} program:", "```python", s.code.rstrip("\n"), "```", f"Step {i} result: {s.outcome}"]
    lines += ["", f"Current path: {numbers(current)}", "",
              f"This is reply {step_no} of at most {MAX_EDIT_STEPS}: reply with one ```python block, or DONE."]
    return "\n".join(lines) + "\n"


def canonical_path(values: Sequence[float]) -> str:
    """A path as the digest seals it: a compact JSON array of floats, each written exactly (``repr``)."""
    return json.dumps([float(v) for v in values], separators=(",", ":"), allow_nan=False)
