"""Typed book lines: one model per kind, discriminated on ``kind``, validated on construction.

A job builds the line it seals as its model (a misspelt key or a wrong type fails before anything is
written) and the book seals ``line.content()``; a reader turns a sealed line back into its model with
:func:`read_line`. Each model serialises to EXACTLY the content the league has always sealed — the
same keys, the same values, a key absent stays absent and a ``null`` stays ``null`` (only the keys
given are dumped) — so every existing book re-seals byte for byte (docs/protocol.md §3 and the
round-trip test). Types are strict: JSON's ``1`` and ``1.0`` are not silently made one another.

A line that fits no model (a kind this version does not know, or another writer's shape) is read as
a :class:`ForeignLine`, which keeps every key: reading never loses anything. The independent checks
of :mod:`league.verify` do not use these models; they are the writer's own schema.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Annotated, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter, ValidationError

from league.book.chain import BOOKKEEPING as BOOKKEEPING
from league.book.chain import iter_lines
from league.errors import InvalidRecord
from league.isotime import parse_iso
from league.jsonvalue import JsonObject

Number = int | float


@dataclass(frozen=True)
class ReadDefault:
    """What a reader takes for a field a sealed line leaves out, where the empty value of its type would
    mislead (league.book.gen_records; an answer without a status is not an answer)."""

    value: str
RunRole = Literal["counted", "not_counted"]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    def dumped(self) -> JsonObject:
        """Exactly the keys this object was given (nested models too), as JSON values."""
        return self.model_dump(mode="json", exclude_unset=True)

    @classmethod
    def from_content(cls, content: Mapping[str, object]) -> Self:
        """The model of a mapping built elsewhere (or of a sealed line: its bookkeeping fields are left
        out), read as the book reads it back — through JSON, so a tuple is a list; raises InvalidRecord
        when it does not fit."""
        body = {k: v for k, v in content.items() if k not in BOOKKEEPING}
        try:
            return cls.model_validate_json(json.dumps(body, ensure_ascii=False, allow_nan=False))
        except (TypeError, ValueError) as exc:  # ValidationError is a ValueError
            raise InvalidRecord(f"a {cls.__name__} cannot be built: {_first_error(exc)}") from None


class Line(_Model):
    """What every sealed line carries besides its content: ``kind`` and the time ``at`` it was sealed
    (``at`` is set by the book; a line about to be sealed has none)."""

    kind: str
    at: str = ""

    def content(self) -> JsonObject:
        """The content to seal: every given key but ``kind`` and ``at`` (the book adds those)."""
        body = self.dumped()
        body.pop("kind", None)
        body.pop("at", None)
        return body


# ------------------------------------------------------------------------- the council book
class OpeningLine(Line):
    """Line 1 of a council book: what league this is and under which rules it starts."""

    kind: Literal["opening"] = "opening"
    league: str
    ask_format: str
    methodology: dict[str, JsonValue]
    markets: list[dict[str, JsonValue]]
    config_sha256: str
    #: SHA-256 of DATA/climatology.json, sealed before the season's first ask (published as climatology.json).
    climatology_sha256: str | None = None


class PreflightCheck(_Model):
    name: str
    ok: bool
    detail: str


class PreflightLine(Line):
    """The sandbox and seat self-check sealed before a morning run."""

    kind: Literal["preflight"] = "preflight"
    session: str
    ok: bool
    checks: list[PreflightCheck]


class RunLine(Line):
    """One run of a session: its role, roster, ask and snapshot hashes, crowd quotes and the common
    events fixed before the ask (docs/protocol.md §2, §5)."""

    kind: Literal["run"] = "run"
    run_id: str
    session: str
    role: RunRole
    attempt: int
    parent_run: str | None
    ask_sha256: str
    snapshot_sha256: str
    roster: list[str]
    methodology: dict[str, JsonValue]
    crowd: list[JsonValue]
    events: dict[str, dict[str, dict[str, JsonValue]]]
    deadline: str


class _Reply(Line):
    """What every line a reply produced carries: its run, seat, attempt and when it was booked."""

    run_id: str
    session: str
    seat: str
    attempt: int
    booked_at: str
    fetches: list[dict[str, JsonValue]] = Field(default_factory=list)

    def sealed_time(self) -> datetime:
        """``max(at, booked_at)``: when the line counts as sealed (open-data.md)."""
        return max(parse_iso(self.at), parse_iso(self.booked_at))


class AnswerFields(_Reply):
    """What a reply sealed as an answer carries, in the council book (:class:`AnswerLine`) and in the
    arms' book (league.arms.lines): the parsed cells or the parse failure, the raw reply's hash, the asks'."""

    model: str
    version: str
    mode: str
    status: Annotated[Literal["answered", "refused_shape"], ReadDefault("refused_shape")]
    parse_failure: str
    parse_notes: list[str]
    items: dict[str, dict[str, dict[str, JsonValue]]]
    years: dict[str, JsonValue]
    own_sha256: str
    ask_sha256: str
    seat_ask_sha256: str
    started_at: str
    usage: dict[str, JsonValue]
    elapsed_s: Number
    raw_encoding: str = ""
    raw_store_problem: str = ""


class AnswerLine(AnswerFields):
    """A reply sealed as received: parsed cells (``answered``) or the parse failure (``refused_shape``)."""

    kind: Literal["answer"] = "answer"


class NoReplyFields(_Reply):
    """No reply: how the ask failed (its class) and what was seen."""

    failure: str
    detail: str


class IncidentLine(NoReplyFields):
    """No reply, for a reason of the infrastructure (sandbox, login, usage limit)."""

    kind: Literal["incident"] = "incident"


class SilenceLine(NoReplyFields):
    """No reply (timeout, crash, empty output)."""

    kind: Literal["silence"] = "silence"


class ReplyRecordLine(Line):
    """A reply that is NOT an answer (docs/workers.md): another run's reply to an ask already answered
    (``duplicate``: a task redelivered after its worker died or lost the broker), or a reply for an ask
    no batch waited for any more (``stray``). Kept so nothing a worker sent is lost; never counted,
    scored or published as an answer. ``run_id``/``session`` are empty when the ask is not in the ask
    chain (a reply for another league's ask)."""

    kind: Literal["reply_record"] = "reply_record"
    run_id: str
    session: str
    seat: str
    attempt: int
    reason: Literal["duplicate", "stray"]
    worker: str
    redelivered: bool
    seat_ask_sha256: str
    own_sha256: str
    failure: str
    detail: str
    model: str
    version: str
    booked_at: str
    raw_encoding: str = ""


class IngestCloseLine(Line):
    """Counted ingest closed: when, and which answer lines it holds."""

    kind: Literal["ingest_close"] = "ingest_close"
    session: str
    closed_at: str
    counted_runs: list[str]
    answer_lines: list[int]
    book_lines: int


class ScoreEvent(_Model):
    """One event of a score line: its contract and how it resolved (``None`` where a price is missing)."""

    market: str
    horizon: str
    event_id: str
    event_id_v2: str
    contract: dict[str, JsonValue]
    late_ref: bool
    reference: Number | None = None
    reference_bar: str | None = None
    close: Number | None = None
    close_bar: str | None = None
    change_pct: Number | None = None
    up: bool | None = None
    draw: bool | None = None
    band_pct: Number | None = None
    status: str = ""


class ScoreRow(_Model):
    """One expected seat × market cell of a session at one horizon, as the counting rule decided it."""

    session: str
    horizon: str
    seat: str
    market: str
    run_id: str
    line: int | None
    model: str
    mode: str
    version: str
    attempt: int | None
    run_role: str
    sealed_at: str
    status: str = ""
    why_missing: str = ""
    prob_up: Number | None = None
    cell_status: str = ""
    action: JsonValue = None
    action_word: JsonValue = None
    target: JsonValue = None
    invalidation: JsonValue = None
    source_urls: JsonValue = None
    source_domains: JsonValue = None
    event_id: str = ""
    event_id_v2: str = ""
    late_ref: bool = False
    outcome: int | None = None
    brier: Number | None = None


class ScoreLine(Line):
    """The day's score at the close (``score``), or a longer horizon's when its window closes (``score_h``)."""

    kind: Literal["score", "score_h"] = "score"
    session: str
    horizon: str
    runs: list[str]
    markets: list[ScoreEvent]
    seats: list[ScoreRow]
    of: list[int]
    noise: dict[str, Number | None]
    #: market -> the recorded futures rolls inside its draw band's sessions (only when there are any)
    noise_rolls: dict[str, list[str]] | None = None
    price_errors: list[str]


class CrowdLine(Line):
    """A sealed crowd quote's contract has resolved."""

    kind: Literal["crowd"] = "crowd"
    session: str
    market: str
    venue: str
    contract_id: str
    resolved_up: bool
    run_id: str
    #: seat -> {"minute": the answer's sealing minute, "price": the crowd's price then or null} (§4.9)
    at_answer: dict[str, dict[str, JsonValue]] | None = None


class ShadowWeightsLine(Line):
    """The shadow consensus's frozen seat weights (paper §5.3, §8), sealed when the segment's design
    window (sessions 1-10) is scored, before session 11 is asked; scoring reads these, never a recount."""

    kind: Literal["shadow_weights"] = "shadow_weights"
    session: str
    methodology_version: str
    window: list[str]
    weights: dict[str, JsonValue]


class CorrectionLine(Line):
    """A correction names the corrected line; the old line stays untouched. Other keys are its content."""

    model_config = ConfigDict(frozen=True, extra="allow", strict=True)
    kind: Literal["correction"] = "correction"
    of: int
    reason: str
    #: ``price`` (a reference or close of the score line ``of``) or ``cell`` (a cell of the answer line ``of``)
    target: Literal["price", "cell"] | None = None
    source: str = ""
    session: str = ""
    horizon: str = ""
    market: str = ""
    #: a price correction: which price (``reference`` or ``close``) and its corrected value
    field: str = ""
    value: Number | None = None
    #: a cell correction: the seat and run of the answer line, and the values the cell should have held
    seat: str = ""
    run_id: str = ""
    cell: dict[str, JsonValue] | None = None


class RulesLine(Line):
    """A portfolio rule set, sealed before it governs its first decision."""

    kind: Literal["rules"] = "rules"
    rules: str
    rule_set: dict[str, JsonValue]


class _Decided(Line):
    league: str
    account: str
    seat: str
    session: str
    decided_at: str
    source: str
    model: str | None
    version: str | None
    answer_line: int | None
    actions: dict[str, dict[str, JsonValue]]
    targets: dict[str, JsonValue] | None


class DecisionLine(_Decided):
    """An accepted portfolio decision, its plan and the equity it was sized on."""

    kind: Literal["decision"] = "decision"
    executed_at: str
    equity: str
    plan: dict[str, JsonValue]
    fills: int
    weights_after: dict[str, Number]
    notes: list[str]


class RejectionLine(_Decided):
    """A decision that broke a rule: nothing was traded."""

    kind: Literal["rejection"] = "rejection"
    reason: str


class TradeLine(Line):
    """One fill, with everything the stand-alone replay needs (money as decimal text)."""

    kind: Literal["trade"] = "trade"
    league: str
    account: str
    session: str
    time: str
    seq: int
    symbol: str
    market: str
    side: str
    qty: str
    price: str
    amount: str
    fee_rate: str
    fee: str
    cash_after: str
    position_after: str
    leg: str


class MarkLine(Line):
    """An account at the close of a session, with its no-trade shadow (money as decimal text)."""

    kind: Literal["mark"] = "mark"
    league: str
    account: str
    session: str
    opened: str
    capital: str
    bill_rate: str
    days: int
    interest: str
    cash: str
    value: str
    positions: dict[str, str]
    prices: dict[str, str]
    weights: dict[str, str]
    shadow_value: str
    fees_total: str
    traded_total: str
    peak: str
    stale: list[str]


# ---------------------------------------------------------------------------- the ask chain
class CountingRuleLine(Line):
    """Line 1 of the ask chain: which run counts for each session."""

    kind: Literal["counting_rule"] = "counting_rule"
    rule: str
    version: int


class RosterSeat(_Model):
    seat: str
    adapter: str
    model: str
    effort: str
    markets: list[str]
    horizons: dict[str, list[str]]
    deadline: str
    timeout_s: Number
    #: The seat's lab and side (roster.toml): sealed so the consensus's family rule and the sides
    #: diagnostics can be recomputed from the published books alone (absent in older books).
    family: str = ""
    side: str = ""


class RosterLine(Line):
    """The expected answers of one run, sealed before its first ask."""

    kind: Literal["roster"] = "roster"
    run_id: str
    session: str
    role: RunRole
    seats: list[RosterSeat]
    second_wave: str
    retry_policy: str


class AskLine(Line):
    """The SHA-256 of the exact text one seat receives, sealed before it is sent."""

    kind: Literal["ask"] = "ask"
    run_id: str
    session: str
    seat: str
    attempt: int
    ask_sha256: str
    common_sha256: str


class BlindSeat(_Model):
    seat: str
    identity_sha256: str


class BlindLine(Line):
    """A blind season's commitments, sealed before the first ask: one identity hash per seat (league/blind.py)."""

    kind: Literal["blind"] = "blind"
    rule: str
    seats: list[BlindSeat]


class RevealedSeat(_Model):
    seat: str
    salt: str
    model: str
    version: str
    mode: str


class RevealLine(Line):
    """The end of a blind season: each seat's salt and identity, checkable against the ``blind`` line."""

    kind: Literal["reveal"] = "reveal"
    seats: list[RevealedSeat]


class ForeignLine(Line):
    """A line that fits no model of this version: every key is kept as it was read."""

    model_config = ConfigDict(frozen=True, extra="allow", strict=True)
    kind: str


CouncilLine = (OpeningLine | PreflightLine | RunLine | AnswerLine | IncidentLine | SilenceLine | ReplyRecordLine
               | IngestCloseLine | ScoreLine | CrowdLine | CorrectionLine | RulesLine | DecisionLine | RejectionLine
               | TradeLine | MarkLine | ShadowWeightsLine | BlindLine | RevealLine)
AskChainLine = CountingRuleLine | RosterLine | AskLine
#: Every model of a sealed line, in the order league.book.gen_records writes their read records.
RECORD_MODELS: tuple[type[Line], ...] = (
    OpeningLine, PreflightLine, RunLine, AnswerLine, IncidentLine, SilenceLine, ReplyRecordLine, IngestCloseLine,
    ScoreLine, CrowdLine, CorrectionLine, RulesLine, DecisionLine, RejectionLine, TradeLine, MarkLine,
    ShadowWeightsLine, BlindLine, RevealLine, CountingRuleLine, RosterLine, AskLine)
TypedLine = Annotated[CouncilLine | AskChainLine, Field(discriminator="kind")]
_ADAPTER: TypeAdapter[TypedLine] = TypeAdapter(TypedLine)


def _kinds(*models: type[Line]) -> frozenset[str]:
    return frozenset(k for m in models for k in m.model_fields["kind"].annotation.__args__)  # type: ignore[union-attr]


#: Every kind of line the council book holds, for readers that filter by kind.
COUNCIL_KINDS: frozenset[str] = _kinds(OpeningLine, PreflightLine, RunLine, AnswerLine, IncidentLine, SilenceLine,
                                       ReplyRecordLine, IngestCloseLine, ScoreLine, CrowdLine, CorrectionLine,
                                       RulesLine, DecisionLine, RejectionLine, TradeLine, MarkLine, ShadowWeightsLine,
                                       BlindLine, RevealLine)
ASK_CHAIN_KINDS: frozenset[str] = _kinds(CountingRuleLine, RosterLine, AskLine)


def _first_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        return f"at {'.'.join(str(p) for p in first['loc']) or '(line)'}: {first['msg']}"
    return str(exc)


def typed_line(content: Mapping[str, object]) -> CouncilLine | AskChainLine:
    """The model of a line's content (``kind`` included; ``at`` when sealed); raises InvalidRecord if it
    does not fit its kind's model."""
    body = {k: v for k, v in content.items() if k not in BOOKKEEPING}
    try:
        return _ADAPTER.validate_json(json.dumps(body, ensure_ascii=False, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise InvalidRecord(f"a {body.get('kind', '?')!r} line does not fit its model {_first_error(exc)}",
                            fix="a line of another writer or version: read it with read_line()") from None


def read_line(content: Mapping[str, object]) -> CouncilLine | AskChainLine | ForeignLine:
    """The model of a sealed line, or a :class:`ForeignLine` keeping every key when none fits."""
    try:
        return typed_line(content)
    except InvalidRecord:
        return ForeignLine.model_validate({k: v for k, v in content.items() if k not in BOOKKEEPING},
                                          strict=False)


def check_book(path: Path) -> tuple[dict[str, int], list[tuple[int, str]]]:
    """Every line of a book (chain re-checked as it is read) against its kind's model: the count of
    lines per model, and ``(n, problem)`` for each line that fits none (the writer's own schema check;
    a reader's independent check is the chain itself)."""
    counts: dict[str, int] = {}
    problems: list[tuple[int, str]] = []
    for sealed in iter_lines(path):
        try:
            model = typed_line(sealed.content)
        except InvalidRecord as exc:
            problems.append((sealed.n, exc.message))
            continue
        counts[type(model).__name__] = counts.get(type(model).__name__, 0) + 1
    return counts, problems
