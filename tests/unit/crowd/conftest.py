"""Fixtures for the crowd tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from crowd_standin import ClobStandIn, running_clob


@pytest.fixture()
def clob() -> Iterator[ClobStandIn]:
    with running_clob() as server:
        yield server
