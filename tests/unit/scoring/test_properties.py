"""Properties: propriety of Brier, the averaging identity, no interval before its minimum."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from league.scoring.brier import brier, murphy
from league.scoring.consensus import averaging_terms, member_weights
from league.scoring.intervals import paired_gain, score_interval

probs = st.floats(min_value=0.0, max_value=100.0, allow_nan=False)


@given(true_pct=probs, stated_pct=probs)
def test_expected_brier_is_minimised_by_the_true_probability(true_pct: float, stated_pct: float) -> None:
    q = true_pct / 100.0

    def expected(p: float) -> float:
        return float(q * brier([p], [1.0])[0] + (1 - q) * brier([p], [0.0])[0])

    assert expected(true_pct) <= expected(stated_pct) + 1e-15


@given(
    ps=st.lists(probs, min_size=1, max_size=12),
    ws=st.lists(st.floats(min_value=0.01, max_value=5.0), min_size=12, max_size=12),
    outcome=st.sampled_from([0.0, 1.0]),
)
def test_averaging_identity_holds_to_1e_12(ps: list[float], ws: list[float], outcome: float) -> None:
    lhs, weighted, dispersion = averaging_terms(np.array(ps), np.array(ws[: len(ps)]), outcome)
    assert abs(lhs - (weighted - dispersion)) <= 1e-12
    assert dispersion >= -1e-15


@settings(max_examples=30, deadline=None)
@given(ps=st.lists(st.integers(0, 100), min_size=1, max_size=9), outcome=st.sampled_from([0.0, 1.0]))
def test_identity_holds_for_the_consensus_members_and_weights(ps: list[int], outcome: float) -> None:
    seats = [f"s{i}" for i in range(len(ps))]
    rows = pd.DataFrame({"run_id": "r", "event_key": "e", "seat": seats, "p": np.array(ps, dtype=float),
                         "sealed_at": pd.Timestamp("2026-01-05T13:00:00Z")})
    m = member_weights(rows, {s: "lab" if i % 2 else s for i, s in enumerate(seats)})
    lhs, weighted, dispersion = averaging_terms(m["p"].to_numpy(), m["w"].to_numpy(), outcome)
    assert abs(lhs - (weighted - dispersion)) <= 1e-12


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 140), h=st.sampled_from([1, 5, 21, 126]))
def test_no_interval_before_its_minimum_sessions(n: int, h: int) -> None:
    rng = np.random.default_rng(n)
    sums, counts = rng.uniform(1, 4, n), np.full(n, 12.0)
    box = score_interval(sums, counts, h)
    if n < 5 * h:
        assert box["method"] is None and box["lo"] is None
    else:
        assert box["method"] is not None and box["lo"] <= sums.sum() / counts.sum() <= box["hi"]
    gain = paired_gain(rng.normal(0, 0.02, n), h)
    if n < max(20, 5 * h):
        assert gain["interval"]["method"] is None and gain["finding"] is None


@given(st.lists(st.tuples(st.integers(0, 100), st.sampled_from([0.0, 1.0])), min_size=1, max_size=60))
def test_murphy_decomposition_adds_up_to_brier(pairs: list[tuple[int, float]]) -> None:
    p = np.array([x[0] for x in pairs], dtype=float)
    o = np.array([x[1] for x in pairs])
    m = murphy(p, o)
    assert m["reliability"] - m["resolution"] + m["uncertainty"] == np_approx(brier(p, o).mean())


def np_approx(x: float) -> object:
    import pytest

    return pytest.approx(x, abs=1e-12)
