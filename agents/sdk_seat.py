"""What the SDK seats (anthropic, openai, google-genai) share: one call, the one retry policy for
transport errors, and the classification of library errors into :class:`FailureClass`.

SDK seats talk HTTP from the league's process (there is no CLI to isolate); each library's own
retries are switched off (``max_retries=0``) so that ``league_agents.retry`` is the only policy.
``options.base_url`` points a seat at any compatible endpoint (a lab's own HTTP service, or a
local stand-in server in tests).
"""

from __future__ import annotations

import os
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import structlog

from league_agents.base import Ask, FailureClass, Now, SeatBase, SeatReply, SeatSpec
from league_agents.failures import classify_text
from league_agents.options import SdkOptions, SeatOptions
from league_agents.retry import ATTEMPTS, call_with_retry
from sandbox.interface import Sandbox

log = structlog.get_logger(__name__)
_TRANSPORT_NAMES = ("Connection", "Connect", "Timeout", "Transport", "Network", "RemoteProtocol", "ReadError")


@dataclass(frozen=True)
class SdkAnswer:
    text: str
    model: str
    usage: Mapping[str, Any] = field(default_factory=dict)


def status_of(exc: BaseException) -> int | None:
    """The HTTP status an SDK error carries (``status_code`` in anthropic/openai, ``code`` in genai)."""
    for attr in ("status_code", "code"):
        value = getattr(exc, attr, None)
        if isinstance(value, int) and 100 <= value < 600:
            return value
    return None


def classify_exception(exc: BaseException) -> FailureClass:
    """Status first, then the message (usage limits hide behind 429 and 400), then the type name."""
    status = status_of(exc)
    text_class = classify_text(str(exc))
    if text_class is FailureClass.USAGE_LIMIT:
        return text_class
    if status in (401, 403):
        return FailureClass.LOGIN
    if status == 429:
        return FailureClass.RATE_LIMIT
    if status is not None and (status >= 500 or status in (408, 409)):
        return FailureClass.TRANSIENT
    if status is None and any(n in type(exc).__name__ for n in _TRANSPORT_NAMES):
        return FailureClass.TRANSIENT
    return FailureClass.SEAT_FAULT


class SdkSeat(SeatBase, ABC):
    """Base of the SDK seats; subclasses implement ``make_client`` and ``call``."""

    key_vars: tuple[str, ...] = ()
    options_model: ClassVar[type[SeatOptions] | None] = SdkOptions
    #: Runs in the league's own process and reaches its endpoint directly: no sandbox policy applies, so a roster
    #: that states one is refused rather than silently not enforced.
    networks: ClassVar[frozenset[str] | None] = frozenset()

    def __init__(
        self,
        spec: SeatSpec,
        *,
        sandbox: Sandbox | None = None,
        client: Any = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.spec = spec
        self._client = client
        self._sleep = sleep

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = self.make_client()
        return self._client

    @property
    def effort(self) -> str:
        return self.spec.effort or "high"

    def api_key(self) -> str | None:
        for name in (*self.spec.env, *self.key_vars):
            if os.environ.get(name):
                return os.environ[name]
        return None

    @property
    def base_url(self) -> str | None:
        url = self.spec.options.get("base_url")
        return str(url) if url else None

    @abstractmethod
    def make_client(self) -> Any:
        """Provided by each adapter."""

    @abstractmethod
    def call(self, ask: Ask) -> SdkAnswer:
        """Provided by each adapter."""

    def ask(self, ask: Ask, now: Now) -> SeatReply:
        started = now()
        if self._client is None and not self.api_key():
            wanted = ", ".join((*self.spec.env, *self.key_vars))
            return self._reply(started, now(), "", self.spec.model, {}, FailureClass.LOGIN, f"no API key: set {wanted}")
        attempts = int(self.spec.options.get("retries", ATTEMPTS))
        try:
            answer = call_with_retry(lambda: self.call(ask), classify_exception, attempts=attempts, sleep=self._sleep)
        except Exception as exc:  # noqa: BLE001 - every library error becomes a classified reply
            failure = classify_exception(exc)
            log.warning("seat.sdk_failed", seat=self.spec.name, failure=failure.value, error=repr(exc))
            return self._reply(started, now(), "", self.spec.model, {}, failure, f"{type(exc).__name__}: {exc}")
        return self._reply(started, now(), answer.text, answer.model, answer.usage, None, "")

    def _reply(
        self,
        started: Any,
        finished: Any,
        raw: str,
        model: str,
        usage: Mapping[str, Any],
        failure: FailureClass | None,
        detail: str,
    ) -> SeatReply:
        return SeatReply(
            seat=self.spec.name,
            raw=raw,
            model=model or self.spec.model,
            version=model or "unreported",
            mode=self.effort,
            started_at=started,
            finished_at=finished,
            usage=dict(usage),
            failure=failure,
            detail=detail[:4000],
        )


def dump(obj: Any) -> dict[str, Any]:
    """A pydantic usage object (or None) as a plain dict."""
    if obj is None:
        return {}
    if hasattr(obj, "model_dump"):
        return dict(obj.model_dump(mode="json", exclude_none=True))
    return dict(obj) if isinstance(obj, Mapping) else {"value": str(obj)}
