"""History-only baseline seats, answered in-process (no model, no sandbox needed).

``_coin`` says 50 everywhere, ``_momentum`` 55/45 with the sign of the last change, and
``_climatology`` the historical up-frequency the league passes in ``ask.context``. Their replies
are ordinary answer-format texts so the league seals and parses them exactly like any seat's.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

from league_agents.base import Ask, Now, SeatReply, SeatSpec
from sandbox.interface import Sandbox


def reply_text(cells: Mapping[str, Mapping[str, float]]) -> str:
    """An answer-format reply with ``action: hold`` in every cell given."""
    forecast = {code: {h: {"prob_up": p, "action": "hold"} for h, p in row.items()} for code, row in cells.items()}
    return json.dumps({"forecast": forecast}, sort_keys=True)


class _Baseline(ABC):
    """Shared shape: ``cells(ask)`` gives {market: {horizon: prob_up}}; absent cells stay absent."""

    kind = "baseline"

    def __init__(self, spec: SeatSpec, *, sandbox: Sandbox | None = None) -> None:
        self.spec = spec

    @abstractmethod
    def cells(self, ask: Ask) -> dict[str, dict[str, float]]:
        """Provided by each adapter."""

    def ask(self, ask: Ask, now: Now) -> SeatReply:
        at = now()
        model = self.spec.model if self.spec.model != "unreported" else self.kind
        return SeatReply(
            seat=self.spec.name,
            raw=reply_text(self.cells(ask)),
            model=model,
            version="1",
            mode="history-only",
            started_at=at,
            finished_at=at,
        )


def _markets(ask: Ask) -> Mapping[str, Mapping[str, Any]]:
    return ask.context.get("markets", {}) or {}


class CoinSeat(_Baseline):
    kind = "coin"

    def cells(self, ask: Ask) -> dict[str, dict[str, float]]:
        return {code: {h: 50.0 for h in m.get("horizons", [])} for code, m in _markets(ask).items()}


class MomentumSeat(_Baseline):
    kind = "momentum"

    def cells(self, ask: Ask) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        for code, m in _markets(ask).items():
            change = m.get("last_change_pct")
            if isinstance(change, int | float) and change != 0:
                out[code] = {h: 55.0 if change > 0 else 45.0 for h in m.get("horizons", [])}
        return out


class ClimatologySeat(_Baseline):
    kind = "climatology"

    def cells(self, ask: Ask) -> dict[str, dict[str, float]]:
        table = ask.context.get("climatology", {}) or {}
        out: dict[str, dict[str, float]] = {}
        for code, m in _markets(ask).items():
            row = {h: float(table[code][h]) for h in m.get("horizons", []) if h in table.get(code, {})}
            if row:
                out[code] = row
        return out
