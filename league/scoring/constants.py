"""Numbers fixed by ``scoring.md``; one place so that docs, code and tests agree."""

from __future__ import annotations

from typing import Final

FORECAST_COLUMNS: Final[tuple[str, ...]] = (
    "run_id", "session", "seat", "model", "mode", "line", "sealed_at", "status", "asset", "horizon",
    "action", "action_word", "prob_up", "exp_pct", "target", "invalidation", "ref", "close", "actual_pct",
    "draw", "source_domains", "source_urls", "why_missing", "run_role", "seat_versions_in_run", "line_kind",
    "reference_at", "same_event", "cell_status", "attempt", "event_id", "event_id_v2", "event_reference_at",
    "event_end_at", "methodology_version",
)
ASSETS: Final[tuple[str, ...]] = (
    "SPX", "NDX", "DJI", "SOX", "TNX", "DXY", "VIX", "GOLD", "WTI", "BRENT", "COPPER", "BTC",
)
HORIZONS: Final[tuple[str, ...]] = ("1d", "1w", "1m", "6m")
#: Sessions per horizon (docs/protocol.md §1); bitcoin's calendar days are treated as the same count.
HORIZON_SESSIONS: Final[dict[str, int]] = {"1d": 1, "1w": 5, "1m": 21, "6m": 126}
#: Companion "one market per group" drops the near-duplicates (scoring.md §6).
GROUP_DUPLICATES: Final[frozenset[str]] = frozenset({"NDX", "DJI", "BRENT"})

COIN_P: Final[float] = 50.0
MOMENTUM_P: Final[float] = 55.0
CLAMP_LO: Final[float] = 2.0
CLAMP_HI: Final[float] = 98.0
TRIM_MIN_ANSWERS: Final[int] = 5
FAMILY_EXTRA_WEIGHT: Final[float] = 1.0 / 3.0
SHADOW_FLOOR: Final[float] = 0.05

CALIB_EDGES: Final[tuple[float, ...]] = (50.0, 60.0, 70.0, 80.0, 100.0)
CALIB_MIN: Final[int] = 20
RANK_MIN_FORECASTS: Final[int] = 30
RANK_MIN_SESSIONS: Final[int] = 10
INTERVAL_MIN_SESSIONS: Final[int] = 5
BOOTSTRAP_MIN_SESSIONS: Final[int] = 20
BOOTSTRAP_REPS: Final[int] = 10_000
#: The seed registered with the primary endpoint (paper §8, OSF registration): 20261102.
BOOTSTRAP_SEED: Final[int] = 20_261_102
GAIN_BLOCK: Final[int] = 5
EQUIV_MARGIN: Final[float] = 0.01
POWER_FACTOR: Final[float] = 7.85
ALL_WRONG_MIN: Final[int] = 4

COUNCIL_ROW_STATUSES: Final[frozenset[str]] = frozenset({"counted"})
STATED_CELL_STATUSES: Final[frozenset[str]] = frozenset({"elicited", "explicit_50"})

#: The primary window (paper §8): sessions 11 to 126 of a methodology segment, numbered from 1;
#: sessions 1-10 are the design window (the shadow weights, the best earlier single seat).
PRIMARY_WINDOW: Final[tuple[int, int]] = (11, 126)
#: The registered sensitivity: the four US indices, whose one-day event is the 09:30-16:00 session.
EXACT_WINDOW_ASSETS: Final[tuple[str, ...]] = ("SPX", "NDX", "DJI", "SOX")
#: N_eff's interval needs this many counted runs (paper §5.1: "intervals come from five counted runs").
N_EFF_INTERVAL_RUNS: Final[int] = 5
