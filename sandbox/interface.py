"""The sandbox port: run one command isolated from the operator, with limits, and say how it ended.

The port is deliberately small (one method) so that the seat adapters never learn how isolation
is done; the one implementation is :mod:`sandbox.bwrap`. ``sandbox`` imports nothing from
``agents`` or ``league`` (dependency direction), so its error root is its own
:class:`SandboxError` (in :mod:`sandbox.errors`, re-exported here), which the league translates into
a seat incident. The port's records sit below it (:mod:`sandbox.netpolicy`, :mod:`sandbox.profiles`),
so no module of the sandbox imports this one back.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol, runtime_checkable

from sandbox.errors import BwrapMissing as BwrapMissing
from sandbox.errors import SandboxError as SandboxError
from sandbox.netpolicy import EgressRules, Fetch
from sandbox.profiles import Profile

Now = Callable[[], datetime]


def system_now() -> datetime:
    """The default wall clock of the port; callers with a simulated clock pass their own ``now``."""
    return datetime.now(UTC)


class EndedBy(enum.StrEnum):
    """Which limit (if any) ended a run; ``exit`` means the command finished on its own."""

    EXIT = "exit"
    TIMEOUT = "timeout"
    MEMORY = "memory"
    OUTPUT_CAP = "output_cap"
    FILE_SIZE = "file_size"
    PROCESSES = "processes"
    SIGNAL = "signal"


@dataclass(frozen=True)
class ExecResult:
    """What a sandboxed run produced. Output is capped; ``*_truncated`` say whether bytes were lost."""

    argv: tuple[str, ...]
    stdout: bytes
    stderr: bytes
    exit_code: int
    started_at: datetime
    finished_at: datetime
    ended_by: EndedBy
    elapsed_s: float
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    detail: str = ""
    oom_kills: int = 0  # processes the kernel killed at the run's memory cap
    tasks_refused: int = 0  # forks refused at the run's task cap
    memory_peak_bytes: int | None = None
    fetches: tuple[Fetch, ...] = ()

    def __post_init__(self) -> None:
        if self.started_at.tzinfo is None or self.finished_at.tzinfo is None:
            raise ValueError("ExecResult times must be timezone-aware")
        if self.finished_at < self.started_at or self.elapsed_s < 0:
            raise ValueError("ExecResult finished before it started")

    @property
    def ok(self) -> bool:
        return self.ended_by is EndedBy.EXIT and self.exit_code == 0

    @property
    def text(self) -> str:
        """stdout decoded leniently (a seat's bytes are kept elsewhere; this is for parsing)."""
        return self.stdout.decode("utf-8", errors="replace")

    @property
    def err_text(self) -> str:
        return self.stderr.decode("utf-8", errors="replace")


@runtime_checkable
class Sandbox(Protocol):
    """Runs argv isolated: fresh home with only ``profile``'s credentials and ``files_in_home``;
    its own network namespace, whose only way out (``egress``, default none) is the league's proxy."""

    def exec(
        self,
        argv: Sequence[str],
        *,
        stdin: bytes | None = None,
        timeout: float,
        env: Mapping[str, str] | None = None,
        egress: EgressRules | None = None,
        profile: str | Profile = "default",
        files_in_home: Mapping[str, bytes] | None = None,
        owner: str | None = None,
    ) -> ExecResult: ...
