"""The `_ets` seat's fits give the same floats in the fit worker's fresh interpreter as in this process, twice
(the series and the byte digest of tests/unit/evals/test_evals_ets_public.py). The test starts the worker."""

from __future__ import annotations

from test_evals_ets_public import SERIES, STEPS, bits

from league_agents import ets_fit


def test_the_same_closes_give_the_same_bytes_twice_and_in_the_worker() -> None:
    keys = [(tuple(SERIES[name]), STEPS) for name in ("walk252", "trend4", "tiny-level", "nan", "near-alpha-one")]
    first = [bits(ets_fit.forecast_path(key)) for key in keys]
    second = [bits(ets_fit.forecast_path(key)) for key in keys]
    worker = ets_fit.FitWorker()  # a fresh interpreter
    try:
        there = [bits(worker.take(key).result(timeout=120)) for key in keys]
    finally:
        worker.close()
    assert first == second == there
    assert first[3] is None and all(b is not None for i, b in enumerate(first) if i != 3)
