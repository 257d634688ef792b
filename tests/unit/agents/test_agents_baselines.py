from __future__ import annotations

import json

from agents_helpers import FakeClock, make_ask

from league_agents.base import SeatSpec
from league_agents.registry import build_seat

MARKETS = {
    "SPX": {"horizons": ["1d", "1w"], "last_change_pct": 0.8, "price": 6000.0},
    "VIX": {"horizons": ["1d"], "last_change_pct": -3.0, "price": 17.0},
    "DXY": {"horizons": ["1d"], "last_change_pct": 0.0, "price": 99.0},
    "BTC": {"horizons": ["1d"], "last_change_pct": None, "price": 91000.0},
}


def forecast(adapter: str, clock: FakeClock, **context: object) -> dict[str, dict[str, dict[str, object]]]:
    seat = build_seat(SeatSpec(name=f"_{adapter}", adapter=adapter))
    reply = seat.ask(make_ask(markets=MARKETS, **context), clock)
    assert reply.failure is None and reply.mode == "history-only"
    return json.loads(reply.raw)["forecast"]  # type: ignore[no-any-return]


def test_coin_is_fifty_everywhere(clock: FakeClock) -> None:
    out = forecast("coin", clock)
    assert out == {
        "SPX": {"1d": {"prob_up": 50.0, "action": "hold"}, "1w": {"prob_up": 50.0, "action": "hold"}},
        "VIX": {"1d": {"prob_up": 50.0, "action": "hold"}},
        "DXY": {"1d": {"prob_up": 50.0, "action": "hold"}},
        "BTC": {"1d": {"prob_up": 50.0, "action": "hold"}},
    }


def test_momentum_follows_sign_and_skips_flat(clock: FakeClock) -> None:
    out = forecast("momentum", clock)
    assert out == {
        "SPX": {"1d": {"prob_up": 55.0, "action": "hold"}, "1w": {"prob_up": 55.0, "action": "hold"}},
        "VIX": {"1d": {"prob_up": 45.0, "action": "hold"}},
    }


def test_climatology_uses_table_and_leaves_gaps(clock: FakeClock) -> None:
    out = forecast("climatology", clock, climatology={"SPX": {"1d": 53.2}, "VIX": {"1w": 40.0}})
    assert out == {"SPX": {"1d": {"prob_up": 53.2, "action": "hold"}}}
