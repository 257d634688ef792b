from __future__ import annotations

import pytest

from league_agents.base import FailureClass
from league_agents.failures import classify_text
from league_agents.retry import call_with_retry
from league_agents.sdk_seat import classify_exception


@pytest.mark.parametrize(
    ("text", "failure"),
    [
        ("Invalid API key · Please run /login", FailureClass.LOGIN),
        ("OAuth token has expired. Please obtain a new token", FailureClass.LOGIN),
        ("unexpected status 401 Unauthorized", FailureClass.LOGIN),
        ("Claude AI usage limit reached|1764432000", FailureClass.USAGE_LIMIT),
        ("You've hit your usage limit. Upgrade to Pro", FailureClass.USAGE_LIMIT),
        ("Quota exceeded for quota metric 'Requests per day'", FailureClass.USAGE_LIMIT),
        ("429 Too Many Requests", FailureClass.RATE_LIMIT),
        ("API Error: 529 Overloaded", FailureClass.TRANSIENT),
        ("fetch failed: ECONNRESET", FailureClass.TRANSIENT),
        ("TypeError: Cannot read properties of undefined", FailureClass.SEAT_FAULT),
        ("Could not resolve authentication method. Expected one of api_key", FailureClass.LOGIN),
        ("OpenAIError: Missing credentials. Please pass an `api_key`", FailureClass.LOGIN),
        ("", FailureClass.SEAT_FAULT),
    ],
)
def test_classify_text(text: str, failure: FailureClass) -> None:
    assert classify_text(text) is failure


class StatusError(Exception):
    def __init__(self, status_code: int, message: str = "") -> None:
        super().__init__(message)
        self.status_code = status_code


class ConnectTimeout(Exception):
    pass


@pytest.mark.parametrize(
    ("exc", "failure"),
    [
        (StatusError(401), FailureClass.LOGIN),
        (StatusError(403), FailureClass.LOGIN),
        (StatusError(429, "slow down"), FailureClass.RATE_LIMIT),
        (StatusError(429, "insufficient_quota"), FailureClass.USAGE_LIMIT),
        (StatusError(529, "overloaded"), FailureClass.TRANSIENT),
        (StatusError(500), FailureClass.TRANSIENT),
        (StatusError(400, "bad"), FailureClass.SEAT_FAULT),
        (ConnectTimeout("timed out"), FailureClass.TRANSIENT),
        (ValueError("nope"), FailureClass.SEAT_FAULT),
    ],
)
def test_classify_exception(exc: Exception, failure: FailureClass) -> None:
    assert classify_exception(exc) is failure


def test_retry_only_transport_errors_and_bounded() -> None:
    calls: list[int] = []
    waits: list[float] = []

    def flaky() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise StatusError(503)
        return "ok"

    assert call_with_retry(flaky, classify_exception, attempts=3, sleep=waits.append) == "ok"
    assert len(calls) == 3 and len(waits) == 2

    calls.clear()

    def always_down() -> str:
        calls.append(1)
        raise StatusError(503)

    with pytest.raises(StatusError):
        call_with_retry(always_down, classify_exception, attempts=4, sleep=waits.append)
    assert len(calls) == 4

    calls.clear()

    def refused() -> str:
        calls.append(1)
        raise StatusError(401)

    with pytest.raises(StatusError):
        call_with_retry(refused, classify_exception, attempts=4, sleep=waits.append)
    assert len(calls) == 1
