"""What a roster entry's ``options`` table may hold, per adapter, checked when the roster loads.

Each adapter class names its options model (``options_model``); the registry validates a seat's
``options`` against it before the seat is ever built, so a typo (``skil = 0.3``), a value of the wrong
type (``seed = "x"``) or out of range (``skill = 5``, ``latency_s = -100``) is a configuration error
naming the seat, not a traceback or a silently ignored setting at the first ask. Every model is closed
(an unknown key is refused) and every number is finite and bounded: a value the league accepts is a
value it can run with and seal.

A lab's own adapter that names no model gets :func:`generic_problems`: any keys, but JSON values only,
finite, shallow and small (the options are passed to the seat and may be sealed in its usage).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from datetime import date
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

#: Longest text option (a model name, a path, a URL).
MAX_TEXT = 4096
#: The modes of the scripted seat (agents/scripted.py).
SCRIPTED_MODES = ("normal", "silent", "malformed", "late", "second_wave")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u061c]")
_ENV_NAME = r"^[A-Z_][A-Z0-9_]{0,63}$"


def printable(value: str) -> str:
    """A text option holds no control or bidirectional-override characters (they would reach a command
    line, a log or a sealed line as something other than what a reader sees in the file)."""
    if _CONTROL.search(value):
        raise ValueError("holds a control or bidirectional-override character")
    return value


def _http_url(value: str) -> str:
    """An ``http``/``https`` URL with a host (a gateway or an SDK endpoint), or empty."""
    if not value:
        return value
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{value[:120]!r} is not an http(s) URL with a host, e.g. https://gateway.lab:8443")
    return value


Text = Annotated[str, Field(max_length=MAX_TEXT), AfterValidator(printable)]
Url = Annotated[str, Field(max_length=2048), AfterValidator(printable), AfterValidator(_http_url)]
Command = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(printable)]


class SeatOptions(BaseModel):
    """Options every adapter takes: the evaluation tracks' knowledge cutoff and concurrency limit
    (docs/evals.md). An adapter's own model adds its keys."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    knowledge_cutoff: date | None = None
    max_concurrency: int = Field(default=1, ge=1, le=64)


class NoOptions(SeatOptions):
    """An adapter that takes no options of its own (the coin, momentum and climatology baselines)."""


class ScriptedOptions(SeatOptions):
    """The scripted seat (agents/scripted.py): deterministic by seed; ``skill`` leans toward the hint."""

    seed: int = Field(default=0, ge=0, le=2**63 - 1)
    skill: float = Field(default=0.0, ge=0, le=1)
    mode: Literal["normal", "silent", "malformed", "late", "second_wave"] = "normal"
    latency_s: float | None = Field(default=None, ge=0, le=86_400)
    model: Text | None = None
    version: Text = "scripted-1"
    tokens: int = Field(default=0, ge=0, le=10**12)
    #: links every one-day cell cites (``source_urls``), with their domains: a stand-in for a model's citations
    cite: tuple[Url, ...] = Field(default=(), max_length=20)


class ContestStandInOptions(SeatOptions):
    """The contest's stand-in for a vendor CLI (agents/contest_standin.py): deterministic by seed; ``skill``
    leans toward the demo's hint; ``rationale``, ``quote`` and ``max_price`` are what its bets say (an empty
    ``quote`` bets without one)."""

    seed: int = Field(default=0, ge=0, le=2**63 - 1)
    skill: float = Field(default=0.0, ge=0, le=1)
    mode: Literal["normal", "silent", "percent", "partial", "no-bet", "usage-limit", "login"] = "normal"
    model: Text | None = None
    #: Any text, control characters included: the stand-in exists to carry awkward text through ``bench``.
    rationale: str | None = Field(default=None, max_length=MAX_TEXT)
    quote: str | None = Field(default=None, max_length=MAX_TEXT)
    max_price: float | None = None  # any finite number: a test may try one `bench` refuses


class EvalStandInOptions(SeatOptions):
    """The evaluations' stand-in for a vendor CLI (agents/eval_standin.py): deterministic by seed; ``skill`` is
    the chance it answers the recorded answer; ``cost_usd`` the cost it reports; ``think_s`` how long it waits
    before answering, as a vendor's API would."""

    seed: int = Field(default=0, ge=0, le=2**63 - 1)
    skill: float = Field(default=0.0, ge=0, le=1)
    mode: Literal["normal", "silent", "prose", "crash", "mixed"] = "normal"
    model: Text | None = None
    cost_usd: float | None = Field(default=None, ge=0, le=10**6)
    think_s: float = Field(default=0.0, ge=0, le=600)


class CliOptions(SeatOptions):
    """The vendor-CLI seats (docs/seats.md §1, §1b)."""

    executable: Text | None = None
    bin_files: tuple[Text, ...] = Field(default=(), max_length=32)
    cli_prefix: Text = ""
    base_url: Url = ""
    allow_commands: tuple[Command, ...] = Field(default=(), max_length=16)


class ClaudeCodeOptions(CliOptions):
    max_budget_usd: float | None = Field(default=None, gt=0, le=100_000)


class CodexOptions(CliOptions):
    api_key_env: str = Field(default="OPENAI_API_KEY", pattern=_ENV_NAME)


class GrokCliOptions(CliOptions):
    max_tool_rounds: int | None = Field(default=None, ge=1, le=100)


class SdkOptions(SeatOptions):
    """The SDK seats: an endpoint, a reply's token ceiling, and how many attempts one ask may take."""

    base_url: Url = ""
    max_tokens: int = Field(default=32_000, ge=1, le=1_000_000)
    retries: int = Field(default=3, ge=1, le=10)


class NaiveOptions(SeatOptions):
    season: int = Field(default=1, ge=1, le=366)


class EtsOptions(SeatOptions):
    min_history: int = Field(default=30, ge=2, le=100_000)
    max_history: int = Field(default=500, ge=2, le=100_000)


def options_problems(model: type[SeatOptions], options: Mapping[str, Any]) -> list[str]:
    """What is wrong with a seat's ``options`` for its adapter's model, one line per problem."""
    try:
        model.model_validate(dict(options))
    except ValidationError as exc:
        return [_problem(err) for err in exc.errors()]
    return []


def _problem(err: Mapping[str, Any]) -> str:
    key = ".".join(str(p) for p in err.get("loc", ()))
    if err.get("type") == "extra_forbidden":
        return f"options.{key} is not an option of this adapter (docs/seats.md lists each adapter's options)"
    shown = repr(err.get("input"))
    shown = shown if len(shown) <= 80 else shown[:80] + "…"
    return f"options.{key} = {shown}: {err.get('msg', 'invalid')}"


#: Bounds of :func:`generic_problems` (an adapter without a model of its own).
GENERIC_DEPTH, GENERIC_ITEMS = 4, 256


def generic_problems(options: Mapping[str, Any]) -> list[str]:
    """The options of an adapter that names no model: JSON values only (strings, finite numbers,
    booleans, lists, tables, TOML dates), at most 4 levels and 256 values, each text at most 4,096
    characters."""
    problems: list[str] = []
    count = 0
    stack: list[tuple[str, Any, int]] = [(f"options.{k}", v, 1) for k, v in options.items()]
    while stack and not problems:
        where, value, depth = stack.pop()
        count += 1
        if count > GENERIC_ITEMS:
            problems.append(f"options hold more than {GENERIC_ITEMS} values")
        elif depth > GENERIC_DEPTH:
            problems.append(f"{where} is nested more than {GENERIC_DEPTH} levels deep")
        elif isinstance(value, float) and not math.isfinite(value):
            problems.append(f"{where} = {value!r} is not a finite number")
        elif isinstance(value, str) and len(value) > MAX_TEXT:
            problems.append(f"{where} is longer than {MAX_TEXT} characters")
        elif isinstance(value, Mapping):
            stack.extend((f"{where}.{k}", v, depth + 1) for k, v in value.items())
        elif isinstance(value, list | tuple):
            stack.extend((f"{where}[{i}]", v, depth + 1) for i, v in enumerate(value))
    return problems
