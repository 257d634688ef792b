"""The contest's stand-in for a vendor CLI (``adapter = "contest-standin"``), registered like any seat adapter.

``contest_standin_cli.py`` (stdlib only) is copied into the sandbox home as ``standin_cli.py`` and run by
Debian's python3: for a sweep it thinks aloud and ends with one ``{"forecasts": ...}`` object; for a betting
round it calls the real ``bench`` the contest puts on its PATH. Its first output line reports a model, as the
vendor CLIs do; that line is kept in the raw reply (sealed as received). The ask's context carries ``kind``
("sweep"/"round"), the swept markets and, in the demo only, ``hint`` (the recorded winners) that ``skill``
leans toward.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from typing import Any, ClassVar

from league_agents.base import Ask
from league_agents.options import ContestStandInOptions, SeatOptions
from league_agents.standin import StandIn
from sandbox.profiles import Profile

MODEL_LINE = re.compile(r"^model:\s*(\S+)", re.M)


@cache
def script() -> bytes:
    return resources.files("league_agents").joinpath("contest_standin_cli.py").read_bytes()


class ContestStandInSeat(StandIn):
    """Options: seed, skill, mode, model, rationale, quote, max_price (:class:`ContestStandInOptions`)."""

    options_model: ClassVar[type[SeatOptions] | None] = ContestStandInOptions
    #: The scripted profile forbids the network; its ``bench`` is a Unix socket bound into the sandbox.
    networks: ClassVar[frozenset[str] | None] = frozenset({"none"})
    tracks: ClassVar[frozenset[str] | None] = frozenset({"contest"})
    version: ClassVar[str] = "contest-standin-1"
    keeps_output: ClassVar[bool] = True

    def program(self) -> tuple[str, bytes]:
        return "standin_cli.py", script()

    def profile(self) -> str | Profile:
        return self.spec.profile if self.spec.profile != "default" else "scripted"

    def request(self, ask: Ask) -> dict[str, Any]:
        """The contest's ask and the seat's options; an ask that lists no contest markets (the self-check's
        trivial ask names the council's) is answered as a sweep of none."""
        opts = dict(self.spec.options)
        markets = ask.context.get("markets", [])
        return {
            **{k: opts[k] for k in ("rationale", "quote", "max_price") if k in opts},
            "prompt": ask.text,
            "kind": ask.context.get("kind", "sweep"),
            "markets": list(markets) if isinstance(markets, list | tuple) else [],
            "hint": dict(ask.context.get("hint", {})),
            "seed": int(opts.get("seed", 0)),
            "agent": self.spec.name,
            "skill": float(opts.get("skill", 0.0)),
            "mode": str(opts.get("mode", "normal")),
            "model": str(opts.get("model", self.spec.model)),
        }

    def model_in(self, raw: str) -> str:
        found = MODEL_LINE.search(raw)
        return found.group(1) if found else ""
