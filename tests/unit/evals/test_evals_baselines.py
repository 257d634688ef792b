"""The history-only point baselines `_naive` and `_ets`: targets and prob_up from the ask's history."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from typing import Any

import pytest

from league.answers import parse_reply
from league_agents.base import Ask, SeatSpec
from league_agents.registry import build_seat

HORIZONS = ["1d", "1w", "1m", "6m"]


def ask(markets: dict[str, Any], history: dict[str, list[float]] | None = None) -> Ask:
    context: dict[str, Any] = {"markets": markets}
    if history is not None:
        context["history"] = history
    return Ask(text="the council's ask", sha256="0" * 64, session="2026-01-05", context=context)


def answer(adapter: str, a: Ask, **options: Any) -> dict[str, Any]:
    seat = build_seat(SeatSpec(name=f"_{adapter}", adapter=adapter, options=options))
    reply = seat.ask(a, lambda: datetime(2026, 1, 5, 13, tzinfo=UTC))
    assert reply.mode == "history-only" and reply.failure is None
    forecast: dict[str, Any] = json.loads(reply.raw)["forecast"]
    return forecast


def test_naive_no_change_by_hand() -> None:
    hist = [100.0, 101.0, 99.0, 102.0, 103.0]
    got = answer("naive", ask({"SPX": {"horizons": ["1d", "1w"], "price": 103.0}}, {"SPX": hist}))
    # one-step changes 1, -2, 3, 1 → 3 of 4 up → (3 + 1) / (4 + 2)
    assert got["SPX"]["1d"] == {"target": 103.0, "prob_up": 66.7, "action": "hold"}
    # five-step changes need six closes: none → 50
    assert got["SPX"]["1w"] == {"target": 103.0, "prob_up": 50.0, "action": "hold"}


def test_seasonal_naive_by_hand() -> None:
    hist = [100.0, 101.0, 99.0, 102.0, 103.0]
    got = answer("naive", ask({"SPX": {"horizons": ["1d"], "price": 103.0}}, {"SPX": hist}), season=2)
    # target = y[4 + 1 - 2] = 102; errors y[t] - y[t-2] = -1, 1, 4; 102 + e > 103 only for 4 → (1 + 1) / (3 + 2)
    assert got["SPX"]["1d"] == {"target": 102.0, "prob_up": 40.0, "action": "hold"}


def test_naive_without_history_or_price() -> None:
    got = answer("naive", ask({"SPX": {"horizons": ["1d"], "price": 50.0}, "DXY": {"horizons": ["1d"]}}))
    assert got == {"SPX": {"1d": {"target": 50.0, "prob_up": 50.0, "action": "hold"}}}  # DXY: nothing to say
    got = answer("naive", ask({"SPX": {"horizons": ["1d"]}}, {"SPX": [1.0, 2.0, 3.0]}))
    assert got["SPX"]["1d"]["target"] == 3.0 and got["SPX"]["1d"]["prob_up"] == 50.0


def test_steps_come_from_the_ask_when_given() -> None:
    hist = [10.0, 11.0, 12.0, 11.0, 13.0, 14.0, 13.5, 15.0]
    got = answer("naive", ask({"BTC": {"horizons": ["1w"], "price": 15.0, "steps": {"1w": 2}}}, {"BTC": hist}))
    # two-step changes: 2, 0, 1, 3, 0.5, 1 → 5 of 6 above 0 → (5 + 1) / (6 + 2) = 75
    assert got["BTC"]["1w"]["prob_up"] == 75.0


def trending(n: int, slope: float, seed: int = 4) -> list[float]:
    rng = random.Random(seed)
    return [100.0 + slope * t + rng.gauss(0.0, 0.3) for t in range(n)]


def test_ets_follows_a_trend_and_derives_prob_up_from_its_distribution() -> None:
    hist = trending(200, 0.5)
    got = answer("ets", ask({"SPX": {"horizons": HORIZONS, "price": hist[-1]}}, {"SPX": hist}))
    targets = [got["SPX"][h]["target"] for h in HORIZONS]
    assert targets == sorted(targets) and targets[0] > hist[-1]  # an upward trend carried forward
    assert all(50.0 < got["SPX"][h]["prob_up"] <= 99.0 for h in HORIZONS)
    down = trending(200, -0.5)
    got = answer("ets", ask({"SPX": {"horizons": ["1m"], "price": down[-1]}}, {"SPX": down}))
    assert got["SPX"]["1m"]["target"] < down[-1] and got["SPX"]["1m"]["prob_up"] < 50.0


def test_ets_needs_enough_history() -> None:
    got = answer("ets", ask({"SPX": {"horizons": ["1d"], "price": 100.0}}, {"SPX": trending(29, 0.1)}))
    assert got == {}
    got = answer("ets", ask({"SPX": {"horizons": ["1d"], "price": 100.0}}, {"SPX": trending(12, 0.1)}), min_history=10)
    assert "1d" in got["SPX"]


@pytest.mark.parametrize("adapter", ["naive", "ets"])
def test_replies_parse_as_answers_with_targets(adapter: str) -> None:
    hist = trending(120, 0.2)
    a = ask({"SPX": {"horizons": HORIZONS, "price": hist[-1]}}, {"SPX": hist})
    seat = build_seat(SeatSpec(name=f"_{adapter}", adapter=adapter))
    parsed = parse_reply(seat.ask(a, lambda: datetime(2026, 1, 5, tzinfo=UTC)).raw, {"SPX": HORIZONS})
    assert parsed.ok and set(parsed.items["SPX"]) == set(HORIZONS)
    for c in parsed.items["SPX"].values():
        assert c.cell_status in ("elicited", "explicit_50") and c.target is not None and c.target > 0


def test_ets_one_prediction_per_market_gives_each_horizon_what_its_own_prediction_gives() -> None:
    """The seat asks statsmodels once per market, out to the longest horizon (and beyond it for a longer
    ``steps``): every horizon's target and prob_up equal a prediction that ends at that horizon."""
    import math

    from league_agents.baselines import EtsSeat

    hist = trending(120, 0.05, seed=9)
    steps = {"1d": 1, "1w": 5, "1m": 21, "6m": 126}
    got = answer("ets", ask({"SPX": {"horizons": HORIZONS, "price": hist[-1], "steps": steps}}, {"SPX": hist}))
    seat = EtsSeat(SeatSpec(name="_ets", adapter="ets"))
    model = seat.fit(hist)
    n = int(model.nobs)
    for h, k in steps.items():
        pred = model.get_prediction(start=n, end=n + k - 1)
        mean = float(list(pred.predicted_mean)[-1])
        sd = math.sqrt(max(0.0, float(list(pred.var_pred_mean)[-1])))
        prob = 100.0 * 0.5 * math.erfc((hist[-1] - mean) / (sd * math.sqrt(2.0)))
        assert got["SPX"][h]["target"] == round(mean, 6)
        assert got["SPX"][h]["prob_up"] == round(min(99.0, max(1.0, prob)), 1)
    longer = answer("ets", ask({"SPX": {"horizons": ["6m"], "price": hist[-1], "steps": {"6m": 150}}}, {"SPX": hist}))
    pred = model.get_prediction(start=n, end=n + 149)
    assert longer["SPX"]["6m"]["target"] == round(float(list(pred.predicted_mean)[-1]), 6)
