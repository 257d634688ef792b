"""The sandbox port's one error root, below every other module of the package.

It lives apart from :mod:`sandbox.interface` so that the records the port's protocol names (egress
rules, profiles) can raise it without importing the protocol back: the package has no import circle.
"""

from __future__ import annotations


class SandboxError(Exception):
    """Base error of the sandbox port: the sandbox itself could not be set up or run.

    A command that runs and fails is NOT an error (it is an :class:`ExecResult`); this is raised only
    when isolation cannot be guaranteed, so a seat is never run unsandboxed."""

    def __init__(self, message: str, *, fix: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix

    def diagnostics(self) -> str:
        """What happened and, when known, the fix (same shape as ``LeagueError.diagnostics``)."""
        return self.message + (f"\n  fix: {self.fix}" if self.fix else "")


class BwrapMissing(SandboxError):
    """bubblewrap is not installed: the exact install command is in ``fix``."""
