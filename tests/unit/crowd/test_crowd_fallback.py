"""The crowd's fallback venue is composed in the composition root: each venue a registered provider, neither
provider building the other (docs/crowd.md, "Which providers")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from league.calendar import default_calendar
from league.compose import make_crowd, make_prices
from league.config import Config, load_config, shipped_config_dir
from league.crowd.combined import CombinedCrowd
from league.crowd.kalshi import KalshiCrowd
from league.crowd.polymarket import PolymarketCrowd
from league.crowd.polymarket import from_config as polymarket_from_config
from league.crowd.recorded import RecordedCrowd
from league.errors import ConfigError

SHIPPED_CROWD = '[crowd]\nprovider = "none"'


def league(tmp_path: Path, crowd: str) -> Config:
    """The shipped configuration on replay prices, with ``crowd`` as its [crowd] table."""
    folder = tmp_path / "config"
    shutil.copytree(shipped_config_dir(), folder)
    text = (folder / "league.toml").read_text(encoding="utf-8")
    assert SHIPPED_CROWD in text
    text = text.replace(SHIPPED_CROWD, crowd).replace('provider = "yahoo" ', 'provider = "replay" ')
    (folder / "league.toml").write_text(text, encoding="utf-8")
    return load_config(folder)


def crowd_of(config: Config) -> object:
    calendar = default_calendar()
    return make_crowd(config, make_prices(config, calendar), calendar)


def test_polymarket_alone_is_polymarket_and_kalshi_is_composed_behind_it(tmp_path: Path) -> None:
    config = league(tmp_path, '[crowd]\nprovider = "polymarket"')
    calendar = default_calendar()
    assert type(polymarket_from_config(config, make_prices(config, calendar), calendar)) is PolymarketCrowd
    combined = crowd_of(config)
    assert isinstance(combined, CombinedCrowd)
    assert (type(combined._primary), type(combined._fallback)) == (PolymarketCrowd, KalshiCrowd)


def test_the_fallback_is_a_setting(tmp_path: Path) -> None:
    assert type(crowd_of(league(tmp_path / "a", '[crowd]\nprovider = "polymarket"\nfallback = "none"'))) \
        is PolymarketCrowd
    assert type(crowd_of(league(tmp_path / "b", '[crowd]\nprovider = "recorded"'))) is RecordedCrowd
    chosen = crowd_of(league(tmp_path / "c", '[crowd]\nprovider = "recorded"\nfallback = "kalshi"'))
    assert isinstance(chosen, CombinedCrowd) and type(chosen._fallback) is KalshiCrowd


@pytest.mark.parametrize(("table", "needle"), [
    ('[crowd]\nprovider = "polymarket"\nfallback = "polymarket"', "is the provider itself"),
    ('[crowd]\nprovider = "polymarket"\nfallback = "manifold"', "unknown crowd provider 'manifold'"),
])
def test_a_fallback_that_cannot_serve_is_a_config_error(tmp_path: Path, table: str, needle: str) -> None:
    with pytest.raises(ConfigError) as info:
        league(tmp_path, table)
    text = info.value.diagnostics()
    assert needle in text and "key `crowd" in text and "fix:" in text
