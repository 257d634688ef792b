"""Build the published statistics files from the forecasts table and the sealed climatology.

Every builder returns plain JSON-ready dicts (NaN becomes null) and reads nothing but the forecast
rows and the climatology table, whose seal it re-checks first; :func:`write_stats` writes them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd
import structlog

from league.jsonvalue import Json, JsonObject, obj
from league.scoring import climatology as climmod
from league.scoring import council, endpoint, grid, intervals, missing, scores, segments
from league.scoring.consensus import DEFAULT_RULES, Rules, consensus, dedupe
from league.scoring.constants import (
    BOOTSTRAP_REPS,
    BOOTSTRAP_SEED,
    CALIB_MIN,
    EQUIV_MARGIN,
    GAIN_BLOCK,
    N_EFF_INTERVAL_RUNS,
    PRIMARY_WINDOW,
    RANK_MIN_FORECASTS,
    RANK_MIN_SESSIONS,
)
from league.scoring.errors import ForecastsInputError
from league.scoring.frame import (
    COUNCIL_COLUMNS,
    SCORED_COLUMNS,
    STATS_COLUMNS,
    council_rows,
    load_forecasts,
    scored_rows,
)

log = structlog.get_logger(__name__)
CROWD_METHOD = ("crowd prices are sealed in run lines, not in council-forecasts.csv; the crowd comparison is "
                "built from the book by the crowd module (scoring.md §8)")


def clean_dict(value: Mapping[str, object]) -> JsonObject:
    """:func:`clean` for a top-level object (typed for callers)."""
    return {str(k): clean(v) for k, v in value.items()}


def clean(value: object) -> Json:
    """Recursively turn numpy scalars into Python numbers and NaN/inf into None: the statistics as JSON.

    A value JSON has no form for is refused here, as ``json.dumps`` would refuse it when the file is written."""
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, str | int | float):
        return value
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


@dataclass(frozen=True)
class Segment:
    """One methodology version (paper §3.10, requirement 15): its sealed rules, never pooled with another."""

    version: str
    rules: Rules = DEFAULT_RULES
    calib_min: int = CALIB_MIN
    seed: int = BOOTSTRAP_SEED
    sealed: bool = False

    @classmethod
    def of(cls, version: str, sealed: Mapping[str, Json] | None) -> Segment:
        """The segment's rules as sealed in its run lines' ``methodology`` (defaults when none is given)."""
        m = dict(sealed or {})
        return cls(version, Rules.from_methodology(m), _integer(m.get("calib_min", CALIB_MIN)),
                   _integer(m.get("bootstrap_seed", BOOTSTRAP_SEED)), bool(sealed))

    def as_json(self) -> JsonObject:
        return {"methodology_version": self.version, **self.rules.as_json(), "calib_min": self.calib_min,
                "bootstrap_seed": self.seed,
                "source": "sealed run lines" if self.sealed else "defaults (no sealed methodology given)"}


def _integer(value: Json | None) -> int:
    """A sealed whole number as ``int()`` reads it; any other shape fails as ``int()`` would."""
    if isinstance(value, int | float | str):
        return int(value)
    raise TypeError(f"int() argument must be a string, a bytes-like object or a real number, "
                    f"not {type(value).__name__!r}")


class Season:
    """The typed forecasts of one methodology segment plus everything derived once and shared."""

    def __init__(self, df: pd.DataFrame, clim_table: Mapping[str, Json], families: Mapping[str, str] | None,
                 sides: Mapping[str, str] | None = None, shadow: Mapping[str, Json] | None = None,
                 segment: Segment | None = None) -> None:
        self.df = df
        self.segment = segment or Segment(str(df["methodology_version"].iloc[0]) if len(df) else "")
        self.rules = self.segment.rules
        self.shadow = shadow
        self.clim_table = clim_table
        self.clim_sha = climmod.check_climatology(clim_table)
        self.clim = climmod.clim_probabilities(clim_table)
        self.families = dict(families or {})
        self.sides = dict(sides or {})
        self.sessions = sorted(df["session"].unique())
        # The three row sets keep only the columns their statistics read (less memory): each is a copy of its rows.
        self.scored = scores.with_references(scored_rows(df, SCORED_COLUMNS), df, self.clim,
                                             climmod.clim_probabilities(clim_table, ex_draw=True))
        self.council = dedupe(council_rows(df, common_only=True, columns=COUNCIL_COLUMNS))
        self.council_all = dedupe(council_rows(df, counted_only=False, common_only=True, columns=COUNCIL_COLUMNS))
        self.cons = consensus(self.council, self.families, self.rules)
        self.n_eff_counted = council.n_eff_table(self.council, self.clim)
        self.seat_scores = scores.seat_scores(self.scored, self.segment.seed)
        self.missing = missing.three_outcomes(df)


def _consensus_rows(season: Season) -> pd.DataFrame:
    """Published consensus per event, carrying its n, the run's mean correlation and N_eff."""
    ne = pd.DataFrame(season.n_eff_counted, columns=["unit", "horizon", "rho", "n_eff"])
    c = season.cons.merge(ne, on=["unit", "horizon"], how="left")
    c["b"] = (c["p"] / 100.0 - c["outcome"]) ** 2
    c["seat"] = "_consensus"
    return c


def _consensus_summary(season: Season, c: pd.DataFrame) -> list[JsonObject]:
    r = season.scored.drop_duplicates("event_key").set_index("event_key")[["b_coin", "b_clim"]]
    out: list[JsonObject] = []
    for horizon, g in c.loc[c["outcome"].notna()].groupby("horizon", sort=True):
        j = g.join(r, on="event_key")
        b = float(g["b"].mean())
        out.append({"horizon": str(horizon), "events": len(g), "brier": b,
                    "mean_n": float(g["n"].mean()), "mean_rho": float(g["rho"].mean()),
                    "mean_n_eff": float(g["n_eff"].mean()), "dispersion_mean": float(g["dispersion"].mean()),
                    "bss_coin": 1 - b / float(j["b_coin"].mean()), "bss_climatology": 1 - b / float(j["b_clim"].mean()),
                    "vs_best_earlier_seat": endpoint.best_earlier_seat(season.scored, c, str(horizon),
                                                                       season.sessions)})
    return out


def stats_json(season: Season) -> JsonObject:
    """``council-stats.json``: scores, intervals, N_eff (counted and all runs), power, council."""
    c = _consensus_rows(season)
    design = endpoint.numbered_sessions(season.sessions, 1, PRIMARY_WINDOW[0] - 1)
    weights = (council.check_shadow_weights(season.shadow) if season.shadow is not None
               else council.shadow_weights(season.council, design))
    fields = ["run_id", "session", "event_id", "asset", "horizon", "p", "p_mean", "n", "n_used", "rho", "n_eff",
              "dispersion", "outcome"]
    per_event = c.rename(columns={"event_key": "event_id"})[fields].sort_values(["session", "asset", "horizon"])
    later = endpoint.numbered_sessions(season.sessions, *PRIMARY_WINDOW)
    return clean_dict({
        "source": _source(season),
        "rules": _rules(season.segment),
        "climatology": {"sha256": season.clim_sha, "sha256_ok": True},
        "scores": season.seat_scores,
        "references": scores.reference_scores(season.scored),
        "power_brier": [{"seat": s["seat"], "horizon": s["horizon"], "delta": EQUIV_MARGIN,
                         "sigma_g": s["gain_vs_climatology"]["sd"], "sessions_needed": s["power_brier"]}
                        for s in season.seat_scores],
        "equivalence": scores.equivalence_rows(season.seat_scores),
        "design_effect": scores.design_effects(season.scored),
        "brier3": {"applicable": False, "reason": "this league asks up/down only; B3 needs up/draw/down shares"},
        "draw_band": _draw_band(season),
        "n_eff": {"counted": {"per_run": season.n_eff_counted, "summary": _n_eff_summary(season.n_eff_counted)},
                  "per_run": council.n_eff_table(season.council_all, season.clim)},
        "consensus": {"summary": _consensus_summary(season, c), "per_event": per_event.to_dict("records")},
        "primary_endpoint": endpoint.primary_endpoint(season.cons, season.clim, season.sessions, season.segment.seed),
        "council": {
            **council.shared_errors(season.council, season.cons),
            "by_run_horizon": council.run_horizon_table(season.council, season.n_eff_counted),
            "distinctiveness": council.distinctiveness(season.council),
            "seat_value": council.seat_value(season.council, season.families, season.cons, season.rules),
            "shadow": {"weights": weights, "weights_sealed": season.shadow is not None, **council.shadow_consensus(
                season.council, season.cons, weights, season.families, season.rules, later, season.segment.seed)},
            "sides": council.sides(season.council, season.sides),
        },
        "missing": season.missing,
        "sample_notes": _notes(season),
    })


def _source(season: Season) -> JsonObject:
    df = season.df
    return {"rows": len(df), "scored_rows": len(season.scored), "sessions": int(df["session"].nunique()),
            "first_session": str(df["session"].min()), "last_session": str(df["session"].max()),
            "seats": sorted(df["seat"].unique().tolist()),
            "methodology_versions": sorted(df["methodology_version"].unique().tolist())}


def _rules(segment: Segment) -> JsonObject:
    return {"clamp": [segment.rules.clamp_lo, segment.rules.clamp_hi], "trim_from": segment.rules.trim_from,
            "family_weight": segment.rules.family_weight,
            "rank_rule": {"forecasts": RANK_MIN_FORECASTS, "sessions": RANK_MIN_SESSIONS},
            "calib_min": segment.calib_min,
            "bootstrap": {"reps": BOOTSTRAP_REPS, "seed": segment.seed, "gain_block": GAIN_BLOCK},
            "equivalence_margin": EQUIV_MARGIN, "primary_window": list(PRIMARY_WINDOW),
            "methodology": segment.as_json()}


def _draw_band(season: Season) -> list[JsonObject]:
    ev = season.scored.drop_duplicates("event_key")
    return [{"horizon": str(h), "events": len(g), "draws": int((g["draw_flag"] == 1).sum()),
             "draw_unknown": int(g["draw_flag"].isna().sum())} for h, g in ev.groupby("horizon", sort=True)]


def _n_eff_summary(per_run: list[JsonObject]) -> list[JsonObject]:
    """Per horizon: the means over counted runs, with a Student t interval on the per-run values
    once five counted runs exist (paper §5.1); none before."""
    if not per_run:
        return []
    t = pd.DataFrame(per_run)
    g = t.groupby("horizon", sort=True)
    return [{"horizon": str(h), "runs": len(x), "mean_n": float(x["n"].mean()), "mean_rho": float(x["rho"].mean()),
             "mean_n_eff": float(x["n_eff"].mean()), "interval": _run_interval(x["n_eff"]),
             "rho_interval": _run_interval(x["rho"])} for h, x in g]


def _run_interval(values: pd.Series) -> JsonObject:
    v = values.dropna().to_numpy(dtype=float)
    if v.size < N_EFF_INTERVAL_RUNS:
        return {"method": None, "lo": None, "hi": None, "runs": int(v.size),
                "reason": f"fewer than {N_EFF_INTERVAL_RUNS} counted runs"}
    lo, hi = intervals.t_interval(v)
    return {"method": "student_t_run_values", "lo": lo, "hi": hi, "level": 0.95, "runs": int(v.size)}


def _notes(season: Season) -> list[str]:
    notes = [f"{len(season.df) - len(season.scored)} rows do not enter the stated-probability Brier "
             "(not counted, unanswered, unresolved, late reference or not the common event)"]
    if any(not s["in_table"] for s in season.seat_scores):
        notes.append("seats below the 30/10 rule are listed but not ranked (in_table false)")
    return notes


def calibration_json(season: Season) -> JsonObject:
    """``council-calibration.json``: the sealed climatology (re-checked) and calibration bins and fits."""
    body = {k: v for k, v in season.clim_table.items() if k != "sha256"}
    seat_bins, seat_fits = scores.calibration_tables(season.scored, min_count=season.segment.calib_min)
    c = _consensus_rows(season)
    c_bins, c_fits = scores.calibration_tables(c.loc[c["outcome"].notna()], min_count=season.segment.calib_min)
    return clean_dict({
        "climatology_fixed": {"table": body, "sha256": season.clim_table.get("sha256"),
                              "sha256_ok": climmod.sha256_ok(season.clim_table)},
        "bins": seat_bins + c_bins, "fits": seat_fits + c_fits, "calib_min": season.segment.calib_min,
        "crowd_method": CROWD_METHOD,
    })


def league_json(season: Season) -> JsonObject:
    """``council-league.json``: the ranked models table plus marginal views by seat, asset, horizon."""
    cov = {(m["seat"], m["horizon"]): m["coverage"] for m in season.missing}
    ranks = _ranks(season.seat_scores)
    models = [{"seat": s["seat"], "horizon": s["horizon"], "brier": s["brier"], "n": s["n"], "sessions": s["sessions"],
               "in_table": s["in_table"], "interval": s["interval"], "brier_ex_draw": s["brier_ex_draw"],
               "dropped_draw": s["dropped_draw"], "bss": s["bss"], "coverage": cov.get((s["seat"], s["horizon"])),
               "baseline_seat": s["baseline_seat"], "rank": rank}
              for s, rank in zip(season.seat_scores, ranks, strict=True)]
    return clean_dict({"models": models, "grid": grid.grid(season.scored),
                  "crowd": {"available": False, "reason": CROWD_METHOD}, "portfolio": None})


def _ranks(seat_scores: list[scores.SeatScore]) -> list[int | None]:
    """Each score's rank in its horizon among seats that pass the 30/10 rule; others get rank None."""
    ranks: list[int | None] = [None] * len(seat_scores)
    for h in {s["horizon"] for s in seat_scores}:
        ranked = sorted((i for i, s in enumerate(seat_scores) if s["horizon"] == h and s["in_table"]),
                        key=lambda i: seat_scores[i]["brier"])
        for rank, i in enumerate(ranked, 1):
            ranks[i] = rank
    return ranks


def build_all(df: pd.DataFrame, clim_table: Mapping[str, Json], families: Mapping[str, str] | None = None,
              sides: Mapping[str, str] | None = None,
              shadow_weights: Mapping[str, Json] | None = None,
              methodologies: Mapping[str, Mapping[str, Json]] | None = None,
              sealed_shadow: Mapping[str, Mapping[str, Json]] | None = None) -> dict[str, JsonObject]:
    """Every published statistics file, keyed by file name.

    Scores never pool across methodology versions (paper §3.10, requirement 15): each version's rows
    are one segment, computed with that version's sealed rules (``methodologies``: version -> the
    ``methodology`` object sealed in its run lines; constants stand in where none is given). Every
    record of a list carries its ``methodology_version``; ``segments`` lists them.
    ``shadow_weights``: sealed weights frozen earlier (re-checked), for every segment;
    ``sealed_shadow``: version -> the weights sealed in the book for that segment (``shadow_weights``
    lines, paper §5.3: frozen when session 10 was scored), re-checked and used instead of a recount;
    without either, a segment's weights are computed from its design window (sessions 1-10).
    """
    if df.empty:
        raise ForecastsInputError("the forecasts table has no rows", fix="publish council-forecasts.csv after a run")
    try:
        seasons = [Season(part, clim_table, families, sides, (sealed_shadow or {}).get(version, shadow_weights),
                          Segment.of(version, (methodologies or {}).get(version)))
                   for version, part in _segments(df)]
        built = [{"council-stats.json": stats_json(s), "council-calibration.json": calibration_json(s),
                  "council-league.json": league_json(s)} for s in seasons]
    finally:
        intervals.forget_draws()  # the draws grow with the season; nothing after the statistics needs them
    out = {name: obj(segments.merge([(s.segment.version, b[name]) for s, b in zip(seasons, built, strict=True)]))
           for name in ("council-stats.json", "council-calibration.json", "council-league.json")}
    out["council-stats.json"]["source"] = _source_all(df)
    out["council-stats.json"]["segments"] = [
        {**s.segment.as_json(), "first_session": s.sessions[0], "last_session": s.sessions[-1],
         "sessions": len(s.sessions)} for s in seasons]
    out["council-clim-window.json"] = clean_dict(clim_table)
    return {k: out[k] for k in ("council-stats.json", "council-calibration.json", "council-clim-window.json",
                                "council-league.json")}


def _segments(df: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """The methodology versions in order of their first session, each with its rows."""
    first = df.groupby("methodology_version")["session"].min().sort_values(kind="mergesort")
    return [(str(v), df.loc[df["methodology_version"] == v].reset_index(drop=True)) for v in first.index]


def _source_all(df: pd.DataFrame) -> JsonObject:
    return {"rows": len(df), "sessions": int(df["session"].nunique()),
            "first_session": str(df["session"].min()), "last_session": str(df["session"].max()),
            "seats": sorted(df["seat"].unique().tolist()),
            "methodology_versions": sorted(df["methodology_version"].unique().tolist())}


def write_stats(forecasts_csv: Path, out_dir: Path, clim_table: Mapping[str, Json] | None,
                families: dict[str, str], sides: dict[str, str] | None = None,
                methodologies: Mapping[str, Mapping[str, Json]] | None = None,
                shadow_weights: Mapping[str, Mapping[str, Json]] | None = None) -> dict[str, Path]:
    """Read the forecasts CSV, compute everything, write the four files; return name -> path.
    ``shadow_weights``: methodology version -> the weights sealed in the book for that segment."""
    df = load_forecasts(forecasts_csv, STATS_COLUMNS)  # the columns the statistics read, not the free text
    if clim_table is None:
        clim_table = climmod.default_table(date.fromisoformat(str(df["session"].min())))
    files = build_all(df, clim_table, families, sides, methodologies=methodologies, sealed_shadow=shadow_weights)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, content in files.items():
        path = out_dir / name
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(content, indent=1, sort_keys=True, allow_nan=False) + "\n", encoding="utf-8")
        tmp.replace(path)
        paths[name] = path
    log.info("stats_written", out_dir=str(out_dir), files=sorted(paths))
    return paths
