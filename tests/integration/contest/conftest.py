"""A small recorded contest venue and context for the integration tests (real bubblewrap sandbox)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from league.clock import SimulatedClock
from league.contest.config import ContestConfig, load_config
from league.contest.context import ContestContext
from league.contest.ledger import Ledger
from league.contest.markets.recorded import RecordedSource
from league.contest.markets.synthetic import Venue, make_venue
from sandbox.bwrap import BwrapSandbox

DAY = datetime(2026, 12, 7, tzinfo=UTC)


def with_modes(config: ContestConfig, **options: dict[str, Any]) -> ContestConfig:
    """The default roster with extra seat options per agent (mode, rationale, quote, ...)."""
    agents = []
    for a in config.agents:
        extra = options.get(a.agent, {})
        seat = a.seat.model_copy(update={"options": {**a.seat.options, **extra}})
        agents.append(a.model_copy(update={"seat": seat}))
    return config.model_copy(update={"agents": tuple(agents)})


@pytest.fixture(scope="session")
def bwrap() -> BwrapSandbox:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    return BwrapSandbox()


@pytest.fixture()
def venue(tmp_path: Path) -> Venue:
    v = make_venue(DAY, 1, seed=3, per_day=12)
    v.write(tmp_path / "venue")
    return v


class Day:
    def __init__(self, root: Path, venue: Venue, sandbox: BwrapSandbox) -> None:
        self.root, self.venue, self.sandbox = root, venue, sandbox
        self.clock = SimulatedClock(DAY.replace(hour=6))

    def context(self, ledger: Ledger, config: ContestConfig | None = None) -> ContestContext:
        return ContestContext(config or load_config(), self.clock, ledger, RecordedSource(self.root / "venue"),
                              self.root / "public", sandbox=self.sandbox, hints=self.venue.winners())

    def ledger(self) -> Ledger:
        return Ledger(self.root / "contest-book.jsonl", self.clock)


@pytest.fixture()
def day(tmp_path: Path, venue: Venue, bwrap: BwrapSandbox) -> Iterator[Day]:
    yield Day(tmp_path, venue, bwrap)
