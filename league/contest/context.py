"""What every contest job receives: one small context, so the scheduler and the CLI call them as is.

A job is a plain function ``job(ctx, ...)``: the configuration, the one clock, the contest's book,
the market source, the broker (paper by default), the public folder, the sandbox and how seats are
built. Nothing else is global. The market source and the broker are registered adapters
(``forecast_league.contest_markets``, ``forecast_league.contest_brokers``), resolved by name here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from league.clock import Clock
from league.contest.config import ContestAgent, ContestConfig, Venue
from league.contest.ledger import Ledger
from league.contest.markets.interface import MarketSource
from league.contest.markets.orders import Broker
from league.registry import CONTEST_BROKERS, CONTEST_MARKETS, LIVE_BROKER, PAPER_BROKER, load
from league_agents.base import Seat
from league_agents.registry import SeatFactory, build_seat, make_sandbox
from sandbox.interface import Sandbox

#: What the entry points of ``forecast_league.contest_brokers`` are.
BrokerFactory = Callable[[Venue], Broker]


def broker_for(venue: Venue) -> Broker:
    """The broker ``venue`` asks for: ``clob_live`` when the operator enabled live trading, else ``paper``."""
    name = LIVE_BROKER if venue.live_trading else PAPER_BROKER
    return cast(BrokerFactory, load(CONTEST_BROKERS, name, "contest configuration: [venue] live_trading"))(venue)


def market_source(name: str, *args: object) -> MarketSource:
    """The market source registered as ``name``, built from its arguments: ``gamma`` from the venue's
    settings, ``recorded`` from a folder of recorded answers."""
    factory = load(CONTEST_MARKETS, name, "contest market source")
    return cast(Callable[..., MarketSource], factory)(*args)


def paper() -> Broker:
    return broker_for(Venue())


@dataclass
class ContestContext:
    config: ContestConfig
    clock: Clock
    ledger: Ledger
    source: MarketSource
    public: Path
    sandbox: Sandbox | None = None
    broker: Broker = field(default_factory=paper)
    seat_factory: SeatFactory = build_seat
    # Demo only: the recorded winners, handed to stand-in seats (never to a real CLI's ask text).
    hints: Mapping[str, str] = field(default_factory=dict)
    # The pre-batch self-check of every seat's sandbox (bench.md "Sandbox"): the failed checks, empty when
    # all passed. A failure voids the batch (the sweep or the round) for every agent. None: no check.
    selfcheck: Callable[[], list[str]] | None = None

    def failed_checks(self) -> list[str]:
        return self.selfcheck() if self.selfcheck is not None else []

    def base_sandbox(self) -> Sandbox:
        if self.sandbox is None:
            self.sandbox = make_sandbox()
        return self.sandbox

    def seat(self, agent: ContestAgent, *, sandbox: Sandbox | None = None, timeout_s: float | None = None) -> Seat:
        """The agent's seat on ``sandbox`` (default: the plain sandbox), its time limit capped."""
        spec = agent.seat
        if timeout_s is not None and timeout_s < spec.timeout_s:
            spec = spec.model_copy(update={"timeout_s": timeout_s})
        return self.seat_factory(spec, sandbox or self.base_sandbox())
