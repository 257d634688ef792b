"""The seats that run inside the sandbox: the vendor CLIs (agents/cli_seat.py) and the script seats
(agents/standin.py). Each is given a sandbox or, when it first runs, makes the registered default."""

from __future__ import annotations

from typing import ClassVar

from league_agents.base import SeatBase, SeatSpec
from league_agents.registry import make_sandbox
from sandbox.interface import Sandbox


class SandboxedSeat(SeatBase):
    """A seat whose every run goes through :attr:`sandbox` (the league refuses to start where it cannot)."""

    sandboxed: ClassVar[bool] = True

    def __init__(self, spec: SeatSpec, *, sandbox: Sandbox | None = None) -> None:
        self.spec = spec
        self._sandbox = sandbox

    @property
    def sandbox(self) -> Sandbox:
        """The sandbox given, else the registered default, made when the seat first runs."""
        if self._sandbox is None:
            self._sandbox = make_sandbox()
        return self._sandbox
