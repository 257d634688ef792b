"""One error root for the whole project.

Every error the league raises on purpose derives from :class:`LeagueError`. Library code never
exits or prints; it raises an error whose :meth:`LeagueError.diagnostics` tells a person what went
wrong and what to do. Only the CLI turns errors into exit codes (see ``league.cli``).
Each port (prices, crowd, stamps, storage, seats, sandbox) has one base exception below or in its
own ``interface`` module, and adapters translate library errors into it.
"""

from __future__ import annotations


class LeagueError(Exception):
    """Root of every deliberate error; carries a human explanation and an optional fix."""

    exit_code: int = 1

    def __init__(self, message: str, *, fix: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix

    def diagnostics(self) -> str:
        """Return the text a person should read: what happened and, when known, the fix."""
        text = self.message
        if self.fix:
            text += f"\n  fix: {self.fix}"
        return text


class ConfigError(LeagueError):
    """A configuration file is missing, unreadable or invalid; names file, key and fix."""

    exit_code = 2


class BookError(LeagueError):
    """The book cannot be opened, written or read."""


class BookLockedError(BookError):
    """Another process holds the single-writer lock of a book."""

    exit_code = 3


class ChainBroken(BookError):
    """Verification found a bad line; ``line`` is its 1-based number (0 for the whole file)."""

    exit_code = 4

    def __init__(self, message: str, *, line: int, reason: str, fix: str | None = None) -> None:
        super().__init__(message, fix=fix)
        self.line = line
        self.reason = reason


class UsageError(LeagueError):
    """A command-line value that is not what the option takes (a date that does not exist, a number out of
    its range); names the option, the value and what it takes."""

    exit_code = 2


class InvalidRecord(LeagueError):
    """A record (book line, contract, answer, config value) failed validation on construction."""


class CalendarError(LeagueError):
    """A date is outside the exchange calendar or is not a session where one is required."""
