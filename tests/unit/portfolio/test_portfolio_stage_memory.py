"""The portfolio stage's per-League caches must not keep a closed League alive (a demo season's
whole index and price memo stayed in memory through the publish step)."""

from __future__ import annotations

import gc
import weakref
from typing import Any

from league.calendar import default_calendar
from league.jobs.context import MarketData
from league.jobs.portfolio import ProviderBars


class _Closed:
    """Stands for a League: its identity keys the cache, and it holds its market data as a League does."""

    def __init__(self) -> None:
        self.market = MarketData(default_calendar(), prices=object())


def test_seasons_keyed_weakly_by_their_league_let_it_be_freed() -> None:
    table: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()
    lg = _Closed()
    alive = weakref.ref(lg)
    table[lg] = {"pro": ProviderBars(lg.market)}  # as the stage keeps its seasons' bar source
    del lg
    gc.collect()
    assert alive() is None and len(table) == 0
