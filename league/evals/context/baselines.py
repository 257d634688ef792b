"""The contextual track's history-only baselines, run as seats of the track (they are not asked: they answer).

Each sees the window's history only (arm ``history``), with the window's season length m:

- ``_naive``: the seasonal naive path (league.evals.context.hard.SeasonalNaive) — it scores exactly 1.0;
- ``_ets``: statsmodels' ``ExponentialSmoothing``, additive damped trend and additive season of length m
  (league.evals.context.hard.HoltWinters) — the same model as the hard-window reference, so its path is the
  sealed reference path, and it is the editing mode's base forecast;
- ``_theta``: statsmodels' ``ThetaModel`` (Assimakopoulos and Nikolopoulos' Theta method as statsmodels
  implements it: SES with drift, multiplicative deseasonalisation of period m when m ≥ 2 and the history is
  positive, else none), fitted on the history.

A baseline name starts with ``_`` as the league's history-only seats do (docs/seats.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from league.evals.context.hard import Forecaster, HoltWinters, SeasonalNaive
from league.extras import extra


@dataclass(frozen=True)
class Theta:
    """statsmodels' ThetaModel with period m (deseasonalised when m ≥ 2, the history positive and ≥ 2 seasons)."""

    m: int = 1

    def _deseasonalize(self, history: Sequence[float]) -> bool:
        return self.m >= 2 and len(history) >= 2 * self.m and min(history) > 0

    @property
    def name(self) -> str:
        return f"statsmodels-theta(period={self.m})"

    def forecast(self, history: Sequence[float], h: int) -> list[float]:
        with extra("stats"):  # imported here so the seasonal naive needs nothing else
            import numpy as np
            from statsmodels.tsa.forecasting.theta import ThetaModel

        y = np.asarray(history, dtype=float)
        deseason = self._deseasonalize(history)
        model = ThetaModel(y, period=self.m if deseason else 1, deseasonalize=deseason)
        return [float(v) for v in model.fit().forecast(h)]


BASELINES: Final[dict[str, Callable[[int], Forecaster]]] = {
    "_naive": SeasonalNaive, "_ets": HoltWinters, "_theta": Theta}


def is_baseline(name: str) -> bool:
    return name in BASELINES


def baseline(name: str, m: int) -> Forecaster:
    """The named baseline with season length ``m``."""
    return BASELINES[name](m)
