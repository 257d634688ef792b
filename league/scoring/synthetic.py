"""A reproducible synthetic season in the exact shape of ``council-forecasts.csv``.

Used by the tests (a season whose statistics are recomputed from the CSV alone) and by the
benchmark (126 sessions x 14 seats x 12 markets x 4 horizons, about 85,000 cells). Prices follow a
random walk with a common daily factor, seats see a noisy shared view of the future plus their own
noise, so correlations between seats, shared errors and skill all exist and are non-trivial.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from league.scoring.constants import ASSETS, FORECAST_COLUMNS, HORIZON_SESSIONS, HORIZONS

DEFAULT_SEATS: tuple[str, ...] = (
    "claude", "claude-mini", "gpt", "gpt-mini", "gemini", "gemini-flash", "grok", "deepseek", "qwen",
    "kimi", "mistral",
)
BASELINES: tuple[str, ...] = ("_coin", "_climatology", "_momentum")


def _sessions(n: int) -> list[str]:
    return [d.date().isoformat() for d in pd.bdate_range("2026-01-05", periods=n)]


def _prices(n_sessions: int, rng: np.random.Generator) -> np.ndarray:
    """(assets, sessions + 127) price paths with a common factor (markets of a day move together)."""
    total = n_sessions + max(HORIZON_SESSIONS.values()) + 1
    common = rng.normal(0, 0.008, total)
    own = rng.normal(0, 0.01, (len(ASSETS), total))
    return np.asarray(100.0 * np.exp(np.cumsum(0.0003 + common + own, axis=1)), dtype=float)


def synthetic_season(
    n_sessions: int = 126,
    seats: Sequence[str] = DEFAULT_SEATS + BASELINES,
    *,
    seed: int = 7,
    clim: Mapping[tuple[str, str], float] | None = None,
    missing_share: float = 0.03,
) -> pd.DataFrame:
    """All columns as text, one row per seat x session x market x horizon."""
    rng = np.random.default_rng(seed)
    prices = _prices(n_sessions, rng)
    sessions = _sessions(n_sessions)
    s_i, a_i, h_i, k_i = (x.ravel() for x in np.meshgrid(
        np.arange(n_sessions), np.arange(len(ASSETS)), np.arange(len(HORIZONS)), np.arange(len(seats)),
        indexing="ij"))
    h_len = np.array([HORIZON_SESSIONS[h] for h in HORIZONS])[h_i]
    ref = prices[a_i, s_i + 1]
    close = prices[a_i, s_i + 1 + h_len]
    view = rng.normal(0, 1, (n_sessions, len(ASSETS), len(HORIZONS)))[s_i, a_i, h_i]
    move = np.log(close / ref) / (0.013 * np.sqrt(h_len))
    seat_arr = np.asarray(seats)[k_i]
    p = _seat_probs(seat_arr, s_i, a_i, h_i, k_i, move, view, prices, rng, clim)
    frame = _frame(sessions, seat_arr, s_i, a_i, h_i, k_i, ref, close, p)
    return _knock_out(frame, rng, missing_share)


def _seat_probs(seat_arr: np.ndarray, s_i: np.ndarray, a_i: np.ndarray, h_i: np.ndarray, k_i: np.ndarray,
                move: np.ndarray, view: np.ndarray, prices: np.ndarray, rng: np.random.Generator,
                clim: Mapping[tuple[str, str], float] | None) -> np.ndarray:
    skill = 4.0 + 2.0 * (k_i % 5)
    noise = rng.normal(0, 6.0, k_i.size)
    p = np.clip(np.rint(50 + skill * np.tanh(move) * 0.5 + 8.0 * view + noise), 1, 99)
    p = np.where(seat_arr == "_coin", 50.0, p)
    yesterday = np.sign(prices[a_i, s_i + 1] - prices[a_i, s_i])
    p = np.where(seat_arr == "_momentum", np.where(yesterday > 0, 55.0, 45.0), p)
    if clim is not None:
        cl = np.array([clim.get((ASSETS[a], HORIZONS[h]), 50.0) for a, h in zip(a_i, h_i, strict=True)])
        p = np.where(seat_arr == "_climatology", np.rint(cl), p)
    return np.asarray(p, dtype=float)


def _event_ids(sessions: list[str]) -> dict[tuple[int, int, int], str]:
    out = {}
    for s, day in enumerate(sessions):
        for a, asset in enumerate(ASSETS):
            for h, hor in enumerate(HORIZONS):
                out[(s, a, h)] = hashlib.sha256(f"{asset}|{hor}|{day}".encode()).hexdigest()[:16]
    return out


def _frame(sessions: list[str], seat_arr: np.ndarray, s_i: np.ndarray, a_i: np.ndarray, h_i: np.ndarray,
           k_i: np.ndarray, ref: np.ndarray, close: np.ndarray, p: np.ndarray) -> pd.DataFrame:
    day = np.asarray(sessions)[s_i]
    ids = _event_ids(sessions)
    ev = np.array([ids[(s, a, h)] for s, a, h in zip(s_i, a_i, h_i, strict=True)])
    actual = 100.0 * (close / ref - 1.0)
    cols: dict[str, object] = {c: "" for c in FORECAST_COLUMNS}
    cols.update({
        "run_id": np.char.add("run-", day), "session": day, "seat": seat_arr, "model": np.char.add(seat_arr, "-m"),
        "mode": "high", "line": (s_i * 20 + k_i + 2).astype(str), "sealed_at": np.char.add(day, "T13:00:00Z"),
        "status": "counted", "asset": np.asarray(ASSETS)[a_i], "horizon": np.asarray(HORIZONS)[h_i],
        "action": "hold", "prob_up": p.astype(int).astype(str), "ref": np.char.mod("%.6f", ref),
        "close": np.char.mod("%.6f", close), "actual_pct": np.char.mod("%.6f", actual),
        "draw": np.where(np.abs(actual) < 0.05, "1", "0"), "run_role": "counted", "seat_versions_in_run": "1",
        "line_kind": "answer", "reference_at": np.char.add(day, "T14:30:00Z"), "same_event": "1",
        "cell_status": np.where(p == 50, "explicit_50", "elicited"), "attempt": "1",
        "event_id": np.char.add("ev1-", ev), "event_id_v2": np.char.add("ev2-", ev),
        "event_reference_at": np.char.add(day, "T14:30:00Z"), "methodology_version": "1",
    })
    cols["event_end_at"] = cols["event_reference_at"]
    return pd.DataFrame(cols)[list(FORECAST_COLUMNS)]


def _knock_out(frame: pd.DataFrame, rng: np.random.Generator, share: float) -> pd.DataFrame:
    """Some council cells go unanswered (no_answer) and a few are sealed after the reference."""
    council = ~frame["seat"].str.startswith("_").to_numpy()
    gone = council & (rng.random(len(frame)) < share)
    frame.loc[gone, ["prob_up", "action"]] = ""
    frame.loc[gone, "status"] = "no_answer"
    frame.loc[gone, "cell_status"] = "invalid"
    frame.loc[gone, "why_missing"] = "timeout"
    late = council & ~gone & (rng.random(len(frame)) < share / 3)
    frame.loc[late, "sealed_at"] = frame.loc[late, "session"] + "T14:45:00Z"
    frame.loc[late, "same_event"] = "0"  # a late answer gets its own reference: a separate event
    return frame


def synthetic_families(seats: Sequence[str] = DEFAULT_SEATS) -> dict[str, str]:
    """Seats named ``<lab>`` and ``<lab>-<variant>`` share a family."""
    return {s: s.split("-")[0] for s in seats}


def synthetic_sides(seats: Sequence[str] = DEFAULT_SEATS) -> dict[str, str]:
    """An example split (US vs Chinese labs) for the sides diagnostics."""
    cn = {"deepseek", "qwen", "kimi"}
    return {s: "cn" if s in cn else "us" for s in seats if not s.startswith("_")}
