"""Per-seat self-check: is the seat's CLI installed, are its credentials in place, and does it
answer a trivial ask? Used by ``league doctor`` and ``league seat check``, and by the daemon before
each batch. Returns :class:`sandbox.selfcheck.Check` lines; never raises for a broken seat."""

from __future__ import annotations

from dataclasses import dataclass
from hashlib import sha256

from league_agents.base import Ask, Now, SeatReply, SeatSpec
from league_agents.cli_seat import CliSeat
from league_agents.registry import build_seat, is_sandboxed, load_adapter, make_sandbox
from sandbox.interface import Sandbox, SandboxError
from sandbox.selfcheck import Check, check_cli, check_credentials, check_egress, check_isolation

TRIVIAL_TEXT = (
    "This is a connectivity check from the forecasting league; it is not scored. "
    'End your reply with exactly this JSON object: {"forecast": {"SPX": {"1d": {"prob_up": 50, "action": "hold"}}}}'
)


def trivial_ask(session: str = "selfcheck") -> Ask:
    """The fixed test ask (one market, one horizon) every kind of seat can answer."""
    context = {"markets": {"SPX": {"horizons": ["1d"], "last_change_pct": 0.0, "price": 6000.0}}}
    return Ask(text=TRIVIAL_TEXT, sha256=sha256(TRIVIAL_TEXT.encode()).hexdigest(), session=session, context=context)


def static_checks(spec: SeatSpec) -> list[Check]:
    """Checks that run nothing: adapter known, CLI on the sandbox PATH, credentials present."""
    try:
        cls = load_adapter(spec.adapter)
    except Exception as exc:  # noqa: BLE001 - reported as a failed check
        return [Check(f"{spec.name}: adapter {spec.adapter}", False, str(exc))]
    checks = [Check(f"{spec.name}: adapter {spec.adapter}", True, f"{cls.__module__}.{cls.__name__}")]
    if issubclass(cls, CliSeat):
        seat = cls(spec)
        if not spec.options.get("executable"):
            prefix = f"{seat.cli_prefix}/node_modules/.bin" if seat.cli_prefix else None
            checks.append(_named(spec, check_cli(seat.command, prefix)))
        checks.append(_named(spec, check_credentials(seat.profile())))
    return checks


def _named(spec: SeatSpec, check: Check) -> Check:
    return Check(f"{spec.name}: {check.name}", check.ok, check.detail, check.fix)


@dataclass(frozen=True)
class SeatCheck:
    """The outcome of one trivial ask: the reply and how long it took."""

    reply: SeatReply
    seconds: float

    @property
    def ok(self) -> bool:
        return self.reply.failure is None and not self.reply.silent


def run_trivial_ask(spec: SeatSpec, now: Now, sandbox: Sandbox | None = None) -> SeatCheck:
    """Ask the seat the trivial question (in its sandbox if it is a sandboxed kind)."""
    seat = build_seat(spec, sandbox=sandbox if is_sandboxed(spec.adapter) else None)
    reply = seat.ask(trivial_ask(), now)
    return SeatCheck(reply, (reply.finished_at - reply.started_at).total_seconds())


def preflight(
    specs: list[SeatSpec] | tuple[SeatSpec, ...], now: Now, *, sandbox: Sandbox | None = None, ask_each: bool = False
) -> list[Check]:
    """The daemon's check before a batch: sandbox isolation, the egress proxy (when a seat has
    network), every seat's CLI and credentials and, with ``ask_each``, a trivial ask to each seat.
    A failed line means: do not start the batch."""
    box = sandbox
    if box is None and any(is_sandboxed(s.adapter) for s in specs):
        try:
            box = make_sandbox()
        except SandboxError as exc:
            return [Check("sandbox starts", False, exc.message, exc.fix or "")]
    checks = check_isolation(box) if box is not None else []
    if box is not None and any(s.network != "none" and is_sandboxed(s.adapter) for s in specs):
        checks += check_egress(box)
    for spec in specs:
        checks += static_checks(spec)
        if ask_each:
            result = run_trivial_ask(spec, now, box)
            detail = f"{result.seconds:.1f} s, model {result.reply.model}"
            failure = result.reply.failure.value if result.reply.failure else ("silent" if result.reply.silent else "")
            checks.append(Check(f"{spec.name}: trivial ask", result.ok, f"{detail} {failure}".strip()))
    return checks
