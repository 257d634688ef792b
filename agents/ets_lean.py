"""The `_ets` seat's fits without statsmodels' and scipy's per-call machinery, bit for bit.

The seat's answers are sealed, so its fits must give the very floats statsmodels gives; yet about four fifths
of a fit's CPU (statsmodels 0.15.0, scipy 1.17.1) is not the likelihood's Cython recursion but the layers
around its ~300 evaluations: statsmodels' objective wrapper and ``_loglike_internal``'s checks, the Cython
function's fused-type dispatch, scipy's ``ScalarFunction`` / ``approx_derivative`` / ``_Fun_Wrapper`` and its
array-API dispatch, then the winner's results object (a complex-step Hessian, pandas frames) and its
prediction's per-step arrays. This module keeps statsmodels' own model for the setup (start parameters,
bounds, the fixed/free split, the conversion back: :func:`problem`, :func:`model_params`), the same compiled
recursion and scipy's own L-BFGS-B core (``_lbfgsb.setulb``), and replaces only the layers between them with
code that does the same arithmetic in the same order: the same objective floats (:class:`Objective`), the
same forward-difference gradient and memoisation and the same evaluation count for the ``maxfun`` check
(:class:`Memo`, :func:`minimize_lbfgsb`), and the winner's forecast path from its parameters and smoothing
(:func:`path`): about a third of the CPU per fit (docs/costs.md, "The `_ets` fits"). The tests
(tests/unit/evals/test_evals_ets_lean.py) hold every piece and the whole path to statsmodels' and scipy's
own code, byte for byte.

It mirrors PRIVATE code (statsmodels 0.15.0's ``ETSModel.fit``, ``_loglike_internal``, ``ETSResults`` and its
``simulate``; scipy 1.17.1's ``fmin_l_bfgs_b`` → ``_minimize_lbfgsb``, ``ScalarFunction`` and
``approx_derivative(method="2-point")``; numpy's ``mean`` and pandas' ``Series.sum``), any of which may change
in a release without notice: :func:`available` allows it only for exactly the versions it was verified
against (the pins in requirements/lock.txt) and only when every private piece it calls exists; anywhere else
league_agents.ets_fit uses statsmodels' own ``fit`` and prediction, which give the same numbers, slower. Only
what the `_ets` seat fits is covered: additive errors, no seasonality, estimated initial states, default
bounds, no fixed parameters (:func:`covered`; other models go to statsmodels).
"""

from __future__ import annotations

import logging
import os
import threading
from types import SimpleNamespace
from typing import Any

import numpy as np

#: The library versions this mirror was verified against, bit for bit (requirements/lock.txt): statsmodels'
#: and scipy's code it mirrors, numpy's ``mean`` and pandas' ``Series.sum`` whose arithmetic it spells out.
VERIFIED = {"statsmodels": "0.15.0", "scipy": "1.17.1", "numpy": "2.4.6", "pandas": "3.1.1"}
#: ``LEAGUE_ETS_LEAN=0`` keeps every fit in statsmodels' own code (the reference; same numbers, more CPU).
ENV_FLAG = "LEAGUE_ETS_LEAN"
#: ``ETSModel.fit``'s defaults and ``fmin_l_bfgs_b``'s, as statsmodels 0.15.0 calls it (``_fit_lbfgs``).
MAXITER, M, FACTR, PGTOL, EPSILON, MAXFUN, MAXLS = 1000, 10, 1e7, 1e-5, 1e-8, 15000, 20

#: The private pieces used, by owner (checked to exist before the lean fit is allowed).
PRIVATE = {
    "ETSModel": ("_convert_and_bound_start_params", "_setup_bounds", "_model_params", "_internal_params",
                 "_loglike_internal", "_k_params_internal", "_k_states_internal"),
    "ETSResults": ("_relative_forecast_variance",),
    "_lbfgsb": ("setulb",),
    "_numdiff": ("_adjust_scheme_to_bounds", "_eps_for_method"),
    "_ets_smooth": ("_initialize_ets_smooth", "_ets_smooth_add_add"),
}

log = logging.getLogger(__name__)
_STATE: dict[str, Any] = {}
_LOCK = threading.Lock()


def available() -> bool:
    """True when the private pieces import and the libraries are exactly the verified versions, and
    ``LEAGUE_ETS_LEAN`` does not turn it off (decided once per process, a refusal logged once: the caller
    then uses statsmodels' own fit)."""
    with _LOCK:  # the seats' threads may ask at once: decided and logged once
        if "ok" not in _STATE:
            off = os.environ.get(ENV_FLAG, "1").strip().lower() in ("0", "false", "no", "off")
            why = f"{ENV_FLAG} is off" if off else _why_not()
            _STATE["ok"] = why is None
            if why is not None:
                log.warning("ets fits: statsmodels' own fit is used (the lean fit is not used here: %s)", why)
        return bool(_STATE["ok"])


def _why_not() -> str | None:
    """Why the lean fit cannot be used here, or None."""
    try:
        import numpy
        import pandas
        import scipy
        import statsmodels
        from scipy.optimize import _lbfgsb, _numdiff
        from statsmodels.tsa.exponential_smoothing import _ets_smooth
        from statsmodels.tsa.exponential_smoothing.ets import ETSModel, ETSResults

        _ets_smooth._ets_smooth_add_add.__signatures__["float64_t"]  # noqa: B018 - must exist
        for owner, names in PRIVATE.items():
            module = {"ETSModel": ETSModel, "ETSResults": ETSResults, "_lbfgsb": _lbfgsb, "_numdiff": _numdiff,
                      "_ets_smooth": _ets_smooth}[owner]
            for name in names:
                getattr(module, name)
    except (ImportError, AttributeError, KeyError, TypeError) as exc:
        return f"a private piece is missing ({type(exc).__name__}: {exc})"
    found = {"statsmodels": statsmodels.__version__, "scipy": scipy.__version__, "numpy": numpy.__version__,
             "pandas": pandas.__version__}
    if found != VERIFIED:
        return f"versions {found}, verified {VERIFIED}"
    return None


def covered(model: Any) -> bool:
    """Whether ``model`` is one this mirror reproduces (the `_ets` seat's candidates, untouched)."""
    return (model.error == "add" and not model.has_seasonal and model.initialization_method == "estimated"
            and not model._has_fixed_params and not model.bounds
            and model._smoothing_func is _smoothing_add_add())


def _smoothing_add_add() -> Any:
    from statsmodels.tsa.exponential_smoothing import _ets_smooth

    return _ets_smooth._ets_smooth_add_add


def fit_params(model: Any) -> Any:
    """``model.fit(disp=False, return_params=True)`` for a :func:`covered` model, bit for bit; as it, this
    sets ``model.bounds`` (statsmodels' ``_convert_and_bound_start_params`` records the internal-only
    parameters there). Raises what statsmodels' fit would raise in the optimizer's own checks (ValueError)."""
    objective, x0, bounds = problem(model)
    return model_params(model, objective, minimize_lbfgsb(objective, x0, bounds))


def problem(model: Any) -> tuple[Objective, Any, list[tuple[Any, Any]]]:
    """``ETSModel.fit``'s preamble: the internal start parameters (beta and gamma as beta* = beta / alpha and
    gamma* = gamma / (1 - alpha) when not bounded explicitly), the parameters whose bounds are one point
    held fixed, and what L-BFGS-B gets: the objective, the free start values and their bounds."""
    internal = model._convert_and_bound_start_params(model.start_params)
    bounds = model._setup_bounds()
    use_beta_star = "smoothing_trend" not in model.bounds
    if use_beta_star:
        internal[1] /= internal[0]
    use_gamma_star = "smoothing_seasonal" not in model.bounds
    if use_gamma_star:
        internal[2] /= 1 - internal[0]
    is_fixed = np.zeros(model._k_params_internal, dtype=np.int64)
    fixed_values = np.empty_like(internal)
    free, free_bounds = [], []
    for i in range(model._k_params_internal):
        if bounds[i][0] == bounds[i][1]:
            is_fixed[i] = True
            fixed_values[i] = bounds[i][0]
        else:
            free.append(internal[i])
            free_bounds.append(bounds[i])
    objective = Objective(model, is_fixed, fixed_values, use_beta_star, use_gamma_star)
    return objective, np.asarray(free), free_bounds


def model_params(model: Any, objective: Objective, xopt: Any) -> Any:
    """``ETSModel.fit``'s ending: the fixed values put back among the optimum's, beta and gamma unstarred,
    the model's own parameter order."""
    fitted = np.empty_like(objective.fixed_values)
    j = 0
    for i in range(model._k_params_internal):
        if objective.is_fixed[i]:
            fitted[i] = objective.fixed_values[i]
        else:
            fitted[i] = xopt[j]
            j += 1
    if objective.use_beta_star:
        fitted[1] *= fitted[0]
    if objective.use_gamma_star:
        fitted[2] *= 1 - fitted[0]
    return model._model_params(fitted)


class Objective:
    """statsmodels' L-BFGS-B objective for ``ETSModel.fit``: ``-loglike(p) / nobs`` with ``loglike`` its
    ``_loglike_internal`` (the Cython smoothing into preallocated arrays, then the Gaussian log-likelihood
    of the residuals, the same expressions in the same order), without the per-call type checks and copies.
    The smoothing function is the float64 specialisation statsmodels' fused-type dispatch picks for float64
    arrays: the same compiled code."""

    def __init__(self, model: Any, is_fixed: Any, fixed_values: Any, use_beta_star: bool,
                 use_gamma_star: bool) -> None:
        self.smooth = model._smoothing_func.__signatures__["float64_t"]
        self.endog = model.endog
        self.nobs = model.nobs  # _loglike_internal's self.nobs
        self.nobs_f = model.endog.shape[0]  # LikelihoodModel.fit's nobs (the divisor of f)
        self.yhat = np.zeros(model.nobs)
        self.xhat = np.zeros((model.nobs, model._k_states_internal))
        self.res = np.empty(model.nobs)
        self.is_fixed = np.ascontiguousarray(is_fixed, dtype=np.int64)
        self.fixed_values = fixed_values
        self.use_beta_star = use_beta_star
        self.use_gamma_star = use_gamma_star

    def __call__(self, params: Any) -> Any:
        self.smooth(params, self.endog, self.yhat, self.xhat, self.is_fixed, self.fixed_values,
                    self.use_beta_star, self.use_gamma_star)
        return -self.loglike_of(self.yhat) / self.nobs_f

    def loglike_of(self, yhat: Any) -> Any:
        """``_loglike_internal``'s ``-nobs / 2 * (log(2 pi mean(res**2)) + 1)`` for additive errors, its
        ``np.mean(res**2)`` spelled as what it computes (``np.add.reduce`` of the squares over ``nobs``, the
        same pairwise sum of the same floats) into one reused buffer instead of two new arrays."""
        res = np.subtract(self.endog, yhat, out=self.res)
        np.multiply(res, res, out=res)
        return -self.nobs / 2 * (np.log(2 * np.pi * (np.add.reduce(res) / self.nobs)) + 1)


def minimize_lbfgsb(fun: Objective, x0: Any, bounds: list[tuple[Any, Any]]) -> Any:
    """``scipy.optimize.fmin_l_bfgs_b(fun, x0, approx_grad=True, bounds=bounds, maxiter=MAXITER)``'s ``x``
    (scipy 1.17.1's ``_minimize_lbfgsb`` loop around ``_lbfgsb.setulb``; its callback, messages and inverse
    Hessian, which statsmodels' ``return_params`` never reads, are left out)."""
    from scipy.optimize import _lbfgsb

    x0 = np.asarray(x0).ravel()
    n = x0.shape[0]
    lb = np.array([float(b[0]) if b[0] is not None else -np.inf for b in bounds])
    ub = np.array([float(b[1]) if b[1] is not None else np.inf for b in bounds])
    if (lb > ub).any():
        raise ValueError("LBFGSB - one of the lower bounds is greater than an upper bound.")
    x0 = np.clip(x0, lb, ub)
    sf = Memo(fun, x0, lb, ub)
    nbd, low_bnd, upper_bnd = _bound_codes(lb, ub)
    factr = (FACTR * np.finfo(float).eps) / np.finfo(float).eps  # fmin_l_bfgs_b's ftol, back to factr
    x = np.array(x0, dtype=np.float64)
    f: Any = np.array(0.0, dtype=np.float64)
    g = np.zeros((n,), dtype=np.float64)
    wa = np.zeros(2 * M * n + 5 * n + 11 * M * M + 8 * M, np.float64)
    iwa = np.zeros(3 * n, dtype=np.int32)
    task = np.zeros(2, dtype=np.int32)
    ln_task = np.zeros(2, dtype=np.int32)
    lsave = np.zeros(4, dtype=np.int32)
    isave = np.zeros(44, dtype=np.int32)
    dsave = np.zeros(29, dtype=np.float64)
    n_iterations = 0
    while True:
        g = g.astype(np.float64)
        _lbfgsb.setulb(M, x, low_bnd, upper_bnd, nbd, f, g, factr, PGTOL, wa, iwa, task, lsave, isave, dsave,
                       MAXLS, ln_task)
        if task[0] == 3:  # f and g wanted at x
            f, g = sf.fun_and_grad(x)
        elif task[0] == 1:  # a new iteration
            n_iterations += 1
            if n_iterations >= MAXITER:
                task[0], task[1] = 5, 504
            elif sf.nfev > MAXFUN:
                task[0], task[1] = 5, 502
        else:
            return x


def _bound_codes(lb: Any, ub: Any) -> tuple[Any, Any, Any]:
    """``_minimize_lbfgsb``'s ``nbd`` (0 free, 1 lower, 2 both, 3 upper) and its bound arrays."""
    n = lb.shape[0]
    nbd = np.zeros(n, np.int32)
    low_bnd = np.zeros(n, np.float64)
    upper_bnd = np.zeros(n, np.float64)
    bounds_map = {(-np.inf, np.inf): 0, (1, np.inf): 1, (1, 1): 2, (-np.inf, 1): 3}
    for i in range(n):
        lo, up = lb[i], ub[i]
        if not np.isinf(lo):
            low_bnd[i] = lo
            lo = 1
        if not np.isinf(up):
            upper_bnd[i] = up
            up = 1
        nbd[i] = bounds_map[lo, up]
    return nbd, low_bnd, upper_bnd


class Memo:
    """scipy's ``ScalarFunction`` as L-BFGS-B uses it (``fun_and_grad``): f and its forward-difference
    gradient at the last point asked, recomputed only when the point changes (``np.array_equal``), and
    ``nfev`` counting every evaluation of ``fun``, the gradient's included (what the ``maxfun`` check reads)."""

    def __init__(self, fun: Objective, x0: Any, lb: Any, ub: Any) -> None:
        from scipy.optimize import _numdiff

        self.fun, self.lb, self.ub = fun, lb, ub
        self.adjust = _numdiff._adjust_scheme_to_bounds
        self.rstep = float(_numdiff._eps_for_method(np.dtype(np.float64), np.dtype(np.float64), "2-point"))
        self.lbs, self.ubs = lb.tolist(), ub.tolist()
        self.free = bool(np.all((lb == -np.inf) & (ub == np.inf)))  # then scipy leaves the steps alone
        self.nfev = 0
        self.x = np.array(x0, dtype=np.float64)
        self.f = self._f(self.x)
        self.g = self._grad(self.x, self.f)

    def fun_and_grad(self, x: Any) -> tuple[Any, Any]:
        if not np.array_equal(x, self.x):
            self.x = np.array(x, dtype=np.float64)
            self.f = self._f(self.x)
            self.g = self._grad(self.x, self.f)
        return self.f, self.g

    def _f(self, x: Any) -> Any:
        """One evaluation, as ``_ScalarFunctionWrapper`` hands it back (a true scalar) and counts it."""
        fx = self.fun(x)
        self.nfev += 1
        if not np.isscalar(fx):
            fx = np.asarray(fx).item()
        return fx

    def _grad(self, x0: Any, f0: Any) -> Any:
        """``approx_derivative(fun, x0, f0=f0, method="2-point", abs_step=EPSILON, bounds=(lb, ub))``: one
        forward difference per coordinate, its step ``h`` as scipy sets it (:meth:`_steps`), ``dx`` the step
        as actually taken, ``(f(x0 + h e_i) - f0) / dx``."""
        if np.any((x0 < self.lb) | (x0 > self.ub)):
            raise ValueError("`x0` violates bound constraints.")
        h = self._steps(x0)
        x1 = x0.copy()
        out = np.empty(x0.size)
        for i in range(x0.size):
            x1[i] = x0[i] + h[i]
            out[i] = (self._f(x1) - f0) / ((x0[i] + h[i]) - x0[i])
            x1[i] = x0[i]
        return out

    def _steps(self, x0: Any) -> Any:
        """scipy's forward-difference steps at ``x0``: ``EPSILON``, or ``sqrt(eps) * sign * max(1, |x|)`` where
        ``x + EPSILON`` rounds back to ``x``, then turned or shortened to stay inside the bounds
        (``_adjust_scheme_to_bounds(x0, h, 1, "1-sided", lb, ub)``). Computed per coordinate in Python floats
        (the same IEEE operations, a tenth of the time of numpy on 2-5 elements) when every coordinate is
        finite; otherwise with scipy's own array code, whose NaN rules the scalar version does not mirror."""
        if not np.isfinite(x0).all():
            sign_x0 = (x0 >= 0).astype(float) * 2 - 1
            dx = (x0 + EPSILON) - x0
            h = np.where(dx == 0, self.rstep * sign_x0 * np.maximum(1.0, np.abs(x0)), EPSILON)
            return self.adjust(x0, h, 1, "1-sided", self.lb, self.ub)[0]
        if self.free:
            return [self._step(x) for x in x0.tolist()]
        return [_step_within(self._step(x), x, lo, up) for x, lo, up in zip(x0.tolist(), self.lbs, self.ubs,
                                                                            strict=True)]

    def _step(self, x: float) -> float:
        if (x + EPSILON) - x == 0:
            return self.rstep * (1.0 if x >= 0 else -1.0) * max(1.0, abs(x))
        return EPSILON


def _step_within(h: float, x: float, lb: float, ub: float) -> float:
    """``_adjust_scheme_to_bounds``'s one-sided rule for one finite coordinate: a step that leaves the bounds
    is reversed if the reversed one fits, else it goes to the farther bound."""
    lower_dist, upper_dist = x - lb, ub - x
    fitting = abs(h) <= (lower_dist if lower_dist >= upper_dist else upper_dist)  # neither is NaN: x is finite
    if not fitting:
        return upper_dist / 1 if upper_dist >= lower_dist else -lower_dist / 1
    stepped = x + h
    return -h if stepped < lb or stepped > ub else h


# ------------------------------------------------------------------------------------------- the winner's path
def loglike(model: Any, params: Any) -> tuple[Any, tuple[Any, Any]]:
    """``model.loglike(params)`` (its own body: the internal parameters, fresh arrays, ``_loglike_internal``)
    and the smoothing it leaves in those arrays (``yhat``, ``xhat``): the very numbers ``model.smooth(params)``
    computes (the same Cython function on the same inputs), kept for :func:`path`."""
    internal = model._internal_params(np.asarray(params))
    yhat = np.zeros(model.nobs, dtype=internal.dtype)
    xhat = np.zeros((model.nobs, model._k_states_internal), dtype=internal.dtype)
    return model._loglike_internal(np.asarray(internal), yhat, xhat), (yhat, xhat)


def path(model: Any, params: Any, smoothing: tuple[Any, Any], steps: int) -> list[tuple[float, float]]:
    """``model.smooth(params).get_prediction(start=nobs, end=nobs + steps - 1)``'s ``(predicted_mean,
    var_pred_mean)`` 1 … ``steps`` ahead, without the results object (whose constructor also computes a
    complex-step Hessian, a covariance and pandas frames that a prediction never reads) or the prediction's
    per-step numpy arrays. For a :func:`covered` model whose log-likelihood is finite (the chosen one), i.e.
    finite residuals with a positive mean square, where ``ETSResults.mse``'s pandas sum is numpy's.

    Mean: ``ETSResults.simulate`` with zero errors from the last smoothed state, step by step in the same
    operations (float64 either way). Variance: ``mse`` times statsmodels' own ``_relative_forecast_variance``
    on the same parameter scalars and the same float horizons 1.0 … ``steps``."""
    from statsmodels.tsa.exponential_smoothing import _ets_smooth
    from statsmodels.tsa.exponential_smoothing.ets import ETSResults

    if steps < 1:  # the Cython initialisation below writes row steps - 1 unchecked
        raise ValueError("a path has at least one step")
    yhat, xhat = smoothing
    n = model.nobs
    resid = model.endog - yhat
    mse = np.add.reduce(resid**2) / n  # ETSResults.mse: np.sum(resid ** 2) / nobs
    internal = model._internal_params(np.asarray(params))
    start = np.empty(6 + model.seasonal_periods)  # _get_prediction_params(nobs)
    start[0:4] = internal[0:4]
    start[4:] = (xhat[n - 1, 0], xhat[n - 1, 1] if model.has_trend else 0.0, 0.0)
    state = np.zeros((steps, model._k_states_internal))
    alpha, beta_star, gamma_star, phi, _, _ = _ets_smooth._initialize_ets_smooth(
        start, state, np.zeros(len(start), dtype=np.int64), np.zeros_like(start))
    means = _zero_error_means(state[steps - 1].tolist(), alpha, alpha * beta_star, (1 - alpha) * gamma_star, phi,
                              steps)
    scalars = SimpleNamespace(smoothing_level=np.asarray(params)[0], has_trend=model.has_trend,
                              has_seasonal=model.has_seasonal, damped_trend=model.damped_trend,
                              model=SimpleNamespace(short_name=model.short_name))
    if model.has_trend:
        scalars.smoothing_trend = np.asarray(params)[1]
    if model.damped_trend:
        scalars.damping_trend = internal[3]
    horizons = np.ones(steps)
    horizons[0:] = range(1, steps + 1)
    variances = mse * ETSResults._relative_forecast_variance(scalars, horizons)
    return [(float(m), float(v)) for m, v in zip(means, variances.tolist(), strict=True)]


def _zero_error_means(last: list[float], alpha: float, beta: float, gamma: float, phi: float,
                      steps: int) -> list[float]:
    """``simulate``'s additive-error, additive-trend, no-season recursion with every error 0, in its own
    expressions (``mul_error`` False, each ``kappa`` 1, ``eta`` 1): ``0 * L``, ``+ 0.0`` and all, since they
    decide the sign of a zero and propagate an overflow exactly as its arrays do."""
    level, trend, season = last
    eps, mul_error = 0.0, False
    out = []
    for _ in range(steps):
        b = trend * phi
        lvl = level + b
        s = season
        y = lvl + s
        out.append(y + 1 * eps)
        level = lvl + alpha * (mul_error * lvl + 1) * eps
        trend = b + beta * (mul_error * b + 1) * eps
        season = s + gamma * (mul_error * s + 1) * eps
    return out
