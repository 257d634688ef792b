"""Turning what a CLI or SDK said when it failed into a :class:`FailureClass`.

Only consulted on an error path (non-zero exit, ``is_error``, an error event): a seat's normal
answer that happens to mention "usage limit" is never taken for an incident. Login and usage-limit
failures are infrastructure incidents (they void a round); the rest are the seat's own failures.
"""

from __future__ import annotations

import re

from league_agents.base import FailureClass

_PATTERNS: tuple[tuple[FailureClass, re.Pattern[str]], ...] = (
    (
        FailureClass.USAGE_LIMIT,
        re.compile(
            r"usage limit|hit your (usage )?limit|credit balance|insufficient[_ ]quota|quota exceeded"
            r"|exceeded your current quota|spend limit|billing",
            re.I,
        ),
    ),
    (
        FailureClass.LOGIN,
        re.compile(
            r"/login|not logged in|log ?in required|please (re-?)?(login|log in|authenticate)|invalid api key"
            r"|invalid x-api-key|api key (is )?(required|missing|not (set|found|valid))|unauthori[sz]ed|\b401\b"
            r"|oauth token (has )?expired|authentication (failed|error|required)|token refresh failed"
            r"|set an auth method|auth method .*not (set|configured)|login expired|re-?authenticate"
            r"|could not resolve authentication|missing credentials|no api key",
            re.I,
        ),
    ),
    (FailureClass.RATE_LIMIT, re.compile(r"rate[ _-]?limit|too many requests|\b429\b", re.I)),
    (
        FailureClass.TRANSIENT,
        re.compile(
            r"overloaded|\b50[0234]\b|service unavailable|ECONNRESET|ETIMEDOUT|ECONNREFUSED|ENOTFOUND|EAI_AGAIN"
            r"|fetch failed|network error|socket hang up|connection (reset|refused|error)",
            re.I,
        ),
    ),
)


def classify_text(text: str) -> FailureClass:
    """The first matching class, most severe first; anything unrecognised is the seat's fault."""
    for failure, pattern in _PATTERNS:
        if pattern.search(text):
            return failure
    return FailureClass.SEAT_FAULT
