"""The seat protocol: the only thing ``league`` knows about a seat.

A seat turns one ask (a text plus, for history-only baselines, the structured snapshot the text
was made from) into a raw reply with timings and the model/version/mode it reports. It knows
nothing of books, scores or markets' meaning. ``agents`` depends on ``sandbox`` only; time is
read through the ``now`` callable the caller passes, so a simulated clock reaches every seat.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, ClassVar, Literal, Protocol, runtime_checkable

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from league_agents.options import SeatOptions, printable
from sandbox.interface import SandboxError
from sandbox.netpolicy import AllowEntry

Now = Callable[[], datetime]


class FailureClass(enum.StrEnum):
    """How a failed ask is classified; only ``transient``/``rate_limit`` transport errors of SDK
    calls are retried (one policy, in ``league_agents.retry``). The first three are infrastructure
    incidents: they void a contest round and are not counted as a missing forecast."""

    SANDBOX = "sandbox_incident"
    LOGIN = "login_incident"
    USAGE_LIMIT = "usage_limit_incident"
    TRANSIENT = "transient"
    RATE_LIMIT = "rate_limit"
    TIMEOUT = "timeout"
    SEAT_FAULT = "seat_fault"
    #: The seat's own budget (roster ``budget``) was spent: the league did not run it (not an incident).
    BUDGET = "budget_exhausted"

    @property
    def is_incident(self) -> bool:
        return self in (FailureClass.SANDBOX, FailureClass.LOGIN, FailureClass.USAGE_LIMIT)


class SeatError(Exception):
    """Base error of the seat port; adapters translate library/CLI errors into it."""

    def __init__(self, message: str, failure: FailureClass = FailureClass.SEAT_FAULT) -> None:
        super().__init__(message)
        self.failure = failure


class SeatBudget(BaseModel):
    """Hard limits on what a seat may spend (roster ``budget = {...}``), from the usage its runs report.

    Checked before each ask: a seat whose sealed usage has reached a limit is not run, and its reply
    is a ``budget_exhausted`` silence naming the limit. A run's wall time is ``timeout_s``."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    tokens_per_session: int | None = Field(default=None, ge=0, le=10**15)
    usd_per_session: float | None = Field(default=None, ge=0, le=10**9)
    tokens_total: int | None = Field(default=None, ge=0, le=10**15)
    usd_total: float | None = Field(default=None, ge=0, le=10**9)


#: Seat names: lower-case, digits, ``_ . -``; a leading ``_`` is reserved for the history-only baselines. At
#: most 64 characters: a name becomes a cgroup, a file and a column name.
SEAT_NAME = r"^_?[a-z0-9][a-z0-9_.-]{0,62}$"
#: Longest seat timeout: a day. Nothing the league asks may run longer (the council's own window is an hour).
MAX_TIMEOUT_S = 86_400.0


#: A short label (model, family, effort): no control or bidirectional-override character, at most 200 characters.
Label = Annotated[str, Field(max_length=200), AfterValidator(printable)]


class SeatSpec(BaseModel):
    """One roster entry (``config/roster.toml`` ``[[seat]]``), validated and frozen.

    Every value is bounded here, so that a value the roster accepts is one the league can run and seal
    (an infinite ``timeout_s`` once loaded, then failed every seat's sealing at the ask). What depends on
    the adapter (its options, the network policies it can enforce, the baseline names) is checked by
    ``league_agents.registry.spec_problems`` when the roster loads."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    name: str = Field(pattern=SEAT_NAME)
    adapter: str = Field(min_length=1, max_length=64)
    model: Label = "unreported"
    family: Label = ""
    side: Literal["", "us", "cn"] = ""  # the sides diagnostics of scoring.md §6 group seats by it
    effort: Label = ""
    timeout_s: float = Field(default=600.0, ge=1, le=MAX_TIMEOUT_S)
    network: Literal["none", "api", "web"] = "none"
    allow: tuple[str, ...] = Field(default=(), max_length=64)
    profile: str = Field(default="default", max_length=64)
    credentials: tuple[str, ...] = Field(default=(), max_length=32)
    env: tuple[str, ...] = Field(default=(), max_length=64)
    options: Mapping[str, Any] = Field(default_factory=dict)
    budget: SeatBudget | None = None
    #: A lab's worker queue (``league worker --queue``): the seat runs on that lab's machine, through the
    #: broker, instead of in a thread of the league's host; empty = here (docs/workers.md).
    worker: str = Field(default="", pattern=r"^([a-z0-9][a-z0-9-]{0,62})?$")

    @model_validator(mode="before")
    @classmethod
    def _no_net_key(cls, data: Any) -> Any:
        """The old boolean ``net`` key is refused with the new key named (never read silently)."""
        if isinstance(data, Mapping) and "net" in data:
            raise PydanticCustomError(
                "net_replaced",
                "`net` was replaced by `network`: write network = \"web\" (was net = true) or "
                "network = \"api\" / \"none\" (was net = false)",
            )
        return data

    @field_validator("allow")
    @classmethod
    def _allow_entries(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for entry in value:
            try:
                AllowEntry.parse(entry)
            except SandboxError as exc:
                raise ValueError(f"{exc.message}: {exc.fix}") from None
        return value

    @property
    def is_baseline(self) -> bool:
        return self.name.startswith("_")


@dataclass(frozen=True)
class Ask:
    """What a seat receives: the exact text (hashed into the ask chain) and its structured source."""

    text: str
    sha256: str
    session: str
    attempt: int = 1
    context: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SeatReply:
    """A raw reply with what the seat reported about itself. ``raw`` is kept byte for byte."""

    seat: str
    raw: str
    model: str
    version: str
    mode: str
    started_at: datetime
    finished_at: datetime
    usage: Mapping[str, Any] = field(default_factory=dict)
    failure: FailureClass | None = None
    detail: str = ""
    #: The hosts the seat's run contacted through its egress proxy (``None``: it ran without network).
    fetches: tuple[Mapping[str, Any], ...] | None = None

    @property
    def silent(self) -> bool:
        """No reply at all (timeout, crash before output, empty output): not sealed as an answer."""
        return not self.raw.strip()


@runtime_checkable
class Seat(Protocol):
    """What a seat must do: answer an ask. A lab's plugin needs nothing more (docs/seats.md)."""

    spec: SeatSpec

    def ask(self, ask: Ask, now: Now) -> SeatReply: ...


class SeatBase:
    """The seat hooks beyond :meth:`Seat.ask`, with their do-nothing defaults; every seat class of this
    project derives from it, and a lab's seat may (a plugin that does not simply has no hooks).

    The league calls the hooks through :func:`prefetch` and :func:`close_seat`, never by probing attributes,
    so the interface is stated here once: a seat that keeps something of its own (a worker process) ends it in
    :meth:`close`; one whose answer is an expensive pure function of the history can start it early in
    :meth:`prefetch`."""

    spec: SeatSpec
    #: The model of the seat's ``options`` (league_agents.options); ``None``: any small JSON table.
    options_model: ClassVar[type[SeatOptions] | None] = None
    #: The network policies the adapter enforces; a roster stating another is refused. ``None``: not declared
    #: (a lab's plugin), any policy; empty: the seat runs outside the sandbox and no policy may be stated.
    networks: ClassVar[frozenset[str] | None] = None
    #: A history-only baseline: only a baseline's seat name may start with ``_`` (scored, never in the consensus).
    baseline: ClassVar[bool] = False
    #: The tracks whose rosters may name the adapter (``council``, ``contest``, ``eval``); ``None``: every one.
    #: A track's stand-in reads only that track's asks.
    tracks: ClassVar[frozenset[str] | None] = None
    #: A stand-in whose ask may carry the recorded answer in its context (its ``skill`` leans toward it); a
    #: real seat's ask never does.
    hinted: ClassVar[bool] = False
    #: A seat that reads each market's daily closes from its ask's context (the point baselines): the ask job
    #: reads the history only when a roster seat's adapter says so.
    reads_history: ClassVar[bool] = False

    def prefetch(self, history: Mapping[str, Any]) -> int:
        """Start work for a coming ask whose context will carry ``history`` (each market's closes); returns
        how many pieces of work were started. The default starts nothing."""
        return 0

    def close(self) -> None:
        """Release what the seat holds (the League closes its runner, which closes every seat)."""
        return None


def prefetches(seat: object) -> bool:
    """Whether the seat overrides :meth:`SeatBase.prefetch` (the league then reads the coming history for it)."""
    return isinstance(seat, SeatBase) and type(seat).prefetch is not SeatBase.prefetch


def prefetch(seat: object, history: Mapping[str, Any]) -> int:
    """The seat's :meth:`SeatBase.prefetch`; 0 for a seat without the hooks."""
    return seat.prefetch(history) if isinstance(seat, SeatBase) else 0


def close_seat(seat: object) -> None:
    """The seat's :meth:`SeatBase.close`; nothing for a seat without the hooks."""
    if isinstance(seat, SeatBase):
        seat.close()


def ask_one(seat: Seat, ask: Ask, now: Now) -> SeatReply:
    """The seat's reply, never an exception: an adapter bug becomes a seat-fault reply (or the failure class
    the error carries), so one seat cannot stop a run. Every track asks its seats through this."""
    started = now()
    try:
        return seat.ask(ask, now)
    except Exception as exc:  # noqa: BLE001 - classified and sealed as an incident/fault
        failure = getattr(exc, "failure", FailureClass.SEAT_FAULT)
        return SeatReply(seat=seat.spec.name, raw="", model=seat.spec.model, version="unreported", mode="",
                         started_at=started, finished_at=now(), failure=failure, detail=str(exc)[:500])
