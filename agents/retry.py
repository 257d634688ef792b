"""The ONE retry policy of the seats: bounded retries of an SDK call's transport errors.

Only a call that never produced an answer (connection failure, timeout, rate limit, a 5xx) is
retried, a few times with exponential back-off. A reply that came back — even a bad one — is never
retried, and CLI seats are never retried at all: a seat is not silently re-asked (a re-ask is a
new, sealed ask under its own hash, decided by the league, not here).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import structlog
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from league_agents.base import FailureClass

log = structlog.get_logger(__name__)
T = TypeVar("T")
ATTEMPTS = 3
RETRIED = frozenset({FailureClass.TRANSIENT, FailureClass.RATE_LIMIT})


def _log_retry(state: RetryCallState) -> None:
    exc = state.outcome.exception() if state.outcome else None
    log.warning("seat.sdk_retry", attempt=state.attempt_number, error=repr(exc))


def call_with_retry(
    fn: Callable[[], T],
    classify: Callable[[BaseException], FailureClass],
    *,
    attempts: int = ATTEMPTS,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Call ``fn``; retry while ``classify(error)`` is a transport class; re-raise the last error."""
    retrying = Retrying(
        stop=stop_after_attempt(max(1, attempts)),
        wait=wait_exponential(multiplier=1.0, min=1.0, max=20.0),
        retry=retry_if_exception(lambda exc: classify(exc) in RETRIED),
        before_sleep=_log_retry,
        sleep=sleep,
        reraise=True,
    )
    return retrying(fn)
