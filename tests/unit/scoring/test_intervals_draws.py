"""The bootstrap draws stored as int32: the same values as ``arch``'s
MovingBlockBootstrap and the int64 stream, bit for bit, and released after the statistics."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from arch.bootstrap import MovingBlockBootstrap

from league.scoring import climatology as climmod
from league.scoring import intervals
from league.scoring.publish import build_all
from league.scoring.synthetic import synthetic_season


def _arch_blocks(n: int, block: int, reps: int, seed: int) -> np.ndarray:
    bs = MovingBlockBootstrap(block, np.zeros(n), seed=np.random.default_rng(seed))
    return np.stack([bs.update_indices() for _ in range(reps)])


@pytest.mark.parametrize(("n", "block", "reps", "seed"), [
    (6, 5, 200, 1), (10, 5, 300, 20261102), (11, 5, 300, 3), (252, 5, 500, 20261102), (231, 21, 200, 7),
    (127, 126, 100, 5), (1000, 126, 50, 9),
])
def test_block_draws_are_those_of_arch(n: int, block: int, reps: int, seed: int) -> None:
    intervals.forget_draws()
    drawn = intervals.block_indices(n, block, reps, seed)
    assert drawn.dtype == np.int32 and not drawn.flags.writeable
    np.testing.assert_array_equal(drawn, _arch_blocks(n, block, reps, seed))


def test_iid_draws_are_the_int64_stream_stored_as_int32() -> None:
    intervals.forget_draws()
    drawn = intervals.iid_indices(57, 400, 11)
    assert drawn.dtype == np.int32
    np.testing.assert_array_equal(drawn, np.random.default_rng(11).integers(0, 57, size=(400, 57), dtype=np.int64))


def test_the_draws_are_released_after_the_statistics() -> None:
    from league.scoring.frame import load_forecasts

    df = load_forecasts(synthetic_season(30, seed=3))
    build_all(df, climmod.default_table(pd.Timestamp(str(df["session"].min())).date()))
    assert intervals.block_indices.cache_info().currsize == 0
    assert intervals.iid_indices.cache_info().currsize == 0
