"""The league's one retry policy for network I/O (prices, crowd venues, stamp services, followers).

Bounded tries with exponential waits, and only for errors the caller's predicate calls transient. One pause
schedule (:func:`backoff_s`) serves both the bounded tries (:func:`bounded`, through tenacity) and the remote
followers of ``league tail`` (league.api.follow), whose count of failures in a row is reset by progress inside a
generator, which a tenacity ``Retrying`` cannot express.
It is never used to re-ask a seat: a re-ask is a new sealed ask (seats' SDK transport retries live
in ``league_agents.retry``, since ``agents`` does not import ``league``).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import structlog
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

log = structlog.get_logger(__name__)
MAX_WAIT_S = 60.0


def backoff_s(failures: int, *, first_s: float, max_s: float = MAX_WAIT_S) -> float:
    """The pause after the ``failures``-th failure in a row (1, 2, …): ``first_s × 2^(failures − 1)``, at most
    ``max_s`` (a minute unless the caller asks for less)."""
    if failures < 1:
        raise ValueError(f"failures counts from 1, got {failures}")
    return float(min(max_s, first_s * 2.0 ** (failures - 1)))


def _log_retry(state: RetryCallState) -> None:
    exc = state.outcome.exception() if state.outcome else None
    log.warning("io.retry", attempt=state.attempt_number, error=repr(exc))


def bounded(*, attempts: int, wait_s: float, retry_on: Callable[[BaseException], bool], reraise: bool = True,
            sleep: Callable[[float], None] = time.sleep) -> Retrying:
    """At most ``attempts`` tries; waits :func:`backoff_s` of the tries failed so far (``wait_s × 2^k``, capped at a
    minute) between them."""
    return Retrying(stop=stop_after_attempt(max(1, attempts)),
                    wait=lambda state: backoff_s(state.attempt_number, first_s=wait_s),
                    retry=retry_if_exception(retry_on), reraise=reraise, sleep=sleep, before_sleep=_log_retry)
