"""The messages between the league and a lab's worker: versioned, validated, JSON only.

Three kinds travel, each a JSON object with ``v`` (the wire version) and ``kind``:

* ``ask`` (league → worker, the Celery task's one argument): the seat's roster entry, the exact ask
  text with its SHA-256, the structured context, the deadline. It carries NO secret: a roster entry
  names the environment variables and credential files a seat needs, and the worker reads them on its
  own host. :func:`secret_problems` refuses an entry whose options look like a secret.
* ``started`` (worker → league): the worker began running the ask (for in-flight status and cut-offs).
* ``reply`` (worker → league): the raw reply as its exact bytes in base64 (never re-encoded text),
  what the seat reported (model, version, mode, usage, fetch record), and the start and finish times as
  the worker measured them. The league times the arrival by its own clock, not by these.

The identity of a task is its ask hash qualified by the seat (:func:`identity_of`): one seat's copy of an
ask is one task however often the broker delivers it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import math
import re
import uuid
from collections.abc import Mapping
from datetime import datetime
from typing import Annotated, Literal, TypedDict

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from league.answers import show
from league.jsonvalue import Json, JsonObject
from league.workers.errors import WireError
from league_agents.base import Ask, FailureClass, SeatReply, SeatSpec

WIRE_VERSION = 1
RAW_UTF8, RAW_SURROGATES = "utf-8", "utf-8-surrogatepass"
#: A CLI's stdout is capped at 8 MiB by the sandbox; a reply past twice that is not one a seat produced.
MAX_RAW_BYTES = 16 * 1024 * 1024
#: How deep a seat's ``usage`` is carried; the book keeps 12 levels (league.answers.json_safe), so cutting
#: deeper than that changes nothing sealed and keeps a hostile CLI's 900 nested lists off the JSON encoder.
USAGE_DEPTH = 32
SHA256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
SECRET_WORDS = frozenset({"secret", "token", "password", "passwd", "pwd", "passphrase", "apikey", "credential",
                          "credentials", "cookie", "auth", "authorization", "bearer"})
SECRET_PAIRS = ("api_key", "api-key", "private_key", "access_key", "client_secret")
URL_USERINFO = re.compile(r"^[a-z][a-z0-9+.-]*://[^/@\s]*@", re.I)
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def identity_of(seat: str, ask_sha256: str, attempt: int = 1) -> str:
    """A task's identity: the seat's ask hash, qualified by the seat (an evaluation sends one text to many)
    and, past the first, by the attempt (an evaluation's trials send one text to a seat several times;
    ``#`` is in no seat name)."""
    return f"{ask_sha256}.{seat}" + (f"#{attempt}" if attempt > 1 else "")


def split_identity(identity: str) -> tuple[str, str]:
    """``(ask_sha256, seat)`` of an identity (what a worker knows of a task it never ran)."""
    sha, _, seat = identity.partition(".")
    seat = seat.partition("#")[0]
    if not re.fullmatch(r"[0-9a-f]{64}", sha) or not seat:
        raise WireError(f"task id {identity[:100]!r} is not a league ask identity",
                        fix="publish asks with league.workers.remote (task id = ask hash + seat)")
    return sha, seat


class _Message(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=False)

    v: Literal[1]
    identity: str = Field(min_length=66, max_length=200)
    queue: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,62}$")


class AskMessage(_Message):
    """One seat's ask, as the task carries it."""

    kind: Literal["ask"]
    seat: SeatSpec
    text: str
    ask_sha256: SHA256
    session: str
    attempt: int = Field(ge=1)
    context: JsonObject
    deadline: AwareDatetime
    sent_at: AwareDatetime

    @model_validator(mode="after")
    def _consistent(self) -> AskMessage:
        if hashlib.sha256(self.text.encode("utf-8")).hexdigest() != self.ask_sha256:
            raise ValueError("ask_sha256 is not the SHA-256 of the text")
        if self.identity != identity_of(self.seat.name, self.ask_sha256, self.attempt):
            raise ValueError("identity is not the seat's ask hash")
        problems = secret_problems(self.seat)
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def as_ask(self) -> Ask:
        return Ask(text=self.text, sha256=self.ask_sha256, session=self.session, attempt=self.attempt,
                   context=self.context)


class StartedMessage(_Message):
    """The worker began running an ask (sent again on every redelivery)."""

    kind: Literal["started"]
    worker: str = Field(max_length=300)
    started_at: AwareDatetime
    redelivered: bool


class ReplyMessage(_Message):
    """What a worker returns: a run's raw reply and facts, or that it did not run (``expired``/``refused``)."""

    kind: Literal["reply"]
    reply_id: str = Field(pattern=r"^[0-9a-f]{32}$")
    worker: str = Field(max_length=300)
    seat: str
    ask_sha256: SHA256
    outcome: Literal["ran", "expired", "refused"]
    raw_b64: str
    raw_encoding: Literal["utf-8", "utf-8-surrogatepass"]
    raw_sha256: SHA256
    model: str
    version: str
    mode: str
    started_at: AwareDatetime | None
    finished_at: AwareDatetime | None
    usage: JsonObject
    failure: FailureClass | None
    detail: str
    fetches: list[JsonObject] | None
    redelivered: bool
    sent_at: AwareDatetime

    @model_validator(mode="after")
    def _consistent(self) -> ReplyMessage:
        sha, _, seat = self.identity.partition(".")
        if (sha, seat.partition("#")[0]) != (self.ask_sha256, self.seat):
            raise ValueError("identity is not the seat's ask hash")
        if len(self.raw_b64) > (MAX_RAW_BYTES * 4) // 3 + 4:
            raise ValueError(f"the raw reply is larger than {MAX_RAW_BYTES} bytes")
        if hashlib.sha256(self.raw_bytes()).hexdigest() != self.raw_sha256:
            raise ValueError("raw_sha256 is not the SHA-256 of the raw reply's bytes")
        if self.outcome == "ran" and (self.started_at is None or self.finished_at is None):
            raise ValueError("a run's reply carries its start and finish times")
        return self

    def raw_bytes(self) -> bytes:
        try:
            return base64.b64decode(self.raw_b64.encode("ascii"), validate=True)
        except (binascii.Error, UnicodeEncodeError) as exc:
            raise ValueError(f"raw_b64 is not base64: {exc}") from None

    def raw_text(self) -> str:
        """The reply as the seat's ``raw`` string, exactly (lone surrogates included)."""
        return self.raw_bytes().decode("utf-8", "surrogatepass")


class AskBody(TypedDict):
    """An ask as it travels (the JSON form of :class:`AskMessage`), in the order it is built."""

    v: int
    kind: Literal["ask"]
    identity: str
    queue: str
    seat: JsonObject
    text: str
    ask_sha256: str
    session: str
    attempt: int
    context: JsonObject
    deadline: str
    sent_at: str


class StartedBody(TypedDict):
    """A started notice as it travels (the JSON form of :class:`StartedMessage`)."""

    v: int
    kind: Literal["started"]
    identity: str
    queue: str
    worker: str
    started_at: str
    redelivered: bool


class ReplyBody(TypedDict):
    """A reply as it travels (the JSON form of :class:`ReplyMessage`), in the order it is built."""

    v: int
    kind: Literal["reply"]
    identity: str
    queue: str
    reply_id: str
    worker: str
    seat: str
    ask_sha256: str
    outcome: str
    raw_b64: str
    raw_encoding: str
    raw_sha256: str
    model: str
    version: str
    mode: str
    started_at: str | None
    finished_at: str | None
    usage: JsonObject
    failure: str | None
    detail: str
    fetches: list[JsonObject] | None
    redelivered: bool
    sent_at: str


#: Every kind of message the league or a worker publishes.
Body = AskBody | StartedBody | ReplyBody

Message = Annotated[AskMessage | StartedMessage | ReplyMessage, Field(discriminator="kind")]
_MESSAGE: TypeAdapter[AskMessage | StartedMessage | ReplyMessage] = TypeAdapter(Message)


def parse(body: object) -> AskMessage | StartedMessage | ReplyMessage:
    """Validate a decoded JSON body; anything else is a :class:`WireError` naming what is wrong."""
    if not isinstance(body, Mapping):
        raise WireError(f"a league message is a JSON object, not {type(body).__name__}",
                        fix="publish messages with league.workers.wire (JSON objects)")
    if body.get("v") != WIRE_VERSION:
        raise WireError(f"wire version {body.get('v')!r} is not {WIRE_VERSION}",
                        fix="run the same league version on the league host and every worker")
    try:
        return _MESSAGE.validate_python(dict(body))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "message"
        raise WireError(f"malformed {body.get('kind', 'league')} message: {where}: {first.get('msg')}",
                        fix="run the same league version on the league host and every worker") from None


def secret_problems(spec: SeatSpec) -> list[str]:
    """Why a roster entry cannot travel to a worker: an option that looks like a secret, a URL with a
    password in it, an ``env`` entry with a value. Secrets stay on the lab's machine."""
    problems = [f"options.{path} looks like a secret" for path in _secret_keys(spec.options, "")]
    problems += [f"options.{path} is a URL with credentials in it" for path in _userinfo_urls(spec.options, "")]
    problems += [f"env entry {e!r} is not a variable name (the worker reads the value on its own host)"
                 for e in spec.env if not ENV_NAME.fullmatch(e)]
    return [f"seat {spec.name}: {p}; a task carries no secret: name the variable in `env` or the file in "
            "`credentials` and keep the value on the worker's host" for p in problems]


def _secret_keys(value: object, path: str) -> list[str]:
    if isinstance(value, Mapping):
        found = [f"{path}{k}" for k in value if _looks_secret(str(k))]
        return found + [p for k, v in value.items() for p in _secret_keys(v, f"{path}{k}.")]
    if isinstance(value, list | tuple):
        return [p for i, v in enumerate(value) for p in _secret_keys(v, f"{path}{i}.")]
    return []


def _looks_secret(key: str) -> bool:
    """An option name that holds a secret (``api_key``, ``token``…); ``*_env`` names a variable instead
    (``api_key_env = "ANTHROPIC_API_KEY"``) and ``max_tokens`` is a count."""
    low = key.lower()
    if low.endswith("_env"):
        return False
    return bool(SECRET_WORDS & set(re.split(r"[_.\-]", low))) or any(pair in low for pair in SECRET_PAIRS)


def _userinfo_urls(value: object, path: str) -> list[str]:
    if isinstance(value, str):
        return [path.rstrip(".")] if URL_USERINFO.match(value.strip()) else []
    if isinstance(value, Mapping):
        return [p for k, v in value.items() for p in _userinfo_urls(v, f"{path}{k}.")]
    if isinstance(value, list | tuple):
        return [p for i, v in enumerate(value) for p in _userinfo_urls(v, f"{path}{i}.")]
    return []


def ask_message(spec: SeatSpec, ask: Ask, *, queue: str, deadline: datetime, sent_at: datetime) -> AskBody:
    """The task body for one seat's ask (validated before it leaves: a secret never reaches the broker)."""
    body: AskBody = {"v": WIRE_VERSION, "kind": "ask", "identity": identity_of(spec.name, ask.sha256, ask.attempt),
            "queue": queue,
            "seat": spec.model_dump(mode="json"), "text": ask.text, "ask_sha256": ask.sha256,
            "session": ask.session, "attempt": ask.attempt, "context": json_object(ask.context),
            "deadline": deadline.isoformat(), "sent_at": sent_at.isoformat()}
    parse(body)
    return body


def started_message(ask: AskMessage, *, worker: str, started_at: datetime, redelivered: bool) -> StartedBody:
    """The notice that the worker began running ``ask`` (sent again on every redelivery)."""
    return {"v": WIRE_VERSION, "kind": "started", "identity": ask.identity, "queue": ask.queue, "worker": worker,
            "started_at": started_at.isoformat(), "redelivered": redelivered}


def encode_raw(raw: str) -> tuple[bytes, str]:
    """The exact bytes the league keeps a reply as (league.day.raw_bytes): UTF-8, or generalised UTF-8
    for a reply holding lone surrogates; decoding with ``surrogatepass`` gives ``raw`` back either way."""
    data = raw.encode("utf-8", "surrogatepass")
    try:
        raw.encode("utf-8")
    except UnicodeEncodeError:
        return data, RAW_SURROGATES
    return data, RAW_UTF8


def reply_message(ask: AskMessage, reply: SeatReply, *, worker: str, redelivered: bool,
                  sent_at: datetime) -> ReplyBody:
    """A worker's reply to ``ask``; every run gets a fresh ``reply_id`` (a redelivered copy of this
    message keeps it, a second run of the same ask does not: that is how duplicates are told apart)."""
    data, encoding = encode_raw(reply.raw)
    body: ReplyBody = {
        "v": WIRE_VERSION, "kind": "reply", "identity": ask.identity, "queue": ask.queue,
        "reply_id": uuid.uuid4().hex, "worker": worker, "seat": ask.seat.name, "ask_sha256": ask.ask_sha256,
        "outcome": "ran", "raw_b64": base64.b64encode(data).decode("ascii"), "raw_encoding": encoding,
        "raw_sha256": hashlib.sha256(data).hexdigest(), "model": reply.model, "version": reply.version,
        "mode": reply.mode, "started_at": reply.started_at.isoformat(),
        "finished_at": reply.finished_at.isoformat(),
        "usage": json_object(reply.usage), "failure": reply.failure.value if reply.failure else None,
        "detail": reply.detail,
        "fetches": None if reply.fetches is None else [json_object(f) for f in reply.fetches],
        "redelivered": redelivered, "sent_at": sent_at.isoformat(),
    }
    parse(body)
    return body


def unrun_message(identity: str, *, queue: str, worker: str, outcome: str, failure: FailureClass, detail: str,
                  sent_at: datetime, redelivered: bool = False) -> ReplyBody:
    """A reply saying the ask was not run: ``expired`` (not started by its deadline) or ``refused`` (the
    worker could not take it); no raw text, no times of its own."""
    sha, seat = split_identity(identity)
    empty = hashlib.sha256(b"").hexdigest()
    return {"v": WIRE_VERSION, "kind": "reply", "identity": identity, "queue": queue, "reply_id": uuid.uuid4().hex,
            "worker": worker, "seat": seat, "ask_sha256": sha, "outcome": outcome, "raw_b64": "",
            "raw_encoding": RAW_UTF8, "raw_sha256": empty, "model": "unreported", "version": "unreported",
            "mode": "", "started_at": None, "finished_at": None, "usage": {}, "failure": failure.value,
            "detail": detail[:4000], "fetches": None, "redelivered": redelivered, "sent_at": sent_at.isoformat()}


def seat_reply(msg: ReplyMessage, *, received_at: datetime) -> SeatReply:
    """The :class:`SeatReply` the day seals from a worker's reply. A reply that did not run (expired,
    refused) has no times of its own: it is dated by its arrival."""
    return SeatReply(
        seat=msg.seat, raw=msg.raw_text(), model=msg.model, version=msg.version, mode=msg.mode,
        started_at=msg.started_at or received_at, finished_at=msg.finished_at or received_at,
        usage=msg.usage, failure=msg.failure, detail=msg.detail,
        fetches=None if msg.fetches is None else tuple(msg.fetches),
    )


def json_object(value: Mapping[str, object]) -> JsonObject:
    """A mapping as a plain JSON object: what :func:`json_value` makes of it, typed as the object it is."""
    return {str(k): json_value(v, USAGE_DEPTH - 1) for k, v in value.items()}


def json_value(value: object, depth: int = USAGE_DEPTH) -> Json:
    """``value`` as plain JSON: string keys, lists for tuples, ``None`` for NaN and infinities (JSON has
    none), containers below ``depth`` levels as a marker. What the book then keeps of it
    (``league.answers.json_safe``) is the same as of ``value`` itself."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping | list | tuple) and depth <= 0:
        return "(nested deeper than the wire carries)"
    if isinstance(value, Mapping):
        return {str(k): json_value(v, depth - 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_value(v, depth - 1) for v in value]
    return show(value)
