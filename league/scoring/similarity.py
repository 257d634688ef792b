"""Masked pairwise similarity of seats across markets, for many runs at once.

N_eff needs, for every run and horizon, the mean Pearson correlation between every pair of seats
over the markets both answered. Doing that with one small correlation matrix per run is slow in a
long season; here the sums are built with ``einsum`` over a (run, market, seat) cube with missing
answers masked, so a whole season's matrices come out of a few array operations.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Cube = npt.NDArray[np.float64]
MIN_COMMON = 3  # markets both seats answered before a pairwise correlation means anything


def pairwise(cube: Cube, *, centred: bool = True) -> tuple[Cube, npt.NDArray[np.float64]]:
    """(runs, seats, seats) similarity and common-market counts from a (runs, markets, seats) cube.

    ``centred`` gives Pearson correlation on the markets both answered; otherwise the uncentred
    cosine of the values (deviations from a fixed centre such as 50). Pairs with fewer than
    ``MIN_COMMON`` common markets or no variation are NaN.
    """
    mask = (~np.isnan(cube)).astype(float)
    x = np.nan_to_num(cube)
    n = np.einsum("ras,rat->rst", mask, mask)
    sxy = np.einsum("ras,rat->rst", x, x)
    sxx = np.einsum("ras,rat->rst", x * x, mask)
    if centred:
        sx = np.einsum("ras,rat->rst", x, mask)
        with np.errstate(invalid="ignore", divide="ignore"):
            cov = sxy - sx * np.swapaxes(sx, 1, 2) / n
            vx = sxx - sx**2 / n
            sim = cov / np.sqrt(vx * np.swapaxes(vx, 1, 2))
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            sim = sxy / np.sqrt(sxx * np.swapaxes(sxx, 1, 2))
    sim = np.where((n >= MIN_COMMON) & np.isfinite(sim), np.clip(sim, -1.0, 1.0), np.nan)
    return sim, n


def off_diagonal_mean(sim: Cube) -> npt.NDArray[np.float64]:
    """Per run: mean over distinct seat pairs of the finite similarities (NaN when none)."""
    s = sim.shape[1]
    upper = np.triu(np.ones((s, s), dtype=bool), k=1)
    vals = np.where(upper[None, :, :], sim, np.nan)
    count = np.isfinite(vals).sum(axis=(1, 2))
    total = np.nansum(vals, axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / count, np.nan)


def seats_present(cube: Cube) -> npt.NDArray[np.int64]:
    """Per run: number of seats with at least one answer."""
    return np.asarray((~np.isnan(cube)).any(axis=1).sum(axis=1), dtype=np.int64)


def n_eff_from(n: npt.NDArray[np.int64], rho: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """``n / (1 + (n-1) rho)`` elementwise; a lone seat is one voice, an undefined rho gives NaN."""
    with np.errstate(invalid="ignore", divide="ignore"):
        out = n / (1.0 + (n - 1) * rho)
    return np.where(n == 1, 1.0, out)


def spectrum(sim: Cube, present: npt.NDArray[np.bool_]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Participation ratio ``(sum l)^2 / sum l^2`` and top-eigenvalue share of the trace, per run.

    The similarity matrix has 1 on the diagonal for answering seats, 0 for absent seats (so they add
    no eigenvalue) and 0 where a pair has no defined similarity.
    """
    mat = np.nan_to_num(sim)
    s = sim.shape[1]
    eye = np.eye(s, dtype=bool)[None, :, :]
    both = present[:, :, None] & present[:, None, :]
    mat = np.where(eye, present[:, :, None].astype(float), np.where(both, mat, 0.0))
    eig = np.linalg.eigvalsh(mat)
    trace = eig.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        pr = trace**2 / (eig**2).sum(axis=1)
        top = eig.max(axis=1) / trace
    return pr, top
