"""The reference procedure's pieces: CPython 3.12's compensated float sum, the shared-generator bootstrap."""

from __future__ import annotations

import functools
import math
import operator
import random

from league.contest.refstats import bootstrap_ci, brier, compensated_sum, crowd_probs, sign_test_p


def plain(xs: list[float]) -> float:
    """Left to right, as Python 3.11's sum() adds."""
    return functools.reduce(operator.add, xs, 0.0)


def test_a_tenth_ten_times_is_one_as_python_3_12_sums_it() -> None:
    """0.1 ten times: plain addition ends one ulp below 1 (0.9999999999999999); the compensation recovers 1.0."""
    tenths = [0.1] * 10
    assert plain(tenths) == 0.9999999999999999
    assert compensated_sum(tenths) == 1.0


def test_the_compensation_is_not_fsum() -> None:
    """2⁵³ + 1 + 2⁻⁶⁰: the exact sum is just above 2⁵³ + 1, halfway between two floats, so fsum rounds it up
    to 2⁵³ + 2. Neumaier's running compensation first holds 1.0 (2⁵³ + 1 rounds to 2⁵³, ties to even), then
    1.0 + 2⁻⁶⁰ rounds back to 1.0, and 2⁵³ + 1.0 rounds to 2⁵³: CPython 3.12's sum() gives 2⁵³."""
    xs = [2.0**53, 1.0, 2.0**-60]
    assert math.fsum(xs) == 2.0**53 + 2
    assert compensated_sum(xs) == 2.0**53


def test_cancellation_keeps_the_small_terms() -> None:
    """1e100 + 1 − 1e100 + 1: plain addition loses the first one (1.0); the compensation keeps it (2.0)."""
    xs = [1e100, 1.0, -1e100, 1.0]
    assert plain(xs) == 1.0
    assert compensated_sum(xs) == 2.0


def test_an_infinite_or_overflowed_sum_is_not_turned_into_nan() -> None:
    assert compensated_sum([math.inf, 1.0]) == math.inf
    assert compensated_sum([1e308, 1e308]) == math.inf
    assert compensated_sum([]) == 0.0


def test_brier_is_rounded_to_six_decimals_as_the_reference_stores_it() -> None:
    # ½((0.7 − 1)² + 0.2² + 0.1²) = ½(0.09 + 0.04 + 0.01) = 0.07
    assert brier({"A": 0.7, "B": 0.2, "C": 0.1}, "A", ["A", "B", "C"]) == 0.07
    assert brier({"Yes": 0.1234567, "No": 0.8765433}, "Yes", ["Yes", "No"]) == round(0.8765433**2, 6)


def test_the_crowd_is_clamped_then_normalised() -> None:
    """Prices 1.0 / 0.0 clamp to 0.99 / 0.01, whose sum is 1: the crowd forecasts 0.99 / 0.01."""
    assert crowd_probs(["Yes", "No"], [1.0, 0.0]) == {"Yes": 0.99, "No": 0.01}


def test_one_value_draws_nothing_from_the_shared_generator() -> None:
    """A one-forecast agent gets a zero-width interval and leaves the generator where it was, so the next
    agent's interval is drawn from the same state as if that agent were absent."""
    rng, fresh = random.Random(20261009), random.Random(20261009)
    assert bootstrap_ci([0.25], rng, 2000) == (0.25, 0.25)
    assert rng.random() == fresh.random()


def test_the_percentile_indices_are_the_references() -> None:
    """Two values 0 and 1, B = 40: the sorted means are drawn from {0, ½, 1}; the bounds are means[1] and
    means[min(39, 39)] (int(0.025·40) = 1, int(0.975·40) = 39), computed here by hand from the same draws."""
    rng, twin = random.Random(5), random.Random(5)
    draws = sorted(sum(twin.choice([0.0, 1.0]) for _ in range(2)) / 2 for _ in range(40))
    assert bootstrap_ci([0.0, 1.0], rng, 40) == (draws[1], draws[39])


def test_sign_test() -> None:
    """Three negatives, one positive, one tie: n = 4, k = 1, 2·(1 + 4)/16 = 0.625."""
    assert sign_test_p([-0.1, -0.2, -0.3, 0.4, 0.0]) == 0.625
    assert sign_test_p([0.0, 0.0]) == 1.0
