"""The publishing side's one base exception."""

from __future__ import annotations

from league.errors import LeagueError


class PublishError(LeagueError):
    """The open-data folder cannot be written (missing book, unreadable input, disk error)."""
