"""The portfolio stage's per-League caches must not keep a closed League alive (a demo season's
whole index and price memo stayed in memory through the publish step)."""

from __future__ import annotations

import gc
import weakref
from typing import Any, cast

import pytest

from league.jobs.context import League
from league.jobs.portfolio import ProviderBars


class _Closed:
    """Stands for a League: only its identity matters to the cache."""


def test_seasons_keyed_weakly_by_their_league_let_it_be_freed() -> None:
    table: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()
    lg = _Closed()
    alive = weakref.ref(lg)
    table[lg] = {"pro": ProviderBars(cast(League, lg))}  # as the stage keeps its seasons' bar source
    del lg
    gc.collect()
    assert alive() is None and len(table) == 0


def test_bars_of_a_freed_league_say_so() -> None:
    bars = ProviderBars(cast(League, _Closed()))
    gc.collect()
    with pytest.raises(RuntimeError, match="closed and freed"):
        _ = bars.lg
