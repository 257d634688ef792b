"""The council's consensus per event (scoring.md §6), vectorised over a whole season.

Rules: council seats only, answers sealed before the event's reference only; with at least five
answers the single lowest and highest are dropped; within a family (lab) the first seat to seal
weighs 1 and every further seat 1/3; the weighted mean is clamped to [2, 98]. The unclamped mean and
the dispersion term are kept so that the averaging identity can be shown beside the score.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from league.jsonvalue import Json, JsonObject, as_float
from league.scoring.constants import CLAMP_HI, CLAMP_LO, FAMILY_EXTRA_WEIGHT, TRIM_MIN_ANSWERS

EVENT = ["unit", "event_key"]
_ORDER = ["unit", "event_key", "sealed_at", "seat"]


@dataclass(frozen=True)
class Rules:
    """The consensus parameters of one methodology version (sealed in every run line's ``methodology``).

    The constants are only the defaults for a reader holding the CSV alone; the publisher passes the
    values sealed in the run lines, so a league that seals another clamp is scored with its own clamp.
    """

    clamp_lo: float = CLAMP_LO
    clamp_hi: float = CLAMP_HI
    trim_from: int = TRIM_MIN_ANSWERS
    family_weight: float = FAMILY_EXTRA_WEIGHT

    @classmethod
    def from_methodology(cls, sealed: Mapping[str, Json] | None) -> Rules:
        """Read ``consensus_clamp``, ``consensus_trim_from`` and ``family_weight`` (defaults where absent)."""
        m = dict(sealed or {})
        lo, hi = _pair(m["consensus_clamp"]) if "consensus_clamp" in m else (CLAMP_LO, CLAMP_HI)
        return cls(lo, hi, int(as_float(m.get("consensus_trim_from", TRIM_MIN_ANSWERS))),
                   as_float(m.get("family_weight", FAMILY_EXTRA_WEIGHT)))

    def as_json(self) -> JsonObject:
        return {"clamp": [self.clamp_lo, self.clamp_hi], "trim_from": self.trim_from,
                "family_weight": self.family_weight}


DEFAULT_RULES = Rules()


def _pair(value: Json | None) -> tuple[float, float]:
    """A sealed ``[lo, hi]`` pair; any other shape fails as unpacking it would."""
    if not isinstance(value, list) or len(value) != 2:
        raise TypeError(f"cannot unpack {type(value).__name__!r} into a clamp [lo, hi]")
    lo, hi = value
    return as_float(lo), as_float(hi)


def dedupe(rows: pd.DataFrame) -> pd.DataFrame:
    """One answer per seat and event in a run: the first sealed (the one that counts).

    Adds ``ev``, an integer code per (run, event), so that later group-bys work on integers; a
    frame already carrying ``ev`` is returned as it is (its subsets stay de-duplicated).
    """
    if "ev" in rows.columns:
        return rows
    if "unit" not in rows.columns:
        rows = rows.assign(unit=rows["run_id"])
    out = rows.iloc[_first_answers(rows)]  # one copy of the kept rows, not three of every row
    out["ev"] = pd.factorize(out["unit"] + "\x1f" + out["event_key"], sort=True)[0]
    return out


def _first_answers(rows: pd.DataFrame) -> npt.NDArray[np.intp]:
    """Positions in ``rows`` of the first sealed answer per (unit, event, seat), in (unit, event, sealed,
    seat) order: the same stable sort and first-kept rule as sorting and de-duplicating the whole frame,
    done on the four key columns alone (the other columns neither move the order nor the choice)."""
    keys = rows[_ORDER].reset_index(drop=True)
    ordered = keys.sort_values(_ORDER, kind="mergesort")
    first = ~ordered.duplicated(["unit", "event_key", "seat"], keep="first").to_numpy()
    return np.asarray(ordered.index.to_numpy()[first], dtype=np.intp)


def family_of(seats: pd.Series, families: Mapping[str, str] | None) -> pd.Series:
    """A seat's family from the roster; by default every seat is its own family."""
    if not families:
        return seats
    return seats.map(families).fillna(seats)


def member_weights(rows: pd.DataFrame, families: Mapping[str, str] | None, rules: Rules = DEFAULT_RULES,
                   seat_weights: Mapping[str, float] | None = None) -> pd.DataFrame:
    """Kept members of each event with their weights (trimmed rows removed).

    ``seat_weights`` (the shadow consensus) multiplies each kept member's family weight by its
    frozen seat weight; the mean divides by the sum, so the weights are renormalised over the seats
    that answered each event.
    """
    r = dedupe(rows)[["ev", "seat", "p"]].copy()
    grp = r.groupby("ev", sort=False)["p"]
    size = grp.transform("size")
    rank = grp.rank(method="first")
    keep = (size < rules.trim_from) | ((rank > 1) & (rank < size))
    r = r.loc[keep].copy()
    r["family"] = pd.factorize(family_of(r["seat"], families))[0]
    order = r.groupby(["ev", "family"], sort=False).cumcount()
    r["w"] = np.where(order == 0, 1.0, rules.family_weight)
    if seat_weights is not None:
        r["w"] = r["w"] * r["seat"].map(seat_weights).astype(float).to_numpy()
    r["n_answers"] = size.loc[keep]
    return r


def consensus(rows: pd.DataFrame, families: Mapping[str, str] | None = None, rules: Rules = DEFAULT_RULES,
              seat_weights: Mapping[str, float] | None = None) -> pd.DataFrame:
    """Per (run, event): consensus p (clamped), unclamped mean, n, dispersion, outcome and keys."""
    m = member_weights(rows, families, rules, seat_weights)
    m["wp"] = m["w"] * m["p"]
    g = m.groupby("ev", sort=True)
    out = pd.DataFrame({"w_sum": g["w"].sum(), "wp_sum": g["wp"].sum(), "n": g["n_answers"].first(),
                        "n_used": g["p"].size()})
    out["p_mean"] = out["wp_sum"] / out["w_sum"]
    m["disp"] = m["w"] * ((m["p"] - out["p_mean"].reindex(m["ev"]).to_numpy()) / 100.0) ** 2
    out["dispersion"] = m.groupby("ev", sort=True)["disp"].sum() / out["w_sum"]
    out["p"] = out["p_mean"].clip(rules.clamp_lo, rules.clamp_hi)
    fields = EVENT + ["run_id", "asset", "horizon", "session", "outcome", "h_sessions"]
    keys = dedupe(rows).groupby("ev", sort=True)[fields]
    return out.drop(columns=["wp_sum"]).join(keys.first()).reset_index(drop=True)


def averaging_terms(p_pct: np.ndarray, w: np.ndarray, outcome: float) -> tuple[float, float, float]:
    """The three terms of ``(p̄ - o)^2 = sum w_i (p_i - o)^2 - sum w_i (p_i - p̄)^2`` (normalised w)."""
    q = np.asarray(p_pct, dtype=float) / 100.0
    wn = np.asarray(w, dtype=float) / np.sum(w)
    mean = float(np.sum(wn * q))
    return (mean - outcome) ** 2, float(np.sum(wn * (q - outcome) ** 2)), float(np.sum(wn * (q - mean) ** 2))
