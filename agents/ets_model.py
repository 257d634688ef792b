"""The `_ets` seat's fits, through statsmodels' public API only.

A fit is a pure function of a market's last closes: among three additive-error ETS models (no trend, additive
trend, damped additive trend) the one of lowest finite AIC, and its forecast mean and variance 1, 2, … steps
ahead. Every call is a documented statsmodels name (``ETSModel``, its ``fit``, ``loglike`` and ``smooth``,
``k_params`` and ``nobs``, ``statsmodels.tools.eval_measures.aic``, the results' ``get_prediction``), so the
fits keep working, and keep their floats, across the library's private rearrangements; the floats are those of
the pinned versions (requirements/lock.txt) and the same inputs always give the same bytes
(tests/unit/evals/test_evals_ets_public.py).

This module imports pandas and statsmodels at its top: it is imported only where the fits run (the fit
worker's child, or the asking thread), inside ``with extra("stats"):`` in league_agents.ets_fit, so that a lean
install's baselines import no scientific package.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import pandas as pd
from statsmodels.tools.eval_measures import aic
from statsmodels.tsa.exponential_smoothing.ets import ETSModel

#: The candidates, as (trend, damped_trend) of ``ETSModel(error="add")``; a tie in AIC keeps the earlier one.
CANDIDATES = ((None, False), ("add", False), ("add", True))


def fit(closes: Sequence[float]) -> Any:
    """The chosen candidate's statsmodels results for these closes (None when every candidate fails).

    The same choice and the same numbers as fitting each candidate with ``ETSModel.fit`` and keeping the lowest
    ``res.aic`` (:func:`fit_plain`), for less CPU: the candidates are compared on their fitted parameters
    alone (:func:`choose`), so only the winner builds a results object (whose constructor also computes a
    complex-step Hessian that a prediction never reads). If the winner's results cannot be built, the plain
    loop decides."""
    chosen = choose(closes)
    return None if chosen is None else results(closes, chosen[0], chosen[1])


def results(closes: Sequence[float], model: Any, params: Any) -> Any:
    """The chosen candidate's results object (``model.smooth(params)``, what ``model.fit()`` returns for
    those parameters); if it cannot be built, :func:`fit_plain`'s choice."""
    try:
        return model.smooth(params)
    except (ValueError, ArithmeticError):
        return fit_plain(pd.Series(list(closes), dtype=float))


def choose(closes: Sequence[float]) -> tuple[Any, Any] | None:
    """The candidate of lowest finite AIC for these closes, as (model, fitted parameters); None if every
    candidate fails. Each is fitted to its parameters only (``fit(return_params=True)``) and scored as its
    results object would be (:func:`candidate_aic`); a candidate whose fit raises (numpy's LinAlgError is a
    ValueError) is skipped."""
    series = pd.Series(list(closes), dtype=float)
    best: tuple[float, Any, Any] | None = None  # (aic, model, params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence chatter; a fit that fails is skipped below
        for trend, damped in CANDIDATES:
            try:
                model = ETSModel(series, error="add", trend=trend, damped_trend=damped)
                params = model.fit(disp=False, return_params=True)
                score = candidate_aic(model, params)
            except (ValueError, ArithmeticError):
                continue
            if math.isfinite(score) and (best is None or score < best[0]):
                best = (score, model, params)
    return None if best is None else (best[1], best[2])


def candidate_aic(model: Any, params: Any) -> float:
    """``model.smooth(params).aic`` without the results object: the results take llf = ``model.loglike(params)``,
    nobs and df_model = free parameters + 1, and their ``aic`` is ``eval_measures.aic(llf, nobs, df_model)``.
    No parameter of these models is fixed, so every one of ``model.k_params`` is free. Held to the results'
    own ``aic``, bit for bit (tests/unit/evals/test_evals_ets_fast.py)."""
    return float(aic(model.loglike(params), model.nobs, model.k_params + 1))


def fit_plain(series: Any) -> Any:
    """Every candidate fitted to a full results object, the lowest ``res.aic`` kept: the reference :func:`fit`
    must equal (tests/unit/evals/test_evals_ets_fast.py), and its fallback."""
    best = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for trend, damped in CANDIDATES:
            try:
                res = ETSModel(series, error="add", trend=trend, damped_trend=damped).fit(disp=False)
            except (ValueError, ArithmeticError):
                continue
            if math.isfinite(res.aic) and (best is None or res.aic < best.aic):
                best = res
    return best


def prediction_path(fitted: Any, steps: int) -> list[tuple[float, float]]:
    """(mean, variance) 1 … ``steps`` ahead from ONE prediction: each step's numbers are the ones a prediction
    ending at that step gives (additive-error ETS: closed-form recursions, step by step)."""
    n = int(fitted.nobs)
    pred = fitted.get_prediction(start=n, end=n + steps - 1)
    return [(float(m), float(v)) for m, v in zip(list(pred.predicted_mean), list(pred.var_pred_mean), strict=True)]


def forecast_path(closes: Sequence[float], steps: int) -> list[tuple[float, float]] | None:
    """The fit of these closes and its path ``steps`` ahead (:func:`prediction_path`); None when no candidate
    fits."""
    fitted = fit(closes)
    return None if fitted is None else prediction_path(fitted, steps)
