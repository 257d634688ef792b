"""The `_ets` seat's fast fit (params-only candidates, the AIC computed as statsmodels does, one results object)
chooses the same model with the same numbers as fitting every candidate to a full results
object and keeping the lowest ``res.aic`` (``league_agents.ets_model.fit_plain``): its answers are sealed,
so a drift in any bit of a parameter, the AIC or the forecast path would change the book."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from evals_helpers import walk

from league_agents.base import SeatSpec
from league_agents.baselines import EtsSeat
from league_agents.ets_model import CANDIDATES, candidate_aic, fit_plain

SERIES = {
    **{f"walk{n}-{seed}": walk(n, seed) for n, seed in ((30, 1), (61, 2), (140, 3), (260, 4), (500, 5), (640, 6))},
    **{f"volatile{seed}": walk(400, seed, vol=0.04) for seed in (7, 8)},
    **{f"trend{seed}": walk(200, seed, vol=0.002, drift=0.003) for seed in (9, 10, 11)},
    "straight": [float(i) for i in range(40)],
    "zigzag": [1.0, 2.0] * 20,
    "large": [1e12 + i for i in range(60)],
    "constant": [100.0] * 50,  # every candidate's AIC is -inf: no model
    "nan": [1.0, 2.0, float("nan")] + [3.0] * 30,  # every candidate's AIC is nan: no model
}


def same(fast: Any, plain: Any) -> None:
    """Bit-for-bit: the chosen model, its parameters, AIC and the 126-step forecast path (mean, variance)."""
    if plain is None:
        assert fast is None
        return
    assert fast is not None and fast.model.short_name == plain.model.short_name
    assert np.asarray(fast.params).tobytes() == np.asarray(plain.params).tobytes()
    assert fast.aic == plain.aic and fast.llf == plain.llf
    n = int(plain.nobs)
    a, b = fast.get_prediction(start=n, end=n + 125), plain.get_prediction(start=n, end=n + 125)
    assert np.asarray(a.predicted_mean).tobytes() == np.asarray(b.predicted_mean).tobytes()
    assert np.asarray(a.var_pred_mean).tobytes() == np.asarray(b.var_pred_mean).tobytes()


def seat() -> EtsSeat:
    return EtsSeat(SeatSpec(name="_ets", adapter="ets"))


@pytest.mark.parametrize("name", sorted(SERIES))
def test_fast_fit_equals_every_candidate_fitted_in_full(name: str) -> None:
    history = SERIES[name]
    s = seat()
    same(s.fit(history), fit_plain(pd.Series(history[-500:], dtype=float)))


@pytest.mark.parametrize("name", ["walk61-2", "volatile7", "trend9", "straight", "large"])
def test_candidate_aic_is_the_results_objects_aic(name: str) -> None:
    """Each candidate's AIC as the fast path computes it is the results object's ``aic``, bit for bit."""
    from statsmodels.tsa.exponential_smoothing.ets import ETSModel

    series = pd.Series(SERIES[name], dtype=float)
    for trend, damped in CANDIDATES:
        model = ETSModel(series, error="add", trend=trend, damped_trend=damped)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence chatter, as in the seat
            params = model.fit(disp=False, return_params=True)
        assert candidate_aic(model, params) == model.smooth(params).aic


def test_the_fits_cover_every_candidate_and_no_model() -> None:
    """The series above exercise each candidate as winner, and the case where none is usable."""
    s = seat()
    chosen = {getattr(s.fit(h), "model", None) and s.fit(h).model.short_name for h in SERIES.values()}
    assert {"ANN", "AAN", "AAdN", None} <= chosen


@pytest.mark.parametrize("failing", [(None, False), ("add", False), ("add", True)])
def test_a_failing_candidate_is_skipped_the_same_way(monkeypatch: pytest.MonkeyPatch,
                                                     failing: tuple[Any, bool]) -> None:
    """A candidate whose fit raises (numpy's LinAlgError is a ValueError) is skipped by both paths. The
    failure is raised in ``ETSModel.fit``, which both call (the fast path with ``return_params=True``)."""
    from statsmodels.tsa.exponential_smoothing.ets import ETSModel

    real = ETSModel.fit

    def failing_fit(self: Any, *args: Any, **kwargs: Any) -> Any:
        if (self.trend, self.damped_trend) == failing:
            raise np.linalg.LinAlgError("singular")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(ETSModel, "fit", failing_fit)
    s = seat()
    for name in ("trend9", "walk140-3", "straight"):
        fast = s.fit(SERIES[name])
        same(fast, fit_plain(pd.Series(SERIES[name], dtype=float)))
        assert fast is not None and (fast.trend, fast.damped_trend) != failing


def test_when_the_winner_cannot_be_built_the_plain_loop_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    from statsmodels.tsa.exponential_smoothing.ets import ETSModel

    real = ETSModel.smooth
    calls: list[int] = []

    def smooth(self: Any, params: Any, return_raw: bool = False) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise ValueError("the winner's results fail once")
        return real(self, params, return_raw)

    monkeypatch.setattr(ETSModel, "smooth", smooth)
    s = seat()
    fast = s.fit(SERIES["trend10"])
    monkeypatch.setattr(ETSModel, "smooth", real)
    same(fast, fit_plain(pd.Series(SERIES["trend10"], dtype=float)))
    assert len(calls) == 1 + 3  # the failed winner, then the plain loop's three candidates
