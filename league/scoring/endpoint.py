"""The registered primary endpoint (paper §8) and the comparisons that share its window.

The league's skill claim rests on one comparison: does the council's consensus forecast the day
better than the base rate? For every session ``s`` of the primary window (sessions 11 to 126 of a
methodology segment, numbered from 1 in date order) the paired gain is

    G_s = mean over the session's one-day consensus events e of [(q_e - y_e)^2 - (p_e - y_e)^2]

with ``p_e`` the published consensus (answers sealed before the event's reference only), ``y_e`` a
strict rise over all rows, draws included, and ``q_e`` the sealed climatology's ``p_up`` at ``1d``.
Each event weighs the same within its session, each session the same in the window; the estimate
is the mean of ``G_s`` with a moving-block bootstrap over sessions (block 5, 10,000 resamples, the
registered seed 20261102), read as ``confirmed`` / ``no_material_difference`` / ``inconclusive``.
The registered sensitivity repeats it on the four US indices alone, whose one-day base rate is taken
on the event's own 09:30-16:00 session (``sensitivity_exact_window``).

Sessions 1-10 are the design window: they pick "the best single seat of an earlier window" (§4.5)
and freeze the shadow consensus's weights (§5.3); no confirmatory figure reads them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from league.jsonvalue import JsonObject
from league.scoring import intervals
from league.scoring.constants import (
    BOOTSTRAP_REPS,
    BOOTSTRAP_SEED,
    EQUIV_MARGIN,
    EXACT_WINDOW_ASSETS,
    GAIN_BLOCK,
    PRIMARY_WINDOW,
)


def numbered_sessions(sessions: Sequence[str], first: int, last: int | None) -> list[str]:
    """The sessions numbered ``first..last`` (1-based, inclusive) of a date-ordered season."""
    ordered = sorted(set(sessions))
    return ordered[first - 1:last]


def session_gains(cons: pd.DataFrame, clim: Mapping[tuple[str, str], float], sessions: Sequence[str],
                  assets: Sequence[str] | None = None) -> pd.Series:
    """Per session of ``sessions``: ``G_s`` over its resolved one-day consensus events (NaN-free)."""
    day = cons.loc[(cons["horizon"] == "1d") & cons["outcome"].notna() & cons["session"].isin(sessions)]
    if assets is not None:
        day = day.loc[day["asset"].isin(assets)]
    q = pd.Series([clim.get((a, "1d"), 50.0) for a in day["asset"]], index=day.index, dtype=float) / 100.0
    y = day["outcome"].astype(float)
    g = (q - y) ** 2 - (day["p"] / 100.0 - y) ** 2
    return g.groupby(day["session"], sort=True).mean()


def paired_endpoint(gains: pd.Series, seed: int = BOOTSTRAP_SEED) -> dict[str, object]:
    """The estimate, both intervals and the registered verdict of one series of session gains (JSON once
    cleaned: the intervals are typed records)."""
    gain = intervals.paired_gain(gains.to_numpy(dtype=float), 1, seed=seed)
    verdict = intervals.primary_verdict(gain)
    i90 = gain["interval90"]
    return {"estimate": gain["mean"], "sessions": int(gain["n_sessions"]), "sd": gain["sd"],
            "interval95": gain["interval"], "interval90": gain["interval90"], "verdict": verdict,
            "smaller_than_margin": (verdict == "confirmed" and intervals.inside_margin(
                i90["lo"], i90["hi"])) if verdict and i90 else None,
            "per_session": [{"session": str(s), "G": float(v)} for s, v in gains.items()]}


def primary_endpoint(cons: pd.DataFrame, clim: Mapping[tuple[str, str], float], all_sessions: Sequence[str],
                     seed: int = BOOTSTRAP_SEED, window: tuple[int, int] = PRIMARY_WINDOW) -> dict[str, object]:
    """``council-stats.json`` ``primary_endpoint``: the consensus against climatology over the window."""
    first, last = window
    chosen = numbered_sessions(all_sessions, first, last)
    out: dict[str, object] = {
        "definition": "G_s = mean_e[(q_e - y_e)^2 - (p_e - y_e)^2], e = the session's one-day consensus events; "
                      "q = climatology_fixed p_up (1d); estimate = mean of G_s; positive = the consensus loses less",
        "window": {"first_number": first, "last_number": last, "first_session": chosen[0] if chosen else None,
                   "last_session": chosen[-1] if chosen else None, "sessions_in_window": len(chosen)},
        "bootstrap": {"method": "moving_block_bootstrap", "block": GAIN_BLOCK, "reps": BOOTSTRAP_REPS, "seed": seed,
                      "interval": "percentile"},
        "margin": EQUIV_MARGIN,
        "verdict_rule": "confirmed if the 95% interval lies above 0; else no_material_difference if the 90% "
                        "interval lies inside +-0.01; else inconclusive",
    }
    out.update(paired_endpoint(session_gains(cons, clim, chosen), seed))
    out["sensitivity_exact_window"] = {
        "assets": list(EXACT_WINDOW_ASSETS),
        "climatology": "the sealed table's 1d p_up of these indices, built on the 09:30-16:00 session itself",
        **paired_endpoint(session_gains(cons, clim, chosen, EXACT_WINDOW_ASSETS), seed)}
    if not chosen:
        out["reason"] = f"the season has fewer than {first} sessions"
    return out


def best_earlier_seat(scored: pd.DataFrame, cons: pd.DataFrame, horizon: str, all_sessions: Sequence[str],
                      window: tuple[int, int] = PRIMARY_WINDOW) -> JsonObject:
    """The consensus against the best single council seat of an earlier window (§4.5, F10).

    The seat is chosen on the design window (sessions before the primary window) by its mean Brier at
    this horizon, then both are scored on the primary window's common events the seat answered.
    """
    first, last = window
    design = numbered_sessions(all_sessions, 1, first - 1)
    later = numbered_sessions(all_sessions, first, last)
    s = scored.loc[(scored["horizon"] == horizon) & ~scored["is_baseline"]]
    early = s.loc[s["session"].isin(design)].groupby("seat")["b"].mean()
    base: JsonObject = {"choice_window": {"first": design[0] if design else None,
                                              "last": design[-1] if design else None},
                            "comparison_window": {"first": later[0] if later else None,
                                                  "last": later[-1] if later else None}}
    if early.empty or not later:
        return {**base, "seat": None, "reason": "no council score in the design window or no later session"}
    best = str(early.sort_index().idxmin())
    seat = s.loc[s["session"].isin(later) & (s["seat"] == best)].set_index("event_key")["b"]
    c = cons.loc[(cons["horizon"] == horizon) & cons["session"].isin(later) & cons["outcome"].notna()]
    cb = ((c["p"] / 100.0 - c["outcome"]) ** 2).set_axis(c["event_key"])
    common = seat.index.intersection(cb.index)
    return {**base, "seat": best, "events": len(common),
            "brier_seat": float(seat.loc[common].mean()) if len(common) else None,
            "brier_consensus": float(cb.loc[common].mean()) if len(common) else None}
