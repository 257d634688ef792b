"""Council statistics beyond the consensus: effective voices, shared errors, seats, sides (§6).

Only council seats enter here (the callers pass :func:`league.scoring.frame.council_rows`). The
effective-voices family is computed from one (run, market, seat) cube per horizon, so the main
figure and every companion come from the same answers.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import SupportsFloat

import numpy as np
import numpy.typing as npt
import pandas as pd

from league.extras import extra
from league.jsonvalue import Json, JsonObject, number, obj, text
from league.scoring import similarity as simmod
from league.scoring.baselines import clim_per_row
from league.scoring.climatology import seal, sha256_ok
from league.scoring.consensus import DEFAULT_RULES, Rules, consensus, dedupe
from league.scoring.constants import ALL_WRONG_MIN, BOOTSTRAP_SEED, GROUP_DUPLICATES, SHADOW_FLOOR
from league.scoring.errors import ScoringError

MAX_SPLITS = 5000


def _cube(rows: pd.DataFrame, value: str) -> tuple[np.ndarray, list[str], list[str], list[str]]:
    """(runs, markets, seats) array of ``value`` with NaN where a seat did not answer."""
    r_idx, runs = pd.factorize(rows["unit"], sort=True)
    a_idx, assets = pd.factorize(rows["asset"], sort=True)
    s_idx, seats = pd.factorize(rows["seat"], sort=True)
    cube = np.full((runs.size, assets.size, seats.size), np.nan)
    cube[r_idx, a_idx, s_idx] = rows[value].to_numpy(dtype=float)
    return cube, [str(x) for x in runs], [str(x) for x in assets], [str(x) for x in seats]


#: The pairwise arrays are (runs, seats, seats) and :func:`league.scoring.similarity.pairwise` keeps about ten alive:
#: at 100 seats 80 kB a run each, 100 MB at five years. They are built a block of runs at a time, each
#: array near 32 MB however long the season. Every run's similarities are computed on its own and the sums over
#: runs are taken in the same order, so the blocks change no figure by a bit.
BLOCK_CELLS = 4_000_000


def _blocks(cube: np.ndarray) -> list[slice]:
    """Consecutive slices of the cube's runs, each about :data:`BLOCK_CELLS` (seat, seat) cells."""
    step = max(1, BLOCK_CELLS // max(1, cube.shape[2] ** 2))
    return [slice(i, i + step) for i in range(0, cube.shape[0], step)]


def _per_run(cube: np.ndarray, centred: bool = True,
             spectrum: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per run: the mean pairwise similarity, and (``spectrum``) the participation ratio and top-eigen share."""
    present = ~np.isnan(cube).all(axis=1)
    rho, pr, top = [], [], []
    for block in _blocks(cube):
        sim, _ = simmod.pairwise(cube[block], centred=centred)
        rho.append(simmod.off_diagonal_mean(sim))
        if spectrum:
            pr_b, top_b = simmod.spectrum(sim, present[block])
            pr.append(pr_b)
            top.append(top_b)
    return _joined(rho), _joined(pr), _joined(top)


def _joined(parts: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(parts) if parts else np.empty(0)


def _rho_neff(cube: np.ndarray, centred: bool = True) -> tuple[np.ndarray, np.ndarray]:
    rho = _per_run(cube, centred)[0]
    return rho, simmod.n_eff_from(simmod.seats_present(cube), rho)


def error_indicator(p: pd.Series, outcome: pd.Series) -> pd.Series:
    """1 wrong, 0 right, NaN for a stated 50 or an unresolved event (a 50 is neither)."""
    wrong = ((p > 50) & (outcome == 0)) | ((p < 50) & (outcome == 1))
    defined = (p != 50) & outcome.notna()
    return wrong.astype(float).where(defined)


def n_eff_table(rows: pd.DataFrame, clim: Mapping[tuple[str, str], float] | None = None) -> list[JsonObject]:
    """Per run and horizon: n, rho, N_eff and every companion of scoring.md §6."""
    rows = dedupe(rows).copy(deep=False)  # new columns only: no column is copied (copy-on-write)
    rows["dev50"] = rows["p"] - 50.0
    rows["err"] = error_indicator(rows["p"], rows["outcome"])
    if clim is not None:
        rows["devclim"] = rows["p"] - clim_per_row(rows, clim, 50.0)
    out: list[JsonObject] = []
    for horizon, sub in rows.groupby("horizon", sort=True):
        out.extend(_n_eff_horizon(sub, str(horizon), clim is not None))
    return sorted(out, key=lambda d: (text(d["session"]), text(d["unit"]), text(d["horizon"])))


def _n_eff_horizon(sub: pd.DataFrame, horizon: str, with_clim: bool) -> list[JsonObject]:
    cube, runs, assets, _ = _cube(sub, "p")
    rho, pr, top = _per_run(cube, spectrum=True)
    neff = simmod.n_eff_from(simmod.seats_present(cube), rho)
    keep = [i for i, a in enumerate(assets) if a not in GROUP_DUPLICATES]
    rho_g, neff_g = _rho_neff(cube[:, keep, :])
    rho_u, neff_u = _rho_neff(_cube(sub, "dev50")[0], centred=False)
    rho_e, neff_e = _rho_neff(_cube(sub, "err")[0])
    cols = {"rho_one_per_group": rho_g, "n_eff_one_per_group": neff_g, "rho_uncentred": rho_u,
            "n_eff_uncentred": neff_u, "participation_ratio": pr, "top_eigen_share": top,
            "rho_errors": rho_e, "n_eff_errors": neff_e}
    if with_clim:
        cols["rho_clim_dev"], cols["n_eff_clim_dev"] = _rho_neff(_cube(sub, "devclim")[0], centred=False)
    sessions = sub.groupby("unit")["session"].first()
    run_ids = sub.groupby("unit")["run_id"].agg(lambda x: sorted(set(x)))
    n = simmod.seats_present(cube)
    n_markets = (~np.isnan(cube)).any(axis=2).sum(axis=1)
    return [
        {"unit": run, "run_id": run_ids[run][0], "run_ids": run_ids[run], "session": str(sessions[run]),
         "horizon": horizon, "n": int(n[i]),
         "n_markets": int(n_markets[i]), "rho": _f(rho[i]), "n_eff": _f(neff[i]),
         **{k: _f(v[i]) for k, v in cols.items()}}
        for i, run in enumerate(runs)
    ]


def _f(x: SupportsFloat) -> float | None:
    """JSON-safe float: NaN and infinities become null."""
    v = float(x)
    return v if np.isfinite(v) else None


def shared_errors(rows: pd.DataFrame, cons: pd.DataFrame) -> JsonObject:
    """``all_wrong`` and ``minority_right`` per horizon, with the count expected under independence.

    Paper §5.3: a stated 50 is neither right nor wrong, so that seat does not count as answering the
    row; ``all_wrong`` needs >= 4 answering seats, every one wrong. The count expected if the seats
    erred independently (F6) sums, over the same rows, the product of the answering seats' own error
    rates, each rate taken on those rows.
    """
    r = dedupe(rows)
    r = r.loc[r["outcome"].notna()]  # a new frame: the columns added below never reach ``rows``
    err = error_indicator(r["p"], r["outcome"])
    r["answering"] = err.notna()
    r["wrong"] = err == 1.0
    r["right"] = err == 0.0
    g = r.groupby(["unit", "event_key"]).agg(n=("answering", "sum"), wrong=("wrong", "sum"),
                                             right=("right", "sum"))
    c = cons.set_index(["unit", "event_key"])
    g = g.join(c[["p", "outcome", "horizon", "asset", "session"]])
    cons_wrong = error_indicator(g["p"], g["outcome"]) == 1.0
    g["all_wrong"] = (g["n"] >= ALL_WRONG_MIN) & (g["wrong"] == g["n"])
    g["minority_right"] = cons_wrong & (g["right"] >= 1)
    g["expected"] = _expected_all_wrong(r, g)
    per_h = g.groupby("horizon").agg(events=("n", "size"), eligible=("n", lambda x: int((x >= ALL_WRONG_MIN).sum())),
                                     all_wrong=("all_wrong", "sum"), minority_right=("minority_right", "sum"),
                                     all_wrong_expected=("expected", "sum"))
    listed = g.loc[g["all_wrong"]].reset_index()[["session", "asset", "horizon", "n"]]
    return {
        "min_answering": ALL_WRONG_MIN,
        "per_horizon": [{"horizon": str(h), **{k: (float(v) if k == "all_wrong_expected" else int(v))
                                               for k, v in row.items()}} for h, row in per_h.iterrows()],
        "all_wrong_events": listed.astype({"n": int}).to_dict("records"),
    }


def _expected_all_wrong(r: pd.DataFrame, g: pd.DataFrame) -> pd.Series:
    """Per event with >= 4 answering seats: the product of those seats' error rates, each rate over
    the eligible rows of the same horizon where the seat answered (0 for the other events)."""
    key = pd.MultiIndex.from_arrays([r["unit"], r["event_key"]])
    eligible = (g["n"] >= ALL_WRONG_MIN).reindex(key).to_numpy(dtype=bool)
    ans = r.loc[eligible & r["answering"].to_numpy(dtype=bool)].copy()
    if ans.empty:
        return pd.Series(0.0, index=g.index)
    rate = ans.groupby(["horizon", "seat"])["wrong"].mean()
    ans["rate"] = rate.reindex(pd.MultiIndex.from_arrays([ans["horizon"], ans["seat"]])).to_numpy(dtype=float)
    prod = ans.groupby(["unit", "event_key"])["rate"].prod()
    return prod.reindex(g.index).fillna(0.0)


def distinctiveness(rows: pd.DataFrame) -> list[JsonObject]:
    """Per seat and horizon: mean correlation with the others; share agreeing with the others' majority."""
    r = dedupe(rows)
    out: list[JsonObject] = []
    for horizon, sub in r.groupby("horizon", sort=True):
        cube, _, _, seats = _cube(sub, "p")
        mean_corr = _mean_with_others(cube)
        agree = _majority_agreement(sub)
        for i, seat in enumerate(seats):
            a = agree.get(seat, (0, 0))
            out.append({"seat": seat, "horizon": str(horizon), "mean_corr_with_others": _f(mean_corr[i]),
                        "direction_cells": a[1], "agree_with_majority": _f(a[0] / a[1]) if a[1] else None})
    return out


def _majority_agreement(sub: pd.DataFrame) -> dict[str, tuple[int, int]]:
    """seat -> (cells agreeing with the others' majority, directional cells with a majority)."""
    d = np.sign(sub["p"] - 50.0)
    key = [sub["unit"], sub["event_key"]]
    ups = (d > 0).groupby(key).transform("sum") - (d > 0)
    downs = (d < 0).groupby(key).transform("sum") - (d < 0)
    majority = np.sign(ups - downs)
    valid = (d != 0) & (majority != 0)
    agree = (d == majority) & valid
    tab = pd.DataFrame({"seat": sub["seat"], "agree": agree, "valid": valid}).groupby("seat").sum()
    return {str(s): (int(row["agree"]), int(row["valid"])) for s, row in tab.iterrows()}


def _cons_brier(cons: pd.DataFrame) -> pd.Series:
    return ((cons["p"] / 100.0 - cons["outcome"]) ** 2).rename("brier")


def seat_value(rows: pd.DataFrame, families: Mapping[str, str] | None, cons: pd.DataFrame,
               rules: Rules = DEFAULT_RULES) -> list[JsonObject]:
    """Consensus Brier with and without each seat on the resolved events that seat answered."""
    r = dedupe(rows)
    base = cons.assign(b=_cons_brier(cons)).set_index(["unit", "event_key"])
    out: list[JsonObject] = []
    for seat in sorted(r["seat"].unique()):
        mine = r.loc[r["seat"] == seat].set_index(["unit", "event_key"]).index
        without = consensus(r.loc[r["seat"] != seat], families, rules)
        without = without.assign(b=_cons_brier(without)).set_index(["unit", "event_key"])
        common = mine.intersection(without.index).intersection(base.index)
        w, b = base.loc[common], without.loc[common]
        ok = w["outcome"].notna()
        bw, bo = float(w.loc[ok, "b"].mean()), float(b.loc[ok, "b"].mean())
        out.append({"seat": seat, "events": int(ok.sum()), "brier_with": _f(bw), "brier_without": _f(bo),
                    "value": _f(bo - bw)})
    return out


def window_sessions(rows: pd.DataFrame, first: int, last: int | None = None) -> list[str]:
    """The season's sessions numbered from 1 in date order; those numbered ``first..last`` (inclusive)."""
    sessions = sorted(rows["session"].unique())
    return [str(x) for x in sessions[first - 1:last]]


def shadow_weights(rows: pd.DataFrame, window: list[str]) -> JsonObject:
    """The shadow consensus's seat weights (paper §5.3), frozen on ``window`` and sealed by SHA-256.

    Each seat weighs ``1 / max(r_s, 0.05)``, ``r_s`` its mean pairwise correlation with the other seats
    on the one-day probabilities of the window's counted runs (the callers pass council rows: counted,
    sealed before the reference). A seat with no eligible answer there, or no defined correlation,
    takes the median of the other seats' weights when the weights are applied.
    """
    r = dedupe(rows)
    win = r.loc[r["session"].isin(window) & (r["horizon"] == "1d")]
    corr = _pooled_mean_corr(win) if not win.empty else {}
    weights = {seat: 1.0 / max(c, SHADOW_FLOOR) for seat, c in corr.items() if np.isfinite(c)}
    mean_corr: JsonObject = {k: _f(v) for k, v in sorted(corr.items())}
    sorted_weights: JsonObject = dict(sorted(weights.items()))
    body: JsonObject = {"kind": "shadow_weights", "floor": SHADOW_FLOOR, "horizon": "1d",
                        "window": {"first": window[0] if window else None, "last": window[-1] if window else None,
                                   "sessions": len(window)},
                        "mean_corr": mean_corr,
                        "weights": sorted_weights,
                        "missing_seat_rule": "median of the frozen weights"}
    return seal(body)


def check_shadow_weights(obj: Mapping[str, Json]) -> Mapping[str, Json]:
    """Frozen weights are used only if their seal still matches their content."""
    if not sha256_ok(obj) or obj.get("kind") != "shadow_weights":
        raise ScoringError("shadow weights do not match their sha256 (or are not shadow weights)",
                           fix="use the sealed weights published before the window they are applied to")
    return obj


def applied_weights(weights: Mapping[str, float], seats: list[str]) -> dict[str, float]:
    """Every answering seat's weight: its frozen one, else the median of the frozen weights."""
    frozen = [float(v) for v in weights.values()]
    median = float(np.median(frozen)) if frozen else 1.0
    return {s: float(weights.get(s, median)) for s in seats}


def _pooled_mean_corr(rows: pd.DataFrame) -> dict[str, float]:
    """Each seat's mean pairwise correlation with the others, over every run of ``rows``."""
    cube, _, _, seats = _cube(rows, "p")
    per = _mean_with_others(cube)
    return {seat: float(per[i]) for i, seat in enumerate(seats)}


def _mean_with_others(cube: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Per seat: mean of its finite correlations with the other seats over all runs of the cube.

    The similarities come a block of runs at a time (:func:`_blocks`); the totals go on adding row after row,
    block after block, the order of one sum over every run (numpy sums down an axis row by row)."""
    s = cube.shape[2]
    off = np.eye(s, dtype=bool)[None]
    count, total = np.zeros(s, dtype=np.int64), None
    for block in _blocks(cube):
        vals = np.where(off, np.nan, simmod.pairwise(cube[block])[0]).reshape(-1, s)
        finite = np.isfinite(vals)
        count += finite.sum(axis=0)
        rows = np.where(finite, vals, 0.0)
        total = rows.sum(axis=0) if total is None else np.concatenate([total[None], rows]).sum(axis=0)
    if total is None:
        total = np.zeros(s)
    return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def shadow_consensus(rows: pd.DataFrame, cons: pd.DataFrame, weights: Mapping[str, Json],
                     families: Mapping[str, str] | None = None, rules: Rules = DEFAULT_RULES,
                     sessions: list[str] | None = None, seed: int = BOOTSTRAP_SEED) -> dict[str, object]:
    """Score the frozen-weight consensus beside the published one (paper §5.3, §8 second question).

    On the one-day events of ``sessions`` (default: every session after the frozen window) the
    shadow uses the published consensus's trim, family weights and clamp with each member's weight
    multiplied by its seat weight. The paired per-session Brier difference (published minus shadow,
    positive = the shadow loses less) gets the primary endpoint's moving-block bootstrap and is read
    against the same +-0.01 margin (JSON once cleaned: the gain is a typed record).
    """
    last = obj(weights["window"]).get("last")
    day = rows.loc[rows["horizon"] == "1d"]
    chosen = day.loc[day["session"].isin(sessions)] if sessions is not None else (
        day.loc[day["session"] > last] if last else day)
    frozen = {seat: float(w) for seat, v in obj(weights["weights"]).items() if (w := number(v)) is not None}
    seat_w = applied_weights(frozen, sorted(chosen["seat"].unique()))
    shadow = consensus(chosen, families, rules, seat_w).set_index(["unit", "event_key"])
    pub = cons.set_index(["unit", "event_key"])
    common = shadow.index.intersection(pub.index)
    o = pub.loc[common, "outcome"]
    ok = o.notna()
    b_shadow = ((shadow.loc[common, "p"] / 100 - o) ** 2)[ok]
    b_pub = ((pub.loc[common, "p"] / 100 - o) ** 2)[ok]
    diff = (b_pub - b_shadow).groupby(pub.loc[common, "session"][ok], sort=True).mean()
    with extra("stats"):  # scipy.stats, statsmodels, arch: not for the season's shadow weights
        from league.scoring import intervals
    gain = intervals.paired_gain(diff.to_numpy(dtype=float), 1, seed=seed)
    return {"weights_sha256": weights["sha256"], "events": int(ok.sum()), "sessions": len(diff),
            "first_session": str(diff.index[0]) if len(diff) else None,
            "last_session": str(diff.index[-1]) if len(diff) else None,
            "brier_shadow": _f(b_shadow.mean()) if ok.any() else None,
            "brier_published": _f(b_pub.mean()) if ok.any() else None,
            "difference": {**gain, "definition": "per session mean of Brier(published) - Brier(shadow)"},
            "note": "scored beside the published consensus, never replacing it"}


def sides(rows: pd.DataFrame, side_of: Mapping[str, str] | None) -> list[JsonObject]:
    """Within/between-side correlation and a permutation test of the largest per-cell gap, per horizon."""
    if not side_of or len(set(side_of.values())) != 2:
        return []
    r = dedupe(rows)
    r = r.loc[r["seat"].isin(side_of)]
    return [_sides_horizon(sub, str(h), side_of) for h, sub in r.groupby("horizon", sort=True)]


def _sides_horizon(sub: pd.DataFrame, horizon: str, side_of: Mapping[str, str]) -> JsonObject:
    cube, _, _, seats = _cube(sub, "p")
    sim, _ = simmod.pairwise(cube)
    labels = sorted(set(side_of.values()))
    in_a = np.array([side_of[s] == labels[0] for s in seats])
    same = in_a[:, None] == in_a[None, :]
    off = ~np.eye(len(seats), dtype=bool)
    within, between = _nanmean(sim[:, same & off]), _nanmean(sim[:, ~same])
    y = sub.pivot_table(index=["unit", "event_key"], columns="seat", values="p", aggfunc="first")[seats]
    y_arr = y.to_numpy(dtype=float)
    gaps = _gaps(y_arr, in_a[None, :])[:, 0]
    t_obs = float(np.nanmax(np.abs(gaps))) if np.isfinite(gaps).any() else float("nan")
    t_null = _split_stats(y_arr, int(in_a.sum()))
    cell = int(np.nanargmax(np.abs(gaps))) if np.isfinite(gaps).any() else -1
    return {"horizon": horizon, "sides": {lab: [s for s, a in zip(seats, in_a, strict=True)
                                                if (a if lab == labels[0] else not a)] for lab in labels},
            "mean_corr_within": _f(within), "mean_corr_between": _f(between),
            "largest_gap": _f(gaps[cell]) if cell >= 0 else None,
            "largest_gap_cell": _cell_name(y.index[cell], sub) if cell >= 0 else None,
            "splits": int(t_null.size), "p_value": _f(np.mean(t_null >= t_obs - 1e-12)) if t_null.size else None,
            "gap_owner": _gap_owner(y_arr[cell], in_a, seats) if cell >= 0 else None}


def _nanmean(values: npt.NDArray[np.float64]) -> float:
    """Mean of the finite values; NaN (no warning) when there are none."""
    finite = values[np.isfinite(values)]
    return float(finite.mean()) if finite.size else float("nan")


def _cell_name(key: tuple[str, str], sub: pd.DataFrame) -> JsonObject:
    row = sub.loc[(sub["unit"] == key[0]) & (sub["event_key"] == key[1])].iloc[0]
    return {"run_id": str(row["run_id"]), "asset": str(row["asset"]), "session": str(row["session"])}


def _gaps(y: npt.NDArray[np.float64], member: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
    """(cells, splits) mean of side A minus side B for each membership row of ``member``."""
    mask = (~np.isnan(y)).astype(float)
    y0 = np.nan_to_num(y)
    a = member.astype(float).T
    b = (~member).astype(float).T
    with np.errstate(invalid="ignore", divide="ignore"):  # in place: the same operations, fewer (cells, splits) arrays
        gap = y0 @ a
        gap /= mask @ a
        other = y0 @ b
        other /= mask @ b
        gap -= other
    return np.asarray(gap, dtype=float)


def _split_stats(y: npt.NDArray[np.float64], size_a: int) -> npt.NDArray[np.float64]:
    """Largest |gap| for every equal-size split (or a fixed-seed sample of MAX_SPLITS of them)."""
    s = y.shape[1]
    combos = list(itertools.islice(itertools.combinations(range(s), size_a), MAX_SPLITS + 1))
    if len(combos) > MAX_SPLITS:
        rng = np.random.default_rng(BOOTSTRAP_SEED)
        combos = [tuple(sorted(rng.choice(s, size_a, replace=False))) for _ in range(MAX_SPLITS)]
    member = np.zeros((len(combos), s), dtype=bool)
    for i, c in enumerate(combos):
        member[i, list(c)] = True
    out = []
    for chunk in np.array_split(member, max(1, len(combos) // 500)):
        g = _gaps(y, chunk)
        g[~np.isfinite(g)] = np.nan  # in place, as np.where(np.isfinite(g), g, nan) then np.abs would do anew
        out.append(np.nanmax(np.abs(g, out=g), axis=0))
    return np.concatenate(out) if out else np.array([])


def _gap_owner(cell: npt.NDArray[np.float64], in_a: npt.NDArray[np.bool_], seats: list[str]) -> str | None:
    """The seat whose removal flips the sign of the largest gap (then the gap is that seat's, not the side's)."""
    full = _gaps(cell[None, :], in_a[None, :])[0, 0]
    for i, seat in enumerate(seats):
        if np.isnan(cell[i]):
            continue
        keep = np.arange(len(seats)) != i
        g = _gaps(cell[None, keep], in_a[None, keep])[0, 0]
        if np.isfinite(g) and np.sign(g) != np.sign(full):
            return seat
    return None


def run_horizon_table(rows: pd.DataFrame, n_eff_rows: list[JsonObject]) -> list[JsonObject]:
    """Paper §5.2 (table 7): per counted run and horizon, beside its N_eff and mean correlation, the
    sharpness ``K = (2/n) sum |p - 50|`` over every seat's cells, the share of probabilities in
    [40, 60] and the spread across seats (population SD of the seats' probabilities per market,
    averaged over markets with at least two seats). Cells with their own reference are not here:
    the callers pass the common-event council rows."""
    r = dedupe(rows)
    ne = {(text(d["unit"]), text(d["horizon"])): d for d in n_eff_rows}
    out: list[JsonObject] = []
    for (unit, horizon), g in r.groupby(["unit", "horizon"], sort=True):
        p = g["p"].to_numpy(dtype=float)
        sd = _event_spreads(g["event_key"].to_numpy(dtype=object), p)
        rec: JsonObject = ne.get((unit, horizon), {})
        out.append({"session": str(g["session"].iloc[0]), "run_id": rec.get("run_id", str(g["run_id"].iloc[0])),
                    "horizon": str(horizon), "n": int(g["seat"].nunique()), "cells": int(p.size),
                    "rho": rec.get("rho"), "n_eff": rec.get("n_eff"),
                    "K": float(2.0 * np.abs(p - 50.0).mean()),
                    "share_40_60": float(((p >= 40.0) & (p <= 60.0)).mean()),
                    "spread": _f(_nanmean(sd))})
    return out


def _event_spreads(events: npt.NDArray[np.object_], p: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Per event in sorted event order: the population SD of its probabilities, NaN for a lone answer.

    What ``groupby("event_key")["p"].agg(np.std)`` gave (without a pandas group-by per run and
    horizon): a stable sort keeps each event's probabilities in row order, so ``np.std`` sums the same
    values in the same order, and the events come in the group-by's sorted order."""
    if not events.size:
        return np.array([], dtype=float)
    order = np.argsort(events, kind="stable")
    keys = events[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    ends = np.r_[starts[1:], keys.size]
    return np.array([float(np.std(p[order[a:b]])) if b - a > 1 else np.nan for a, b in zip(starts, ends, strict=True)],
                    dtype=float)
