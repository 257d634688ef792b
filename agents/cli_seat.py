"""What every vendor-CLI seat shares: run the CLI once inside the sandbox, then parse its output.

A vendor module only says how to call its CLI (``argv``, extra ``files``) and how to read the
machine-readable output (``parse``). Everything about isolation, timing and incidents lives here,
so the four CLIs are treated exactly alike. A seat is asked once per call: nothing here retries.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import structlog

from agents.base import Ask, FailureClass, Now, SeatError, SeatReply, SeatSpec
from agents.failures import classify_text
from sandbox.interface import EndedBy, ExecResult, Sandbox, SandboxError
from sandbox.profiles import Profile, get_profile

log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class Parsed:
    """What an adapter read from its CLI's output."""

    text: str
    model: str = ""
    mode: str = ""
    usage: Mapping[str, Any] = field(default_factory=dict)


def default_sandbox() -> Sandbox:
    """The real bubblewrap sandbox (imported lazily; raises ``SandboxError`` if bwrap is missing)."""
    from sandbox.bwrap import BwrapSandbox

    return BwrapSandbox()


class CliSeat(ABC):
    """Base of the vendor CLI seats; subclasses set ``binary``/``profile_name`` and implement parsing."""

    binary: ClassVar[str] = ""
    profile_name: ClassVar[str] = "default"

    def __init__(self, spec: SeatSpec, *, sandbox: Sandbox | None = None) -> None:
        self.spec = spec
        self._sandbox = sandbox

    @property
    def sandbox(self) -> Sandbox:
        if self._sandbox is None:
            self._sandbox = default_sandbox()
        return self._sandbox

    # -- what subclasses provide ------------------------------------------------------------------
    @abstractmethod
    def argv(self, ask: Ask) -> list[str]:
        """Provided by each adapter."""

    @abstractmethod
    def parse(self, result: ExecResult) -> Parsed:
        """Provided by each adapter."""

    def files(self, ask: Ask) -> dict[str, bytes]:
        """Extra files for the home (besides the credentials); e.g. a settings file."""
        return {}

    def env(self) -> dict[str, str]:
        return {}

    # -- shared -----------------------------------------------------------------------------------
    @property
    def command(self) -> str:
        """The CLI's name, or ``options.executable`` (a lab's own CLI, copied into ``~/bin``)."""
        exe = self.spec.options.get("executable")
        return Path(str(exe)).name if exe else self.binary

    def home_files(self, ask: Ask) -> dict[str, bytes]:
        """Extra files, plus a lab's own executable and its helper files (``options.bin_files``)."""
        files = self.files(ask)
        exe = self.spec.options.get("executable")
        for src in ([exe] if exe else []) + list(self.spec.options.get("bin_files", [])):
            files[f"bin/{Path(str(src)).name}"] = Path(str(src)).read_bytes()
        return files

    def profile(self) -> Profile:
        """The vendor's profile (or the roster's), narrowed to the seat's own credentials and keys."""
        name = self.spec.profile if self.spec.profile != "default" else self.profile_name
        prof = get_profile(name)
        if self.spec.credentials:
            prof = prof.with_credentials(self.spec.credentials)
        return prof.with_env_keys(self.spec.env) if self.spec.env else prof

    @property
    def effort(self) -> str:
        return self.spec.effort or "max"

    def ask(self, ask: Ask, now: Now) -> SeatReply:
        """Run the CLI once; every failure becomes a classified reply, never an exception."""
        started = now()
        try:
            res = self.sandbox.exec(
                self.argv(ask),
                timeout=self.spec.timeout_s,
                env=self.env(),
                net=self.spec.net,
                profile=self.profile(),
                files_in_home=self.home_files(ask),
                owner=self.spec.name,
            )
        except (SandboxError, OSError) as exc:
            detail = exc.diagnostics() if isinstance(exc, SandboxError) else str(exc)
            log.warning("seat.sandbox_incident", seat=self.spec.name, detail=detail)
            return self.failed(started, now(), FailureClass.SANDBOX, detail)
        return self.reply_from(res, started, now())

    def reply_from(self, res: ExecResult, started: Any, finished: Any) -> SeatReply:
        limit = _limit_failure(res)
        if limit is not None:
            return self.failed(started, finished, limit, res.detail + _tail(res))
        try:
            parsed = self.parse(res)
        except SeatError as exc:
            return self.failed(started, finished, exc.failure, f"{exc}{_tail(res)}")
        return SeatReply(
            seat=self.spec.name,
            raw=parsed.text,
            model=parsed.model or self.spec.model,
            version=parsed.model or "unreported",
            mode=parsed.mode or self.effort,
            started_at=started,
            finished_at=finished,
            usage={**parsed.usage, "sandbox": _run_facts(res)},
        )

    def failed(self, started: Any, finished: Any, failure: FailureClass, detail: str) -> SeatReply:
        return SeatReply(
            seat=self.spec.name,
            raw="",
            model=self.spec.model,
            version="unreported",
            mode=self.effort,
            started_at=started,
            finished_at=finished,
            failure=failure,
            detail=detail[:4000],
        )

    def fail_from_output(self, res: ExecResult, message: str) -> SeatError:
        """A SeatError classified from the message and stderr (used on error paths only)."""
        return SeatError(message, classify_text(f"{message}\n{res.err_text[-4000:]}"))


def _limit_failure(res: ExecResult) -> FailureClass | None:
    if res.ended_by is EndedBy.TIMEOUT:
        return FailureClass.TIMEOUT
    if res.ended_by is not EndedBy.EXIT:
        return FailureClass.SEAT_FAULT
    return None


def _run_facts(res: ExecResult) -> dict[str, Any]:
    """How the run went, kept with the reply: the CLI's full output is only hashed (the reply text is raw)."""
    facts: dict[str, Any] = {
        "stdout_sha256": hashlib.sha256(res.stdout).hexdigest(),
        "elapsed_s": round(res.elapsed_s, 3),
        "exit_code": res.exit_code,
    }
    if res.memory_peak_bytes is not None:
        facts["memory_peak_bytes"] = res.memory_peak_bytes
    if res.tasks_refused:
        facts["tasks_refused"] = res.tasks_refused
    return facts


def _tail(res: ExecResult) -> str:
    err = res.err_text.strip()
    return f" | stderr: {err[-1500:]}" if err else ""
