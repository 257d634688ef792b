"""The scorecard of the registered predictions (docs/predictions.md). Pure.

Over the predictions resolved true or false: the Brier score of the registered probabilities (p against the
outcome, 1 for true), the share resolved, a worst-case Brier counting every unresolved prediction as failed
(outcome 0: the registry cannot gain by leaving a line unresolved), and the skill against always saying 0.5:
1 - Brier / 0.25.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from league.jsonvalue import Json

Status = Literal["true", "false", "unresolved"]
#: The Brier score of a registry that says 0.5 every time, whatever happens.
COIN_BRIER = 0.25
PLACES = 6


@dataclass(frozen=True)
class Scored:
    """One registered prediction: its probability and, once resolved, its status (None before its check)."""

    id: str
    p: float
    status: Status | None


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, PLACES)


def scorecard(lines: Sequence[Scored]) -> dict[str, Json]:
    """{registered, due (resolved lines of any status), resolved, unresolved, share_resolved, brier,
    brier_worst_case, skill_vs_half, skill_worst_case}; the figures are null while nothing is resolved."""
    due = [x for x in lines if x.status is not None]
    resolved = [x for x in due if x.status != "unresolved"]
    brier = (sum((x.p - (1.0 if x.status == "true" else 0.0)) ** 2 for x in resolved) / len(resolved)
             if resolved else None)
    worst = (sum((x.p - (1.0 if x.status == "true" else 0.0)) ** 2 for x in due) / len(due) if due else None)
    return {"registered": len(lines), "due": len(due), "resolved": len(resolved),
            "unresolved": len(due) - len(resolved),
            "share_resolved": _r(len(resolved) / len(due)) if due else None,
            "brier": _r(brier), "brier_worst_case": _r(worst),
            "skill_vs_half": _r(1 - brier / COIN_BRIER) if brier is not None else None,
            "skill_worst_case": _r(1 - worst / COIN_BRIER) if worst is not None else None}
