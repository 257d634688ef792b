"""History-only baseline seats, answered in-process (no model, no sandbox needed).

``_coin`` says 50 everywhere, ``_momentum`` 55/45 with the sign of the last change, and
``_climatology`` the historical up-frequency the league passes in ``ask.context``. Their replies
are ordinary answer-format texts so the league seals and parses them exactly like any seat's.
"""

from __future__ import annotations

import json
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any

from league_agents.base import Ask, Now, SeatReply, SeatSpec
from sandbox.interface import Sandbox


def reply_text(cells: Mapping[str, Mapping[str, float]]) -> str:
    """An answer-format reply with ``action: hold`` in every cell given."""
    forecast = {code: {h: {"prob_up": p, "action": "hold"} for h, p in row.items()} for code, row in cells.items()}
    return json.dumps({"forecast": forecast}, sort_keys=True)


class _Baseline(ABC):
    """Shared shape: ``cells(ask)`` gives {market: {horizon: prob_up}}; absent cells stay absent."""

    kind = "baseline"

    def __init__(self, spec: SeatSpec, *, sandbox: Sandbox | None = None) -> None:
        self.spec = spec

    @abstractmethod
    def cells(self, ask: Ask) -> dict[str, dict[str, float]]:
        """Provided by each adapter."""

    def ask(self, ask: Ask, now: Now) -> SeatReply:
        at = now()
        model = self.spec.model if self.spec.model != "unreported" else self.kind
        return SeatReply(
            seat=self.spec.name,
            raw=reply_text(self.cells(ask)),
            model=model,
            version="1",
            mode="history-only",
            started_at=at,
            finished_at=at,
        )


def _markets(ask: Ask) -> Mapping[str, Mapping[str, Any]]:
    return ask.context.get("markets", {}) or {}


class CoinSeat(_Baseline):
    kind = "coin"

    def cells(self, ask: Ask) -> dict[str, dict[str, float]]:
        return {code: {h: 50.0 for h in m.get("horizons", [])} for code, m in _markets(ask).items()}


class MomentumSeat(_Baseline):
    kind = "momentum"

    def cells(self, ask: Ask) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        for code, m in _markets(ask).items():
            change = m.get("last_change_pct")
            if isinstance(change, int | float) and change != 0:
                out[code] = {h: 55.0 if change > 0 else 45.0 for h in m.get("horizons", [])}
        return out


class ClimatologySeat(_Baseline):
    kind = "climatology"

    def cells(self, ask: Ask) -> dict[str, dict[str, float]]:
        table = ask.context.get("climatology", {}) or {}
        out: dict[str, dict[str, float]] = {}
        for code, m in _markets(ask).items():
            row = {h: float(table[code][h]) for h in m.get("horizons", []) if h in table.get(code, {})}
            if row:
                out[code] = row
        return out


# ---------------------------------------------------------------------------------------------------------------
# History-only point baselines (docs/evals.md, track B): they answer with a `target` level as well as `prob_up`.
# They read each market's daily closes from ``ask.context["history"][code]`` (oldest first, the last close before
# the ask) and the shown price from ``ask.context["markets"][code]["price"]``; a horizon is ``steps`` closes ahead
# (``markets[code]["steps"]``, default 1d=1, 1w=5, 1m=21, 6m=126). Without history a cell stays absent, except
# for `_naive` with m = 1, whose "no change" target is the shown price itself.
DEFAULT_STEPS = {"1d": 1, "1w": 5, "1m": 21, "6m": 126}
LONGEST_STEPS = max(DEFAULT_STEPS.values())


def point_reply_text(cells: Mapping[str, Mapping[str, Mapping[str, float]]]) -> str:
    """An answer-format reply whose cells carry ``prob_up`` and ``target`` (``action: hold``)."""
    forecast = {code: {h: {"prob_up": c["prob_up"], "action": "hold", "target": c["target"]} for h, c in row.items()}
                for code, row in cells.items()}
    return json.dumps({"forecast": forecast}, sort_keys=True)


def _history(ask: Ask, code: str) -> list[float]:
    raw = (ask.context.get("history", {}) or {}).get(code) or []
    return [float(v) for v in raw if isinstance(v, int | float) and not isinstance(v, bool)]


def _steps(market: Mapping[str, Any], horizon: str) -> int | None:
    steps = {**DEFAULT_STEPS, **(market.get("steps") or {})}.get(horizon)
    return int(steps) if isinstance(steps, int) and steps > 0 else None


Point = tuple[float, float]


def _bounded(p: float) -> float:
    """A probability in percent, rounded to 0.1 and kept within [1, 99]: a history-only model is never sure."""
    return round(min(99.0, max(1.0, p)), 1)


class _PointBaseline(_Baseline):
    """Shared shape: ``forecaster(history, price)`` gives, once per market, a function of the horizon's steps
    returning (target, prob_up in percent), or None where the cell stays absent."""

    @abstractmethod
    def forecaster(self, history: list[float], price: float | None) -> Callable[[int], Point | None]:
        """Provided by each adapter."""

    def points(self, ask: Ask) -> dict[str, dict[str, dict[str, float]]]:
        out: dict[str, dict[str, dict[str, float]]] = {}
        for code, m in _markets(ask).items():
            price = m.get("price")
            shown = float(price) if isinstance(price, int | float) and not isinstance(price, bool) else None
            forecast = self.forecaster(_history(ask, code), shown)
            row = {}
            for h in m.get("horizons", []):
                steps = _steps(m, h)
                found = forecast(steps) if steps else None
                if found is not None:
                    row[h] = {"target": round(found[0], 6), "prob_up": _bounded(found[1])}
            if row:
                out[code] = row
        return out

    def cells(self, ask: Ask) -> dict[str, dict[str, float]]:
        return {code: {h: c["prob_up"] for h, c in row.items()} for code, row in self.points(ask).items()}

    def ask(self, ask: Ask, now: Now) -> SeatReply:
        at = now()
        model = self.spec.model if self.spec.model != "unreported" else self.kind
        return SeatReply(seat=self.spec.name, raw=point_reply_text(self.points(ask)), model=model, version="1",
                         mode="history-only", started_at=at, finished_at=at)


def _naive_lag(steps: int, m: int) -> int:
    """How far back the seasonal naive reaches for a value ``steps`` ahead: m·⌈steps/m⌉ observations."""
    return m * math.ceil(steps / m)


class NaiveSeat(_PointBaseline):
    """``_naive``: the seasonal naive target (m = ``options.season``, default 1: "no change", i.e. the shown
    price); prob_up = P(target + e > price), e drawn from the history's own ``steps``-ahead seasonal-naive
    errors, Laplace-smoothed ((k + 1) / (n + 2)); 50 with fewer than two such errors."""

    kind = "naive"

    def forecaster(self, history: list[float], price: float | None) -> Callable[[int], Point | None]:
        m = max(1, int(self.spec.options.get("season", 1)))

        def point(steps: int) -> Point | None:
            if m == 1 and price is not None:
                target = price
            elif len(history) >= m:
                target = history[len(history) - 1 + steps - _naive_lag(steps, m)]
            else:
                return None
            lag = _naive_lag(steps, m)
            errors = [history[t] - history[t - lag] for t in range(lag, len(history))]
            if len(errors) < 2 or price is None:
                return target, 50.0
            above = sum(target + e > price for e in errors)
            return target, 100.0 * (above + 1) / (len(errors) + 2)

        return point


class EtsSeat(_PointBaseline):
    """``_ets``: an ETS model (statsmodels ``ETSModel``, additive errors) chosen by AIC among no trend, additive
    trend and damped additive trend, fit once per market on the last ``options.max_history`` closes (default
    500; at least ``options.min_history``, default 30). Target = the forecast mean ``steps`` ahead; prob_up =
    P(Y > price) under the model's Gaussian forecast distribution (that mean, the forecast variance)."""

    kind = "ets"
    CANDIDATES = ((None, False), ("add", False), ("add", True))

    def fit(self, history: list[float]) -> Any:
        """The chosen candidate's statsmodels results (None when every candidate fails).

        Same choice and same numbers as fitting each candidate with ``ETSModel.fit`` and keeping the lowest
        ``res.aic``, for ~15 % less CPU: each candidate is fitted with ``return_params=True`` and
        its AIC computed exactly as ``ETSResults`` does (``aic(model.loglike(params), nobs, df_model)``), so
        only the winner builds a results object (whose constructor also computes a complex-step Hessian
        that a prediction never reads). If the winner's results cannot be built, the plain loop
        (``fit_plain``) decides, as it always did."""
        import warnings

        import pandas as pd
        from statsmodels.tsa.exponential_smoothing.ets import ETSModel

        series = pd.Series(history[-int(self.spec.options.get("max_history", 500)):], dtype=float)
        best: tuple[float, Any, Any] | None = None  # (aic, model, params)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence chatter; a fit that fails is skipped below
            for trend, damped in self.CANDIDATES:
                try:
                    model = ETSModel(series, error="add", trend=trend, damped_trend=damped)
                    params = model.fit(disp=False, return_params=True)
                    score = self.candidate_aic(model, params)
                except (ValueError, ArithmeticError):  # numpy's LinAlgError is a ValueError
                    continue
                if math.isfinite(score) and (best is None or score < best[0]):
                    best = (score, model, params)
            if best is None:
                return None
            try:
                return best[1].smooth(best[2])
            except (ValueError, ArithmeticError):
                return self.fit_plain(series)

    @staticmethod
    def candidate_aic(model: Any, params: Any) -> float:
        """``model.smooth(params).aic`` without the results object: ETSResults takes llf =
        ``model.loglike(params)``, df_model = free parameters + 1 and nobs_effective = nobs, and its ``aic``
        is statsmodels' ``eval_measures.aic(llf, nobs, df_model)`` (statsmodels 0.14-0.15)."""
        from statsmodels.tools.eval_measures import aic

        fixed = model._fixed_params if model._has_fixed_params else {}  # as ETSResults reads them
        return float(aic(model.loglike(params), model.nobs, model.k_params - len(fixed) + 1))

    def fit_plain(self, series: Any) -> Any:
        """Every candidate fitted to a full results object, the lowest ``res.aic`` kept: the reference the
        fast path of ``fit`` must equal (tests/unit/evals/test_evals_ets_fast.py), and its fallback."""
        import warnings

        from statsmodels.tsa.exponential_smoothing.ets import ETSModel

        best = None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for trend, damped in self.CANDIDATES:
                try:
                    res = ETSModel(series, error="add", trend=trend, damped_trend=damped).fit(disp=False)
                except (ValueError, ArithmeticError):
                    continue
                if math.isfinite(res.aic) and (best is None or res.aic < best.aic):
                    best = res
        return best

    def forecaster(self, history: list[float], price: float | None) -> Callable[[int], Point | None]:
        model = self.fit(history) if len(history) >= int(self.spec.options.get("min_history", 30)) else None
        ref = price if price is not None else (history[-1] if history else None)
        path: list[tuple[float, float]] = []  # (mean, variance) 1, 2, … steps ahead

        def ahead(steps: int) -> tuple[float, float]:
            """One prediction out to the longest horizon serves every horizon of the market: each step's mean
            and variance are the same numbers a prediction ending at that step gives (additive-error ETS:
            closed-form recursions, step by step), at a quarter of the cost."""
            if len(path) < steps:
                assert model is not None
                n = int(model.nobs)
                pred = model.get_prediction(start=n, end=n + max(steps, LONGEST_STEPS) - 1)
                path[:] = zip(list(pred.predicted_mean), list(pred.var_pred_mean), strict=True)  # Series or array
            return path[steps - 1]

        def point(steps: int) -> Point | None:
            if model is None or ref is None:
                return None
            mean_at, var_at = ahead(steps)
            mean = float(mean_at)
            sd = math.sqrt(max(0.0, float(var_at)))
            if not math.isfinite(mean):
                return None
            if not sd > 0:
                return mean, 50.0
            return mean, 100.0 * 0.5 * math.erfc((ref - mean) / (sd * math.sqrt(2.0)))

        return point
