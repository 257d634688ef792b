"""The errors of the worker port (remote seats): one root, each with the fix a person needs."""

from __future__ import annotations

from league.errors import LeagueError


class WorkerError(LeagueError):
    """Base error of remote seat execution; the broker library's errors are translated into it."""


class WireError(WorkerError):
    """A task or reply message is not one the league speaks (version, shape, hash, secret)."""


class BrokerError(WorkerError):
    """The broker could not be reached, or refused what was asked of it."""


class WorkerConfigError(WorkerError):
    """A worker (or a lab's broker account) is set up in a way that breaks lab isolation or TLS."""

    exit_code = 2
