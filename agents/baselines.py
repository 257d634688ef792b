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
from typing import Any, ClassVar

from league_agents import ets_fit
from league_agents.base import Ask, Now, SeatBase, SeatReply, SeatSpec
from league_agents.ets_fit import FitWorker
from league_agents.options import EtsOptions, NaiveOptions, NoOptions, SeatOptions
from sandbox.interface import Sandbox


def reply_text(cells: Mapping[str, Mapping[str, float]]) -> str:
    """An answer-format reply with ``action: hold`` in every cell given."""
    forecast = {code: {h: {"prob_up": p, "action": "hold"} for h, p in row.items()} for code, row in cells.items()}
    return json.dumps({"forecast": forecast}, sort_keys=True)


class _Baseline(SeatBase, ABC):
    """Shared shape: ``cells(ask)`` gives {market: {horizon: prob_up}}; absent cells stay absent."""

    kind = "baseline"
    options_model: ClassVar[type[SeatOptions] | None] = NoOptions
    networks: ClassVar[frozenset[str] | None] = frozenset({"none"})
    baseline: ClassVar[bool] = True

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
    return _closes((ask.context.get("history", {}) or {}).get(code) or [])


def _closes(raw: Any) -> list[float]:
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

    reads_history: ClassVar[bool] = True

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
    options_model = NaiveOptions

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
    P(Y > price) under the model's Gaussian forecast distribution (that mean, the forecast variance).

    The fits (league_agents.ets_fit) run in the process's fit worker (:class:`FitWorker`, one child process) unless
    ``LEAGUE_ETS_WORKER=0``, or in the asking thread; either way each market's path is the same function of the
    same closes. :meth:`prefetch` starts a coming ask's fits early; the ask uses a fit only if its own closes
    are exactly the ones that fit read."""

    kind = "ets"
    options_model = EtsOptions

    def __init__(self, spec: SeatSpec, *, sandbox: Sandbox | None = None) -> None:
        super().__init__(spec, sandbox=sandbox)
        self.worker: FitWorker | None = ets_fit.shared_worker() if ets_fit.worker_enabled() else None

    def fit(self, history: list[float]) -> Any:
        """The chosen candidate's statsmodels results on the last ``max_history`` closes (league_agents.ets_fit.fit)."""
        return ets_fit.fit(self.closes(history))

    def closes(self, history: list[float]) -> tuple[float, ...]:
        """What a fit reads of a market's history: its last ``max_history`` closes."""
        return tuple(history[-int(self.spec.options.get("max_history", 500)):])

    def fits(self, history: list[float]) -> bool:
        return len(history) >= int(self.spec.options.get("min_history", 30))

    def prefetch(self, history: Mapping[str, Any]) -> int:
        """Start the fits of a coming ask now, in the worker (``history``: each market's closes as that ask's
        context will carry them). Returns how many fits were asked for (none without a worker). Safe whenever
        called: an ask takes a fit only for exactly its own closes (the key is the input), so a fit of closes
        its ask does not carry is never used (the worker forgets it after ``MEMO_KEEP`` others)."""
        if self.worker is None:
            return 0
        series = [_closes(raw or []) for raw in history.values()]  # as the ask reads its context (_history)
        keys = [(self.closes(closes), LONGEST_STEPS) for closes in series if self.fits(closes)]
        for key in keys:
            self.worker.submit(key)
        return len(keys)

    def path(self, history: list[float], steps: int) -> ets_fit.Path | None:
        """The forecast path (mean, variance) 1 … ``steps`` ahead for this history: from the worker when there
        is one (waiting at most the seat's ``timeout_s``; a worker that ended raises, the seat's fault), else,
        or when no worker process can be started, fitted here."""
        key = (self.closes(history), steps)
        if self.worker is not None:
            try:
                return self.worker.take(key).result(timeout=self.spec.timeout_s)
            except ets_fit.WorkerUnavailable:  # no process for it here: fitted in this thread, as without one
                pass
        return ets_fit.forecast_path(key)

    def close(self) -> None:
        """End the fit worker's child process (the runner calls it when the League closes)."""
        if self.worker is not None:
            self.worker.close()

    def forecaster(self, history: list[float], price: float | None) -> Callable[[int], Point | None]:
        fitted = self.fits(history)
        first = self.path(history, LONGEST_STEPS) if fitted else None
        ref = price if price is not None else (history[-1] if history else None)
        path: list[tuple[float, float]] = list(first or [])  # (mean, variance) 1, 2, … steps ahead

        def ahead(steps: int) -> tuple[float, float]:
            """One prediction out to the longest horizon serves every horizon of the market: each step's mean
            and variance are the same numbers a prediction ending at that step gives (additive-error ETS:
            closed-form recursions, step by step), at a quarter of the cost. A horizon further out than
            ``LONGEST_STEPS`` gets its own longer path."""
            if len(path) < steps:
                path[:] = self.path(history, steps) or []
            return path[steps - 1]

        def point(steps: int) -> Point | None:
            if first is None or ref is None:
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
