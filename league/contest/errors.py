"""The contest's error root; each contest port (markets, orders) derives its own base from it."""

from __future__ import annotations

from league.errors import LeagueError


class ContestError(LeagueError):
    """Something in the contest could not be done; the message says what and ``fix`` what to do."""


class RulesFrozen(ContestError):
    """A season-2-or-later configuration changes the frozen rules (bench.md "What counts")."""

    exit_code = 2


class VerifyFailed(ContestError):
    """``league contest verify`` found a file or a field that does not hold."""

    exit_code = 4
