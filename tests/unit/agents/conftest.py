from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from agents_helpers import FakeClock, StandIn

from sandbox.bwrap import BwrapSandbox


@pytest.fixture
def sandbox() -> BwrapSandbox:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    return BwrapSandbox()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def stand_in() -> Iterator[StandIn]:
    server = StandIn()
    yield server
    server.server.shutdown()
