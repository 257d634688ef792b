"""Shared fixtures for the price tests: one calendar, the shipped markets, a small replay market."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from league.calendar import Calendar
from league.config import MarketSpec, load_markets
from league.prices.replay import SyntheticMarket

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def cal() -> Calendar:
    return Calendar()


@pytest.fixture(scope="session")
def markets() -> tuple[MarketSpec, ...]:
    return load_markets(ROOT / "config" / "markets.toml").markets


@pytest.fixture(scope="session")
def by_code(markets: tuple[MarketSpec, ...]) -> dict[str, MarketSpec]:
    return {m.code: m for m in markets}


@pytest.fixture(scope="session")
def replay(markets: tuple[MarketSpec, ...], cal: Calendar) -> SyntheticMarket:
    return SyntheticMarket(7, markets, cal, anchor=date(2026, 11, 2), before=280, after=150)


@pytest.fixture(scope="session", autouse=True)
def _yfinance_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Keep yfinance's tz/cookie caches out of the home directory."""
    try:
        import yfinance
    except ImportError:
        return
    yfinance.set_tz_cache_location(str(tmp_path_factory.mktemp("yf-cache")))
