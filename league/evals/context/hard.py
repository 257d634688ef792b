"""The hard-window filter (seed 004): keep a window only if a reference forecaster misses by ≥ 10 % of the range.

rMAE = mean over the future of |reference − actual| / (max(future) − min(future)). The seed keeps windows whose
rMAE is at least ``HARD_THRESHOLD`` = 0.10 for the leading TSFM ("误差至少占未来振幅一成"). We have no TSFM here,
so the reference is a named, maintained statistical model (the seed's rule fixes only the ratio and threshold):

- ``SeasonalNaive(m)``: y_{n−1+h−m·⌈h/m⌉} (``league.evals.mase.seasonal_naive``), the default, pure and exact;
- ``HoltWinters(m)``: statsmodels' ``ExponentialSmoothing`` (additive damped trend, additive season when m ≥ 2
  and the history holds two full seasons), fitted by maximum likelihood on the history.

A future with zero range (flat) has no rMAE: such a window is not hard (and its effects cannot be normalised).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from league.evals.context.windows import Window
from league.evals.mase import seasonal_naive
from league.extras import extra

HARD_THRESHOLD: Final = 0.10


class Forecaster(Protocol):
    """A reference forecaster: a name (sealed with the filter's output) and a forecast of ``h`` steps."""

    @property
    def name(self) -> str: ...

    def forecast(self, history: Sequence[float], h: int) -> list[float]: ...


@dataclass(frozen=True)
class SeasonalNaive:
    """The seasonal naive forecast with season length ``m`` (m = 1: the last value repeated)."""

    m: int = 1

    @property
    def name(self) -> str:
        return f"seasonal-naive(m={self.m})"

    def forecast(self, history: Sequence[float], h: int) -> list[float]:
        m = self.m if len(history) >= self.m else 1
        return [seasonal_naive(history, step, m) for step in range(1, h + 1)]


@dataclass(frozen=True)
class HoltWinters:
    """statsmodels' ExponentialSmoothing: additive damped trend, additive season of length ``m`` when usable."""

    m: int = 1

    @property
    def name(self) -> str:
        return f"statsmodels-ets(trend=add,damped,seasonal={'add' if self.m >= 2 else 'none'},m={self.m})"

    def forecast(self, history: Sequence[float], h: int) -> list[float]:
        with extra("stats"):  # imported here so the seasonal naive needs nothing else
            import numpy as np
            from statsmodels.tsa.holtwinters import ExponentialSmoothing

        y = np.asarray(history, dtype=float)
        seasonal = "add" if self.m >= 2 and len(y) >= 2 * self.m + 2 else None
        model = ExponentialSmoothing(
            y, trend="add", damped_trend=True, seasonal=seasonal,
            seasonal_periods=self.m if seasonal else None, initialization_method="estimated",
        )
        fitted = model.fit()
        return [float(v) for v in fitted.forecast(h)]


def rmae(forecast: Sequence[float], actual: Sequence[float]) -> float | None:
    """Mean absolute error over the future divided by the future's range; ``None`` for a flat future."""
    if len(forecast) != len(actual) or not actual:
        raise ValueError(f"forecast has {len(forecast)} steps, the future {len(actual)}")
    spread = max(actual) - min(actual)
    if spread <= 0:
        return None
    return sum(abs(f - a) for f, a in zip(forecast, actual, strict=True)) / len(actual) / spread


@dataclass(frozen=True)
class Scored:
    """A window with its reference forecast and rMAE (``None`` when the future is flat)."""

    window: Window
    reference: tuple[float, ...]
    rmae: float | None

    @property
    def hard(self) -> bool:
        return self.rmae is not None and self.rmae >= HARD_THRESHOLD


def score(window: Window, reference: Forecaster) -> Scored:
    """Forecast the window's future from its history with the reference and compute the rMAE."""
    path = tuple(reference.forecast(window.history, window.horizon))
    return Scored(window, path, rmae(path, window.future))


def hard_windows(windows: Sequence[Window], reference: Forecaster) -> list[Scored]:
    """The windows the reference misses by at least 10 % of the future's range, in input order."""
    return [s for s in (score(w, reference) for w in windows) if s.hard]
