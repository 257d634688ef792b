"""How an evaluation runs a seat: built by the seat registry on a sandbox that imposes the run's policy.

Any registered adapter runs, the evaluations' stand-in (``adapter = "eval-standin"``) as any vendor CLI or SDK
seat; ``league eval questions`` here and a lab's worker (league.workers.tasks) build it the same way. Only a
seat whose adapter takes hints (a stand-in) is handed the recorded answer (league.evals.run).
"""

from __future__ import annotations

from league.evals.policy import Policy, PolicySandbox
from league_agents.base import Seat, SeatSpec
from league_agents.registry import SeatFactory, build_seat, make_sandbox
from sandbox.interface import Sandbox


def policy_seat(spec: SeatSpec, policy: Policy, *, sandbox: Sandbox | None = None,
                factory: SeatFactory = build_seat) -> Seat:
    """The seat of ``spec`` on ``sandbox`` (default: the registered sandbox), every run under ``policy``."""
    return factory(spec, PolicySandbox(sandbox or make_sandbox(), policy))


def reported_cost(usage: object) -> float | None:
    """The cost a reply reported (``total_cost_usd`` as Claude Code prints it, or ``cost_usd``), if any."""
    if not isinstance(usage, dict):
        return None
    for key in ("total_cost_usd", "cost_usd"):
        value = usage.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
            return float(value)
    return None
