"""The arms' book lines: one model per kind, validated on construction (as league.book.lines for the council).

The arms' book (``DATA/books/arms-book.jsonl``) is a hash chain of its own, with the council book's chain
formula; its ask chain (``DATA/books/arm-asks.jsonl``) has the council ask chain's line kinds. A reader takes
the line back with :func:`read_arm_line`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from league.book.chain import BOOKKEEPING
from league.book.lines import (
    AnswerFields,
    DecisionLine,
    Line,
    MarkLine,
    NoReplyFields,
    RejectionLine,
    RulesLine,
    TradeLine,
)
from league.errors import InvalidRecord

#: The variants a run can be asked in: the two arms, the repeats of the open and of the closed-book question, and
#: the extra reference runs (asked outside the morning about the next session, each on its own reference).
ArmKind = Literal["closed_book", "price_only", "repeat_open", "repeat_packet", "evening", "weekend_btc", "sunday_radar"]
ARM_KINDS: tuple[str, ...] = ("closed_book", "price_only", "repeat_open", "repeat_packet", "evening", "weekend_btc",
                              "sunday_radar")
EXTRA_KINDS: tuple[str, ...] = ("evening", "weekend_btc", "sunday_radar")
#: How an arm answer's access to retrieval is labelled (docs/experiments.md, "Search status").
SearchStatus = Literal["verified", "configured", "instruction_only"]


class _ArmModel(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class ArmScheduleLine(Line):
    """Line 1 of the arms' book once arms run: the seed and the rule that order the arms across days,
    sealed before the first arm ask (so the order of any day can be recomputed and was not chosen later)."""

    kind: Literal["arm_schedule"] = "arm_schedule"
    seed: int
    arms: list[str]
    rule: str


class PacketLine(Line):
    """A closed-book packet, sealed under its hash before the first ask that shows it (never rebuilt)."""

    kind: Literal["news_packet"] = "news_packet"
    session: str
    packet_sha256: str
    cutoff: str
    lookback_hours: float
    items: int
    provider: str
    sources: list[str]
    skipped: list[str] = Field(default_factory=list)


class ArmRunLine(Line):
    """One arm run of a session: which variant, after which counted run, under which policy per seat."""

    kind: Literal["arm_run"] = "arm_run"
    run_id: str
    session: str
    arm: ArmKind
    repeat: int
    open_run: str
    order: list[str]
    ask_sha256: str
    snapshot_sha256: str
    packet_sha256: str | None
    roster: list[str]
    network: dict[str, str]
    reference_at: str
    deadline: str
    #: An extra reference run's label (``earlier_run``: asked about a later session; ``reference``: a reference
    #: computation) and the day it was asked on (``session`` is the session it is about); absent for an arm.
    label: str = ""
    asked_on: str = ""


class FetchRecordLine(Line):
    """The league's own fetch of a link a counted answer cited (its ``label``: the cited domain, its ``host``:
    where the link really led), sealed after the answer; an error is a record too."""

    kind: Literal["fetch_record"] = "fetch_record"
    session: str
    url: str
    label: str
    host: str
    status: int | None
    fetched_at: str
    sha256: str | None
    size: int
    declared_published: str | None
    error: str
    cited_by: list[str]


class ExtraScoreRow(_ArmModel):
    """One answer cell of an extra run on its own event: the reference is the first bar at or after the
    answer's seal, the end the session's horizon end (``why`` says what left it unresolved)."""

    seat: str
    market: str
    reference_at: str
    end_at: str
    reference: float | None
    reference_bar: str | None
    close: float | None
    close_bar: str | None
    prob_up: float | None
    outcome: int | None
    brier: float | None
    why: str = ""


class ExtraScoreLine(Line):
    """An extra reference run scored at one horizon, each answer on its own reference (the first bar at or
    after its seal) to the session's horizon end; a missing price leaves its market unresolved."""

    kind: Literal["extra_score"] = "extra_score"
    run_id: str
    session: str
    horizon: str
    rows: list[ExtraScoreRow]


class ArmAnswerLine(AnswerFields):
    """An arm's reply sealed as received, with its variant, its search status and the links it cited that
    were not in its packet (``outside``)."""

    kind: Literal["arm_answer"] = "arm_answer"
    arm: ArmKind
    repeat: int
    search_status: SearchStatus
    outside: list[str]


class ArmSilenceLine(NoReplyFields):
    """No reply to an arm's ask (timeout, crash, infrastructure), or an ask lost with the daemon."""

    kind: Literal["arm_silence"] = "arm_silence"
    arm: ArmKind
    repeat: int


# The arms' own paper accounts (league.jobs.arm_accounts): the council's portfolio lines, each with its arm.
class ArmRulesLine(RulesLine):
    """A rule set sealed for an arm before it governs that arm's first decision."""

    kind: Literal["arm_rules"] = "arm_rules"  # type: ignore[assignment]
    arm: ArmKind


class ArmDecisionLine(DecisionLine):
    """An arm's accepted decision (from its arm answer), as the council's ``decision`` line."""

    kind: Literal["arm_decision"] = "arm_decision"  # type: ignore[assignment]
    arm: ArmKind


class ArmRejectionLine(RejectionLine):
    """An arm's decision that broke a rule, as the council's ``rejection`` line."""

    kind: Literal["arm_rejection"] = "arm_rejection"  # type: ignore[assignment]
    arm: ArmKind


class ArmTradeLine(TradeLine):
    """One fill of an arm's account, as the council's ``trade`` line."""

    kind: Literal["arm_trade"] = "arm_trade"  # type: ignore[assignment]
    arm: ArmKind


class ArmMarkLine(MarkLine):
    """An arm's account at the close of a session, as the council's ``mark`` line."""

    kind: Literal["arm_mark"] = "arm_mark"  # type: ignore[assignment]
    arm: ArmKind


# The council talk (league.jobs.talk, docs/experiments.md "Council talk"): a weekly track in the same book.
class TalkScheduleLine(Line):
    """The council talk's rules and seed, sealed before its first week's chair is asked (so no chair and no
    letter can be chosen after seeing a reply)."""

    kind: Literal["talk_schedule"] = "talk_schedule"
    seed: int
    weekday: str
    league: str
    rotation: str
    letters: str


class TalkWeekLine(Line):
    """A week of the talk opened: its chair (by the sealed rotation), the SHA-256 of its letter map (the map itself
    is revealed after the week), every seat's portfolio of the week under its letter, and the chair's ask."""

    kind: Literal["talk_week"] = "talk_week"
    week: str
    index: int
    session: str
    chair: str
    chair_letter: str
    letter_map_sha256: str
    seats: int
    league: str
    funds: dict[str, str]
    portfolios: dict[str, dict[str, float]]
    run_id: str
    ask_sha256: str
    deadline: str


class _TalkReplyFields(Line):
    """What every talk reply line carries: who answered which ask, whether it was read, its raw bytes' hash."""

    run_id: str
    week: str
    seat: str
    answered: bool
    ok: bool
    failure: str
    own_sha256: str
    seat_ask_sha256: str
    model: str
    version: str
    booked_at: str
    raw_encoding: str = "utf-8"


class TalkChairLine(_TalkReplyFields):
    """The chair's reply as received (its raw bytes kept under ``own_sha256``), read: the council's portfolio and
    the critiques when ``ok``, else the failure; a chair that did not answer has ``answered`` false."""

    kind: Literal["talk_chair"] = "talk_chair"
    council_portfolio: dict[str, float]
    critiques: list[dict[str, str | float]]
    notes: list[str]


class TalkRoundLine(Line):
    """The critiqued seats asked, each with its letter and its critiques, sealed before the first reply ask."""

    kind: Literal["talk_round"] = "talk_round"
    run_id: str
    week: str
    session: str
    asked: dict[str, str]
    deadline: str


class TalkReplyLine(_TalkReplyFields):
    """A critiqued seat's reply as received, read: the portfolio it states when ``ok``, else the failure."""

    kind: Literal["talk_reply"] = "talk_reply"
    letter: str
    portfolio: dict[str, float]


class TalkRevealLine(Line):
    """A week's letter map, revealed after the week (it must match the digest its ``talk_week`` line sealed)."""

    kind: Literal["talk_reveal"] = "talk_reveal"
    week: str
    letter_map: dict[str, str]
    salt: str


class TalkEngineRow(_ArmModel):
    """One shadow account in one league after the five sessions: held, or refused by the league's rules."""

    account: str
    status: Literal["held", "rejected", "no_price"]
    reason: str
    value: str | None
    #: value / capital - 1 at the fifth session's close
    gain: float | None
    fees: str | None


class TalkAccountsLine(Line):
    """A week's shadow accounts and its critiques' prices, sealed at the close of the fifth session after the talk:
    each account's weights, the funds' closes from the talk session on (null where no price), and what the
    portfolio engine made of each account under each league's rules."""

    kind: Literal["talk_accounts"] = "talk_accounts"
    week: str
    sessions: list[str]
    weights: dict[str, dict[str, float]]
    closes: dict[str, list[float | None]]
    engine: dict[str, list[TalkEngineRow]]


# Registered predictions (league.jobs.predictions, docs/predictions.md): sealed in the same book.
class PredictionRegistryLine(Line):
    """A registry of predictions, sealed (its exact bytes under ``registry_sha256``, every set-B script's bytes
    under its own SHA-256) before the data its windows read exists: ``sessions`` counted sessions had run."""

    kind: Literal["prediction_registry"] = "prediction_registry"
    registry_sha256: str
    name: str
    ids: list[str]
    scripts: dict[str, str]
    sessions: int
    first_window_session: int


class PredictionResolutionLine(Line):
    """One prediction resolved at the first publication after its check date: true, false, or unresolved with
    the reason; the value, the sample, a renamed field's mapping and the SHA-256 of every file it read. Never
    deleted, never resolved again."""

    kind: Literal["prediction_resolution"] = "prediction_resolution"
    id: str
    registry_sha256: str
    check_date: str
    session: str
    status: Literal["true", "false", "unresolved"]
    value: float | None
    sample: int | None
    reason: str
    mapping: dict[str, str]
    inputs: dict[str, str]


TalkLine = (TalkScheduleLine | TalkWeekLine | TalkChairLine | TalkRoundLine | TalkReplyLine | TalkRevealLine
            | TalkAccountsLine)
TALK_KINDS = ("talk_schedule", "talk_week", "talk_chair", "talk_round", "talk_reply", "talk_reveal", "talk_accounts")
PredictionLine = PredictionRegistryLine | PredictionResolutionLine
PREDICTION_KINDS = ("prediction_registry", "prediction_resolution")


ArmAccountLine = ArmRulesLine | ArmDecisionLine | ArmRejectionLine | ArmTradeLine | ArmMarkLine
ArmLine = Annotated[ArmScheduleLine | PacketLine | ArmRunLine | ArmAnswerLine | ArmSilenceLine | ArmAccountLine
                    | ExtraScoreLine | FetchRecordLine | TalkLine | PredictionLine, Field(discriminator="kind")]
_ADAPTER: TypeAdapter[ArmLine] = TypeAdapter(ArmLine)
REPLY_KINDS = ("arm_answer", "arm_silence")


TypedArmLine = (ArmScheduleLine | PacketLine | ArmRunLine | ArmAnswerLine | ArmSilenceLine | ArmAccountLine
                | ExtraScoreLine | FetchRecordLine | TalkLine | PredictionLine)


def read_arm_line(content: Mapping[str, object]) -> TypedArmLine:
    """The model of a sealed arms' book line; InvalidRecord when it fits none."""
    body = {k: v for k, v in content.items() if k not in BOOKKEEPING}
    try:
        return _ADAPTER.validate_json(json.dumps(body, ensure_ascii=False, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise InvalidRecord(f"a {body.get('kind', '?')!r} line of the arms' book does not fit its model: "
                            f"{str(exc).splitlines()[0][:300]}") from None

