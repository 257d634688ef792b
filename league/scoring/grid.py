"""The grid (scoring.md §7): seat x market x horizon cells and their marginal views."""

from __future__ import annotations

import numpy as np
import pandas as pd

from league.jsonvalue import JsonObject


def _prepare(r: pd.DataFrame) -> pd.DataFrame:
    """Per-row pieces whose group sums give every cell statistic (one vectorised pass)."""
    d = r["p"] != 50.0
    low = r["p"] < 50.0
    return pd.DataFrame({
        "b": r["b"], "session": r["session"], "abs_dev": 2.0 * (r["p"] - 50.0).abs(),
        "directional": d.astype(float),
        "right": (d & (((r["p"] > 50) & (r["outcome"] == 1)) | (low & (r["outcome"] == 0)))).astype(float),
        "folded_p": np.where(d, np.where(low, 100.0 - r["p"], r["p"]), 0.0),
        "folded_o": np.where(d, np.where(low, 1.0 - r["outcome"], r["outcome"]), 0.0),
    }, index=r.index)


def view(r: pd.DataFrame, keys: list[str]) -> list[JsonObject]:
    """Statistics per combination of ``keys`` (e.g. ["seat"], ["asset"], ["seat", "asset", "horizon"])."""
    x = _prepare(r)
    g = x.groupby([r[k] for k in keys], sort=True)
    t = pd.DataFrame({"n": g.size(), "sessions": g["session"].nunique(), "brier": g["b"].mean(),
                      "sharpness_K": g["abs_dev"].mean(), "nd": g["directional"].sum(), "right": g["right"].sum(),
                      "fp": g["folded_p"].sum(), "fo": g["folded_o"].sum()})
    out: list[JsonObject] = []
    for name, row in t.iterrows():
        names = name if isinstance(name, tuple) else (name,)
        nd = int(row["nd"])
        out.append({**{k: str(v) for k, v in zip(keys, names, strict=True)}, "n": int(row["n"]),
                    "sessions": int(row["sessions"]), "brier": float(row["brier"]),
                    "hit_rate": float(row["right"] / nd) if nd else None, "sharpness_K": float(row["sharpness_K"]),
                    "calibration": {"mean_folded_stated": float(row["fp"] / nd) if nd else None,
                                    "realised_folded": float(100.0 * row["fo"] / nd) if nd else None,
                                    "n_directional": nd}})
    return out


def grid(r: pd.DataFrame) -> dict[str, list[JsonObject]]:
    """Cells and the three marginal views, over every scored seat (baselines included, labelled by id)."""
    return {"cells": view(r, ["seat", "asset", "horizon"]), "by_seat": view(r, ["seat"]),
            "by_asset": view(r, ["asset"]), "by_horizon": view(r, ["horizon"])}
