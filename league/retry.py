"""The league's one retry policy for network I/O (prices, crowd venues, stamp services).

Bounded tries with exponential waits, and only for errors the caller's predicate calls transient.
It is never used to re-ask a seat: a re-ask is a new sealed ask (seats' SDK transport retries live
in ``league_agents.retry``, since ``agents`` does not import ``league``).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import structlog
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt, wait_exponential

log = structlog.get_logger(__name__)
MAX_WAIT_S = 60.0


def _log_retry(state: RetryCallState) -> None:
    exc = state.outcome.exception() if state.outcome else None
    log.warning("io.retry", attempt=state.attempt_number, error=repr(exc))


def bounded(*, attempts: int, wait_s: float, retry_on: Callable[[BaseException], bool], reraise: bool = True,
            sleep: Callable[[float], None] = time.sleep) -> Retrying:
    """At most ``attempts`` tries; waits ``wait_s × 2^k`` (capped at a minute) between them."""
    return Retrying(stop=stop_after_attempt(max(1, attempts)), wait=wait_exponential(multiplier=wait_s, max=MAX_WAIT_S),
                    retry=retry_if_exception(retry_on), reraise=reraise, sleep=sleep, before_sleep=_log_retry)
