"""Futures rolls (``noise_rolls``, paper §3.5 / scoring.md §1): a recorded roll's minute is left out of the
draw band, and the score line seals the rolls it used.

Hand case: WTI's one-day event of Monday 2026-06-22 takes its band from the four sessions before it,
06-15, 06-16, 06-17 and 06-18 (Juneteenth, Friday 06-19, is closed). Every regular-session minute the
price rises by exactly 0.01 %, except at 11:00 ET on 06-17 (15:00Z), where the continuous series rolls to
the next contract and jumps 5 %. 390 bars a session give 389 returns, 1,556 in all. With the roll recorded,
the jump is left out: mean |r| = 0.01 %, band = 0.1 x 0.01 x sqrt(390) = 0.0197484... %. Without it, the
mean is (1,555 x 0.01 + 5) / 1,556 and the band about 1.6 times wider.
"""

from __future__ import annotations

import math
import shutil
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from league.calendar import default_calendar, event_contract
from league.config import Roll, Rolls, load_config, shipped_config_dir
from league.counting import Event
from league.errors import ConfigError
from league.jobs.score import Bars, noise_rolls, resolve_event
from league.prices.interface import Bar

ROLL = datetime(2026, 6, 17, 15, 0, tzinfo=UTC)
SESSION = date(2026, 6, 22)
STEP = 1.0001


class _Prices:
    """1-minute bars of every regular session: +0.01 % a minute, a 5 % jump at the roll's minute."""

    def __init__(self) -> None:
        self.calendar = default_calendar()

    def bars(self, symbol: str, start: datetime, end: datetime) -> list[Bar]:
        out = []
        for day in self.calendar.sessions_in_range(start.date() - timedelta(days=1), end.date()):
            price, minute = 70.0, self.calendar.session_open(day)
            while minute < self.calendar.session_close(day):
                if minute > self.calendar.session_open(day):
                    # the bar that ends at the roll instant is the new contract's first: the 5 % gap
                    price *= 1.05 if minute + timedelta(minutes=1) == ROLL else STEP
                if start <= minute < end:
                    out.append(Bar(minute, price, price, price, price))
                minute += timedelta(minutes=1)
        return out


def _league(rolls: Rolls) -> Any:
    markets = load_config(shipped_config_dir()).markets
    config = SimpleNamespace(rolls=rolls, markets=markets,
                             settings=SimpleNamespace(methodology=SimpleNamespace(draw_band_k=0.1)))
    return SimpleNamespace(config=config, calendar=default_calendar(), prices=_Prices())


def _event(lg: Any, code: str) -> Event:
    spec = lg.config.markets.by_code()[code]
    return Event(code, "1d", event_contract(lg.calendar, spec, SESSION, "1d", None))


def _band(lg: Any, code: str = "WTI") -> tuple[float, Event]:
    ev = _event(lg, code)
    resolve_event(lg, ev, Bars(lg))
    return float(ev.result["band_pct"]), ev


def test_the_roll_minute_is_left_out_of_the_band() -> None:
    lg = _league(Rolls(roll=(Roll(market="WTI", at="2026-06-17T15:00:00Z", from_contract="CLN26",
                                  to_contract="CLQ26"),)))
    band, ev = _band(lg)
    assert band == pytest.approx(0.1 * 0.01 * math.sqrt(390), rel=1e-6)
    assert noise_rolls(lg, [ev]) == {"WTI": ["2026-06-17T15:00:00Z"]}


def test_without_the_recorded_roll_the_jump_widens_the_band() -> None:
    band, ev = _band(_league(Rolls()))
    assert band == pytest.approx(0.1 * (1555 * 0.01 + 5.0) / 1556 * math.sqrt(390), rel=1e-4)
    assert noise_rolls(_league(Rolls()), [ev]) == {}


def test_a_roll_outside_the_band_sessions_is_not_sealed() -> None:
    lg = _league(Rolls(roll=(Roll(market="WTI", at="2026-06-22T14:00:00Z"),)))  # the event's own day
    _, ev = _band(lg)
    assert noise_rolls(lg, [ev]) == {}


def test_rolls_toml_is_read_and_checked(tmp_path: Path) -> None:
    folder = tmp_path / "config"
    shutil.copytree(shipped_config_dir(), folder)
    (folder / "roster.demo.toml").replace(folder / "roster.toml")
    (folder / "rolls.toml").write_text('[[roll]]\nmarket = "BRENT"\nat = "2026-06-29T13:31:00Z"\n'
                                       '[[roll]]\nmarket = "BRENT"\nat = "2026-05-28T13:31:00-04:00"\n')
    rolls = load_config(folder).rolls
    assert rolls.of("BRENT") == (datetime(2026, 5, 28, 17, 31, tzinfo=UTC), datetime(2026, 6, 29, 13, 31, tzinfo=UTC))
    assert rolls.of("WTI") == ()
    (folder / "rolls.toml").write_text('[[roll]]\nmarket = "SPX"\nat = "2026-06-29T13:31:00Z"\n')
    with pytest.raises(ConfigError, match="not a futures market"):
        load_config(folder)
    (folder / "rolls.toml").write_text('[[roll]]\nmarket = "WTI"\nat = "2026-06-29T13:31:00"\n')
    with pytest.raises(ConfigError, match="no UTC offset"):
        load_config(folder)
