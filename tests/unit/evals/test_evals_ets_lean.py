"""The `_ets` seat's lean fit (league_agents.ets_lean) against the statsmodels and scipy code it mirrors, bit for
bit: each candidate's parameters against ``ETSModel.fit``, the objective against ``_loglike_internal``, the
gradient against scipy's ``approx_derivative``, the minimiser against ``fmin_l_bfgs_b`` (also where it stops
early), and the whole forecast path (chosen model, parameters, AIC, 126 means and variances) against fitting
every candidate to a full results object and predicting from the best (``fit_plain`` + ``prediction_path``).
The seat's answers are sealed: a drift in any bit would change the book. Equality is of bytes, never
``allclose``; the guard's fallback and the worker's answers are checked the same way."""

from __future__ import annotations

import logging
import struct
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from evals_helpers import walk
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from league_agents import ets_fit, ets_lean
from league_agents.ets_fit import CANDIDATES

STEPS = 126


def scaled(closes: list[float], level: float) -> list[float]:
    return [c * level / 100.0 for c in closes]


SERIES: dict[str, list[float]] = {
    **{f"walk{n}": walk(n, n, vol=0.01) for n in (30, 31, 45, 90, 252, 500, 600)},
    **{f"volatile{seed}": walk(300, seed, vol=0.05) for seed in (1, 2)},
    **{f"trend{seed}": walk(200, seed, vol=0.002, drift=0.003) for seed in (3, 4)},
    "falling": walk(260, 5, vol=0.004, drift=-0.002),
    "near-alpha-one": walk(400, 6, vol=0.02),  # a pure random walk: alpha at its upper bound
    "tiny-level": scaled(walk(300, 7), 0.01),
    "huge-level": scaled(walk(300, 8), 1e5),
    "ticks": [round(c) for c in walk(200, 9, vol=0.003)],  # coarse prices, many repeats
    "flat-then-moving": [100.0] * 100 + walk(100, 10),
    "near-constant": [100.0 + 1e-9 * ((i * 7919) % 13) for i in range(60)],
    "straight": [float(i) for i in range(40)],
    "zigzag": [1.0, 2.0] * 20,
    "large": [1e12 + i for i in range(60)],
    "overflowing": [1e300 * (1 + 0.01 * i) for i in range(40)],
    "signs": [(-1.0) ** i * 1e-3 for i in range(50)],
    "constant": [100.0] * 50,  # every candidate's AIC is -inf: no model
    "nan": [1.0, 2.0, float("nan")] + [3.0] * 30,  # every candidate's AIC is nan: no model
    "two": [5.0, 6.0],
    "three": [1.0, 2.0, 3.0],
}


def bits(path: list[tuple[float, float]] | None) -> bytes | None:
    return None if path is None else b"".join(struct.pack("<dd", m, v) for m, v in path)


def reference(closes: list[float]) -> tuple[Any, bytes | None]:
    """statsmodels alone: every candidate fitted to a results object, the best one's prediction."""
    res = ets_fit.fit_plain(pd.Series(closes, dtype=float))
    return res, None if res is None else bits(ets_fit.prediction_path(res, STEPS))


def model_of(closes: list[float], trend: str | None, damped: bool) -> Any:
    from statsmodels.tsa.exponential_smoothing.ets import ETSModel

    return ETSModel(pd.Series(closes, dtype=float), error="add", trend=trend, damped_trend=damped)


@pytest.fixture(autouse=True)
def quiet() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels' convergence chatter
        yield


def test_the_lean_fit_is_available_here() -> None:
    """The pins of requirements/lock.txt: without this every other test here would pass vacuously."""
    assert ets_lean.available()


@pytest.mark.parametrize("name", sorted(SERIES))
def test_each_candidates_parameters_are_statsmodels_fit(name: str) -> None:
    for trend, damped in CANDIDATES:
        ours, theirs = model_of(SERIES[name], trend, damped), model_of(SERIES[name], trend, damped)
        assert ets_lean.covered(ours)
        try:
            expected = theirs.fit(disp=False, return_params=True)
        except ValueError as exc:
            with pytest.raises(type(exc)):
                ets_lean.fit_params(ours)
            continue
        assert ets_lean.fit_params(ours).tobytes() == expected.tobytes()
        assert repr(ours.bounds) == repr(theirs.bounds)  # the fit's side effect on the model, too


@pytest.mark.parametrize("name", sorted(SERIES))
def test_the_forecast_path_is_statsmodels_path(name: str) -> None:
    """Chosen model, parameters, AIC and the 126-step (mean, variance) path, against statsmodels alone."""
    closes = SERIES[name]
    res, expected = reference(closes)
    assert bits(ets_fit.forecast_path((tuple(closes), STEPS))) == expected
    chosen = ets_fit.choose(closes)
    if res is None:
        assert chosen is None
        return
    assert chosen is not None
    model, params, smoothing = chosen
    assert smoothing is not None  # the lean path served it
    assert model.short_name == res.model.short_name
    assert np.asarray(params).tobytes() == np.asarray(res.params).tobytes()
    assert ets_lean.loglike(model, params)[0] == res.llf
    assert ets_fit.candidate_score(model, params, lean=True)[0] == res.aic


@pytest.mark.parametrize("name", ["walk252", "trend3", "near-alpha-one", "huge-level"])
def test_fit_returns_the_results_of_statsmodels_choice(name: str) -> None:
    res, _ = reference(SERIES[name])
    fitted = ets_fit.fit(SERIES[name])
    assert fitted.model.short_name == res.model.short_name
    assert np.asarray(fitted.params).tobytes() == np.asarray(res.params).tobytes() and fitted.aic == res.aic


def test_the_series_cover_every_candidate_and_no_model() -> None:
    chosen = {None if (c := ets_fit.choose(s)) is None else c[0].short_name for s in SERIES.values()}
    assert {"ANN", "AAN", "AAdN", None} <= chosen


@given(n=st.integers(30, 320), seed=st.integers(0, 10**6), vol=st.sampled_from([0.001, 0.01, 0.03]),
       drift=st.sampled_from([0.0, 0.002, -0.003]), level=st.sampled_from([0.01, 1.0, 100.0, 1e5]))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_generated_series_give_statsmodels_path(n: int, seed: int, vol: float, drift: float, level: float) -> None:
    closes = scaled(walk(n, seed, vol=vol, drift=drift), level)
    assert bits(ets_fit.forecast_path((tuple(closes), STEPS))) == reference(closes)[1]


@pytest.mark.parametrize("steps", [1, 2, 5, 21, 300])
def test_every_path_length_is_statsmodels(steps: int) -> None:
    closes = SERIES["trend4"]
    res = ets_fit.fit_plain(pd.Series(closes, dtype=float))
    assert bits(ets_fit.forecast_path((tuple(closes), steps))) == bits(ets_fit.prediction_path(res, steps))


def test_a_path_of_no_steps_raises_as_statsmodels_does() -> None:
    closes = tuple(SERIES["walk90"])
    res = ets_fit.fit_plain(pd.Series(closes, dtype=float))
    with pytest.raises(ValueError) as theirs:
        ets_fit.prediction_path(res, 0)
    with pytest.raises(ValueError) as ours:
        ets_fit.forecast_path((closes, 0))
    assert str(ours.value) == str(theirs.value)
    chosen = ets_fit.choose(closes)
    assert chosen is not None
    with pytest.raises(ValueError):
        ets_lean.path(*chosen, 0)


# ------------------------------------------------------------------------------------------- the pieces
def setup(name: str, trend: str | None, damped: bool) -> tuple[Any, ets_lean.Objective, Any, Any, Any]:
    model = model_of(SERIES[name], trend, damped)
    objective, x0, bounds = ets_lean.problem(model)
    lb = np.array([b[0] for b in bounds], dtype=float)
    ub = np.array([b[1] for b in bounds], dtype=float)
    return model, objective, x0, lb, ub


@pytest.mark.parametrize("name", ["walk45", "huge-level", "signs"])
def test_the_objective_is_statsmodels_objective(name: str) -> None:
    """``-_loglike_internal(p) / nobs`` as ``LikelihoodModel.fit`` hands it to scipy, at many points."""
    for trend, damped in CANDIDATES:
        model, objective, x0, lb, ub = setup(name, trend, damped)
        rng = np.random.default_rng(1)
        for _ in range(20):
            p = np.clip(x0 * (1 + rng.normal(0, 0.3, x0.size)), lb, ub)
            yhat, xhat = np.zeros(model.nobs), np.zeros((model.nobs, model._k_states_internal))
            theirs = -model._loglike_internal(p, yhat, xhat, objective.is_fixed, objective.fixed_values,
                                              objective.use_beta_star, objective.use_gamma_star) / model.nobs
            assert np.float64(objective(p)).tobytes() == np.float64(theirs).tobytes()
            assert objective.yhat.tobytes() == yhat.tobytes()


def points(x0: Any, lb: Any, ub: Any) -> list[Any]:
    """Where the gradient's steps are interesting: inside, on and a hair inside each bound, at zero, huge."""
    out = [x0.copy()]
    for i in range(x0.size):
        for value in (lb[i], ub[i], lb[i] + 1e-9, ub[i] - 1e-9, lb[i] + 5e-9, 0.0, -3.0, 1e12, -1e12, 1e-300):
            if np.isfinite(value) and lb[i] <= value <= ub[i]:
                x = x0.copy()
                x[i] = value
                out.append(x)
    return out


@pytest.mark.parametrize(("trend", "damped"), CANDIDATES)
def test_the_gradient_is_scipys_approx_derivative(trend: str | None, damped: bool) -> None:
    from scipy.optimize._numdiff import approx_derivative

    _, objective, x0, lb, ub = setup("walk90", trend, damped)
    memo = ets_lean.Memo(objective, x0, lb, ub)
    for x in points(x0, lb, ub):
        f0 = objective(x)
        before = memo.nfev
        ours = memo._grad(x, f0)
        theirs, info = approx_derivative(objective, x, f0=f0, method="2-point", abs_step=ets_lean.EPSILON,
                                         bounds=(lb, ub), full_output=True)
        assert ours.tobytes() == np.asarray(theirs, dtype=float).tobytes(), x
        assert memo.nfev - before == info["nfev"] == x.size


def test_the_gradient_steps_are_scipys_without_bounds_and_at_nonfinite_points() -> None:
    """The unbounded rule (scipy leaves the steps alone) and the array code for NaN and infinite points."""
    from scipy.optimize._numdiff import approx_derivative

    _, objective, x0, _, _ = setup("walk90", "add", True)
    lb, ub = np.full(x0.size, -np.inf), np.full(x0.size, np.inf)
    memo = ets_lean.Memo(objective, x0, lb, ub)
    for x in [x0, x0 * 1e13, -x0, np.where(np.arange(x0.size) == 1, np.nan, x0),
              np.where(np.arange(x0.size) == 0, np.inf, x0)]:
        f0 = objective(x)
        theirs = approx_derivative(objective, x, f0=f0, method="2-point", abs_step=ets_lean.EPSILON, bounds=(lb, ub))
        np.testing.assert_array_equal(memo._grad(x, f0), theirs)  # NaN where scipy's is NaN, else equal
        assert memo._grad(x, f0).tobytes() == np.asarray(theirs, dtype=float).tobytes() or np.isnan(theirs).any()


def test_the_one_sided_step_rule_is_scipys() -> None:
    """``_step_within`` against ``_adjust_scheme_to_bounds`` one coordinate at a time, bounds narrower than
    the step included (the rule's other branch: to the farther bound; no `_ets` model has such bounds)."""
    from scipy.optimize._numdiff import _adjust_scheme_to_bounds

    rng = np.random.default_rng(7)
    cases = []
    for _ in range(3000):
        lb = float(rng.choice([-np.inf, 0.0, 1e-4, 0.8, rng.normal()]))
        width = float(rng.choice([np.inf, 1.0, 0.18, 1e-8, 3e-9, 0.0]))
        ub = lb + width if np.isfinite(lb) else float(rng.choice([np.inf, 1.0]))
        x = float(np.clip(rng.choice([lb, ub, lb + 1e-9, ub - 1e-9, rng.uniform(-2, 2)]), lb, ub))
        h = float(rng.choice([1e-8, -1e-8, 2e-8 * rng.uniform(), 1.5e-8 * max(1.0, abs(x))]))
        if np.isfinite(x):
            cases.append((h, x, lb, ub))
    for h, x, lb, ub in cases:
        theirs = _adjust_scheme_to_bounds(np.array([x]), np.array([h]), 1, "1-sided", np.array([lb]), np.array([ub]))
        assert np.float64(ets_lean._step_within(h, x, lb, ub)).tobytes() == theirs[0][0].tobytes(), (h, x, lb, ub)


def test_a_point_outside_the_bounds_raises_as_scipy_does() -> None:
    _, objective, x0, lb, ub = setup("walk90", None, False)
    memo = ets_lean.Memo(objective, x0, lb, ub)
    with pytest.raises(ValueError, match="violates bound constraints"):
        memo._grad(np.where(np.arange(x0.size) == 0, 2.0, x0), 0.0)


@pytest.mark.parametrize(("maxiter", "maxfun"), [(1000, 15000), (3, 15000), (1000, 12), (1000, 1), (1, 1)])
@pytest.mark.parametrize(("trend", "damped"), CANDIDATES)
def test_the_minimiser_is_fmin_l_bfgs_b(monkeypatch: pytest.MonkeyPatch, maxiter: int, maxfun: int,
                                        trend: str | None, damped: bool) -> None:
    """Same optimum, and the same early stop by iterations or by function evaluations (the gradient's
    evaluations counted as scipy counts them)."""
    from scipy.optimize import fmin_l_bfgs_b

    monkeypatch.setattr(ets_lean, "MAXITER", maxiter)
    monkeypatch.setattr(ets_lean, "MAXFUN", maxfun)
    for name in ("walk252", "volatile1", "trend3"):
        model = model_of(SERIES[name], trend, damped)
        objective, x0, bounds = ets_lean.problem(model)
        theirs, _, info = fmin_l_bfgs_b(objective, x0, approx_grad=True, bounds=bounds, maxiter=maxiter,
                                        maxfun=maxfun)
        assert ets_lean.minimize_lbfgsb(objective, x0, bounds).tobytes() == theirs.tobytes()
        if (maxiter, maxfun) == (1000, 15000):
            assert info["warnflag"] == 0  # converged: the limits above are what stops the others


def test_reversed_bounds_raise_as_scipy_does() -> None:
    _, objective, x0, _, _ = setup("walk90", None, False)
    with pytest.raises(ValueError, match="greater than an upper bound"):
        ets_lean.minimize_lbfgsb(objective, x0, [(1.0, 0.0)] * x0.size)


# ------------------------------------------------------------------------------------------- the guard
@pytest.fixture
def fresh_guard(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.setattr(ets_lean, "_STATE", {})
    return monkeypatch


def statsmodels_only(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Fail the test if the lean code is used; returns the count of statsmodels fits."""
    from statsmodels.tsa.exponential_smoothing.ets import ETSModel

    real, calls = ETSModel.fit, []

    def counting(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(self, *args, **kwargs)

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the lean path ran")

    monkeypatch.setattr(ETSModel, "fit", counting)
    for name in ("fit_params", "loglike", "path", "minimize_lbfgsb"):
        monkeypatch.setattr(ets_lean, name, forbidden)
    return calls


@pytest.mark.parametrize("change", ["version", "private piece", "env"])
def test_outside_the_verified_setup_statsmodels_fits_with_the_same_answers(
        fresh_guard: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, change: str) -> None:
    closes = SERIES["trend3"]
    expected = bits(ets_fit.forecast_path((tuple(closes), STEPS)))  # lean (the guard decides once: fresh)
    fresh_guard.setattr(ets_lean, "_STATE", {})
    if change == "version":
        fresh_guard.setitem(ets_lean.VERIFIED, "scipy", "0.0.1")
    elif change == "private piece":
        fresh_guard.setitem(ets_lean.PRIVATE, "_lbfgsb", ("setulb", "no_such_routine"))
    else:
        fresh_guard.setenv(ets_lean.ENV_FLAG, "0")
    calls = statsmodels_only(fresh_guard)
    with caplog.at_level(logging.WARNING, logger=ets_lean.__name__):
        assert bits(ets_fit.forecast_path((tuple(closes), STEPS))) == expected
        assert bits(ets_fit.forecast_path((tuple(closes), STEPS))) == expected
    assert len(calls) == 2 * len(CANDIDATES)
    refusals = [r for r in caplog.records if r.name == ets_lean.__name__]
    assert len(refusals) == 1 and "statsmodels' own fit" in refusals[0].getMessage()  # logged once


def test_a_model_the_mirror_does_not_cover_goes_to_statsmodels() -> None:
    from statsmodels.tsa.exponential_smoothing.ets import ETSModel

    closes = pd.Series(SERIES["walk90"], dtype=float)
    assert all(ets_lean.covered(model_of(SERIES["walk90"], t, d)) for t, d in CANDIDATES)
    bounded = ETSModel(closes, error="add", bounds={"smoothing_level": [0.1, 0.5]})
    seasonal = ETSModel(closes, error="add", seasonal="add", seasonal_periods=5)
    multiplicative = ETSModel(closes, error="mul")
    known = ETSModel(closes, error="add", initialization_method="known", initial_level=100.0)
    assert not any(ets_lean.covered(m) for m in (bounded, seasonal, multiplicative, known))
    fixed = ETSModel(closes, error="add")
    with fixed.fix_params({"smoothing_level": 0.3}):
        assert not ets_lean.covered(fixed)
    fitted = model_of(SERIES["walk90"], None, False)
    ets_lean.fit_params(fitted)
    assert not ets_lean.covered(fitted)  # the fit set its bounds: decide before fitting (ets_fit.choose does)


# ------------------------------------------------------------------------------------------- the worker
def test_the_worker_answers_as_statsmodels_does(fresh_guard: pytest.MonkeyPatch) -> None:
    """The worker's answers (lean fits, in the child) against statsmodels' own fits in this process."""
    keys = [(tuple(SERIES[name]), STEPS) for name in ("walk252", "trend4", "tiny-level", "constant")]
    worker = ets_fit.FitWorker()
    try:
        answers = [bits(worker.take(key).result(timeout=120)) for key in keys]
    finally:
        worker.close()
    fresh_guard.setenv(ets_lean.ENV_FLAG, "0")
    statsmodels_only(fresh_guard)
    assert answers == [bits(ets_fit.forecast_path(key)) for key in keys]
